// Which tensor-core instruction a T.gemm uses (reference §3.1): wgmma.mma_async (m64nNkK) on sm_90a when the
// tile, warp count, operand placement and dtypes allow it, otherwise mma.sync (m16n8k16 for 16-bit inputs).
#pragma once

#include "engine/ir/DType.h"
#include "engine/layout/algebra/LayoutResult.h"
#include "engine/target/Target.h"

#include <cstdint>
#include <string>

namespace tb::layout {

enum class GemmInstructionKind { MmaSync, Wgmma };

const char* gemmInstructionKindName(GemmInstructionKind kind); // "mma.sync", "wgmma"

struct GemmOperandTypes {
    ir::DType a = ir::DType::Float16;
    ir::DType b = ir::DType::Float16;
    ir::DType c = ir::DType::Float32;
    bool aTransposed = false; // A stored [K][M] (MN-major); not transposed = K-major
    bool bTransposed = false; // B stored [N][K] (K-major); not transposed = MN-major
    bool aInShared = true;    // false: A is a register fragment (RS gemm)
    bool bInShared = true;
};

struct GemmInstruction {
    GemmInstructionKind kind = GemmInstructionKind::MmaSync;
    int64_t m = 16, n = 8, k = 16; // wgmma: n = 0 here, chosen per warp tile by computeWarpGrid
    std::string name;              // "mma.sync.m16n8k16", "wgmma.m64nNk16"
    std::string reason;            // why this instruction, with the numbers
};

// M, N, K: the gemm's tile; numWarps = block threads / 32. Rules, in order: wgmma when !disableWgmma, the
// target has wgmma (sm_90a), M >= 64, numWarps % 4 == 0, B in shared memory and the dtype rule holds (C=f16:
// f16 x f16 with K%16, fp8 pairs K-major with K%32; C=f32: f16/bf16 pairs K%16, tf32 K-major K%8, fp8 K-major
// K%32; C=s32: 8-bit integers K-major K%32); otherwise mma.sync with k = 256/bits (16 for f16/bf16, 8 for
// tf32, 32 for 8-bit; fp64 uses m8n8k4). Error "gemm-dtype-unsupported" when mma.sync has no form either.
// float8 on mma.sync (m16n8k32 .e4m3/.e5m2, mixed pairs too): "gemm-float8-target" below sm_89, and
// "gemm-operand-major" unless A is [M][K] and B [N][K] (transpose_B=True), as wgmma requires for float8.
// Example: sm_90a, 128x128x32, 4 warps, f16 x f16 -> f32 gives wgmma.m64nNk16; the same on sm_80 gives
// mma.sync.m16n8k16.
LayoutResult<GemmInstruction> selectGemmInstruction(const Target& target, int64_t M, int64_t N, int64_t K,
                                                    int64_t numWarps, const GemmOperandTypes& types,
                                                    bool disableWgmma = false);

} // namespace tb::layout
