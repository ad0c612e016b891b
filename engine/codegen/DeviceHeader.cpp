// The inline device header of generated kernels; see DeviceHeader.h.
#include "engine/codegen/DeviceHeader.h"

namespace tb::codegen {

const char* cudaCpAsyncHeader() {
    return R"CUDA(// ---- the program's cp.async (T.ptx_cp_async) and its noinc mbarrier arrive (T.cp_async_barrier_noinc) ----
// .cg (L2 only) takes 16 bytes alone; 4 and 8 go through .ca. The _fill forms copy `bytes` (0 or the width)
// and zero-fill the rest, as a false predicate asks.
static __device__ __forceinline__ void tb_cp_async_4(unsigned smem, const void* gmem) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(smem), "l"(gmem) : "memory");
}
static __device__ __forceinline__ void tb_cp_async_8(unsigned smem, const void* gmem) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" :: "r"(smem), "l"(gmem) : "memory");
}
static __device__ __forceinline__ void tb_cp_async_4_fill(unsigned smem, const void* gmem, int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" :: "r"(smem), "l"(gmem), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void tb_cp_async_8_fill(unsigned smem, const void* gmem, int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" :: "r"(smem), "l"(gmem), "r"(bytes) : "memory");
}
// The mbarrier at shared-window address `bar` gets this thread's arrival when all its earlier cp.async
// copies have landed; .noinc: the arrival is one of the mbarrier's arrive count (no pending count added).
static __device__ __forceinline__ void tb_cp_async_mbarrier_arrive_noinc(unsigned bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
}

)CUDA";
}

const char* cudaFloat8Header() {
    return R"CUDA(// ---- float8 (e4m3fn, e5m2) <-> fp32: round to nearest even, subnormals; e4m3 saturates, e5m2 -> inf ----
// Ties to even with integer operations only (libdevice's ilogbf/ldexpf made each conversion ~180 PTX
// instructions): keep the mantissa bits down to the format's quantum and round the rest. A subnormal's code
// is its count of quanta, and a carry out of the mantissa is the next binade, so one addition encodes
// both. Equal to the CPU rounding (engine/exec/FloatFormats) for every one of the 2^32 floats.
static __device__ __forceinline__ unsigned char tb_f2fp8(float x, int mbits, int bias, unsigned maxCode,
                                                         unsigned overflowCode) {
    const unsigned u = __float_as_uint(x);
    const unsigned sign = (u >> 24) & 0x80u, magnitude = u & 0x7fffffffu;
    if (magnitude > 0x7f800000u)
        return (unsigned char)(sign | (mbits == 3 ? 0x7Fu : 0x7Eu));
    const int e = (int)(magnitude >> 23) - 127, minExp = 1 - bias;
    const int shift = 23 - mbits + (e < minExp ? minExp - e : 0);
    if (shift > 24) // below half the smallest subnormal: zero (and float zeros and subnormals)
        return (unsigned char)sign;
    const unsigned mant = (magnitude & 0x7fffffu) | 0x800000u, half = 1u << (shift - 1);
    const unsigned rest = mant & ((half << 1) - 1u);
    unsigned quanta = mant >> shift;
    quanta += (rest > half || (rest == half && (quanta & 1u))) ? 1u : 0u;
    const unsigned code = (e >= minExp ? (unsigned)(e + bias - 1) << mbits : 0u) + quanta;
    return (unsigned char)(sign | (code > maxCode ? overflowCode : code));
}
static __device__ __forceinline__ float tb_fp82f(unsigned char v, int mbits, int bias) {
    const unsigned sign = (v & 0x80u) << 24, exp = (v & 0x7Fu) >> mbits, mant = v & ((1u << mbits) - 1u);
    if (mbits == 3 && (v & 0x7Fu) == 0x7Fu)
        return __uint_as_float(0x7fc00000u);
    if (mbits == 2 && exp == 0x1Fu)
        return __uint_as_float(mant ? 0x7fc00000u : sign | 0x7f800000u);
    if (exp == 0) { // subnormal: mant quanta of 2^(1 - bias - mbits)
        const float m = (float)mant * __uint_as_float((unsigned)(128 - bias - mbits) << 23);
        return sign ? -m : m;
    }
    return __uint_as_float(sign | ((exp + 127 - bias) << 23) | (mant << (23 - mbits)));
}
// e4m3fn saturates at 448 (it has no infinity); e5m2 overflows to infinity.
static __device__ __forceinline__ unsigned char tb_f2e4m3(float x) { return tb_f2fp8(x, 3, 7, 0x7Eu, 0x7Eu); }
static __device__ __forceinline__ unsigned char tb_f2e5m2(float x) { return tb_f2fp8(x, 2, 15, 0x7Bu, 0x7Cu); }
static __device__ __forceinline__ float tb_e4m32f(unsigned char v) { return tb_fp82f(v, 3, 7); }
static __device__ __forceinline__ float tb_e5m22f(unsigned char v) { return tb_fp82f(v, 2, 15); }
static __device__ __forceinline__ float tb_round_e4m3(float x) { return tb_e4m32f(tb_f2e4m3(x)); }
static __device__ __forceinline__ float tb_round_e5m2(float x) { return tb_e5m22f(tb_f2e5m2(x)); }

)CUDA";
}

const char* cudaGridSyncHeader() {
    return R"CUDA(// ---- grid barrier (T.sync_grid); the kernel is launched cooperatively: every block is resident ----
// cooperative_groups' grid.sync(): thread 0 of each block adds 1 to the arrival word, block (0,0,0) adds
// 0x80000000 - (blocks - 1), so the word's top bit flips exactly when the last block arrives, whatever it
// held before (no reset between barriers or launches). The release add publishes the block's writes (the
// block barrier before it gathers them in thread 0), the acquire loads make the others' visible.
static __device__ unsigned tb_grid_arrivals = 0;
static __device__ __forceinline__ void tb_grid_sync() {
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
        const unsigned add = blockIdx.x + blockIdx.y + blockIdx.z == 0 ? 0x80000000u - (blocks - 1u) : 1u;
        unsigned before, now;
        asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;"
                     : "=r"(before) : "l"(&tb_grid_arrivals), "r"(add) : "memory");
        do {
            asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(&tb_grid_arrivals) : "memory");
        } while (((before ^ now) & 0x80000000u) == 0u);
    }
    __syncthreads();
    __threadfence();
}

)CUDA";
}

const char* cudaDeviceHeader() {
    return R"CUDA(// ---- TileBench device helpers (self-contained: no CUDA headers needed) ----
typedef unsigned long long tb_u64;
struct half_t { unsigned short bits; };
struct bfloat16_t { unsigned short bits; };
struct __align__(16) tb_vec16 { unsigned x, y, z, w; };
struct __align__(8) tb_vec8 { unsigned x, y; };
typedef unsigned tb_vec4;

// fp16 / bf16 <-> fp32 (round to nearest even), as PTX cvt.
static __device__ __forceinline__ float tb_h2f(half_t h) {
    float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits)); return f;
}
static __device__ __forceinline__ half_t tb_f2h(float f) {
    half_t h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f)); return h;
}
static __device__ __forceinline__ float tb_bf2f(bfloat16_t b) { return __uint_as_float(((unsigned)b.bits) << 16); }
static __device__ __forceinline__ bfloat16_t tb_f2bf(float f) {
    bfloat16_t b; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b.bits) : "f"(f)); return b;
}
static __device__ __forceinline__ float tb_round_f16(float x) { return tb_h2f(tb_f2h(x)); }
static __device__ __forceinline__ float tb_round_bf16(float x) { return tb_bf2f(tb_f2bf(x)); }
// Two fp32 values as one packed f16x2 / bf16x2 register (lo in the low half), for mma operands.
static __device__ __forceinline__ unsigned tb_pack_f16(float lo, float hi) {
    return (unsigned)tb_f2h(lo).bits | ((unsigned)tb_f2h(hi).bits << 16);
}
static __device__ __forceinline__ unsigned tb_pack_bf16(float lo, float hi) {
    return (unsigned)tb_f2bf(lo).bits | ((unsigned)tb_f2bf(hi).bits << 16);
}

// Python-style integer division and modulo (round toward negative infinity).
template <typename T> static __device__ __forceinline__ T tb_floordiv(T a, T b) {
    T q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <typename T> static __device__ __forceinline__ T tb_floormod(T a, T b) {
    T m = a % b; return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}
template <typename T> static __device__ __forceinline__ T tb_min(T a, T b) { return a < b ? a : b; }
template <typename T> static __device__ __forceinline__ T tb_max(T a, T b) { return a > b ? a : b; }
static __device__ __forceinline__ float tb_min(float a, float b) { return fminf(a, b); }
static __device__ __forceinline__ float tb_max(float a, float b) { return fmaxf(a, b); }
static __device__ __forceinline__ double tb_min(double a, double b) { return fmin(a, b); }
static __device__ __forceinline__ double tb_max(double a, double b) { return fmax(a, b); }

// Fast exp2 (the MUFU.EX2 instruction); exp2(-inf) = 0.
static __device__ __forceinline__ float tb_exp2(float x) {
    float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y;
}
static __device__ __forceinline__ float tb_inf() { return __int_as_float(0x7f800000); }

// Shared-memory address of a generic pointer (for cp.async and ldmatrix operands).
static __device__ __forceinline__ unsigned tb_smem_addr(const void* p) {
    tb_u64 a; asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p)); return (unsigned)a;
}

// cp.async (sm_80+): 16-byte global -> shared copies that bypass L1, grouped and waited for by count. The
// destination is a 32-bit shared-window address (the arena base plus a byte offset).
static __device__ __forceinline__ void tb_cp_async_16(unsigned smem, const void* gmem) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(smem), "l"(gmem) : "memory");
}
// The predicated form for partial tiles: copies `bytes` (0..16) and zero-fills the rest of the 16 bytes, so
// a ragged edge stays on the same instruction (and the same bank behaviour) as the full tiles.
static __device__ __forceinline__ void tb_cp_async_16_fill(unsigned smem, const void* gmem, int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(smem), "l"(gmem), "r"(bytes) : "memory");
}

// L2 cache policies for T.copy(eviction_policy=...): evict_last keeps lines a later loop reads again, evict_first
// lets lines read or written once leave first. A policy is a 64-bit createpolicy operand of the accesses below.
static __device__ __forceinline__ tb_u64 tb_policy_evict_first() {
    tb_u64 p; asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p)); return p;
}
static __device__ __forceinline__ tb_u64 tb_policy_evict_last() {
    tb_u64 p; asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p)); return p;
}
static __device__ __forceinline__ void tb_cp_async_16_hint(unsigned smem, const void* gmem, tb_u64 policy) {
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\n"
                 :: "r"(smem), "l"(gmem), "l"(policy) : "memory");
}
static __device__ __forceinline__ void tb_cp_async_16_fill_hint(unsigned smem, const void* gmem, int bytes,
                                                                tb_u64 policy) {
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n"
                 :: "r"(smem), "l"(gmem), "r"(bytes), "l"(policy) : "memory");
}
static __device__ __forceinline__ tb_vec4 tb_ld_hint(const tb_vec4* p, tb_u64 policy) {
    tb_vec4 v; asm volatile("ld.global.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(v) : "l"(p), "l"(policy)); return v;
}
static __device__ __forceinline__ tb_vec8 tb_ld_hint(const tb_vec8* p, tb_u64 policy) {
    tb_vec8 v;
    asm volatile("ld.global.L2::cache_hint.v2.b32 {%0, %1}, [%2], %3;" : "=r"(v.x), "=r"(v.y) : "l"(p), "l"(policy));
    return v;
}
static __device__ __forceinline__ tb_vec16 tb_ld_hint(const tb_vec16* p, tb_u64 policy) {
    tb_vec16 v;
    asm volatile("ld.global.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(policy));
    return v;
}
static __device__ __forceinline__ void tb_st_hint(tb_vec4* p, tb_vec4 v, tb_u64 policy) {
    asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" :: "l"(p), "r"(v), "l"(policy) : "memory");
}
static __device__ __forceinline__ void tb_st_hint(tb_vec8* p, tb_vec8 v, tb_u64 policy) {
    asm volatile("st.global.L2::cache_hint.v2.b32 [%0], {%1, %2}, %3;" :: "l"(p), "r"(v.x), "r"(v.y), "l"(policy)
                 : "memory");
}
static __device__ __forceinline__ void tb_st_hint(tb_vec16* p, tb_vec16 v, tb_u64 policy) {
    asm volatile("st.global.L2::cache_hint.v4.b32 [%0], {%1, %2, %3, %4}, %5;"
                 :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(policy) : "memory");
}
static __device__ __forceinline__ void tb_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> static __device__ __forceinline__ void tb_cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}

// ldmatrix: 8x8 b16 matrices from shared memory, one 16-byte row address per lane, given as a 32-bit
// shared-window address (the kernel keeps its arena's base in one register and adds byte offsets, instead of
// converting 64-bit generic pointers per load). Macros, not functions:
// the line info of an inlined function names the helper's line, while a macro's asm carries the kernel line
// it is used on, so profiled shared-memory wavefronts land on the T.gemm that loads the operands.
#define tb_ldmatrix_x1(r, a) \
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"((r)[0]) : "r"(a))
#define tb_ldmatrix_x2(r, a) \
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" \
                 : "=r"((r)[0]), "=r"((r)[1]) : "r"(a))
#define tb_ldmatrix_x4(r, a) \
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n" \
                 : "=r"((r)[0]), "=r"((r)[1]), "=r"((r)[2]), "=r"((r)[3]) : "r"(a))
#define tb_ldmatrix_x1_trans(r, a) \
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"((r)[0]) : "r"(a))
#define tb_ldmatrix_x2_trans(r, a) \
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n" \
                 : "=r"((r)[0]), "=r"((r)[1]) : "r"(a))
#define tb_ldmatrix_x4_trans(r, a) \
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n" \
                 : "=r"((r)[0]), "=r"((r)[1]), "=r"((r)[2]), "=r"((r)[3]) : "r"(a))
// Predicated forms (`p` the same in every lane): a woven pipeline's last tile skips loading a next tile while
// the loads stay in the same basic block as the mma they overlap (a branch would split the schedule).
#define TB_LDMATRIX_IF(shape, r, a, p) \
    asm volatile("{\n.reg .pred q;\nsetp.ne.b32 q, %5, 0;\n@q ldmatrix.sync.aligned.m8n8." shape \
                 ".shared.b16 {%0, %1, %2, %3}, [%4];\n}\n" \
                 : "=r"((r)[0]), "=r"((r)[1]), "=r"((r)[2]), "=r"((r)[3]) : "r"(a), "r"((int)(p)))
#define TB_LDMATRIX2_IF(shape, r, a, p) \
    asm volatile("{\n.reg .pred q;\nsetp.ne.b32 q, %3, 0;\n@q ldmatrix.sync.aligned.m8n8." shape \
                 ".shared.b16 {%0, %1}, [%2];\n}\n" : "=r"((r)[0]), "=r"((r)[1]) : "r"(a), "r"((int)(p)))
#define tb_ldmatrix_x4_if(r, a, p) TB_LDMATRIX_IF("x4", r, a, p)
#define tb_ldmatrix_x4_trans_if(r, a, p) TB_LDMATRIX_IF("x4.trans", r, a, p)
#define tb_ldmatrix_x2_if(r, a, p) TB_LDMATRIX2_IF("x2", r, a, p)
#define tb_ldmatrix_x2_trans_if(r, a, p) TB_LDMATRIX2_IF("x2.trans", r, a, p)

// mma.sync m16n8k16 with fp32 accumulators: c0..c3 += A (4 regs) x B (2 regs).
static __device__ __forceinline__ void tb_mma_f16(float& c0, float& c1, float& c2, float& c3, const unsigned* a,
                                                  unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
static __device__ __forceinline__ void tb_mma_bf16(float& c0, float& c1, float& c2, float& c3, const unsigned* a,
                                                   unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Threadblock rasterization (T.use_swizzle, TileLang's rasterization2DRow/Column): consecutive blocks sweep
// a band of `panel` block rows (columns), alternating direction, for L2 reuse. Returns the remapped (bx, by).
static __device__ __forceinline__ void tb_rasterize_row(int panel, int& bx, int& by) {
    const int gx = gridDim.x, gy = gridDim.y, total = gx * gy;
    const int b = blockIdx.x + blockIdx.y * gx, size = panel * gx;
    const int off = b % size, pid = b / size, npanels = (total + size - 1) / size;
    const int stride = (pid + 1 < npanels) ? panel : (total - pid * size) / gx;
    bx = (pid & 1) ? gx - 1 - off / stride : off / stride;
    by = off % stride + pid * panel;
}
static __device__ __forceinline__ void tb_rasterize_col(int panel, int& bx, int& by) {
    const int gx = gridDim.x, gy = gridDim.y, total = gx * gy;
    const int b = blockIdx.x + blockIdx.y * gx, size = panel * gy;
    const int off = b % size, pid = b / size, npanels = (total + size - 1) / size;
    const int stride = (pid + 1 < npanels) ? panel : (total - pid * size) / gy;
    by = (pid & 1) ? gy - 1 - off / stride : off / stride;
    bx = off % stride + pid * panel;
}
// ---- end of helpers ----

)CUDA";
}

namespace {

// PTX's name of a float8 operand type: e4m3 (TileLang's float8_e4m3fn) or e5m2.
const char* float8PtxType(ir::DType t) {
    return t == ir::DType::Float8E5M2 ? "e5m2" : "e4m3";
}

} // namespace

std::string float8MmaFunction(ir::DType a, ir::DType b) {
    return std::string("tb_mma_") + float8PtxType(a) + "_" + float8PtxType(b);
}

std::string float8MmaDefinition(ir::DType a, ir::DType b) {
    const std::string types = std::string(float8PtxType(a)) + "." + float8PtxType(b);
    return "// mma.sync m16n8k32 ." + types +
           " with fp32 accumulators (sm_89 and up): c0..c3 += A (4 regs of four\n"
           "// float8 each) x B (2 regs); the registers are ldmatrix's, the operands read K-major as 16-bit "
           "pairs.\n"
           "static __device__ __forceinline__ void " +
           float8MmaFunction(a, b) +
           "(float& c0, float& c1, float& c2, float& c3, const unsigned* a,\n"
           "                                                  unsigned b0, unsigned b1) {\n"
           "    asm volatile(\"mma.sync.aligned.m16n8k32.row.col.f32." +
           types +
           ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, \"\n"
           "                 \"{%8, %9}, {%0, %1, %2, %3};\\n\"\n"
           "                 : \"+f\"(c0), \"+f\"(c1), \"+f\"(c2), \"+f\"(c3)\n"
           "                 : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b0), \"r\"(b1));\n"
           "}\n";
}

std::string roundedTo(ir::DType t, const std::string& value) {
    switch (t) {
    case ir::DType::Float16:
        return "tb_round_f16(" + value + ")";
    case ir::DType::BFloat16:
        return "tb_round_bf16(" + value + ")";
    case ir::DType::Float8E4M3:
        return "tb_round_e4m3(" + value + ")";
    case ir::DType::Float8E5M2:
        return "tb_round_e5m2(" + value + ")";
    default:
        return value;
    }
}

} // namespace tb::codegen
