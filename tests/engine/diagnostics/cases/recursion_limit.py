# a jit helper that recurses forever
import tilelang
import tilelang.language as T


def tiles(n):
    return tiles(n + 1)  # expected-error {{recursion-limit}}


@tilelang.jit
def copy(M=128, block_M=64):
    count = tiles(M)

    @T.prim_func
    def kernel(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i in T.Parallel(block_M):
                B[bx * block_M + i] = A[bx * block_M + i]

    return kernel
