# A warp-specialized GEMM whose producer warpgroup loads both operands by hand, as FlashMLA's decode
# (deepseek_mla/example_mla_decode_ws.py) loads K and V: each producer thread issues T.ptx_cp_async copies of
# `vec` halves from its own element of A and B into a two-stage shared tile, then T.cp_async_barrier_noinc
# makes the stage's mbarrier count its arrival once they land. The consumer waits for the stage, multiplies
# it and releases it. The copies of A are predicated (always true here), so the zero-filling form is
# compiled too. The copies use thread indices, so the CPU executor cannot run it: the codegen tests check its
# structure and that NVRTC compiles it.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2])
def ws_cp_async_gemm(M=64, N=64, K=256, block_K=64, vec=8):
    threads_per_row = block_K // vec
    rows_per_round = 128 // threads_per_row

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((N, K), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=256) as bx:
            A_shared = T.alloc_shared((2, M, block_K), "float16")
            B_shared = T.alloc_shared((2, N, block_K), "float16")
            C_local = T.alloc_fragment((M, N), "float32")
            ready = T.alloc_barrier([128] * 2)
            free = T.alloc_barrier([128] * 2)
            tx = T.get_thread_binding()
            if tx >= 128:
                # producer
                for ko in T.serial(K // block_K):
                    T.barrier_wait(free[ko % 2], ((ko // 2) & 1) ^ 1)
                    for r in T.serial(M // rows_per_round):
                        row = r * rows_per_round + (tx - 128) // threads_per_row
                        col = (tx - 128) % threads_per_row * vec
                        T.ptx_cp_async(
                            T.access_ptr(A_shared[ko % 2, row, col], "w", vec),
                            T.access_ptr(A[row, ko * block_K + col], "r", vec),
                            vec,
                            predicate=ko * block_K + col < K,
                        )
                    for r in T.serial(N // rows_per_round):
                        row = r * rows_per_round + (tx - 128) // threads_per_row
                        col = (tx - 128) % threads_per_row * vec
                        T.ptx_cp_async(
                            T.access_ptr(B_shared[ko % 2, row, col], "w", vec),
                            T.access_ptr(B[row, ko * block_K + col], "r", vec),
                            vec,
                        )
                    T.cp_async_barrier_noinc(ready[ko % 2])
            else:
                # consumer
                T.clear(C_local)
                for ko in T.serial(K // block_K):
                    T.barrier_wait(ready[ko % 2], (ko // 2) & 1)
                    T.gemm(A_shared[ko % 2, :, :], B_shared[ko % 2, :, :], C_local, transpose_B=True)
                    T.barrier_arrive(free[ko % 2])
                T.copy(C_local, C)

    return main
