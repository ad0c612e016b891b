// y = silu(x * rsqrt(mean(x^2) + 1e-5) * gamma) over rows of C fp16 values, fp32 math, one warp per row
// (performance-targets.md §8 measures torch and the device copy on the same shape: x (262144, C)).
// tilebench-param: ROWS=262144
// tilebench-param: C=1024
// tilebench-kernel: rmsnorm_silu
// tilebench-buffer: x f16 ${ROWS}*${C} seed=3
// tilebench-buffer: gamma f16 ${C} seed=4
// tilebench-buffer: y f16 ${ROWS}*${C} zero
// tilebench-launch: grid=${ROWS}/8 block=256 args=buf:x,buf:gamma,buf:y,i32:${ROWS}
// tilebench-work: bytes=2*2*${ROWS}*${C}
// fp16 <-> fp32 with PTX conversions: NVRTC compiles without the toolkit's headers (self-contained source).
__device__ __forceinline__ float h2f(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ unsigned short f2h(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
extern "C" __global__ void rmsnorm_silu(const unsigned short* x, const unsigned short* gamma,
                                        unsigned short* y, int rows) {
    int row = blockIdx.x * 8 + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    // Each lane handles pairs of halves (4-byte accesses), 32 lanes side by side: coalesced.
    const ushort2* xr = reinterpret_cast<const ushort2*>(x + (long long)row * C);
    const ushort2* g2 = reinterpret_cast<const ushort2*>(gamma);
    ushort2* yr = reinterpret_cast<ushort2*>(y + (long long)row * C);
    float2 v[C / 64];
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < C / 64; ++i) {
        ushort2 h = xr[lane + 32 * i];
        v[i] = make_float2(h2f(h.x), h2f(h.y));
        sum += v[i].x * v[i].x + v[i].y * v[i].y;
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, o);
    float r = rsqrtf(sum / C + 1e-5f);
#pragma unroll
    for (int i = 0; i < C / 64; ++i) {
        ushort2 g = g2[lane + 32 * i];
        float a = v[i].x * r * h2f(g.x), b = v[i].y * r * h2f(g.y);
        yr[lane + 32 * i] = make_ushort2(f2h(a / (1.f + __expf(-a))), f2h(b / (1.f + __expf(-b))));
    }
}
