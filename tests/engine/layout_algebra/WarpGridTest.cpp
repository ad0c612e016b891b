// computeWarpGrid: a table of (M, N, warps, policy, target) cases on the mma.sync and wgmma paths.
#include "engine/layout/algebra/WarpPartition.h"
#include "tests/engine/layout_algebra/GemmInstructions.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>

using namespace tb::layout;
using tb::layout::testing::wgmmaWithAnyN;

namespace {

GemmInstruction mmaSync() {
    return GemmInstruction{};
}

struct GridCase {
    const char* name;
    int64_t M, N, warps;
    GemmWarpPolicy policy;
    bool useWgmma;
    int64_t mWarp, nWarp;
};

} // namespace

TEST(WarpGrid, PolicyTable) {
    const GridCase cases[] = {
        {"gemm 128x128 square", 128, 128, 4, GemmWarpPolicy::Square, false, 2, 2},
        {"gemm 128x128 full row", 128, 128, 4, GemmWarpPolicy::FullRow, false, 4, 1},
        {"gemm 128x128 full col", 128, 128, 4, GemmWarpPolicy::FullCol, false, 1, 4},
        {"gemm 128x128 square 8 warps", 128, 128, 8, GemmWarpPolicy::Square, false, 2, 4},
        {"flash attention 64x64 full row", 64, 64, 4, GemmWarpPolicy::FullRow, false, 4, 1},
        {"full row falls back when M is short", 32, 64, 4, GemmWarpPolicy::FullRow, false, 2, 2},
        {"full col falls back when N is short", 64, 16, 4, GemmWarpPolicy::FullCol, false, 2, 2},
        {"square on a wide tile prefers n = 2m", 64, 256, 4, GemmWarpPolicy::Square, false, 2, 2},
        {"MLA acc_s 64x64, 8 warps, mma full col", 64, 64, 8, GemmWarpPolicy::FullCol, false, 1, 8},
        {"MLA acc_s 64x64, 8 warps, wgmma full col", 64, 64, 8, GemmWarpPolicy::FullCol, true, 4, 2},
        {"MLA acc_o 64x512, 8 warps, wgmma full col", 64, 512, 8, GemmWarpPolicy::FullCol, true, 4, 2},
        {"wgmma 128x128 4 warps square", 128, 128, 4, GemmWarpPolicy::Square, true, 4, 1},
        {"wgmma 128x256 8 warps full row", 128, 256, 8, GemmWarpPolicy::FullRow, true, 8, 1},
        {"wgmma 64x256 8 warps full row", 64, 256, 8, GemmWarpPolicy::FullRow, true, 4, 2},
        {"wgmma 128x128 8 warps square", 128, 128, 8, GemmWarpPolicy::Square, true, 4, 2},
    };
    for (const GridCase& c : cases) {
        LayoutResult<WarpGrid> grid =
            computeWarpGrid(c.M, c.N, c.warps, c.policy, c.useWgmma ? wgmmaWithAnyN() : mmaSync());
        ASSERT_TRUE(grid.ok()) << c.name << ": " << grid.error().message;
        EXPECT_EQ(grid->mWarp, c.mWarp) << c.name << ": " << grid->toString();
        EXPECT_EQ(grid->nWarp, c.nWarp) << c.name << ": " << grid->toString();
        // Invariants: the grid covers the tile exactly.
        int64_t unitsM = c.useWgmma ? grid->warpgroupsM : grid->mWarp;
        EXPECT_EQ(grid->warpTileM * unitsM, c.M) << c.name;
        EXPECT_EQ(grid->warpTileN * grid->nWarp, c.N) << c.name;
        EXPECT_EQ(grid->atomsM * grid->atomM, grid->warpTileM) << c.name;
        EXPECT_EQ(grid->atomsN * grid->atomN, grid->warpTileN) << c.name;
    }
}

TEST(WarpGrid, ExposesTilesAndAtoms) {
    WarpGrid square = *computeWarpGrid(128, 128, 4, GemmWarpPolicy::Square, mmaSync());
    EXPECT_EQ(square.warpTileM, 64);
    EXPECT_EQ(square.warpTileN, 64);
    EXPECT_EQ(square.atomM, 16);
    EXPECT_EQ(square.atomN, 16);
    EXPECT_EQ(square.atomsM, 4);
    EXPECT_EQ(square.atomsN, 4);
    EXPECT_EQ(square.toString(), "mma.sync 2x2 warps, warp tile 64x64, atom 16x16, 4x4 atoms/warp");

    WarpGrid narrow = *computeWarpGrid(64, 64, 8, GemmWarpPolicy::FullCol, mmaSync());
    EXPECT_EQ(narrow.atomN, 8); // warp tile 64x8: single m16n8 atoms

    // MLA acc_o: two warpgroups, each owning half the 512 columns with one m64n256 atom.
    WarpGrid mla = *computeWarpGrid(64, 512, 8, GemmWarpPolicy::FullCol, wgmmaWithAnyN());
    EXPECT_EQ(mla.warpgroupsM, 1);
    EXPECT_EQ(mla.warpgroupsN, 2);
    EXPECT_EQ(mla.warpTileM, 64);
    EXPECT_EQ(mla.warpTileN, 256);
    EXPECT_EQ(mla.atomN, 256);
    EXPECT_EQ(mla.atomsN, 1);
}

TEST(WarpGrid, WgmmaInstN) {
    EXPECT_EQ(selectWgmmaInstN(256), 256);
    EXPECT_EQ(selectWgmmaInstN(512), 256);
    EXPECT_EQ(selectWgmmaInstN(192), 192);
    EXPECT_EQ(selectWgmmaInstN(96), 96);
    EXPECT_EQ(selectWgmmaInstN(320), 160);
    EXPECT_EQ(selectWgmmaInstN(24), 8);
}

TEST(WarpGrid, Errors) {
    EXPECT_EQ(computeWarpGrid(120, 128, 4, GemmWarpPolicy::Square, mmaSync()).error().code,
              "gemm-tile-shape");
    EXPECT_EQ(computeWarpGrid(128, 12, 4, GemmWarpPolicy::Square, mmaSync()).error().code, "gemm-tile-shape");
    LayoutResult<WarpGrid> none = computeWarpGrid(16, 8, 4, GemmWarpPolicy::Square, mmaSync());
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, "no-valid-warp-partition");
    EXPECT_NE(none.error().message.find("16x8"), std::string::npos);
    EXPECT_EQ(computeWarpGrid(96, 128, 4, GemmWarpPolicy::Square, wgmmaWithAnyN()).error().code,
              "no-valid-warp-partition");
}

TEST(WarpGrid, PolicyNames) {
    EXPECT_EQ(parseGemmWarpPolicy("FullCol"), GemmWarpPolicy::FullCol);
    EXPECT_FALSE(parseGemmWarpPolicy("Diagonal").has_value());
    EXPECT_STREQ(gemmWarpPolicyName(GemmWarpPolicy::Square), "Square");
}
