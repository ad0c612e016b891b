# three independent mistakes, all reported in one run
import tilelang
import tilelang.language as T


@tilelang.jit
def add(M=256, block_M=64):

    @T.prim_func
    def kernel(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32"), C: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            a = T.alloc_fragment((block_M,), "float32")
            b = T.alloc_fragment((block_M,), "float32")
            T.copy(A[bx * block_M], a_frag)  # expected-error {{unknown-name}}
            T.copy(B[bx * block_M], b)
            for i in T.Parallel(block_M):
                a[i] = T.expp(a[i]) + b[i]  # expected-error {{unknown-attribute}}
            b[block_M + 1] = 0.0  # expected-error {{index-out-of-range}}
            T.copy(a, C[bx * block_M])

    return kernel
