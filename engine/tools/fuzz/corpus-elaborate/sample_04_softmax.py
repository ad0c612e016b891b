# Row softmax, Y[i, :] = softmax(X[i, :]), with an online (streaming) pass over long rows.
# Each block owns block_M rows and walks them in block_N-wide chunks. Pass 1 keeps a running row maximum
# (T.reduce_max) and a running sum of exponentials (T.reduce_sum), rescaling the sum whenever the maximum
# grows; pass 2 reloads each chunk and writes exp(x - max) / sum. Exponentials use exp2 with the inputs
# pre-scaled by log2(e), as flash attention does, because exp2 is the native instruction.
# Columns past N are masked to -inf so that a ragged last chunk contributes nothing.
# tilebench-reference: softmax
import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[1])
def softmax(M, N, block_M=4, block_N=512, dtype="float16", accum_dtype="float"):
    scale = 1.44269504  # log2(e)
    num_chunks = (N + block_N - 1) // block_N

    @T.prim_func
    def main(
            X: T.Tensor((M, N), dtype),
            Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bm:
            x_shared = T.alloc_shared((block_M, block_N), dtype)
            x = T.alloc_fragment((block_M, block_N), accum_dtype)
            y = T.alloc_fragment((block_M, block_N), dtype)
            row_max = T.alloc_fragment((block_M,), accum_dtype)
            chunk_max = T.alloc_fragment((block_M,), accum_dtype)
            new_max = T.alloc_fragment((block_M,), accum_dtype)
            row_sum = T.alloc_fragment((block_M,), accum_dtype)
            chunk_sum = T.alloc_fragment((block_M,), accum_dtype)

            T.fill(row_max, -T.infinity(accum_dtype))
            T.fill(row_sum, 0)

            # Pass 1: running max and running sum of exp2((x - max) * log2(e)).
            # num_stages=1: both passes stage through the same shared tile, and TileLang 0.1.15 fails to
            # multi-version a tile shared by two sibling loops pipelined with num_stages=2.
            for c in T.Pipelined(num_chunks, num_stages=1):
                T.copy(X[bm * block_M, c * block_N], x_shared)
                T.copy(x_shared, x)  # the copy converts float16 -> float32
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.if_then_else(c * block_N + j < N, x[i, j], -T.infinity(accum_dtype))
                T.reduce_max(x, chunk_max, dim=1)
                for i in T.Parallel(block_M):
                    new_max[i] = T.max(row_max[i], chunk_max[i])
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.exp2(x[i, j] * scale - new_max[i] * scale)
                T.reduce_sum(x, chunk_sum, dim=1)
                for i in T.Parallel(block_M):
                    # The old sum was taken relative to the old maximum: rescale it.
                    row_sum[i] = row_sum[i] * T.exp2(row_max[i] * scale - new_max[i] * scale) + chunk_sum[i]
                    row_max[i] = new_max[i]

            # Pass 2: normalise and store.
            for c in T.Pipelined(num_chunks, num_stages=1):
                T.copy(X[bm * block_M, c * block_N], x_shared)
                T.copy(x_shared, x)
                for i, j in T.Parallel(block_M, block_N):
                    y[i, j] = T.exp2(x[i, j] * scale - row_max[i] * scale) / row_sum[i]
                T.copy(y, Y[bm * block_M, c * block_N])

    return main


M, N = 1024, 2000
kernel = softmax(M, N, block_M=4, block_N=512)
X = torch.randn(M, N, dtype=torch.float16, device="cuda")
Y = kernel(X)
torch.testing.assert_close(Y, X.float().softmax(dim=1).half(), rtol=1e-2, atol=1e-3)
print("softmax ok")
