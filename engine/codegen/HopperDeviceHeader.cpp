// The sm_90a device header (see HopperDeviceHeader.h): fixed text for mbarriers, fences, TMA, setmaxnreg,
// stmatrix and warp helpers, plus wgmma.mma_async wrappers generated per shape (each lists n/2 or n/4
// accumulator operands, so they are written by code rather than by hand).
#include "engine/codegen/HopperDeviceHeader.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace tb::codegen {

namespace {

const char* kMbarrierText =
    R"CUDA(// mbarriers (64-bit shared objects, addressed by 32-bit shared-window addresses): one thread initializes
// with the arrival count, then fence.mbarrier_init makes the init visible to the async proxy (TMA) and a
// block barrier to the other threads. Phases alternate; a waiter passes once the phase of `parity` completed.
static __device__ __forceinline__ void tb_mbarrier_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count) : "memory");
}
static __device__ __forceinline__ void tb_mbarrier_inval(unsigned bar) {
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
}
static __device__ __forceinline__ void tb_mbarrier_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
static __device__ __forceinline__ void tb_mbarrier_arrive_count(unsigned bar, unsigned count) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(count) : "memory");
}
// Arrives and adds `bytes` to the transaction count the phase waits for (the bytes TMA will deliver).
static __device__ __forceinline__ void tb_mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void tb_mbarrier_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
}
static __device__ __forceinline__ bool tb_mbarrier_try_wait(unsigned bar, unsigned parity) {
    unsigned done;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    return done != 0;
}
// try_wait suspends for a hardware time limit per try; the loop retries until the phase completed.
static __device__ __forceinline__ void tb_mbarrier_wait(unsigned bar, unsigned parity) {
    asm volatile("{\n\t.reg .pred p;\n\tTB_MBAR_WAIT:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra TB_MBAR_WAIT;\n\t}" :: "r"(bar), "r"(parity) : "memory");
}
static __device__ __forceinline__ void tb_fence_mbarrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// Orders this thread's generic-proxy shared-memory writes before later async-proxy accesses (TMA stores,
// wgmma operand reads) of the same memory.
static __device__ __forceinline__ void tb_fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

)CUDA";

const char* kTensorMapText =
    R"CUDA(// A TMA tensor map: the 128 opaque bytes cuTensorMapEncodeTiled wrote, passed by value as
// `const __grid_constant__ tb_tensormap name`; device code passes &name to the tb_tma_* helpers.
struct __align__(64) tb_tensormap { tb_u64 opaque[16]; };
static __device__ __forceinline__ void tb_prefetch_tensormap(const tb_tensormap* map) {
    asm volatile("prefetch.tensormap [%0];" :: "l"((tb_u64)map) : "memory");
}
// L2 policy for the _hint forms of TMA loads (createpolicy, as tb_policy_evict_* in the portable header).
static __device__ __forceinline__ tb_u64 tb_policy_evict_normal() {
    tb_u64 p; asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(p)); return p;
}

)CUDA";

const char* kWgmmaSyncText =
    R"CUDA(// wgmma (sm_90a): a warpgroup (4 consecutive warps, the first warp index divisible by 4) issues
// mma_async collectively. wgmma.fence before the first mma_async of a batch (and whenever the accumulators
// were touched by other instructions), commit_group closes a batch, wait_group<N> leaves at most N batches
// in flight. tb_wgmma_fence_regs keeps the compiler from moving accumulator reads above the wait.
static __device__ __forceinline__ void tb_wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
static __device__ __forceinline__ void tb_wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> static __device__ __forceinline__ void tb_wgmma_wait() {
    static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
    asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory");
}
template <int N> static __device__ __forceinline__ void tb_wgmma_fence_regs(float (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}
template <int N> static __device__ __forceinline__ void tb_wgmma_fence_regs(unsigned (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+r"(d[i]) :: "memory");
}
// Shared-memory matrix descriptor: start address, leading and stride byte offsets (all >> 4), base offset 0
// (tiles start on a multiple of the swizzle repeat: 1024 B for 128B), swizzle mode in bits 62-63.
#define TB_WGMMA_SWIZZLE_NONE 0u
#define TB_WGMMA_SWIZZLE_128B 1u
#define TB_WGMMA_SWIZZLE_64B 2u
#define TB_WGMMA_SWIZZLE_32B 3u
static __device__ __forceinline__ tb_u64 tb_wgmma_desc(unsigned smem, unsigned lbo, unsigned sbo, unsigned swizzle) {
    return (tb_u64)((smem & 0x3FFFFu) >> 4) | ((tb_u64)((lbo >> 4) & 0x3FFFu) << 16) |
           ((tb_u64)((sbo >> 4) & 0x3FFFu) << 32) | ((tb_u64)swizzle << 62);
}
// The same descriptor `bytes` further on (a k step inside a swizzled row, or the next atom).
static __device__ __forceinline__ tb_u64 tb_wgmma_desc_add(tb_u64 desc, unsigned bytes) {
    return desc + (tb_u64)(bytes >> 4);
}

)CUDA";

const char* kSetmaxnregText =
    R"CUDA(// Register reallocation between warpgroups (sm_90a): needs a register cap at kernel entry
// (__launch_bounds__(threads, 1)); each warpgroup's role in one branch of an if/else.
template <int N> static __device__ __forceinline__ void tb_setmaxnreg_inc() {
    static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg takes a multiple of 8 in 24..256");
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" :: "n"(N));
}
template <int N> static __device__ __forceinline__ void tb_setmaxnreg_dec() {
    static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg takes a multiple of 8 in 24..256");
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" :: "n"(N));
}

)CUDA";

const char* kStmatrixText =
    R"CUDA(// stmatrix (sm_90): the inverse of ldmatrix, 8x8 b16 matrices from registers to shared memory, one 16-byte
// row address per lane (lanes 0-7 matrix 0, 8-15 matrix 1, ...), for epilogues staged through shared memory.
static __device__ __forceinline__ void tb_stmatrix_x1(unsigned smem, unsigned r0) {
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(smem), "r"(r0) : "memory");
}
static __device__ __forceinline__ void tb_stmatrix_x2(unsigned smem, unsigned r0, unsigned r1) {
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(smem), "r"(r0), "r"(r1) : "memory");
}
static __device__ __forceinline__ void tb_stmatrix_x4(unsigned smem, unsigned r0, unsigned r1, unsigned r2, unsigned r3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(smem), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
}
static __device__ __forceinline__ void tb_stmatrix_x1_trans(unsigned smem, unsigned r0) {
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(smem), "r"(r0) : "memory");
}
static __device__ __forceinline__ void tb_stmatrix_x2_trans(unsigned smem, unsigned r0, unsigned r1) {
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};"
                 :: "r"(smem), "r"(r0), "r"(r1) : "memory");
}
static __device__ __forceinline__ void tb_stmatrix_x4_trans(unsigned smem, unsigned r0, unsigned r1, unsigned r2,
                                                            unsigned r3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(smem), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
}

)CUDA";

const char* kClusterText =
    R"CUDA(// Thread-block clusters (sm_90, kernels with __cluster_dims__): this CTA's rank, the cluster size, the
// cluster-window address of a shared variable in CTA `rank` (mapa), an arrive on an mbarrier there (CTA-scope
// release, as CUTLASS's pipelines: a cluster-scope release would put a MEMBAR.GPU before every arrive),
// and the cluster-wide barrier (every thread of every CTA: before using a peer's barriers, before exiting).
static __device__ __forceinline__ unsigned tb_cluster_ctarank() {
    unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r;
}
static __device__ __forceinline__ unsigned tb_cluster_nctarank() {
    unsigned r; asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r)); return r;
}
static __device__ __forceinline__ unsigned tb_mapa_shared(unsigned smem, unsigned rank) {
    unsigned r; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem), "r"(rank)); return r;
}
static __device__ __forceinline__ void tb_mbarrier_arrive_cluster(unsigned clusterBar) {
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" :: "r"(clusterBar) : "memory");
}
static __device__ __forceinline__ void tb_cluster_arrive() {
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
static __device__ __forceinline__ void tb_cluster_wait() {
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
static __device__ __forceinline__ void tb_cluster_sync() {
    tb_cluster_arrive();
    tb_cluster_wait();
}

)CUDA";

const char* kWarpHelpersText =
    R"CUDA(// One lane of the warp (elect.sync), the warp-uniform warpgroup index, and named barriers (ids 1..15; 0
// is __syncthreads) for syncing a subset of warps, e.g. the consumer warpgroups only.
static __device__ __forceinline__ bool tb_elect_one() {
    unsigned elected;
    asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(elected));
    return elected != 0;
}
static __device__ __forceinline__ int tb_warpgroup_index() {
    return __shfl_sync(0xffffffffu, (int)(threadIdx.x / 128), 0);
}
static __device__ __forceinline__ void tb_named_barrier_sync(unsigned id, unsigned threads) {
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(threads) : "memory");
}
static __device__ __forceinline__ void tb_named_barrier_arrive(unsigned id, unsigned threads) {
    asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(threads) : "memory");
}

)CUDA";

// "{%3, %4}" for `count` coordinates starting at operand `first`.
std::string operandList(int first, int count) {
    std::string s = "{";
    for (int i = 0; i < count; ++i)
        s += (i ? ", %" : "%") + std::to_string(first + i);
    return s + "}";
}

std::string coordParams(int rank) {
    std::string s;
    for (int i = 0; i < rank; ++i)
        s += ", int c" + std::to_string(i);
    return s;
}

std::string coordInputs(int rank) {
    std::string s;
    for (int i = 0; i < rank; ++i)
        s += ", \"r\"(c" + std::to_string(i) + ")";
    return s;
}

std::string tmaLoadText() {
    std::string s =
        "// TMA tensor loads: the box at coordinates (c0 innermost, ...) into shared memory at `dst` "
        "(aligned "
        "to 128 B,\n// 1024 B for 128B swizzle), completing `bar`'s transaction count with the bytes "
        "delivered; out-of-bounds\n// elements are filled (zero unless the map asks for NaN). _hint: an "
        "L2 cache policy (createpolicy).\n";
    for (int rank = 1; rank <= 5; ++rank) {
        std::string d = std::to_string(rank) + "d";
        std::string coords = operandList(3, rank);
        s += "static __device__ __forceinline__ void tb_tma_load_" + d +
             "(unsigned dst, const tb_tensormap* map, unsigned bar" + coordParams(rank) + ") {\n";
        s += "    asm volatile(\"cp.async.bulk.tensor." + d +
             ".shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, " + coords +
             "], [%2];\"\n";
        s += "                 :: \"r\"(dst), \"l\"((tb_u64)map), \"r\"(bar)" + coordInputs(rank) +
             " : \"memory\");\n}\n";
        s += "static __device__ __forceinline__ void tb_tma_load_" + d +
             "_hint(unsigned dst, const tb_tensormap* map, unsigned bar" + coordParams(rank) +
             ", tb_u64 policy) {\n";
        s += "    asm volatile(\"cp.async.bulk.tensor." + d +
             ".shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, " + coords +
             "], [%2], %" + std::to_string(3 + rank) + ";\"\n";
        s += "                 :: \"r\"(dst), \"l\"((tb_u64)map), \"r\"(bar)" + coordInputs(rank) +
             ", \"l\"(policy) : \"memory\");\n}\n";
        // Multicast: the same box into every CTA of the cluster named in `mask` (bit i = rank i), at the same
        // shared offsets `dst` and `bar` in each.
        s += "static __device__ __forceinline__ void tb_tma_load_" + d +
             "_multicast(unsigned dst, const tb_tensormap* map, unsigned bar, unsigned short mask" +
             coordParams(rank) + ") {\n";
        s += "    asm volatile(\"cp.async.bulk.tensor." + d +
             ".shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, " +
             operandList(4, rank) + "], [%2], %3;\"\n";
        s += "                 :: \"r\"(dst), \"l\"((tb_u64)map), \"r\"(bar), \"h\"(mask)" +
             coordInputs(rank) + " : \"memory\");\n}\n";
    }
    return s + "\n";
}

std::string tmaStoreText() {
    std::string s =
        "// TMA tensor stores: shared memory at `src` to the box at (c0, ...) of the map (elements outside "
        "the tensor\n// are not written), as a bulk async-group: fence.proxy.async after writing `src`, "
        "commit, then\n// tb_tma_store_wait<N> (until at most N groups still read shared memory) before "
        "reusing `src`.\n";
    for (int rank = 1; rank <= 5; ++rank) {
        std::string d = std::to_string(rank) + "d";
        s += "static __device__ __forceinline__ void tb_tma_store_" + d +
             "(const tb_tensormap* map, unsigned src" + coordParams(rank) + ") {\n";
        s += "    asm volatile(\"cp.async.bulk.tensor." + d + ".global.shared::cta.tile.bulk_group [%0, " +
             operandList(2, rank) + "], [%1];\"\n";
        s +=
            "                 :: \"l\"((tb_u64)map), \"r\"(src)" + coordInputs(rank) + " : \"memory\");\n}\n";
    }
    s += R"CUDA(static __device__ __forceinline__ void tb_tma_store_commit() {
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Until at most N bulk groups still read their shared-memory source (the global writes may still be going).
template <int N> static __device__ __forceinline__ void tb_tma_store_wait() {
    asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory");
}
// Until at most N bulk groups are incomplete, writes included.
template <int N> static __device__ __forceinline__ void tb_tma_store_wait_all() {
    asm volatile("cp.async.bulk.wait_group %0;" :: "n"(N) : "memory");
}

)CUDA";
    return s;
}

const char* operandName(WgmmaShape::Operand o) {
    switch (o) {
    case WgmmaShape::Operand::F16:
        return "f16";
    case WgmmaShape::Operand::BF16:
        return "bf16";
    case WgmmaShape::Operand::E4M3:
        return "e4m3";
    case WgmmaShape::Operand::E5M2:
        return "e5m2";
    }
    return "f16";
}

bool isFloat8Operand(WgmmaShape::Operand o) {
    return o == WgmmaShape::Operand::E4M3 || o == WgmmaShape::Operand::E5M2;
}

// "f16", "e4m3", or "e4m3e5m2" for a mixed float8 pair.
std::string operandsName(const WgmmaShape& shape) {
    std::string name = operandName(shape.operand);
    if (shape.bOperand() != shape.operand)
        name += operandName(shape.bOperand());
    return name;
}

const char* accumName(WgmmaShape::Accum a) {
    return a == WgmmaShape::Accum::F32 ? "f32" : "f16";
}

std::string wgmmaWrapperText(const WgmmaShape& shape) {
    const int regs = wgmmaAccumulatorRegisters(shape);
    const bool f32 = shape.accum == WgmmaShape::Accum::F32;
    const bool rs = shape.aForm == WgmmaShape::AForm::RS;
    const std::string accType = f32 ? "float" : "unsigned";
    const bool float8 = wgmmaFloat8(shape);
    const std::string a = operandName(shape.operand), b = operandName(shape.bOperand());
    const std::string ptxShape = "m64n" + std::to_string(shape.n) + "k" + std::to_string(wgmmaShapeK(shape));
    // Operands: accumulators 0..regs-1, then A (a descriptor, or 4 registers), the B descriptor, scale-d,
    // and the immediates.
    int next = regs;
    std::string aOperand, aInputs;
    if (rs) {
        aOperand = operandList(next, 4);
        aInputs = "\"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3])";
        next += 4;
    } else {
        aOperand = "%" + std::to_string(next++);
        aInputs = "\"l\"(descA)";
    }
    const int bOp = next++, scaleOp = next++;
    // scale-a and scale-b, then the transpose immediates (none for float8: K-major only).
    const int immediates = float8 ? 2 : rs ? 3 : 4;
    std::string imms;
    for (int i = 0; i < immediates; ++i)
        imms += (i ? ", %" : "%") + std::to_string(next + i);

    std::string s;
    s += "// wgmma.mma_async " + ptxShape + " ." + accumName(shape.accum) + " += ." + a + " x ." + b +
         ", A from " + (rs ? "registers (4 x b32 per thread)" : "a shared-memory descriptor") +
         ", B from a descriptor; " + std::to_string(regs) + " accumulator registers.\n";
    s += float8 ? "// scaleD = 0 overwrites the accumulators; both operands are K-major (float8 has no "
                  "transpose).\n"
                : "// scaleD = 0 overwrites the accumulators; Trans = 1 reads that operand MN-major.\n";
    s += float8 ? "template <int ScaleA = 1, int ScaleB = 1>\n"
         : rs   ? "template <int ScaleA = 1, int ScaleB = 1, int TransB = 0>\n"
                : "template <int ScaleA = 1, int ScaleB = 1, int TransA = 0, int TransB = 0>\n";
    s += "static __device__ __forceinline__ void " + wgmmaFunctionName(shape) + "(" + accType + " (&d)[" +
         std::to_string(regs) + "], " + (rs ? "const unsigned (&a)[4]" : "tb_u64 descA") +
         ", tb_u64 descB, int scaleD) {\n";
    s += "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" + std::to_string(scaleOp) + ", 0;\\n\"\n";
    s += "                 \"wgmma.mma_async.sync.aligned." + ptxShape + "." + accumName(shape.accum) + "." +
         a + "." + b + " \"\n";
    std::string line = "                 \"{";
    for (int i = 0; i < regs; ++i) {
        std::string item = "%" + std::to_string(i) + (i + 1 < regs ? ", " : "");
        if (line.size() + item.size() > 110) {
            s += line + "\"\n";
            line = "                 \"";
        }
        line += item;
    }
    s += line + "}, \"\n";
    s += "                 \"" + aOperand + ", %" + std::to_string(bOp) + ", p, " + imms + ";\\n}\\n\"\n";
    line = "                 : ";
    const char* constraint = f32 ? "\"+f\"" : "\"+r\"";
    for (int i = 0; i < regs; ++i) {
        std::string item =
            std::string(constraint) + "(d[" + std::to_string(i) + "])" + (i + 1 < regs ? ", " : "");
        if (line.size() + item.size() > 110) {
            s += line + "\n";
            line = "                   ";
        }
        line += item;
    }
    s += line + "\n";
    s += "                 : " + aInputs + ", \"l\"(descB), \"r\"(scaleD), \"n\"(ScaleA), \"n\"(ScaleB)" +
         (float8 ? ""
          : rs   ? ", \"n\"(TransB)"
                 : ", \"n\"(TransA), \"n\"(TransB)") +
         ");\n";
    s += "}\n";
    return s;
}

auto shapeKey(const WgmmaShape& s) {
    return std::make_tuple(static_cast<int>(s.operand), static_cast<int>(s.bOperand()),
                           static_cast<int>(s.accum), static_cast<int>(s.aForm), s.n);
}

} // namespace

bool wgmmaFloat8(const WgmmaShape& shape) {
    return isFloat8Operand(shape.operand);
}

int wgmmaShapeK(const WgmmaShape& shape) {
    return wgmmaFloat8(shape) ? 32 : 16;
}

std::string wgmmaShapeProblem(const WgmmaShape& shape) {
    if (shape.n < 8 || shape.n > 256 || shape.n % 8 != 0)
        return "n=" + std::to_string(shape.n) + " is not a multiple of 8 in 8..256";
    if (shape.operand == WgmmaShape::Operand::BF16 && shape.accum == WgmmaShape::Accum::F16)
        return "bf16 operands accumulate in f32 only (wgmma has no .f16.bf16.bf16 form)";
    if (isFloat8Operand(shape.operand) != isFloat8Operand(shape.bOperand()) ||
        (!isFloat8Operand(shape.operand) && shape.bOperand() != shape.operand))
        return std::string("wgmma has no .") + operandName(shape.operand) + " x ." +
               operandName(shape.bOperand()) + " form (only float8 pairs mix e4m3 and e5m2)";
    return {};
}

std::string wgmmaShapeName(const WgmmaShape& shape) {
    return "m64n" + std::to_string(shape.n) + "k" + std::to_string(wgmmaShapeK(shape)) + "_" +
           accumName(shape.accum) + "_" + operandsName(shape) +
           (shape.aForm == WgmmaShape::AForm::SS ? "_ss" : "_rs");
}

std::string wgmmaFunctionName(const WgmmaShape& shape) {
    return "tb_wgmma_" + wgmmaShapeName(shape);
}

bool parseWgmmaShape(const std::string& text, WgmmaShape& shape, std::string* error) {
    auto fail = [&](const std::string& why) {
        if (error)
            *error = "wgmma shape '" + text + "' " + why + " (expected e.g. m64n256k16_f32_f16_ss)";
        return false;
    };
    std::vector<std::string> parts;
    size_t start = 0;
    for (;;) {
        size_t underscore = text.find('_', start);
        parts.push_back(
            text.substr(start, underscore == std::string::npos ? std::string::npos : underscore - start));
        if (underscore == std::string::npos)
            break;
        start = underscore + 1;
    }
    if (parts.size() != 4)
        return fail("does not have four parts");
    const std::string& mnk = parts[0];
    const std::string k = mnk.size() >= 8 ? mnk.substr(mnk.size() - 3) : std::string();
    if (mnk.rfind("m64n", 0) != 0 || mnk.size() < 8 || (k != "k16" && k != "k32"))
        return fail("is not m64n<N>k16 or m64n<N>k32");
    std::string digits = mnk.substr(4, mnk.size() - 7);
    if (digits.empty() || digits.size() > 3 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
        return fail("has no N");
    WgmmaShape s;
    s.n = std::stoi(digits);
    if (parts[1] == "f32")
        s.accum = WgmmaShape::Accum::F32;
    else if (parts[1] == "f16")
        s.accum = WgmmaShape::Accum::F16;
    else
        return fail("has accumulator type '" + parts[1] + "', not f32 or f16");
    // One operand type for both, or a float8 pair written together ("e4m3e5m2").
    auto operandOf = [](const std::string& name) -> std::optional<WgmmaShape::Operand> {
        for (auto o : {WgmmaShape::Operand::F16, WgmmaShape::Operand::BF16, WgmmaShape::Operand::E4M3,
                       WgmmaShape::Operand::E5M2})
            if (name == operandName(o))
                return o;
        return std::nullopt;
    };
    if (auto both = operandOf(parts[2])) {
        s.operand = *both;
    } else if (auto a = operandOf(parts[2].substr(0, 4)),
               b = operandOf(parts[2].size() > 4 ? parts[2].substr(4) : "");
               a && b && isFloat8Operand(*a) && isFloat8Operand(*b)) {
        s.operand = *a;
        if (*b != *a)
            s.operandB = *b;
    } else {
        return fail("has operand type '" + parts[2] + "', not f16, bf16, e4m3, e5m2 or a float8 pair");
    }
    if (k != "k" + std::to_string(wgmmaShapeK(s)))
        return fail("has " + k + " but " + operandName(s.operand) + " operands take k" +
                    std::to_string(wgmmaShapeK(s)));
    if (parts[3] == "ss")
        s.aForm = WgmmaShape::AForm::SS;
    else if (parts[3] == "rs")
        s.aForm = WgmmaShape::AForm::RS;
    else
        return fail("has A form '" + parts[3] + "', not ss or rs");
    if (std::string why = wgmmaShapeProblem(s); !why.empty())
        return fail("is not legal: " + why);
    shape = s;
    return true;
}

int wgmmaAccumulatorRegisters(const WgmmaShape& shape) {
    return shape.accum == WgmmaShape::Accum::F32 ? shape.n / 2 : shape.n / 4;
}

std::string hopperDeviceHeader(const HopperHeaderNeeds& needs) {
    std::string s = "// ---- TileBench sm_90a helpers (mbarrier, TMA, wgmma, setmaxnreg; after the portable "
                    "helpers) ----\n";
    if (needs.mbarrier)
        s += kMbarrierText;
    if (needs.tmaLoad || needs.tmaStore)
        s += kTensorMapText;
    if (needs.tmaLoad)
        s += tmaLoadText();
    if (needs.tmaStore)
        s += tmaStoreText();
    if (needs.wgmmaSync || !needs.wgmma.empty())
        s += kWgmmaSyncText;
    std::vector<WgmmaShape> shapes = needs.wgmma;
    std::sort(shapes.begin(), shapes.end(),
              [](const WgmmaShape& a, const WgmmaShape& b) { return shapeKey(a) < shapeKey(b); });
    shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
    for (const WgmmaShape& shape : shapes) {
        if (std::string why = wgmmaShapeProblem(shape); !why.empty())
            s += "// skipped: " + wgmmaShapeName(shape) + ": " + why + "\n";
        else
            s += wgmmaWrapperText(shape);
    }
    if (!shapes.empty())
        s += "\n";
    if (needs.setmaxnreg)
        s += kSetmaxnregText;
    if (needs.stmatrix)
        s += kStmatrixText;
    if (needs.cluster)
        s += kClusterText;
    if (needs.warpHelpers)
        s += kWarpHelpersText;
    s += "// ---- end of sm_90a helpers ----\n\n";
    return s;
}

const char* tensorMapTypeName() {
    return "tb_tensormap";
}

std::string tensorMapParameter(const std::string& name) {
    return std::string("const __grid_constant__ ") + tensorMapTypeName() + " " + name;
}

uint64_t wgmmaDescriptor(uint32_t sharedAddress, uint32_t leadingByteOffset, uint32_t strideByteOffset,
                         WgmmaSwizzle swizzle) {
    return uint64_t((sharedAddress & 0x3FFFFu) >> 4) | (uint64_t((leadingByteOffset >> 4) & 0x3FFFu) << 16) |
           (uint64_t((strideByteOffset >> 4) & 0x3FFFu) << 32) | (uint64_t(static_cast<int>(swizzle)) << 62);
}

} // namespace tb::codegen
