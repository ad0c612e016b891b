# a row reduction into a vector of the wrong length
import tilelang
import tilelang.language as T


@tilelang.jit
def rowmax(M=128, N=64, block_M=64):

    @T.prim_func
    def kernel(A: T.Tensor((M, N), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            tile = T.alloc_fragment((block_M, N), "float32")
            row = T.alloc_fragment((32,), "float32")
            T.copy(A[bx * block_M, 0], tile)
            T.reduce_max(tile, row, dim=1)  # expected-error {{reduce-shape-mismatch}}
            T.copy(row, B[bx * block_M])

    return kernel
