# Tiles whose vectors do not fill the last round of threads: 64 x 512 halves are 4096 vectors over 384
# threads (10 rounds and 256 more), 2000 floats are 500 vectors. TileLang's PlanLoopPartition gives some
# threads one slot fewer; the generated loops skip the slots past the tile instead of looping over the
# whole tile in every thread.
import tilelang
import tilelang.language as T


@tilelang.jit
def partial_partition(M=64, N=2000):

    @T.prim_func
    def main(A: T.Tensor((M, 512), "float16"), X: T.Tensor((N,), "float32"), B: T.Tensor((M, 512), "float16"),
             Y: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=384) as bx:
            tile = T.alloc_shared((M, 512), "float16")
            xs = T.alloc_shared((N,), "float32")
            T.copy(A, tile)
            T.copy(X, xs)
            for i in T.Parallel(N):
                xs[i] = xs[i] * 2.0 + 1.0
            for i, j in T.Parallel(M, 512):
                tile[i, j] = tile[i, j] + i
            T.copy(tile, B)
            T.copy(xs, Y)

    return main
