# Found by fuzz_diff --gpu on the H200 (seed 9001026, 2026-12-02): `0.1 > B_f[i, j]` with a float16 B_f. In
# TileLang the literal takes the other operand's dtype, so it is float16's 0.1 (0.0999755859375), and the CPU
# executor compared with that; the CUDA said `0.1f`, and an input equal to float16's 0.1 took the other
# branch (one element of 23,040). Float literals are now emitted rounded to their dtype.
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((160, 144), "bfloat16"), B: T.Tensor((160, 144), "float16"), C: T.Tensor((160, 144), "bfloat16")):
    with T.Kernel(T.ceildiv(144, 64), T.ceildiv(160, 64), threads=256) as (bx, by):
        A_s = T.alloc_shared((64, 64), "bfloat16")
        B_f = T.alloc_fragment((64, 64), "float16")
        C_f = T.alloc_fragment((64, 64), "float16")
        T.copy(A[by * 64 + 3, bx * 64], A_s)
        T.copy(B[by * 64, bx * 64], B_f)
        for i, j in T.Parallel(64, 64):
            C_f[i, j] = ((3.0 - T.cast(j - i, "float32") * 0.03125) * T.max(T.if_then_else(0.1 > B_f[i, j], 0.5, B_f[i, j]), T.if_then_else(T.cast(j - i, "float32") * 0.03125 > A_s[i, j], B_f[i, j], 2.0)))
        for i, j in T.Parallel(64, 64):
            if by * 64 + i < 160 and bx * 64 + j < 144:
                C[by * 64 + i, bx * 64 + j] = C_f[i, j]
