// Warp partition of a gemm tile by policy, for the mma.sync and wgmma paths.
#include "engine/layout/algebra/WarpPartition.h"

#include <cmath>
#include <numeric>
#include <vector>

namespace tb::layout {

const char* gemmWarpPolicyName(GemmWarpPolicy policy) {
    switch (policy) {
    case GemmWarpPolicy::Square:
        return "Square";
    case GemmWarpPolicy::FullRow:
        return "FullRow";
    case GemmWarpPolicy::FullCol:
        return "FullCol";
    }
    return "?";
}

std::optional<GemmWarpPolicy> parseGemmWarpPolicy(std::string_view name) {
    if (name == "Square")
        return GemmWarpPolicy::Square;
    if (name == "FullRow")
        return GemmWarpPolicy::FullRow;
    if (name == "FullCol")
        return GemmWarpPolicy::FullCol;
    return std::nullopt;
}

std::string WarpGrid::toString() const {
    std::string unit = instruction == GemmInstructionKind::Wgmma ? "warpgroup" : "warp";
    return std::string(gemmInstructionKindName(instruction)) + " " + std::to_string(mWarp) + "x" +
           std::to_string(nWarp) + " warps, " + unit + " tile " + std::to_string(warpTileM) + "x" +
           std::to_string(warpTileN) + ", atom " + std::to_string(atomM) + "x" + std::to_string(atomN) +
           ", " + std::to_string(atomsM) + "x" + std::to_string(atomsN) + " atoms/" + unit;
}

int64_t selectWgmmaInstN(int64_t warpTileN) {
    if (warpTileN <= 0)
        return 0;
    if (warpTileN % 16 == 0) {
        for (int64_t n = 256; n >= 16; n -= 16)
            if (warpTileN % n == 0)
                return n;
    }
    return std::gcd(warpTileN, int64_t(256));
}

namespace {

constexpr int64_t kMPerWarp = 16;
constexpr int64_t kNPerWarp = 8;

} // namespace

LayoutResult<WarpGrid> computeWarpGrid(int64_t M, int64_t N, int64_t numWarps, GemmWarpPolicy policy,
                                       const GemmInstruction& instruction) {
    if (numWarps < 1 || M < kMPerWarp || N < kNPerWarp || M % kMPerWarp != 0 || N % kNPerWarp != 0)
        return layoutError("gemm-tile-shape",
                           "a gemm tile of " + std::to_string(M) + "x" + std::to_string(N) + " over " +
                               std::to_string(numWarps) + " warps cannot be split into 16x8 warp tiles",
                           "M must be a multiple of 16 and N a multiple of 8");
    bool wgmma = instruction.kind == GemmInstructionKind::Wgmma;
    auto valid = [&](int64_t m, int64_t n) {
        return m >= 1 && n >= 1 && m * n == numWarps && M % (kMPerWarp * m) == 0 &&
               N % (kNPerWarp * n) == 0 && (!wgmma || m % 4 == 0);
    };
    int64_t mWarp = 0, nWarp = 0;
    switch (policy) {
    case GemmWarpPolicy::FullRow:
        for (int64_t m = numWarps; m >= 1; m -= wgmma ? 4 : 1)
            if (numWarps % m == 0 && valid(m, numWarps / m)) {
                mWarp = m;
                nWarp = numWarps / m;
                break;
            }
        break;
    case GemmWarpPolicy::FullCol:
        for (int64_t n = wgmma ? numWarps / 4 : numWarps; n >= 1; --n)
            if (numWarps % n == 0 && valid(numWarps / n, n)) {
                mWarp = numWarps / n;
                nWarp = n;
                break;
            }
        break;
    case GemmWarpPolicy::Square: {
        double ideal = double(M) / double(N);
        double best = 0;
        for (int64_t m = wgmma ? 4 : 1; m <= numWarps; m += wgmma ? 4 : 1) {
            if (numWarps % m != 0 || !valid(m, numWarps / m))
                continue;
            int64_t n = numWarps / m;
            double score =
                std::fabs((double(M) / double(kMPerWarp * m)) / (double(N) / double(kNPerWarp * n)) - ideal);
            if (mWarp == 0 || score < best) {
                best = score;
                mWarp = m;
                nWarp = n;
            }
        }
        break;
    }
    }
    if (mWarp == 0)
        return layoutError(
            "no-valid-warp-partition",
            std::string("no ") + gemmWarpPolicyName(policy) + " partition of a " + std::to_string(M) + "x" +
                std::to_string(N) + " " + gemmInstructionKindName(instruction.kind) + " tile over " +
                std::to_string(numWarps) + " warps" +
                (wgmma ? " (warpgroups of 4 warps along M, 64 rows each)" : " (16x8 per warp)"),
            wgmma ? "make M a multiple of 64 per warpgroup, or change the thread count"
                  : "change the tile shape or the thread count");
    return warpGridOf(M, N, mWarp, nWarp, instruction);
}

LayoutResult<WarpGrid> warpGridOf(int64_t M, int64_t N, int64_t mWarp, int64_t nWarp,
                                  const GemmInstruction& instruction) {
    const bool wgmma = instruction.kind == GemmInstructionKind::Wgmma;
    if (mWarp < 1 || nWarp < 1 || M % (kMPerWarp * mWarp) != 0 || N % (kNPerWarp * nWarp) != 0 ||
        (wgmma && mWarp % 4 != 0))
        return layoutError("no-valid-warp-partition",
                           "a " + std::to_string(M) + "x" + std::to_string(N) + " " +
                               gemmInstructionKindName(instruction.kind) + " tile cannot be split over " +
                               std::to_string(mWarp) + "x" + std::to_string(nWarp) + " warps",
                           "change the tile shape or the thread count");
    WarpGrid grid;
    grid.instruction = instruction.kind;
    grid.M = M;
    grid.N = N;
    grid.mWarp = mWarp;
    grid.nWarp = nWarp;
    if (wgmma) {
        grid.warpgroupsM = mWarp / 4;
        grid.warpgroupsN = nWarp;
        grid.warpTileM = M / grid.warpgroupsM;
        grid.warpTileN = N / nWarp;
        grid.atomM = 64;
        grid.atomN = selectWgmmaInstN(grid.warpTileN);
    } else {
        grid.warpTileM = M / mWarp;
        grid.warpTileN = N / nWarp;
        grid.atomM = 16;
        grid.atomN = grid.warpTileN % 16 == 0 ? 16 : 8;
    }
    grid.atomsM = grid.warpTileM / grid.atomM;
    grid.atomsN = grid.warpTileN / grid.atomN;
    return grid;
}

} // namespace tb::layout
