# Regression (differential fuzzer, seed 50006698): a reduce_min over a row of signed zeros (x * 0.0 keeps
# the sign of x) gave +0.0 on the interpreter and -0.0 on the JIT. The interpreter used std::fmin/fmax,
# whose sign of zero depended on the build (glibc returns the second of two equal operands, and GCC may
# swap the operands); both backends now use IEEE 754-2019 minimumNumber/maximumNumber (-0.0 < +0.0).
# Covers reduce_min/reduce_max along both dims and T.min/T.max of signed zeros in both orders.
import tilelang
import tilelang.language as T


@T.prim_func
def main(X: T.Tensor((8, 64), "float16"), R: T.Tensor((8,), "float32"), S: T.Tensor((64,), "float32"),
         Y: T.Tensor((8, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        X_s = T.alloc_shared((8, 64), "float16")
        x = T.alloc_fragment((8, 64), "float32")
        r = T.alloc_fragment((8,), "float32")
        s = T.alloc_fragment((64,), "float32")
        T.copy(X[bx * 8, 0], X_s)
        T.copy(X_s, x)
        for i, j in T.Parallel(8, 64):
            x[i, j] = x[i, j] * 0.0
        T.reduce_min(x, r, dim=1)
        T.reduce_max(x, s, dim=0)
        T.reduce_max(x, r, dim=1, clear=False)
        T.copy(r, R[0])
        T.copy(s, S[0])
        for i, j in T.Parallel(8, 64):
            Y[i, j] = T.min(x[i, j], x[(i + 1) % 8, j]) + T.max(x[(i + 3) % 8, j], x[i, j]) * 2.0
