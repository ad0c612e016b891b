# A T.Fragment annotation gives the accumulator one row per thread; the gemm's accumulator layout is the
# mma fragment, so the two strict layouts of acc disagree.
# expect: layout-conflict acc
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
            T.annotate_layout({acc: T.Fragment((M, N), forward_thread_fn=lambda i, j: i)})
            T.gemm(A_shared, B_shared, acc, clear_accum=True)
            T.copy(acc, C[0, 0])

    return main


kernel()
