# A grid barrier between two phases (T.sync_grid, as the persistent MLA decode uses it): every block writes
# the sum of its row of A to Partial, waits until all blocks have, then scales its row (kept in a fragment
# across the barrier) by its right neighbour's sum and adds its left neighbour's. Run without the barrier's
# meaning (blocks one after another), some block reads a neighbour's Partial before that block wrote it.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2])
def grid_barrier(blocks=6, block_N=64):

    @T.prim_func
    def main(
        A: T.Tensor((blocks, block_N), "float32"),
        Partial: T.Tensor((blocks,), "float32"),
        Out: T.Tensor((blocks, block_N), "float32"),
    ):
        with T.Kernel(blocks, threads=128) as bx:
            row = T.alloc_fragment((block_N,), "float32")
            total = T.alloc_fragment((1,), "float32")
            T.copy(A[bx, 0:block_N], row)
            T.reduce_sum(row, total, dim=0)
            T.copy(total, Partial[bx : bx + 1])
            T.sync_grid()
            for i in T.Parallel(block_N):
                Out[bx, i] = row[i] * Partial[(bx + 1) % blocks] + Partial[(bx + blocks - 1) % blocks]

    return main
