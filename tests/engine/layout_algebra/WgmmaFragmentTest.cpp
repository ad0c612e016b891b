// wgmma m64nNk16 fragments: the accumulator and register-A maps against the PTX ISA figures (warp w of the
// warpgroup owns rows 16w..16w+15), and the block-level accumulator over warpgroups, including MLA decode's
// two warpgroups that split N.
#include "engine/layout/algebra/FragmentTable.h"
#include "engine/layout/algebra/GemmFragments.h"
#include "tests/engine/layout_algebra/GemmInstructions.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace tb::layout;
using tb::layout::testing::wgmmaWithAnyN;

namespace {

// PTX ISA, "Matrix fragment for accumulator D" of wgmma .m64nNk16 (fp32): for thread t of the warpgroup,
// warp = t/32, lane = t%32, register i in [0, N/2): row = 16*warp + groupID + 8*((i%4)/2),
// col = 2*threadID_in_group + (i & 1) + 8*(i/4).
void ptxD(int t, int i, int& row, int& col) {
    int warp = t / 32, lane = t % 32, groupID = lane >> 2, tig = lane % 4;
    row = 16 * warp + groupID + 8 * ((i % 4) / 2);
    col = 2 * tig + (i & 1) + 8 * (i / 4);
}

// Register A (64x16 f16): per warp the mma A fragment, rows offset by 16*warp.
void ptxWgmmaA(int t, int i, int& row, int& col) {
    int warp = t / 32, lane = t % 32, groupID = lane >> 2, tig = lane % 4;
    row = 16 * warp + groupID + ((i % 4) >= 2 ? 8 : 0);
    col = 2 * tig + (i & 1) + (i >= 4 ? 8 : 0);
}

} // namespace

TEST(WgmmaFragment, AccumulatorMatchesPtx) {
    for (int n : {8, 16, 64, 256}) {
        Fragment d = wgmmaAtomC(n);
        ASSERT_EQ(d.inputShape(), (std::vector<int64_t>{64, n}));
        ASSERT_EQ(d.threadExtent(), 128);
        ASSERT_EQ(d.registersPerThread(), n / 2);
        for (int t = 0; t < 128; ++t)
            for (int i = 0; i < n / 2; ++i) {
                int row = 0, col = 0;
                ptxD(t, i, row, col);
                ASSERT_EQ(d.threadOf({row, col}), t) << "n" << n << " " << row << "," << col;
                ASSERT_EQ(d.registerOf({row, col}), i) << "n" << n << " " << row << "," << col;
            }
        EXPECT_EQ(inverseFragment(d)->unusedSlots(), 0);
    }
}

TEST(WgmmaFragment, RegisterAMatchesPtx) {
    Fragment a = wgmmaAtomA();
    ASSERT_EQ(a.threadExtent(), 128);
    ASSERT_EQ(a.registersPerThread(), 8);
    for (int t = 0; t < 128; ++t)
        for (int i = 0; i < 8; ++i) {
            int row = 0, col = 0;
            ptxWgmmaA(t, i, row, col);
            EXPECT_EQ(a.threadOf({row, col}), t);
            EXPECT_EQ(a.registerOf({row, col}), i);
        }
}

TEST(WgmmaFragment, MlaDecodeWarpgroupsSplitColumns) {
    // 256 threads, FullCol on sm_90a: acc_s 64x64 and acc_o 64x512 are split by column between the two
    // warpgroups; inside a warpgroup the PTX map applies.
    for (int N : {64, 512}) {
        WarpGrid grid = *computeWarpGrid(64, N, 8, GemmWarpPolicy::FullCol, wgmmaWithAnyN());
        Fragment c = *makeGemmFragmentC(grid);
        ASSERT_EQ(c.threadExtent(), 256) << N;
        ASSERT_EQ(c.registersPerThread(), N / 2 / 2) << N;
        for (int i = 0; i < 64; ++i)
            for (int j = 0; j < N; ++j) {
                int t = int(*c.threadOf({i, j}));
                EXPECT_EQ(t / 128, j / (N / 2)) << "N=" << N << " " << i << "," << j;
                int local = j % (N / 2);
                int warp = (t % 128) / 32, lane = t % 32;
                EXPECT_EQ(16 * warp + lane / 4 + 8 * ((*c.registerOf({i, j}) % 4) / 2), i);
                EXPECT_EQ(2 * (lane % 4) + (*c.registerOf({i, j}) & 1) +
                              8 * ((*c.registerOf({i, j}) % (grid.atomN / 2)) / 4) +
                              grid.atomN * (*c.registerOf({i, j}) / (grid.atomN / 2)),
                          local);
            }
        EXPECT_EQ(inverseFragment(c)->unusedSlots(), 0);
    }
}

TEST(WgmmaFragment, TwoWarpgroupsAlongM) {
    WarpGrid grid = *computeWarpGrid(128, 128, 8, GemmWarpPolicy::FullRow, wgmmaWithAnyN());
    ASSERT_EQ(grid.warpgroupsM, 2);
    Fragment c = *makeGemmFragmentC(grid);
    for (int i = 0; i < 128; ++i)
        for (int j = 0; j < 128; j += 7)
            EXPECT_EQ(*c.threadOf({i, j}) / 128, i / 64);
}

TEST(WgmmaFragment, OperandRules) {
    WarpGrid grid = *computeWarpGrid(128, 128, 8, GemmWarpPolicy::Square, wgmmaWithAnyN());
    LayoutResult<Fragment> a = makeGemmFragmentA(grid, 64, false);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->replicateExtent(), grid.nWarp);
    EXPECT_TRUE(inverseFragment(*a).ok());
    EXPECT_EQ(makeGemmFragmentA(grid, 64, true).error().code, "gemm-fragment-unsupported");
    EXPECT_EQ(makeGemmFragmentB(grid, 64, false).error().code, "gemm-fragment-unsupported");
}
