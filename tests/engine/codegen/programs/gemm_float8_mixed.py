# A float8 GEMM with mixed operand formats (A e4m3fn, B e5m2), both K-major as float8 tensor cores need
# (B stored [N][K], transpose_B=True): mma.sync m16n8k32 .e4m3.e5m2 on the portable backend, wgmma
# m64nNk32 on the hopper one. The default shape is ragged (the copies zero-fill the last tiles). A plain
# pipelined loop of copies and one gemm is woven with the pipeline; k_slices=True makes the gemm read 32-wide
# k slices at run-time offsets instead, so every ldmatrix keeps its per-lane formula.
# tilebench-reference: gemm_nt
import tilelang
import tilelang.language as T


@tilelang.jit
def matmul(M=192, N=136, K=160, block_M=64, block_N=64, block_K=64, k_slices=False,
           a_dtype="float8_e4m3fn", b_dtype="float8_e5m2"):

    @T.prim_func
    def gemm_float8_mixed(A: T.Tensor((M, K), a_dtype), B: T.Tensor((N, K), b_dtype),
                          C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), a_dtype)
            B_shared = T.alloc_shared((block_N, block_K), b_dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[bx * block_N, ko * block_K], B_shared)
                if k_slices:
                    for kk in T.serial(block_K // 32):
                        T.gemm(A_shared[:, kk * 32:kk * 32 + 32], B_shared[:, kk * 32:kk * 32 + 32], C_local,
                               transpose_B=True)
                else:
                    T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm_float8_mixed
