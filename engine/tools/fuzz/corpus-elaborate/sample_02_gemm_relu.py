# GEMM with a fused ReLU epilogue, C = ReLU(A @ B): the canonical tile GEMM.
# You place every tile yourself: A and B tiles in shared memory, the fp32 accumulator in registers (a
# fragment). T.Pipelined(num_stages=3) overlaps the loads of the next K tiles with the current T.gemm on
# tensor cores, T.use_swizzle reorders blocks for L2 reuse, and the ReLU runs on the accumulator in
# registers (T.Parallel + T.max) before one write back. This is the "GEMM to MLA" article's kernel, but
# TileLang spells the swizzle order "column" (it rejects "col"); 512^3 keeps CPU runs short.
# tilebench-reference: gemm_relu
import tilelang
import tilelang.language as T
import torch


@tilelang.jit
def matmul(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):

    @T.prim_func
    def matmul_relu_kernel(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        # Grid: (blocks along N, blocks along M); 128 threads per block
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):

            # Say where every tile lives
            A_shared = T.alloc_shared((block_M, block_K), dtype)  # shared memory
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)  # register accumulator

            T.use_swizzle(panel_size=4, order="column")  # optional: better L2 reuse
            T.clear(C_local)  # zero the accumulator

            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, ko * block_K], A_shared)  # global -> shared
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)  # tile-level MMA

            for i, j in T.Parallel(block_M, block_N):  # fused ReLU
                C_local[i, j] = T.max(C_local[i, j], 0)

            T.copy(C_local, C[by * block_M, bx * block_N])  # write back

    return matmul_relu_kernel


M = N = K = 512
kernel = matmul(M, N, K, block_M=128, block_N=128, block_K=64)
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(K, N, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
kernel(a, b, c)

torch.testing.assert_close(c, torch.relu(a @ b), rtol=1e-2, atol=1e-2)
print("gemm ok")
