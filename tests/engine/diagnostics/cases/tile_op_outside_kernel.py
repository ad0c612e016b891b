# a tile operation outside T.Kernel
import tilelang
import tilelang.language as T


@tilelang.jit
def copy(M=128, block_M=64):

    @T.prim_func
    def kernel(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        T.copy(A, B)  # expected-error {{kernel-outside-kernel}}

    return kernel
