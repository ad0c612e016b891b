// C = ReLU(A @ B) in fp16 or bf16 (DTYPE), fp32 accumulate, row-major A[M,K], B[K,N], C[M,N] (the layout
// of samples/02_gemm_relu.py), the Hopper way: TMA loads into 128B-swizzled shared tiles, a STAGES-deep
// ring of full/empty mbarriers, producer/consumer warp specialization (warpgroup 0 issues TMA after
// setmaxnreg.dec; warpgroups 1 and 2 each issue wgmma m64n256k16 on 64 rows of the 128x256 tile after
// setmaxnreg.inc), a persistent grid walking tiles in GROUP_M-row bands for L2 reuse, and a fused ReLU in
// the epilogue. CLUSTER=2 pairs the blocks in thread-block clusters along M: both tiles of a pair read the
// same B columns, so each block loads half of B and multicasts it to both (TMA .multicast::cluster), and a
// stage is free again only when the consumers of both blocks released it (remote mbarrier arrives); SMS must
// then be even and at most twice the number of co-resident clusters. Built only from TileBench's generated
// device header (tilebench-device-header below): this is
// the kernel the Hopper backend's generated code should reach. Needs N % 8 == 0 and K % 8 == 0 (TMA
// strides are multiples of 16 bytes); M, N and K need not be multiples of the tile (TMA zero-fills).
//
// Shared tiles: A stage = 128 rows x 64 k (128 bytes a row, TMA box 64x128, 128B swizzle), read K-major by
// wgmma (SBO 1024 = 8 rows, a k step of 16 = +32 bytes inside the swizzled row). B stage = four 64-column
// panels of 64 k rows x 64 n (TMA box 64x64 each), read MN-major (TransB=1): LBO 8192 = the panel stride
// along N, SBO 1024 = 8 k rows, a k step of 16 = +2048 bytes.
// tilebench-param: M=4096
// tilebench-param: N=4096
// tilebench-param: K=4096
// tilebench-param: DTYPE=f16
// tilebench-param: STAGES=4
// tilebench-param: SMS=132
// tilebench-param: GROUP_M=16
// tilebench-param: CLUSTER=1
// tilebench-kernel: gemm_tma_wgmma
// tilebench-device-header: hopper wgmma=m64n256k16_f32_${DTYPE}_ss
// tilebench-buffer: a ${DTYPE} ${M}*${K} seed=5
// tilebench-buffer: b ${DTYPE} ${K}*${N} seed=6
// tilebench-buffer: c ${DTYPE} ${M}*${N} zero
// tilebench-tensormap: tA a dtype=${DTYPE} rank=2 dims=${K},${M} strides=${K}*2 box=64,128 swizzle=128B
// tilebench-tensormap: tB b dtype=${DTYPE} rank=2 dims=${N},${K} strides=${N}*2 box=64,64 swizzle=128B
// tilebench-launch: grid=${SMS} block=384 smem=${STAGES}*49152+2048 args=tmap:tA,tmap:tB,buf:c,i32:${M},i32:${N},i32:${K}
// tilebench-work: flops=2*${M}*${N}*${K} bytes=2*${M}*${K}+2*${K}*${N}+2*${M}*${N}
// tilebench-gemm: m=${M} n=${N} k=${K}

#define TB_IS_f16 0
#define TB_IS_bf16 1
#define TB_CAT_(a, b) a##b
#define TB_CAT(a, b) TB_CAT_(a, b)
#if TB_CAT(TB_IS_, DTYPE)
#define GEMM_WGMMA tb_wgmma_m64n256k16_f32_bf16_ss
#define GEMM_PACK tb_pack_bf16
#else
#define GEMM_WGMMA tb_wgmma_m64n256k16_f32_f16_ss
#define GEMM_PACK tb_pack_f16
#endif

#if CLUSTER == 2
#define GEMM_CLUSTER_DIMS __cluster_dims__(2, 1, 1)
#elif CLUSTER == 1
#define GEMM_CLUSTER_DIMS
#else
#error "CLUSTER is 1 or 2"
#endif

#define BM 128
#define BN 256
#define BK 64
#define A_STAGE_BYTES (BM * BK * 2)
#define B_PANEL_BYTES (BK * 64 * 2)
#define STAGE_BYTES (A_STAGE_BYTES + BN * BK * 2)

// Unit `t` of the persistent walk -> (unit row, tile column), a unit being CLUSTER tiles stacked along M:
// bands of `group` unit rows, column by column inside a band, so the blocks running at one time share A rows
// and B columns in L2.
static __device__ __forceinline__ void gemmUnitCoords(int t, int unitsM, int tilesN, int group, int& um, int& tn) {
    const int band = t / (group * tilesN), firstM = band * group;
    const int rows = tb_min(unitsM - firstM, group), inBand = t - band * group * tilesN;
    um = firstM + inBand % rows;
    tn = inBand / rows;
}

// A consumer warpgroup gives a stage back: to its own producer and, in a cluster, to the peer's, which
// multicasts into this block's copy of the stage too.
static __device__ __forceinline__ void gemmRelease(unsigned emptyBar) {
#if CLUSTER == 2
    tb_mbarrier_arrive_cluster(tb_mapa_shared(emptyBar, 0));
    tb_mbarrier_arrive_cluster(tb_mapa_shared(emptyBar, 1));
#else
    tb_mbarrier_arrive(emptyBar);
#endif
}

extern "C" __global__ void __launch_bounds__(384, 1) GEMM_CLUSTER_DIMS
    gemm_tma_wgmma(const __grid_constant__ tb_tensormap tA, const __grid_constant__ tb_tensormap tB,
                   unsigned short* __restrict__ c, int m, int n, int k) {
    extern __shared__ __align__(1024) unsigned char smemRaw[];
    // 128B swizzle atoms start on 1024 bytes; the launch asks 2048 more than the stages for this and the
    // barriers (full[s], then empty[s]) after them.
    const unsigned base = (tb_smem_addr(smemRaw) + 1023u) & ~1023u;
    const unsigned bars = base + STAGES * STAGE_BYTES;
    const int wg = tb_warpgroup_index();
    const int tilesM = (m + BM - 1) / BM, tilesN = (n + BN - 1) / BN, kBlocks = (k + BK - 1) / BK;
    const int unitsM = (tilesM + CLUSTER - 1) / CLUSTER, units = unitsM * tilesN;
    const int group = GROUP_M / CLUSTER > 0 ? GROUP_M / CLUSTER : 1;
    const int firstUnit = blockIdx.x / CLUSTER, unitStep = gridDim.x / CLUSTER;
#if CLUSTER == 2
    const int rank = (int)tb_cluster_ctarank(); // the tile row inside the unit; a last odd row is all padding
#else
    const int rank = 0;
#endif

    if (threadIdx.x == 0) {
        tb_prefetch_tensormap(&tA);
        tb_prefetch_tensormap(&tB);
        for (int s = 0; s < STAGES; ++s) {
            tb_mbarrier_init(bars + 8 * s, 1);            // full: the producer's arrive + the TMA bytes
            tb_mbarrier_init(bars + 8 * (STAGES + s), 2 * CLUSTER); // empty: each consumer warpgroup of the unit
        }
        tb_fence_mbarrier_init();
    }
#if CLUSTER == 2
    __syncwarp(); // barrier.cluster is .aligned: whole warps, converged after thread 0's init
    tb_cluster_sync(); // the peer arrives on these barriers and multicasts into this block's stages
#else
    __syncthreads();
#endif

    if (wg == 0) {
        // Producer: one thread issues every TMA load; the warpgroup gives its registers to the consumers.
        tb_setmaxnreg_dec<40>();
        if (threadIdx.x == 0) {
            int stage = 0;
            unsigned phase = 0;
            for (int t = firstUnit; t < units; t += unitStep) {
                int um, tn;
                gemmUnitCoords(t, unitsM, tilesN, group, um, tn);
                const int tm = um * CLUSTER + rank;
                for (int kb = 0; kb < kBlocks; ++kb) {
                    const unsigned full = bars + 8 * stage, empty = bars + 8 * (STAGES + stage);
                    tb_mbarrier_wait(empty, phase ^ 1); // the first round passes: the slot starts free
                    const unsigned sA = base + stage * STAGE_BYTES, sB = sA + A_STAGE_BYTES;
                    tb_mbarrier_arrive_expect_tx(full, STAGE_BYTES);
                    tb_tma_load_2d(sA, &tA, full, kb * BK, tm * BM);
#if CLUSTER == 2
                    // This block's half of the B panels, into both blocks' stage (and both full barriers).
#pragma unroll
                    for (int p = 2 * rank; p < 2 * rank + 2; ++p)
                        tb_tma_load_2d_multicast(sB + p * B_PANEL_BYTES, &tB, full, (unsigned short)0x3,
                                                 tn * BN + 64 * p, kb * BK);
#else
#pragma unroll
                    for (int p = 0; p < BN / 64; ++p)
                        tb_tma_load_2d(sB + p * B_PANEL_BYTES, &tB, full, tn * BN + 64 * p, kb * BK);
#endif
                    if (++stage == STAGES) {
                        stage = 0;
                        phase ^= 1;
                    }
                }
            }
        }
    } else {
        // Consumers: warpgroup 1 takes rows 0..63 of the tile, warpgroup 2 rows 64..127.
        tb_setmaxnreg_inc<232>();
        const int cw = wg - 1;
        const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
        float d[128];
        int stage = 0;
        unsigned phase = 0;
        for (int t = firstUnit; t < units; t += unitStep) {
            int um, tn;
            gemmUnitCoords(t, unitsM, tilesN, group, um, tn);
            const int tm = um * CLUSTER + rank;
            int held = -1; // the stage whose wgmma batch may still be reading shared memory
            for (int kb = 0; kb < kBlocks; ++kb) {
                tb_mbarrier_wait(bars + 8 * stage, phase);
                const unsigned sA = base + stage * STAGE_BYTES + cw * 64 * 128, sB = base + stage * STAGE_BYTES + A_STAGE_BYTES;
                tb_wgmma_fence();
#pragma unroll
                for (int kk = 0; kk < BK / 16; ++kk) {
                    const tb_u64 descA = tb_wgmma_desc(sA + 32 * kk, 16, 1024, TB_WGMMA_SWIZZLE_128B);
                    const tb_u64 descB = tb_wgmma_desc(sB + 2048 * kk, 8192, 1024, TB_WGMMA_SWIZZLE_128B);
                    GEMM_WGMMA<1, 1, 0, 1>(d, descA, descB, (kb > 0 || kk > 0) ? 1 : 0);
                }
                tb_wgmma_commit();
                // Keep this batch in flight; the previous one is done, so its stage goes back to the producer.
                tb_wgmma_wait<1>();
                if (held >= 0 && threadIdx.x % 128 == 0)
                    gemmRelease(bars + 8 * (STAGES + held));
                held = stage;
                if (++stage == STAGES) {
                    stage = 0;
                    phase ^= 1;
                }
            }
            tb_wgmma_wait<0>();
            tb_wgmma_fence_regs(d);
            if (threadIdx.x % 128 == 0)
                gemmRelease(bars + 8 * (STAGES + held));

            // Epilogue: ReLU, fp32 -> DTYPE, straight from the accumulator registers. Register v of a
            // thread (warp w, lane 4g + q) holds row 16w + g + 8((v/2)%2), column 8(v/4) + 2q + v%2.
            const int row0 = tm * BM + cw * 64 + warp * 16 + lane / 4, col0 = tn * BN + 2 * (lane % 4);
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) { // 4 registers per 8 columns: d[0..127]
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int row = row0 + 8 * h, col = col0 + 8 * j;
                    if (row < m && col < n) {
                        const unsigned packed = GEMM_PACK(tb_max(d[4 * j + 2 * h], 0.0f), tb_max(d[4 * j + 2 * h + 1], 0.0f));
                        *reinterpret_cast<unsigned*>(c + (size_t)row * n + col) = packed;
                    }
                }
            }
        }
    }
#if CLUSTER == 2
    __syncwarp();
    tb_cluster_sync(); // no block leaves while its peer may still arrive on its barriers
#endif
}
