# float8 conversions of the CUDA backend against the CPU executor's rounding (engine/exec/FloatFormats.h):
# the inputs scaled into e4m3's saturation (|x| > 448), its normal range and its subnormals (< 2^-6), and the
# same for e5m2 (overflow to inf above 57344), stored to float8 tensors through a fragment and from one.
import tilelang
import tilelang.language as T


@T.prim_func
def main(
    A: T.Tensor((64, 128), "float32"),
    E4: T.Tensor((3, 64, 128), "float8_e4m3fn"),
    E5: T.Tensor((3, 64, 128), "float8_e5m2"),
    Back: T.Tensor((64, 128), "float32"),
):
    with T.Kernel(1, threads=128) as bx:
        q = T.alloc_fragment((64, 128), "float8_e4m3fn")
        for i, j in T.Parallel(64, 128):
            E4[0, i, j] = A[i, j] * 1000.0
            E4[1, i, j] = A[i, j]
            E4[2, i, j] = A[i, j] * 0.004
            E5[0, i, j] = A[i, j] * 100000.0
            E5[1, i, j] = A[i, j]
            E5[2, i, j] = A[i, j] * 0.00001
            q[i, j] = A[i, j] * 3.0
        for i, j in T.Parallel(64, 128):
            Back[i, j] = T.cast(q[i, j], "float32") + 0.5
