# A fragment-to-fragment copy between accumulators of gemms with different warp policies: a register copy
# is thread-local, so both sides need one layout.
# expect: layout-conflict acc_col acc_row
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
            T.gemm(A_shared, B_shared, acc_row, policy=T.GemmWarpPolicy.FullRow, clear_accum=True)
            T.gemm(A_shared, B_shared, acc_col, policy=T.GemmWarpPolicy.FullCol, clear_accum=True)
            T.copy(acc_row, acc_col)
            T.copy(acc_col, C[0, 0])

    return main


kernel()
