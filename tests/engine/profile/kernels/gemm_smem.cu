// A plain shared-memory tiled fp16 GEMM (fp32 accumulate, CUDA cores, no tensor cores): C[M,N] = A[M,K]
// B[K,N], row-major. A hand-written stand-in until tile programs run on the GPU through tilec; without
// tensor cores it is far from cuBLAS, which is what `--vs cublas` is there to show.
// tilebench-param: M=4096
// tilebench-param: N=4096
// tilebench-param: K=4096
// tilebench-param: BLOCK=64
// tilebench-kernel: gemm_smem
// tilebench-buffer: a f16 ${M}*${K} seed=5
// tilebench-buffer: b f16 ${K}*${N} seed=6
// tilebench-buffer: c f16 ${M}*${N} zero
// tilebench-launch: grid=${N}/${BLOCK},${M}/${BLOCK} block=256 args=buf:a,buf:b,buf:c
// tilebench-work: flops=2*${M}*${N}*${K} bytes=2*${M}*${K}+2*${K}*${N}+2*${M}*${N}
// tilebench-gemm: m=${M} n=${N} k=${K}
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
extern "C" __global__ void gemm_smem(const unsigned short* a, const unsigned short* b, unsigned short* c) {
    constexpr int T = BLOCK, KT = 16, R = T / 16; // each thread: R x R outputs
    __shared__ float as[KT][T + 1];
    __shared__ float bs[KT][T + 1];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * T, col0 = blockIdx.x * T;
    float acc[R][R] = {};
    for (int k0 = 0; k0 < K; k0 += KT) {
        for (int i = threadIdx.x; i < T * KT; i += 256) {
            int r = i / KT, kk = i % KT;
            as[kk][r] = h2f(a[(long long)(row0 + r) * K + k0 + kk]);
            int kb = i / T, cc = i % T;
            bs[kb][cc] = h2f(b[(long long)(k0 + kb) * N + col0 + cc]);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < KT; ++kk)
#pragma unroll
            for (int i = 0; i < R; ++i)
#pragma unroll
                for (int j = 0; j < R; ++j)
                    acc[i][j] += as[kk][ty + 16 * i] * bs[kk][tx + 16 * j];
        __syncthreads();
    }
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < R; ++j)
            c[(long long)(row0 + ty + 16 * i) * N + col0 + tx + 16 * j] = f2h(acc[i][j]);
}
