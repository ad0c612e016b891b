# An annotated output fragment (one column per thread) is written from a gemm accumulator in one loop:
# the loop follows the annotated fragment it writes, whose threads do not hold the accumulator's elements.
# expect: layout-conflict acc y
import tilelang
import tilelang.language as T


@tilelang.jit
def kernel(M=64, N=64, K=64):

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float")):
        with T.Kernel(1, threads=128) as bx:
            A_shared = T.alloc_shared((M, K), "float16")
            B_shared = T.alloc_shared((K, N), "float16")
            T.copy(A[0, 0], A_shared)
            T.copy(B[0, 0], B_shared)
            acc = T.alloc_fragment((M, N), "float")
            y = T.alloc_fragment((M, N), "float")
            T.annotate_layout({y: T.Fragment((M, N), forward_thread_fn=lambda i, j: j * 2 + i // 32)})
            T.gemm(A_shared, B_shared, acc, clear_accum=True)
            for i, j in T.Parallel(M, N):
                y[i, j] = acc[i, j] * 2.0
            T.copy(y, C[0, 0])

    return main


kernel()
