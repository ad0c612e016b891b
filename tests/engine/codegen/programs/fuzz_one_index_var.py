# Found by fuzz_diff --gpu on the H200 (seed 1000017, 2026-12-02), reduced: a T.Parallel body that reads only
# one of its two loop variables. The emitter declared both per register and dropped the unused one, and the
# erased line shifted the body so that the search for uses of `i` started one line too late: `i` was dropped
# too and NVRTC stopped at `identifier "i" is undefined`.
import tilelang
import tilelang.language as T


@T.prim_func
def main(C: T.Tensor((8, 32), "float16")):
    with T.Kernel(1, 1, threads=64) as (bx, by):
        C_f = T.alloc_fragment((8, 32), "float32")
        for i, j in T.Parallel(8, 32):
            C_f[i, j] = T.cast(i, "float32") * 0.0625
        T.copy(C_f, C)
