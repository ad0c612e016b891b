# GEMM with transposed operands: C = op(A) @ op(B), where op transposes when trans_A / trans_B is set.
# The jit parameters pick the global shapes (A is (K, M) when transposed, B is (N, K)), the shapes of the
# shared tiles, which corner each T.copy starts from, and the transpose_A / transpose_B flags of T.gemm.
# The tensor cores read the tiles in whichever order they were staged, so no data is moved to transpose.
# NT (trans_B=True) is the attention form Q @ K^T; try all four layouts NN, NT, TN and TT.
# tilebench-reference: gemm_transpose
import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def matmul(M,
           N,
           K,
           block_M,
           block_N,
           block_K,
           trans_A=False,
           trans_B=True,
           dtype="float16",
           accum_dtype="float",
           num_stages=2,
           threads=128):
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_shared_shape = (block_K, block_M) if trans_A else (block_M, block_K)
    B_shared_shape = (block_N, block_K) if trans_B else (block_K, block_N)

    @T.prim_func
    def gemm_kernel(
            A: T.Tensor(A_shape, dtype),
            B: T.Tensor(B_shape, dtype),
            C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared(A_shared_shape, dtype)
            B_shared = T.alloc_shared(B_shared_shape, dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                # The staged tile keeps the global orientation; only its start corner changes.
                if trans_A:
                    T.copy(A[k * block_K, by * block_M], A_shared)
                else:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                if trans_B:
                    T.copy(B[bx * block_N, k * block_K], B_shared)
                else:
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_A=trans_A, transpose_B=trans_B)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm_kernel


def main(M=512, N=512, K=512, trans_A=False, trans_B=True):
    kernel = matmul(M, N, K, 128, 128, 32, trans_A, trans_B)
    a = torch.randn(*((K, M) if trans_A else (M, K)), device="cuda", dtype=torch.float16)
    b = torch.randn(*((N, K) if trans_B else (K, N)), device="cuda", dtype=torch.float16)
    c = kernel(a, b)
    ref = (a.T if trans_A else a).float() @ (b.T if trans_B else b).float()
    torch.testing.assert_close(c, ref.half(), rtol=1e-2, atol=1e-2)
    print(f"gemm trans_A={trans_A} trans_B={trans_B} ok")


if __name__ == "__main__":
    main()
