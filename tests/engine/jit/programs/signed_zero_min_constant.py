# Regression (differential fuzzer, seed 300000276): T.min(0.0, b * a) with a product of -0 gave -0 on the
# interpreter and +0 on the JIT. Once InstCombine has reduced the JIT's minimumNumber to a select between
# the zero constant and the product, LLVM 16 folds select(x > 0, 0.0, fpext x) into
# fpext(select(x >= 0, 0.0, x)), wrong for x = -0; the JIT fences an operand beside a zero constant
# (Lowerer::fenceBesideZero). Every product here is a signed zero (x * 0.0), in both operand orders.
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((16, 64), "float8_e4m3"), B: T.Tensor((16, 64), "float16"), C: T.Tensor((16, 64), "float16"),
         D: T.Tensor((16, 64), "float16")):
    with T.Kernel(1, threads=64) as bx:
        A_s = T.alloc_shared((16, 64), "float8_e4m3")
        B_f = T.alloc_fragment((16, 64), "float32")
        C_f = T.alloc_fragment((16, 64), "float32")
        D_f = T.alloc_fragment((16, 64), "float32")
        T.copy(A[0, 0], A_s)
        T.copy(B[0, 0], B_f)
        for i, j in T.Parallel(16, 64):
            C_f[i, j] = T.min(0.0, (T.cast(B_f[i, j], "float32") * A_s[i, j]) * 0.0)
            D_f[i, j] = T.max((T.cast(B_f[i, j], "float32") * A_s[i, j]) * 0.0, 0.0)
        T.copy(C_f, C[0, 0])
        T.copy(D_f, D[0, 0])
