# Fused RMSNorm + SiLU, a production drop-in: y = silu(x * rsqrt(mean(x^2) + eps) * gamma).
# The BTHWC activation is viewed as M = B*T*H*W rows of C channels. A memory-bound kernel: its speed is the
# bytes it moves, so the best it can do is read X once and write Y once, like a copy.
#
# Rows of up to 2048 channels fit in registers: one pass. Each row is spread over ROW_THREADS threads in
# 16-byte vectors (T.Fragment below: a power of two of threads, so the row's sum of squares is a shuffle
# butterfly), each block holds 128 // ROW_THREADS rows, and X is read exactly once.
# Wider rows make two passes over BLOCK_C-wide chunks staged through shared memory: pass 1 accumulates the
# squares in an fp32 fragment (so the sum cannot overflow float16), pass 2 reloads X, scales, applies gamma
# and SiLU. X is read twice there, so pass 1 asks L2 to keep it (eviction_policy="evict_last") and pass 2,
# its last reader, lets it go first, as does the store of Y, which nothing reads again.
# tilebench-reference: rmsnorm_silu
import tilelang
import tilelang.language as T
import torch

VECTOR = 8  # float16 elements in a 16-byte access
MAX_ONE_PASS_C = 2048  # 256 registers' worth of a row per thread at most


def row_threads(C):
    # The most threads (a power of two, at most a warp) that share a row's 16-byte vectors evenly.
    n = 32
    while (C // VECTOR) % n != 0:
        n //= 2
    return n


def rms_norm_silu_one_pass(M, C, eps, dtype, accum_dtype):
    ROW_THREADS = row_threads(C)
    ROWS = 128 // ROW_THREADS  # rows per block
    PER_THREAD = C // (VECTOR * ROW_THREADS)  # 16-byte vectors of a row per thread

    @T.prim_func
    def main(
            X: T.Tensor((M, C), dtype),  # M = B*T*H*W rows
            gamma: T.Tensor((C,), dtype),
            Y: T.Tensor((M, C), dtype),
    ):
        with T.Kernel(T.ceildiv(M, ROWS), threads=128) as bm:
            g = T.alloc_shared((C,), dtype)
            x = T.alloc_fragment((ROWS, C), dtype)
            sq = T.alloc_fragment((ROWS, C), accum_dtype)
            ss = T.alloc_fragment((ROWS,), accum_dtype)  # fp32 sum of squares of each row
            y = T.alloc_fragment((ROWS, C), dtype)
            # Row i on threads ROW_THREADS*i .. ROW_THREADS*i + ROW_THREADS-1; column j in the vector j // VECTOR,
            # dealt to those threads in turn. The other fragments follow x.
            T.annotate_layout({
                x:
                    T.Fragment((ROWS, C),
                               forward_thread_fn=lambda i, j: i * ROW_THREADS + (j // VECTOR) % ROW_THREADS,
                               forward_index_fn=lambda i, j: (j // (VECTOR * ROW_THREADS)) * VECTOR + j % VECTOR)
            })
            T.copy(gamma, g)
            # X is read once: nothing reads it again, so it may leave L2 first, as Y may.
            T.copy(X[bm * ROWS, 0], x, eviction_policy="evict_first")
            for i, j in T.Parallel(ROWS, C):
                sq[i, j] = T.cast(x[i, j], accum_dtype) * T.cast(x[i, j], accum_dtype)
            T.reduce_sum(sq, ss, dim=1)
            # y = silu(x * rsqrt(mean(x^2) + eps) * gamma), silu(v) = v * sigmoid(v) = v / (1 + exp(-v)).
            for i, j in T.Parallel(ROWS, C):
                v = T.cast(x[i, j], accum_dtype) * T.rsqrt(ss[i] / C + eps) * T.cast(g[j], accum_dtype)
                y[i, j] = v / (1.0 + T.exp(-v))
            T.copy(y, Y[bm * ROWS, 0], eviction_policy="evict_first")

    assert PER_THREAD >= 1
    return main


# Fast math (approximate exp and division, as TileLang's pass config turns on with nvcc's --use_fast_math): SiLU's
# exp and divide are most of the instructions of this memory-bound kernel, and fp16 output hides their error.
@tilelang.jit(out_idx=[2], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def rms_norm_silu(M, C, BLOCK_M=8, eps=1e-5, dtype="float16", accum_dtype="float"):
    assert C % 32 == 0, "C must be a multiple of 32"
    if C <= MAX_ONE_PASS_C:
        return rms_norm_silu_one_pass(M, C, eps, dtype, accum_dtype)
    BLOCK_C = 128 if C % 128 == 0 else (64 if C % 64 == 0 else 32)
    num_chunks = C // BLOCK_C

    @T.prim_func
    def main(
            X: T.Tensor((M, C), dtype),  # M = B*T*H*W rows
            gamma: T.Tensor((C,), dtype),
            Y: T.Tensor((M, C), dtype),
    ):
        with T.Kernel(T.ceildiv(M, BLOCK_M), threads=128) as bm:
            X_chunk = T.alloc_shared((BLOCK_M, BLOCK_C), dtype)
            g_chunk = T.alloc_shared((BLOCK_C,), dtype)
            x = T.alloc_fragment((BLOCK_M, BLOCK_C), accum_dtype)
            sq = T.alloc_fragment((BLOCK_M, BLOCK_C), accum_dtype)
            rinv = T.alloc_fragment((BLOCK_M,), accum_dtype)  # fp32 sum of squares, then 1/rms
            y = T.alloc_fragment((BLOCK_M, BLOCK_C), dtype)

            # Pass 1: per-element partial sums of x^2 over the BLOCK_C chunks, reduced once at the end.
            # num_stages=1: both passes stage through the same shared tile, and TileLang 0.1.15 fails to
            # multi-version a tile shared by two sibling loops pipelined with num_stages=2.
            T.clear(sq)
            for c in T.Pipelined(num_chunks, num_stages=1):
                T.copy(X[bm * BLOCK_M, c * BLOCK_C], X_chunk, eviction_policy="evict_last")
                T.copy(X_chunk, x)  # float16 -> float32
                for i, j in T.Parallel(BLOCK_M, BLOCK_C):
                    sq[i, j] += x[i, j] * x[i, j]
            T.reduce_sum(sq, rinv, dim=1)
            for i in T.Parallel(BLOCK_M):
                rinv[i] = T.rsqrt(rinv[i] / C + eps)

            # Pass 2: y = silu(x * rinv * gamma), silu(v) = v * sigmoid(v) = v / (1 + exp(-v)).
            for c in T.Pipelined(num_chunks, num_stages=1):
                T.copy(X[bm * BLOCK_M, c * BLOCK_C], X_chunk, eviction_policy="evict_first")
                T.copy(gamma[c * BLOCK_C], g_chunk)
                T.copy(X_chunk, x)
                for i, j in T.Parallel(BLOCK_M, BLOCK_C):
                    x[i, j] = x[i, j] * rinv[i] * g_chunk[j]
                for i, j in T.Parallel(BLOCK_M, BLOCK_C):
                    y[i, j] = x[i, j] / (1.0 + T.exp(-x[i, j]))
                T.copy(y, Y[bm * BLOCK_M, c * BLOCK_C], eviction_policy="evict_first")

    return main


# A Wan-VAE-like activation: batch, frames, height, width, channels (C = 320 has no hand-written kernel).
B, F, H, W, C = 1, 4, 32, 32, 320
M = B * F * H * W
kernel = rms_norm_silu(M, C)
x = torch.randn(B, F, H, W, C, dtype=torch.float16, device="cuda")
gamma = torch.randn(C, dtype=torch.float16, device="cuda")
y = kernel(x.view(M, C), gamma).view(B, F, H, W, C)

xf = x.float()
ref = torch.nn.functional.silu(xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * gamma.float())
torch.testing.assert_close(y, ref.half(), rtol=1e-2, atol=1e-2)
print("rmsnorm + silu ok")
