# Two gemms accumulate into one fragment with different warp policies: FullRow puts the 4 warps along
# M, FullCol along N, so the accumulator's elements have different owners under the two gemms.
# expect: layout-conflict acc
import tilelang
import tilelang.language as T


@tilelang.jit
def kernel(M=128, N=128, K=64):

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float")):
        with T.Kernel(1, threads=128) as bx:
            A_shared = T.alloc_shared((M, K), "float16")
            B_shared = T.alloc_shared((K, N), "float16")
            acc = T.alloc_fragment((M, N), "float")
            T.copy(A[0, 0], A_shared)
            T.copy(B[0, 0], B_shared)
            T.gemm(A_shared, B_shared, acc, policy=T.GemmWarpPolicy.FullRow, clear_accum=True)
            T.gemm(A_shared, B_shared, acc, policy=T.GemmWarpPolicy.FullCol)
            T.copy(acc, C[0, 0])

    return main


kernel()
