# a reduction along a dimension the buffer does not have
import tilelang
import tilelang.language as T


@tilelang.jit
def rowsum(M=128, N=64, block_M=64):

    @T.prim_func
    def kernel(A: T.Tensor((M, N), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            tile = T.alloc_fragment((block_M, N), "float32")
            row = T.alloc_fragment((block_M,), "float32")
            T.copy(A[bx * block_M, 0], tile)
            T.reduce_sum(tile, row, dim=2)  # expected-error {{reduce-dim}}
            T.copy(row, B[bx * block_M])

    return kernel
