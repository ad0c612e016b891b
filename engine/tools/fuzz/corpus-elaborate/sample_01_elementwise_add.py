# Elementwise add, C = A + B: the smallest complete tile program.
# Each thread block owns one block_M x block_N tile. It stages the A and B tiles through shared memory
# with T.copy, adds them in a T.Parallel loop into a register fragment (the compiler decides which thread
# owns which element), then writes the fragment back through shared memory to global memory.
# Sizes need not be multiples of the tile: out-of-range loads read 0 and out-of-range stores are dropped.
# tilebench-reference: elementwise_add
import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def elementwise_add(M, N, block_M, block_N, threads=128, in_dtype="float32", out_dtype="float32"):

    @T.prim_func
    def elem_add(
            A: T.Tensor((M, N), in_dtype),
            B: T.Tensor((M, N), in_dtype),
            C: T.Tensor((M, N), out_dtype),
    ):
        # Grid: (tiles along N, tiles along M); blockIdx.x walks the contiguous dimension.
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), in_dtype)
            B_shared = T.alloc_shared((block_M, block_N), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), out_dtype)
            C_shared = T.alloc_shared((block_M, block_N), out_dtype)

            T.copy(A[by * block_M, bx * block_N], A_shared)
            T.copy(B[by * block_M, bx * block_N], B_shared)
            for local_y, local_x in T.Parallel(block_M, block_N):
                C_local[local_y, local_x] = A_shared[local_y, local_x] + B_shared[local_y, local_x]
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return elem_add


M, N = 512, 1024
kernel = elementwise_add(M, N, 32, 32)
a = torch.randn(M, N, dtype=torch.float32, device="cuda")
b = torch.randn(M, N, dtype=torch.float32, device="cuda")
c = kernel(a, b)  # out_idx=[-1]: the kernel allocates and returns C
torch.testing.assert_close(c, a + b, rtol=1e-2, atol=1e-2)
print("elementwise add ok")
