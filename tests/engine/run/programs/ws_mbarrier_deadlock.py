# Two T.ws scopes that run concurrently and wait for each other first: each waits for the first phase of
# the mbarrier the other arrives on only after its own wait. On the GPU the block hangs; the CPU executor
# reports execution-mbarrier-deadlock with both waits.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def ws_mbarrier_deadlock(n=128):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(1, threads=256) as bx:
            S = T.alloc_shared((n,), "float32")
            first = T.alloc_barrier([128])
            second = T.alloc_barrier([128])
            tx = T.get_thread_binding()
            if tx < 128:
                T.mbarrier_wait_parity(first[0], 0)
                for i in T.Parallel(n):
                    B[i] = S[i]
                T.mbarrier_arrive(second[0])
            else:
                T.mbarrier_wait_parity(second[0], 0)
                for i in T.Parallel(n):
                    S[i] = A[i]
                T.mbarrier_arrive(first[0])

    return main
