# A GEMM whose T.gemm reads 16-wide k slices of the staged tiles, chosen by a serial loop variable: the
# operand regions start at run-time offsets, so the ldmatrix addressing cannot be solved ahead of time and
# every load keeps its per-lane formula (the code generator's fallback). trans_A and trans_B select the
# operand layouts, so all four lane formulas are exercised.
# tilebench-reference: gemm_transpose
import tilelang
import tilelang.language as T


@tilelang.jit
def matmul(M=256, N=256, K=256, block_M=64, block_N=64, block_K=64, trans_A=False, trans_B=False):
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_shared_shape = (block_K, block_M) if trans_A else (block_M, block_K)
    B_shared_shape = (block_N, block_K) if trans_B else (block_K, block_N)

    @T.prim_func
    def gemm_k_slices(A: T.Tensor(A_shape, "float16"), B: T.Tensor(B_shape, "float16"),
                      C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared(A_shared_shape, "float16")
            B_shared = T.alloc_shared(B_shared_shape, "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.clear(C_local)
            for ko in T.serial(T.ceildiv(K, block_K)):
                if trans_A:
                    T.copy(A[ko * block_K, by * block_M], A_shared)
                else:
                    T.copy(A[by * block_M, ko * block_K], A_shared)
                if trans_B:
                    T.copy(B[bx * block_N, ko * block_K], B_shared)
                else:
                    T.copy(B[ko * block_K, bx * block_N], B_shared)
                for kk in T.serial(block_K // 16):
                    if trans_A:
                        a = A_shared[kk * 16:kk * 16 + 16, :]
                    else:
                        a = A_shared[:, kk * 16:kk * 16 + 16]
                    if trans_B:
                        b = B_shared[:, kk * 16:kk * 16 + 16]
                    else:
                        b = B_shared[kk * 16:kk * 16 + 16, :]
                    T.gemm(a, b, C_local, transpose_A=trans_A, transpose_B=trans_B)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm_k_slices
