# Special values through on-chip buffers, which the JIT stores as floats for float32/float16/bfloat16/fp8
# dtypes: signed zeros, infinities, NaN, float16 and float8 subnormals and the largest finite values must
# come back exactly as the interpreter's doubles hold them (copies, T.Parallel, a reduction and a gemm).
import tilelang
import tilelang.language as T


@tilelang.jit
def onchip_special_values(M=32, N=32):

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M, N), "float32"), R: T.Tensor((M,), "float32"),
             G: T.Tensor((M, M), "float32")):
        with T.Kernel(1, threads=128) as bx:
            h = T.alloc_shared((M, N), "float16")
            b = T.alloc_fragment((M, N), "bfloat16")
            e = T.alloc_fragment((M, N), "float8_e4m3")
            f = T.alloc_fragment((M, N), "float32")
            r = T.alloc_fragment((M,), "float32")
            g = T.alloc_fragment((M, M), "float32")
            k = T.alloc_shared((M, N), "float16")
            T.copy(X, h)
            for i, j in T.Parallel(M, N):
                # j picks a special value: -0, +-inf, NaN, float16's smallest subnormal and largest finite
                h[i, j] = T.if_then_else(j % 8 == 0, -0.0 * h[i, j],
                          T.if_then_else(j % 8 == 1, h[i, j] / 0.0,
                          T.if_then_else(j % 8 == 2, 0.0 / (h[i, j] - h[i, j] + 0.0),
                          T.if_then_else(j % 8 == 3, h[i, j] * 0.00000006,
                          T.if_then_else(j % 8 == 4, 65504.0 * T.if_then_else(h[i, j] < 0, -1.0, 1.0),
                                         h[i, j] * 0.001)))))
            for i, j in T.Parallel(M, N):
                b[i, j] = h[i, j] * 3.0
                e[i, j] = h[i, j] * 0.0009765625
                f[i, j] = e[i, j] + b[i, j]
            T.copy(f, Y)
            T.reduce_max(f, r, dim=1)
            T.copy(r, R)
            # the gemm's operands: the finite specials only (-0, subnormals, the largest finite values)
            for i, j in T.Parallel(M, N):
                k[i, j] = T.if_then_else(j % 8 == 1 or j % 8 == 2, X[i, j], h[i, j])
            T.gemm(k, k, g, transpose_B=True, clear_accum=True)
            T.copy(g, G)

    return main
