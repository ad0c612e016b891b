// TileLang's TensorCoreIntrinEmitter (tilelang.intrinsics.mma_macro_generator): a GEMM written by hand with
// warp-level mma.sync intrinsics on per-thread local arrays. The elaborator keeps the emitter's
// configuration, as the program constructed it, on each intrinsic statement (StmtKind::MmaIntrinsic), and
// derives the tiling the way TileLang does: 16 x 16 micro tiles (an n16 tile is two m16n8k16 mmas), k16
// steps for 16-bit inputs, warp w of the block at (warp_m, warp_n) = (w % block_row_warps,
// w / block_row_warps).
#pragma once

#include "engine/ir/DType.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace tb::ir {

struct MmaEmitter {
    DType aDtype = DType::Float16;
    DType bDtype = DType::Float16;
    DType accumDtype = DType::Float16;
    bool aTransposed = false; // A_shared is [K, M] instead of [M, K]
    bool bTransposed = false; // B_shared is [N, K] instead of [K, N]
    int64_t blockRowWarps = 2;
    int64_t blockColWarps = 2;
    int64_t warpRowTiles = 8; // rows of C per warp
    int64_t warpColTiles = 8; // columns of C per warp
    int64_t chunk = 16;       // K per block step (the shared tiles' K extent)

    static constexpr int64_t kWarpSize = 32;
    static constexpr int64_t kMicroM = 16;
    static constexpr int64_t kMicroN = 16;

    int64_t microK() const { return std::min<int64_t>(256 / dtypeBits(aDtype), chunk); }
    int64_t warpRows() const { return warpRowTiles / kMicroM; } // micro tiles per warp along M
    int64_t warpCols() const { return warpColTiles / kMicroN; } // along N
    int64_t localSizeA() const { return kMicroM * microK() / kWarpSize; }
    int64_t localSizeB() const { return kMicroN * microK() / kWarpSize; }
    int64_t localSizeC() const { return kMicroM * kMicroN / kWarpSize; }
    int64_t threads() const { return kWarpSize * blockRowWarps * blockColWarps; }
    int64_t blockM() const { return blockRowWarps * warpRowTiles; }
    int64_t blockN() const { return blockColWarps * warpColTiles; }
};

// The constructor call as the listing shows it: "TensorCoreIntrinEmitter(a_dtype=float16, ..., chunk=32)".
std::string mmaEmitterText(const MmaEmitter& e);

} // namespace tb::ir
