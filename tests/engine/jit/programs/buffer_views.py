# Views of global buffers (T.Tensor(shape, dtype, buf.data)): the same storage in another shape, read
# through one view and written through another; Y is written only through its view, and the last tile of
# rows is ragged (90 rows of 4 in tiles of 16).
import tilelang
import tilelang.language as T


@tilelang.jit
def rescale_rows(B=3, H=10, W=12, block_rows=16):

    @T.prim_func
    def main(X: T.Tensor((B, H, W), "float16"), Y: T.Tensor((B, H, W), "float32")):
        with T.Kernel(T.ceildiv(B * H * W // 4, block_rows), threads=64) as bx:
            x_rows = T.Tensor((B * H * W // 4, 4), "float16", X.data)
            y_rows = T.Tensor((B * H * W // 4, 4), "float32", Y.data)
            tile = T.alloc_shared((block_rows, 4), "float16")
            T.copy(x_rows[bx * block_rows, 0], tile)
            for i, j in T.Parallel(block_rows, 4):
                tile[i, j] = tile[i, j] * 2 + j
            T.copy(tile, y_rows[bx * block_rows, 0])

    return main
