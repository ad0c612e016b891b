// Why some kernels' shared-store counters exceed their instructions' wavefronts: the elementwise-add sample's
// generated kernel (two 32x32 float tiles staged through shared memory, their sum stored to a third tile and
// copied out), with the global->shared copies as cp.async (ASYNC=1, what TileBench emits) or as plain 16-byte
// loads and stores (ASYNC=0). Every st.shared/ld.shared here is conflict-free.
//
// On the H200 (docs/benchmarks.md): with ASYNC=0 the op_ld/op_st counters equal the SASS metrics of the
// LDS/STS exactly and report no bank conflicts. With ASYNC=1 the op_st counter exceeds the STS wavefronts by
// a few hundred and reports store "bank conflicts", different in every run: the cp.async fills of other warps
// land in shared memory while these stores run, and the counter charges the collisions to the stores. No
// static model can predict that number; scripts/wavefront-agreement.py labels such rows instead of hiding
// them.
//
// clang-format off
// tilebench-param: ASYNC=1
// tilebench-kernel: tile_add
// tilebench-buffer: a f32 512*1024 seed=1
// tilebench-buffer: b f32 512*1024 seed=2
// tilebench-buffer: c f32 512*1024 zero
// tilebench-launch: grid=32,16 block=128 smem=12288 args=buf:a,buf:b,buf:c
// tilebench-work: bytes=3*4*512*1024
// clang-format on
struct __align__(16) vec4 {
    float x, y, z, w;
};

// One 16-byte global -> shared copy: cp.async.cg, or a load and a store.
static __device__ __forceinline__ void stage16(vec4* dst, const vec4* src) {
#if ASYNC
    unsigned long long shared;
    asm("cvta.to.shared.u64 %0, %1;" : "=l"(shared) : "l"(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)shared), "l"(src) : "memory");
#else
    *dst = *src;
#endif
}

extern "C" __global__ void __launch_bounds__(128) tile_add(const float* a, const float* b, float* c) {
    extern __shared__ __align__(128) unsigned char smem[];
    vec4* as = reinterpret_cast<vec4*>(smem); // 32x32 floats as 8 vec4 per row
    vec4* bs = reinterpret_cast<vec4*>(smem + 4096);
    vec4* cs = reinterpret_cast<vec4*>(smem + 8192);
    const int tx = threadIdx.x, row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
    // 256 vec4 per tile, 2 per thread: rows tx / 8 and tx / 8 + 16, vec4 column tx % 8.
    for (int r = 0; r < 2; ++r) {
        int row = tx / 8 + 16 * r, v = tx % 8;
        const vec4* ga = reinterpret_cast<const vec4*>(a + (row0 + row) * 1024 + col0) + v;
        const vec4* gb = reinterpret_cast<const vec4*>(b + (row0 + row) * 1024 + col0) + v;
        stage16(&as[row * 8 + v], ga);
        stage16(&bs[row * 8 + v], gb);
    }
#if ASYNC
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
#endif
    __syncthreads();
    for (int r = 0; r < 2; ++r) {
        int i = (tx / 8 + 16 * r) * 8 + tx % 8;
        vec4 x = as[i], y = bs[i];
        cs[i] = vec4{x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w};
    }
    __syncthreads();
    for (int r = 0; r < 2; ++r) {
        int row = tx / 8 + 16 * r, v = tx % 8;
        reinterpret_cast<vec4*>(c + (row0 + row) * 1024 + col0)[v] = cs[row * 8 + v];
    }
}
