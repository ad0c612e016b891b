// The sm_90a part of the inline device header, emitted only for Hopper-backend units (after
// cudaDeviceHeader(), whose tb_u64 and tb_smem_addr it uses): mbarriers, the async-proxy fences, TMA tensor
// loads and stores (cp.async.bulk.tensor 1-5 d), prefetch.tensormap, wgmma (shared-memory descriptors, fence,
// commit, wait, and mma_async wrappers generated for exactly the shapes a unit needs), setmaxnreg, stmatrix,
// elect.sync, named barriers and thread-block clusters (mapa, remote mbarrier arrives, multicast TMA).
// Everything is inline PTX, named tb_*, like the portable header; the portable backend never emits this text,
// so its generated CUDA is unchanged.
//
// A TMA tensor map reaches a kernel as a by-value parameter `const __grid_constant__ tb_tensormap name`
// (tensorMapParameter()): a 64-byte-aligned 128-byte opaque struct, the bytes cuTensorMapEncodeTiled wrote
// (the runner's `tensormap` request, docs/runner-protocol.md). Device code passes its address (&name) to the
// tb_tma_* helpers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::codegen {

// One wgmma.mma_async form: m64 n<n> k<k>, k = 16 for the 16-bit operand types and 32 for float8 (e4m3 is
// TileLang's float8_e4m3fn). float8 forms have no transpose immediates: both operands are K-major.
struct WgmmaShape {
    enum class Operand { F16, BF16, E4M3, E5M2 };
    enum class Accum { F32, F16 };
    enum class AForm { SS, RS };    // A from a shared-memory descriptor, or from registers
    int n = 256;                    // 8..256, a multiple of 8
    Operand operand = Operand::F16; // A's type, and B's unless operandB says otherwise
    Accum accum = Accum::F32;
    AForm aForm = AForm::SS;
    // float8 only: B's type where it differs from A's (e4m3 x e5m2).
    std::optional<Operand> operandB = std::nullopt;

    Operand bOperand() const { return operandB.value_or(operand); }
    friend bool operator==(const WgmmaShape&, const WgmmaShape&) = default;
};

bool wgmmaFloat8(const WgmmaShape& shape); // e4m3/e5m2 operands: k32, no transpose immediates
int wgmmaShapeK(const WgmmaShape& shape);  // 16, or 32 for float8

// Empty when the shape is a legal sm_90a wgmma, else why not ("n=260 is not a multiple of 8 in 8..256").
std::string wgmmaShapeProblem(const WgmmaShape& shape);

// "m64n256k16_f32_f16_ss", "m64n128k32_f32_e4m3_ss", "m64n128k32_f32_e4m3e5m2_ss" (A e4m3, B e5m2): the
// wrapper's name is "tb_wgmma_" + this. parseWgmmaShape reads the same text.
std::string wgmmaShapeName(const WgmmaShape& shape);
bool parseWgmmaShape(const std::string& text, WgmmaShape& shape, std::string* error = nullptr);
// "tb_wgmma_m64n256k16_f32_f16_ss".
std::string wgmmaFunctionName(const WgmmaShape& shape);
// Accumulator registers per thread: n/2 floats for f32, n/4 packed f16x2 words for f16.
int wgmmaAccumulatorRegisters(const WgmmaShape& shape);

struct HopperHeaderNeeds {
    bool mbarrier = true;          // tb_mbarrier_*, tb_fence_mbarrier_init, tb_fence_proxy_async
    bool tmaLoad = true;           // tb_tma_load_{1..5}d[_hint|_multicast], tb_prefetch_tensormap
    bool tmaStore = true;          // tb_tma_store_{1..5}d, tb_tma_store_commit, tb_tma_store_wait<N>
    bool wgmmaSync = true;         // tb_wgmma_desc, tb_wgmma_fence, tb_wgmma_commit, tb_wgmma_wait<N>
    bool setmaxnreg = true;        // tb_setmaxnreg_inc<N>, tb_setmaxnreg_dec<N>
    bool stmatrix = true;          // tb_stmatrix_x{1,2,4}[_trans]
    bool cluster = true;           // tb_cluster_ctarank/_sync, tb_mapa_shared, tb_mbarrier_arrive_cluster
    bool warpHelpers = true;       // tb_elect_one, tb_named_barrier_sync/arrive, tb_warpgroup_index
    std::vector<WgmmaShape> wgmma; // one wrapper each (duplicates are emitted once)
};

// The header text: deterministic for the same needs (wrappers in a fixed order), ends with a blank line.
// Illegal wgmma shapes are skipped with a `// skipped: ...` comment line (check wgmmaShapeProblem first).
std::string hopperDeviceHeader(const HopperHeaderNeeds& needs);

// The CUDA type and declaration of a tensor-map kernel parameter: "tb_tensormap" and
// "const __grid_constant__ tb_tensormap <name>".
const char* tensorMapTypeName();
std::string tensorMapParameter(const std::string& name);

// wgmma shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format"), computed on the host the way
// tb_wgmma_desc computes it on the device, for plans, views and tests. Swizzle: 0 none (interleave), 1 128B,
// 2 64B, 3 32B. Addresses and offsets in bytes (multiples of 16).
enum class WgmmaSwizzle : int { None = 0, B128 = 1, B64 = 2, B32 = 3 };
uint64_t wgmmaDescriptor(uint32_t sharedAddress, uint32_t leadingByteOffset, uint32_t strideByteOffset,
                         WgmmaSwizzle swizzle);

} // namespace tb::codegen
