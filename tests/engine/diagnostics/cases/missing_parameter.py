# a jit parameter with no default and no call that supplies it
import tilelang
import tilelang.language as T


@tilelang.jit
def scale(M, block_M=64):  # expected-error {{missing-parameter}}

    @T.prim_func
    def kernel(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i in T.Parallel(block_M):
                B[bx * block_M + i] = A[bx * block_M + i] * 2.0

    return kernel
