# The row maximum is annotated as one row per thread, but reduce_max leaves each row's maximum in the four
# lanes that held the row: the annotated owners did not compute the values.
# expect: layout-conflict row_max
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
            row_max = T.alloc_fragment((M,), "float")
            T.annotate_layout({row_max: T.Fragment((M,), forward_thread_fn=lambda i: i)})
            T.gemm(A_shared, B_shared, acc, policy=T.GemmWarpPolicy.FullRow, clear_accum=True)
            T.reduce_max(acc, row_max, dim=1)
            for i, j in T.Parallel(M, N):
                acc[i, j] = acc[i, j] - row_max[i]
            T.copy(acc, C[0, 0])

    return main


kernel()
