# Found by fuzz_diff --gpu on the H200 (seed 3000009, 2026-12-02), reduced by hand: a global -> fragment copy
# with more threads (256) than elements (8 x 16), so every element has two replicas. The unused replica
# index was erased first, which hid the copy line from the search for uses of `ti` and `tj`: both were
# dropped and NVRTC stopped at `identifier "ti" is undefined`.
import tilelang
import tilelang.language as T


@T.prim_func
def main(B: T.Tensor((24, 16), "float32"), C: T.Tensor((24, 16), "float32")):
    with T.Kernel(1, T.ceildiv(24, 8), threads=256) as (bx, by):
        B_f = T.alloc_fragment((8, 16), "float16")
        T.copy(B[by * 8, 0], B_f)
        T.copy(B_f, C[by * 8, 0])
