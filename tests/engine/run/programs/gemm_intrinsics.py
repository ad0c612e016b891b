# A GEMM written with TileLang's TensorCoreIntrinEmitter instead of T.gemm, as
# tilelang-examples/gemm/example_gemm_intrinsics.py writes it: ldmatrix_a / ldmatrix_b / mma on per-thread
# T.alloc_local arrays, stmatrix into a [M/16, N/16, 16, 16] shared tile, get_swizzle_layout annotations.
# Unlike the example, the tiles arrive through T.copy (cp.async stages), trans_A / trans_B select all four
# operand layouts, and the warp grid and tiles are parameters.
# tilebench-reference: gemm_transpose
import tilelang
import tilelang.language as T
from tilelang.intrinsics import get_swizzle_layout
from tilelang.intrinsics.mma_macro_generator import TensorCoreIntrinEmitter


def make_swizzle_layout(shared_buf):
    shape = shared_buf.shape
    return T.Layout(shape, lambda i, j: list(get_swizzle_layout(i, j, shape[-1], shared_buf.dtype)))


@tilelang.jit
def gemm_intrinsics(M=128, N=128, K=64, dtype="float16", trans_A=False, trans_B=True, block_row_warps=2,
                    block_col_warps=2, warp_row_tiles=32, warp_col_tiles=32, chunk=32):
    block_M = block_row_warps * warp_row_tiles
    block_N = block_col_warps * warp_col_tiles
    emitter = TensorCoreIntrinEmitter(
        a_dtype=dtype,
        b_dtype=dtype,
        accum_dtype="float32",
        a_transposed=trans_A,
        b_transposed=trans_B,
        block_row_warps=block_row_warps,
        block_col_warps=block_col_warps,
        warp_row_tiles=warp_row_tiles,
        warp_col_tiles=warp_col_tiles,
        chunk=chunk,
    )
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_shared_shape = (chunk, block_M) if trans_A else (block_M, chunk)
    B_shared_shape = (block_N, chunk) if trans_B else (chunk, block_N)

    @T.prim_func
    def gemm_intrinsics(A: T.Tensor(A_shape, dtype), B: T.Tensor(B_shape, dtype), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=emitter.threads) as (bx, by):
            A_shared = T.alloc_shared(A_shared_shape, dtype)
            B_shared = T.alloc_shared(B_shared_shape, dtype)
            C_shared = T.alloc_shared((block_M // 16, block_N // 16, 16, 16), "float32")
            A_local = T.alloc_local((emitter.warp_rows * emitter.local_size_a), dtype)
            B_local = T.alloc_local((emitter.warp_cols * emitter.local_size_b), dtype)
            C_local = T.alloc_local((emitter.warp_rows * emitter.warp_cols * emitter.local_size_out), "float32")
            T.annotate_layout({A_shared: make_swizzle_layout(A_shared), B_shared: make_swizzle_layout(B_shared)})
            T.clear(C_local)
            for ko in T.Pipelined(K // chunk, num_stages=2):
                if trans_A:
                    T.copy(A[ko * chunk, by * block_M], A_shared)
                else:
                    T.copy(A[by * block_M, ko * chunk], A_shared)
                if trans_B:
                    T.copy(B[bx * block_N, ko * chunk], B_shared)
                else:
                    T.copy(B[ko * chunk, bx * block_N], B_shared)
                for ki in T.serial(chunk // 16):
                    emitter.ldmatrix_a(A_local, A_shared, ki)
                    emitter.ldmatrix_b(B_local, B_shared, ki)
                    emitter.mma(A_local, B_local, C_local)
            emitter.stmatrix(C_local, C_shared)
            for i, j in T.Parallel(block_M, block_N):
                C[by * block_M + i, bx * block_N + j] = C_shared[i // 16, j // 16, i % 16, j % 16]

    return gemm_intrinsics
