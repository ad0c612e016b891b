# A two-stage producer/consumer ring over T.ws scopes whose consumer comes first in program order: the
# consumer (threads 0..127) waits for stage k % 2 to be filled, reads it and releases it; the producer
# (threads 128..255) waits for the stage to be released, fills it with tile k of A and marks it filled.
# B[k * block + i] = 2 * A[k * block + i] + k. Run in program order, the consumer would read every stage
# before the producer wrote it; on the GPU the scopes run concurrently and the mbarriers order them, and so
# does the CPU executor (it switches scopes at an unsatisfied wait).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def ws_ring_consumer_first(n_tiles=6, block=64):
    @T.prim_func
    def main(A: T.Tensor((n_tiles * block,), "float32"), B: T.Tensor((n_tiles * block,), "float32")):
        with T.Kernel(1, threads=256) as bx:
            S = T.alloc_shared((2, block), "float32")
            filled = T.alloc_barrier([128] * 2)
            released = T.alloc_barrier([128] * 2)
            tx = T.get_thread_binding()
            if tx < 128:
                # consumer
                for k in T.serial(n_tiles):
                    T.mbarrier_wait_parity(filled[k % 2], (k // 2) % 2)
                    for i in T.Parallel(block):
                        B[k * block + i] = S[k % 2, i] * 2 + k
                    T.mbarrier_arrive(released[k % 2])
            else:
                # producer
                for k in T.serial(n_tiles):
                    T.mbarrier_wait_parity(released[k % 2], ((k // 2) % 2) ^ 1)
                    for i in T.Parallel(block):
                        S[k % 2, i] = A[k * block + i]
                    T.mbarrier_arrive(filled[k % 2])

    return main
