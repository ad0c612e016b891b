// Device copy with 16-byte loads and stores, a grid-stride loop: the memory-bound baseline that
// RMSNorm-style kernels are compared with (bytes = read + write).
// tilebench-param: COUNT=268435456
// tilebench-kernel: copy4
// tilebench-buffer: src f32 ${COUNT} seed=2
// tilebench-buffer: dst f32 ${COUNT} zero
// tilebench-launch: grid=1056 block=512 args=buf:src,buf:dst,i64:${COUNT}
// tilebench-work: bytes=8*${COUNT}
extern "C" __global__ void copy4(const float4* src, float4* dst, long long count) {
    long long n4 = count / 4;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x)
        dst[i] = src[i];
}
