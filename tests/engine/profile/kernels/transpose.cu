// Shared-memory transpose of an N x N float matrix, 32x32 tiles. PAD=0 reads tile[tx][ty] with a row
// stride of 32 words: a 32-way bank conflict on every LDS. PAD=1 pads rows to 33 words: conflict-free.
// The H200 measurements of both are in docs/reference/gpu-machine.md.
// tilebench-param: PAD=0
// tilebench-param: N=8192
// tilebench-kernel: transpose
// tilebench-buffer: in f32 ${N}*${N} seed=1
// tilebench-buffer: out f32 ${N}*${N} zero
// tilebench-launch: grid=${N}/32,${N}/32 block=32,32 args=buf:in,buf:out,i32:${N}
// tilebench-work: bytes=2*4*${N}*${N}
extern "C" __global__ void transpose(const float* in, float* out, int n) {
    __shared__ float tile[32][32 + PAD];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
