# A split kernel and a combine kernel that talk through a T.alloc_global workspace allocated in the prim_func
# before both, as TileLang's flash decoding does (glse, Output_partial): the split kernel writes each part's
# row maxima (rounded to float16), the combine kernel reads all parts back into a fragment and adds them up,
# one part at a time through a T.copy between fragments of different shapes (lse_local[k, :] -> a row).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def split_combine(M=256, N=512, parts=4, block_M=64):
    part_n = N // parts

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), Out: T.Tensor((M,), "float32")):
        part_max = T.alloc_global((parts, M), "float16")
        with T.Kernel(T.ceildiv(M, block_M), parts, threads=128) as (bx, by):
            tile = T.alloc_fragment((block_M, part_n), "float32")
            row = T.alloc_fragment((block_M,), "float32")
            T.copy(A[bx * block_M, by * part_n], tile)
            T.reduce_max(tile, row, dim=1)
            T.copy(row, part_max[by, bx * block_M : (bx + 1) * block_M])
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            parts_local = T.alloc_fragment((parts, block_M), "float16")
            one = T.alloc_fragment((block_M,), "float32")
            total = T.alloc_fragment((block_M,), "float32")
            T.clear(total)
            T.copy(part_max[:, bx * block_M : (bx + 1) * block_M], parts_local)
            for k in T.serial(parts):
                T.copy(parts_local[k, :], one)
                for i in T.Parallel(block_M):
                    total[i] += one[i]
            T.copy(total, Out[bx * block_M : (bx + 1) * block_M])

    return main
