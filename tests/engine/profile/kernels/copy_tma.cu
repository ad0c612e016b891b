// A TMA copy: each block loads one BR x BC box of a row-major f32 matrix into shared memory with
// cp.async.bulk.tensor (completing an mbarrier's transaction count), waits on the mbarrier, and writes the
// box back out with a TMA store (bulk async-group), both through 128B-swizzled tensor maps. Built only from
// TileBench's generated sm_90a device header (tilebench-device-header), so it tests those primitives and
// the runner's tensor maps end to end; a ragged matrix works too (TMA clips the boxes at the edges).
// tilebench-param: ROWS=8192
// tilebench-param: COLS=8192
// tilebench-param: BR=64
// tilebench-param: BC=32
// tilebench-kernel: copy_tma
// tilebench-device-header: hopper
// tilebench-buffer: src f32 ${ROWS}*${COLS} seed=3
// tilebench-buffer: dst f32 ${ROWS}*${COLS} zero
// tilebench-tensormap: tsrc src dtype=f32 rank=2 dims=${COLS},${ROWS} strides=${COLS}*4 box=${BC},${BR} swizzle=128B
// tilebench-tensormap: tdst dst dtype=f32 rank=2 dims=${COLS},${ROWS} strides=${COLS}*4 box=${BC},${BR} swizzle=128B
// tilebench-launch: grid=${COLS}/${BC},${ROWS}/${BR} block=32 args=tmap:tsrc,tmap:tdst
// tilebench-work: flops=0 bytes=8*${ROWS}*${COLS}

// The box is 128 bytes wide (BC f32), the 128B swizzle span; the shared tile starts on 1024 bytes.
extern "C" __global__ void __launch_bounds__(32) copy_tma(const __grid_constant__ tb_tensormap src,
                                                          const __grid_constant__ tb_tensormap dst) {
    __shared__ __align__(1024) float tile[BR * BC];
    __shared__ __align__(8) tb_u64 bar;
    const unsigned tileAddr = tb_smem_addr(tile), barAddr = tb_smem_addr(&bar);
    const int c0 = blockIdx.x * BC, r0 = blockIdx.y * BR;
    if (threadIdx.x == 0) {
        tb_prefetch_tensormap(&src);
        tb_prefetch_tensormap(&dst);
        tb_mbarrier_init(barAddr, 1);
        tb_fence_mbarrier_init();
        // A box at the edge still delivers all BR * BC elements (the outside ones filled with zeros).
        tb_mbarrier_arrive_expect_tx(barAddr, BR * BC * 4);
        tb_tma_load_2d(tileAddr, &src, barAddr, c0, r0);
        tb_mbarrier_wait(barAddr, 0);
        tb_tma_store_2d(&dst, tileAddr, c0, r0); // writes only the elements inside the matrix
        tb_tma_store_commit();
        tb_tma_store_wait<0>();
        tb_mbarrier_inval(barAddr);
    }
}
