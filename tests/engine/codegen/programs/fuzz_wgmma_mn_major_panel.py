# Rejected by the hopper backend in fuzz_diff --gpu (seed 3024, 2026-12-02): an MN-major B tile 32x64 read by
# two warpgroups of 32 columns each. The shared-layout pass gave it a 128B swizzle (64-column panels), which no
# wgmma descriptor of one warpgroup can address, and codegen refused the gemm. TileLang bounds the swizzle by
# the operand's `continuity` (the columns one warpgroup reads); so does the pass now: a 64B swizzle.
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((78, 64), "float16"), B: T.Tensor((78, 121), "float16"), C: T.Tensor((64, 121), "float16")):
    with T.Kernel(T.ceildiv(121, 64), T.ceildiv(64, 64), threads=256) as (bx, by):
        A_s = T.alloc_shared((32, 64), "float16")
        B_s = T.alloc_shared((32, 64), "float16")
        C_f = T.alloc_fragment((64, 64), "float32")
        T.clear(C_f)
        for ko in T.serial(T.ceildiv(78, 32)):
            T.copy(A[ko * 32, by * 64], A_s)
            T.copy(B[ko * 32, bx * 64], B_s)
            T.gemm(A_s, B_s, C_f, transpose_A=True)
        for i, j in T.Parallel(64, 64):
            C_f[i, j] = C_f[i, j]
        T.copy(C_f, C[by * 64, bx * 64])
