# Found by fuzz_diff --gpu on the H200 (seed 4000032, 2026-12-02; the runner's 20 s watchdog stopped it),
# reduced: a warp-specialized GEMM with num_stages=1 on the hopper backend. The consumer kept its wgmma batch
# in flight and gave back the previous iteration's stage, which with one stage is the stage the producer
# waits to refill: the producer waited for the release and the consumer for the producer's next tile.
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 48), "float16"), B: T.Tensor((48, 64), "float16"), C: T.Tensor((64, 64), "float16")):
    with T.Kernel(1, 1, threads=128) as (bx, by):
        A_s = T.alloc_shared((64, 32), "float16")
        B_s = T.alloc_shared((32, 64), "float16")
        C_f = T.alloc_fragment((64, 64), "float32")
        T.clear(C_f)
        for ko in T.Pipelined(T.ceildiv(48, 32), num_stages=1):
            T.copy(A[by * 64, ko * 32], A_s)
            T.copy(B[ko * 32, bx * 64], B_s)
            T.gemm(A_s, B_s, C_f)
        T.copy(C_f, C[by * 64, bx * 64])
