# Narrow float formats through casts and copies: float32 -> float8_e4m3 (saturating at 448) and
# float8_e5m2 (overflowing to inf), bfloat16 and float16 round trips, with values scaled into the
# subnormal and overflow ranges of each format.
import tilelang
import tilelang.language as T


@tilelang.jit
def casts_fp8(N=256, block=64):

    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), E4: T.Tensor((N,), "float8_e4m3"), E5: T.Tensor((N,), "float8_e5m2"),
             H: T.Tensor((N,), "float16"), B: T.Tensor((N,), "bfloat16")):
        with T.Kernel(T.ceildiv(N, block), threads=64) as bx:
            x = T.alloc_fragment((block,), "float32")
            e4 = T.alloc_fragment((block,), "float8_e4m3")
            T.copy(X[bx * block], x)
            for i in T.Parallel(block):
                x[i] = x[i] * T.exp2(T.cast(i % 40, "float32") - 20.0)
            T.copy(x, e4)
            T.copy(e4, E4[bx * block])
            for i in T.Parallel(block):
                E5[bx * block + i] = x[i] * 1000.0
                H[bx * block + i] = x[i] * 70000.0
                B[bx * block + i] = T.cast(T.cast(x[i], "float16"), "bfloat16")

    return main
