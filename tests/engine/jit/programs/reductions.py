# Every float reduction along both dims, with and without clear, of a ragged bfloat16 tile (the copy's
# out-of-bounds rows read 0): sum, abssum, max, min, absmax, into float32 and float16 destinations.
import tilelang
import tilelang.language as T


@tilelang.jit
def reductions(M=50, N=48, block_M=32):

    @T.prim_func
    def main(A: T.Tensor((M, N), "bfloat16"), R: T.Tensor((M, 4), "float32"), C: T.Tensor((4, N), "float16")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            tile = T.alloc_fragment((block_M, N), "float32")
            rows = T.alloc_fragment((block_M,), "float32")
            cols = T.alloc_fragment((N,), "float16")
            T.copy(A[bx * block_M, 0], tile)
            T.reduce_sum(tile, rows, dim=1)
            T.reduce_max(tile, rows, dim=1, clear=False)
            for i in T.Parallel(block_M):
                if bx * block_M + i < M:
                    R[bx * block_M + i, 0] = rows[i]
            T.reduce_absmax(tile, rows, dim=1)
            T.reduce_min(tile, rows, dim=1, clear=False)
            for i in T.Parallel(block_M):
                if bx * block_M + i < M:
                    R[bx * block_M + i, 1] = rows[i]
            T.reduce_abssum(tile, rows, dim=1)
            for i in T.Parallel(block_M):
                if bx * block_M + i < M:
                    R[bx * block_M + i, 2] = rows[i] * 0.5
            T.reduce_max(tile, cols, dim=0)
            T.copy(cols, C[bx, 0])
            T.reduce_sum(tile, cols, dim=0)
            for j in T.Parallel(N):
                C[2 + bx, j] = cols[j]

    return main
