# Two reductions write one row vector from sources with different layouts: the second reduction's
# owners of each row differ from the first's.
# expect: layout-conflict m
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
            m = T.alloc_fragment((M,), "float")
            T.gemm(A_shared, B_shared, acc_row, policy=T.GemmWarpPolicy.FullRow, clear_accum=True)
            T.gemm(A_shared, B_shared, acc_col, policy=T.GemmWarpPolicy.FullCol, clear_accum=True)
            T.reduce_max(acc_row, m, dim=1)
            T.reduce_max(acc_col, m, dim=1, clear=False)
            for i, j in T.Parallel(M, N):
                acc_row[i, j] = acc_row[i, j] - m[i]
            T.copy(acc_row, C[0, 0])

    return main


kernel()
