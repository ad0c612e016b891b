# Integer and mixed arithmetic on the CPU backends: floor division and modulo of negative values, shifts,
# min/max, float -> int casts (truncating, saturating), int -> float casts, a select whose untaken side
# would read out of bounds, and an alloc_var accumulator. The JIT must agree with the interpreter bit for
# bit (tests/engine/jit/JitMatchesInterpreterTest.cpp runs every program of this folder).
import tilelang
import tilelang.language as T


@tilelang.jit
def integer_math(N=96, block=32):

    @T.prim_func
    def main(A: T.Tensor((N,), "int32"), X: T.Tensor((N,), "float32"), B: T.Tensor((N,), "int32"),
             Y: T.Tensor((N,), "float16"), Z: T.Tensor((N,), "int8")):
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            a = T.alloc_fragment((block,), "int32")
            acc = T.alloc_var("int32", init=3)
            T.copy(A[bx * block], a)
            for i in T.Parallel(block):
                B[bx * block + i] = (a[i] - 5) // 3 + (a[i] - 5) % 3 * 7 + T.max(a[i], 2) - T.min(a[i], -1)
            for i in T.serial(block):
                acc = acc + (a[i] << 2) + (a[i] >> 1)
            for i in T.Parallel(block):
                Y[bx * block + i] = T.cast(a[i] * acc, "float16") + T.if_then_else(i > 0, X[bx * block + i - 1], X[bx * block])
                Z[bx * block + i] = T.cast(X[bx * block + i] * 300.0, "int8")

    return main
