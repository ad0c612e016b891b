# Found by fuzz_diff --gpu on the H200 (seed 12000607, 2026-12-02), reduced: a float32 expression stored into
# a bfloat16 fragment, then copied to a float32 output. NVRTC contracts the multiply and add into one FMA (as
# it does for TileLang's kernels), one float32 ulp from the oracle's separately rounded product and sum, and
# 17 of 512 elements then round to the neighbouring bfloat16 value: 0.0039 apart. That is bfloat16 precision,
# not a miscompile; the check held the float32 output to float32's tolerance. Outputs are now checked at the
# precision of the narrowest buffer the kernel rounds computed values into (engine/run/Tolerance.h).
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((16, 32), "float16"), B: T.Tensor((16, 32), "float16"), C: T.Tensor((16, 32), "float32")):
    with T.Kernel(T.ceildiv(32, 32), T.ceildiv(16, 16), threads=64) as (bx, by):
        A_s = T.alloc_shared((16, 32), "float16")
        B_f = T.alloc_fragment((16, 32), "bfloat16")
        C_f = T.alloc_fragment((16, 32), "bfloat16")
        T.copy(A[by * 16:by * 16 + 16, bx * 32:bx * 32 + 32], A_s)
        T.copy(B[by * 16, bx * 32], B_f)
        for i, j in T.Parallel(16, 32):
            C_f[i, j] = (((3.0 / (T.abs(-1.25) + 1.0)) * A_s[i, j] + T.abs(A_s[i, j])) + ((A_s[i, j] + 0.5) + (A_s[i, j] + 0.5)))
        T.copy(C_f, C[by * 16, bx * 32])
