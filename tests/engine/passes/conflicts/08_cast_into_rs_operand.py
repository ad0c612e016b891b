# The MLA mistake: scores from a FullCol gemm are cast into the register A operand of a FullRow gemm.
# Each warp computed some columns, but the operand needs whole rows: go through shared memory.
# expect: layout-conflict s s_cast
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
            s = T.alloc_fragment((M, N), "float")
            s_cast = T.alloc_fragment((M, N), "float16")
            acc = T.alloc_fragment((M, N), "float")
            T.gemm(A_shared, B_shared, s, policy=T.GemmWarpPolicy.FullCol, clear_accum=True)
            T.copy(s, s_cast)
            T.gemm(s_cast, B_shared, acc, policy=T.GemmWarpPolicy.FullRow, clear_accum=True)
            T.copy(acc, C[0, 0])

    return main


kernel()
