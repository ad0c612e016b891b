// GemmWarpPolicy -> warp grid (reference §3.3): how the warps of a block split a gemm's M x N accumulator
// tile. mma.sync path: the unit is a warp with a 16x8 instruction tile. wgmma path: warps come in
// warpgroups of 4 stacked along M (a warpgroup owns 64-row atoms), so m_warp is a multiple of 4 and n_warp
// counts warpgroup columns.
#pragma once

#include "engine/layout/algebra/GemmInstruction.h"
#include "engine/layout/algebra/LayoutResult.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tb::layout {

enum class GemmWarpPolicy { Square, FullRow, FullCol };

const char* gemmWarpPolicyName(GemmWarpPolicy policy); // "Square", "FullRow", "FullCol"
std::optional<GemmWarpPolicy> parseGemmWarpPolicy(std::string_view name);

struct WarpGrid {
    GemmInstructionKind instruction = GemmInstructionKind::MmaSync;
    int64_t M = 0, N = 0;         // the accumulator tile
    int64_t mWarp = 1, nWarp = 1; // warps along M and N; warp id = m + mWarp * n (M fastest)
    // One partition unit's tile: a warp's (mma) or a warpgroup's (wgmma). Each unit owns a contiguous tile.
    int64_t warpTileM = 0, warpTileN = 0;
    // The fragment atom: mma 16 x (16 when warpTileN % 16 == 0, else 8); wgmma 64 x inst_n.
    int64_t atomM = 0, atomN = 0;
    int64_t atomsM = 0, atomsN = 0;           // atoms per unit along M and N
    int64_t warpgroupsM = 0, warpgroupsN = 0; // wgmma only: mWarp/4 and nWarp
    std::string toString() const; // "mma.sync 2x2 warps, warp tile 64x64, atom 16x16, 4x4 atoms/warp"
};

// valid(m, n) = m*n == numWarps and M % (16m) == 0 and N % (8n) == 0 (wgmma: also m % 4 == 0).
// FullRow: m from numWarps down (wgmma: numWarps, numWarps-4, ...). FullCol: n from numWarps down (wgmma:
// n from numWarps/4 down). Square: m ascending over divisors (wgmma: 4, 8, ...), keeping the strictly
// smallest |(M/16m)/(N/8n) - M/N| (ties keep the smaller m).
// Errors: "gemm-tile-shape" (M % 16 or N % 8 nonzero, numWarps < 1), "no-valid-warp-partition".
// Examples: 128x128, 4 warps: Square -> 2x2, FullRow -> 4x1; MLA decode on sm_90a, 8 warps, 64x512,
// FullCol -> 4x2 (two warpgroups, each owning 256 columns).
LayoutResult<WarpGrid> computeWarpGrid(int64_t M, int64_t N, int64_t numWarps, GemmWarpPolicy policy,
                                       const GemmInstruction& instruction);

// The grid of exactly mWarp x nWarp warps (wgmma: mWarp a multiple of 4), when they split M x N evenly.
LayoutResult<WarpGrid> warpGridOf(int64_t M, int64_t N, int64_t mWarp, int64_t nWarp,
                                  const GemmInstruction& instruction);

// wgmma's N per instruction for a warpgroup tile of width warpTileN: the largest multiple of 16 <= 256 that
// divides it when warpTileN % 16 == 0, else gcd(warpTileN, 256).
int64_t selectWgmmaInstN(int64_t warpTileN);

} // namespace tb::layout
