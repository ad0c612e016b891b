# A row statistic computed by a reduction over a FullRow accumulator is read in a loop over a FullCol
# accumulator: the threads of that loop do not hold the statistic of their rows.
# expect: layout-conflict row_max acc_col
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
            acc_row = T.alloc_fragment((M, N), "float")
            acc_col = T.alloc_fragment((M, N), "float")
            row_max = T.alloc_fragment((M,), "float")
            T.gemm(A_shared, B_shared, acc_row, policy=T.GemmWarpPolicy.FullRow, clear_accum=True)
            T.gemm(A_shared, B_shared, acc_col, policy=T.GemmWarpPolicy.FullCol, clear_accum=True)
            T.reduce_max(acc_row, row_max, dim=1)
            for i, j in T.Parallel(M, N):
                acc_col[i, j] = acc_col[i, j] - row_max[i]
            T.copy(acc_col, C[0, 0])

    return main


kernel()
