// CUDA sources shared by the GPU tests: an inline-PTX tensor-core kernel (cp.async, ldmatrix, mma.sync
// m16n8k16; valid on sm_80 and sm_90a), a wgmma-fence kernel (sm_90a only), a vector add, kernels that
// fault or never finish, and a register-pressure kernel. All are self-contained (no #include), as TileBench's
// generated code is.
#pragma once

namespace tb::gpu::test {

// 768 bytes of static shared memory: 16x16 + 16x8 halves.
inline const char* kMmaSource = R"CUDA(
extern "C" __global__ void mma_tile(const unsigned short* a, const unsigned short* b, float* c) {
    __shared__ __align__(128) unsigned short sa[16 * 16];
    __shared__ __align__(128) unsigned short sb[16 * 8];
    int t = threadIdx.x;
    unsigned saddr = static_cast<unsigned>(__cvta_generic_to_shared(sa + t * 8));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(saddr), "l"(a + t * 8));
    if (t < 16) {
        unsigned sbaddr = static_cast<unsigned>(__cvta_generic_to_shared(sb + t * 8));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sbaddr), "l"(b + t * 8));
    }
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
    unsigned a0, a1, a2, a3, b0, b1;
    unsigned arow = static_cast<unsigned>(__cvta_generic_to_shared(sa + (t % 16) * 16 + (t / 16) * 8));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(arow));
    unsigned brow = static_cast<unsigned>(__cvta_generic_to_shared(sb + (t % 16) * 8));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(b0), "=r"(b1) : "r"(brow));
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    c[t * 4 + 0] = d0;
    c[t * 4 + 1] = d1;
    c[t * 4 + 2] = d2;
    c[t * 4 + 3] = d3;
}
)CUDA";

inline const char* kWgmmaSource = R"CUDA(
extern "C" __global__ void wgmma_fence(float* out) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    out[threadIdx.x] = 1.0f;
}
)CUDA";

inline const char* kVectorAddSource = R"CUDA(
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// Writes through a pointer into unmapped memory: CUDA_ERROR_ILLEGAL_ADDRESS at the synchronization.
extern "C" __global__ void write_wild(float* p) {
    float* wild = reinterpret_cast<float*>(0x10ull + (unsigned long long)p * 0ull);
    wild[threadIdx.x * 1024 * 1024] = 1.0f;
}

// Spins until *flag becomes non-zero, which the host never does: only the watchdog ends it.
extern "C" __global__ void spin_forever(volatile int* flag) {
    while (*flag == 0) {
    }
}
)CUDA";

// 64 accumulators in a loop that cannot be unrolled away: under a register cap (--maxrregcount=24) ptxas
// spills; `small` beside it needs few registers.
inline const char* kPressureSource = R"CUDA(
extern "C" __global__ void pressure(const float* in, float* out, int n) {
    float acc[64];
    for (int j = 0; j < 64; ++j) acc[j] = in[j * 33 + threadIdx.x];
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < 64; ++j) acc[j] = acc[j] * acc[(j + 1) & 63] + in[k * 64 + j];
    float s = 0.f;
    for (int j = 0; j < 64; ++j) s += acc[j] * j;
    out[threadIdx.x] = s;
}
extern "C" __global__ void small(float* out) { out[threadIdx.x] = 1.0f; }
)CUDA";

} // namespace tb::gpu::test
