# Regression (differential fuzzer, seed 100002028): T.if_then_else(x / 1.0 > 0, 0.0, T.min(x, x)) over a
# float8 -0 gave -0 on the interpreter and +0 on the JIT. LLVM 16's InstCombine folds
# select(x > 0, 0.0, fpext x) into fpext(select(x >= 0, 0.0, x)), wrong for x = -0; the JIT fences the arm
# beside a zero constant (Lowerer::fenceAgainstSignedZeroFold).
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((32, 65), "float16"), B: T.Tensor((32, 65), "float8_e4m3"), C: T.Tensor((32, 65), "float16")):
    with T.Kernel(T.ceildiv(65, 32), T.ceildiv(32, 32), threads=64) as (bx, by):
        A_s = T.alloc_shared((32, 32), "float16")
        B_f = T.alloc_fragment((32, 32), "float32")
        C_f = T.alloc_fragment((32, 32), "float32")
        T.copy(A[by * 32, bx * 32], A_s)
        T.copy(B[by * 32, bx * 32], B_f)
        for i, j in T.Parallel(32, 32):
            C_f[i, j] = 0.5
        for i, j in T.Parallel(32, 32):
            C_f[i, j] = T.if_then_else((B_f[i, j] / (T.abs(0.0) + 1.0)) > T.sqrt(T.abs(0.0)), 0.0, T.min(B_f[i, j], B_f[i, j]))
        T.copy(C_f, C[by * 32, bx * 32])
