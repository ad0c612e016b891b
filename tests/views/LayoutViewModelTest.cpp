// Layout grids from hand-made fragments and layouts: owners, colours, labels, replication, banks,
// swizzle on/off, hit-testing and the SVG export.
#include "views/model/LayoutViewModel.h"

#include "ViewTestSupport.h"
#include "engine/layout/algebra/Swizzle.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

namespace tb::views {

using layout::Fragment;
using layout::IndexExpr;

namespace {

// The mma m16n8 fp32 accumulator (Fragment.h's worked example).
Fragment mmaAccumulator() {
    return Fragment::fromFunctions(
        {16, 8},
        [](auto v, auto) {
            return IndexExpr::constant(4) * floorMod(v[0], IndexExpr::constant(8)) +
                   floorDiv(v[1], IndexExpr::constant(2));
        },
        [](auto v) {
            return std::vector<IndexExpr>{floorMod(v[1], IndexExpr::constant(2)) +
                                          IndexExpr::constant(2) * floorDiv(v[0], IndexExpr::constant(8))};
        });
}

} // namespace

TEST(LayoutViewModel, FragmentCellsShowOwnerAndRegister) {
    LayoutViewModel m = buildFragmentView("acc", mmaAccumulator());
    ASSERT_TRUE(m.error.empty()) << m.error;
    EXPECT_TRUE(m.isFragment);
    EXPECT_EQ(m.rows, 16);
    EXPECT_EQ(m.cols, 8);
    EXPECT_EQ(m.cells.size(), 128u);
    EXPECT_EQ(m.threads, 32);
    EXPECT_EQ(m.registers, 4);
    const LayoutCell* c = m.cellAt(9, 3);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->thread, 5);
    EXPECT_EQ(c->reg, 3);
    EXPECT_EQ(c->warp, 0);
    EXPECT_EQ(c->label, "T5:3");
    EXPECT_EQ(c->color, categoricalColor(5, 32));
    // Same thread, same colour; different thread, different colour.
    EXPECT_EQ(m.cellAt(1, 2)->color, m.cellAt(9, 2)->color);
    EXPECT_NE(m.cellAt(0, 0)->color, m.cellAt(0, 2)->color);
    EXPECT_EQ(m.describe(9, 3), "(9, 3) -> thread 5 (warp 0), register 3");
    EXPECT_EQ(m.cellAt(16, 0), nullptr);
}

TEST(LayoutViewModel, ColourByWarpGroupsThreads) {
    // Two warps: rows 0-7 in warp 0 (threads 0..31), rows 8-15 in warp 1.
    Fragment f = Fragment::fromFunctions(
        {16, 4}, [](auto v, auto) { return v[0] * IndexExpr::constant(4) + v[1]; },
        [](auto) { return std::vector<IndexExpr>{IndexExpr::constant(0)}; });
    LayoutViewModel m = buildFragmentView("f", f, LayoutColoring::Warp);
    ASSERT_TRUE(m.error.empty()) << m.error;
    EXPECT_EQ(m.threads, 64);
    EXPECT_EQ(m.cellAt(0, 0)->color, m.cellAt(7, 3)->color);
    EXPECT_NE(m.cellAt(0, 0)->color, m.cellAt(8, 0)->color);
    EXPECT_EQ(m.cellAt(8, 0)->warp, 1);
}

TEST(LayoutViewModel, ReplicationListsEveryReplica) {
    Fragment f = Fragment::fullyReplicated({2, 2}, 4);
    LayoutViewModel m = buildFragmentView("stat", f);
    ASSERT_TRUE(m.error.empty()) << m.error;
    EXPECT_EQ(m.replicate, 4);
    EXPECT_EQ(m.cellAt(1, 1)->replicaThreads, (std::vector<int64_t>{0, 1, 2, 3}));
    EXPECT_NE(m.describe(1, 1).find("replicated in threads 0 1 2 3"), std::string::npos);
}

TEST(LayoutViewModel, SharedBufferBanksWithSwizzleOnAndOff) {
    auto swizzled = layout::makeFullBankSwizzleLayout(8, 64, 16);
    ASSERT_TRUE(swizzled.ok());
    LayoutViewModel on = buildSharedView("A_shared", *swizzled, 16, true);
    LayoutViewModel off = buildSharedView("A_shared", layout::Layout::linear({8, 64}), 16, false);
    ASSERT_TRUE(on.error.empty() && off.error.empty());
    EXPECT_FALSE(on.isFragment);
    // Swizzle.h's example: (1, 8) -> offset 64, i.e. byte 128: bank 0. Unswizzled it is offset 72, bank 4.
    EXPECT_EQ(on.cellAt(1, 8)->offset, 64);
    EXPECT_EQ(on.cellAt(1, 8)->bank, 0);
    EXPECT_EQ(off.cellAt(1, 8)->offset, 72);
    EXPECT_EQ(off.cellAt(1, 8)->bank, 4);
    EXPECT_EQ(on.cellAt(1, 8)->color, bankColor(0));
    EXPECT_EQ(on.describe(1, 8), "(1, 8) -> offset 64, bank 0");
    EXPECT_NE(off.title.find("swizzle off"), std::string::npos);
    // Column 0 of every row sits in bank 0 without the swizzle and in 8 different bank groups with it.
    std::set<int> banksOn, banksOff;
    for (int r = 0; r < 8; ++r) {
        banksOn.insert(on.cellAt(r, 0)->bank);
        banksOff.insert(off.cellAt(r, 0)->bank);
    }
    EXPECT_EQ(banksOff.size(), 1u);
    EXPECT_EQ(banksOn.size(), 8u);
}

TEST(LayoutViewModel, HitTestingMapsPointsToCells) {
    LayoutViewModel m = buildFragmentView("acc", mmaAccumulator());
    GridGeometry g{100, 50, 40, 20};
    auto hit = hitTestGrid(m, g, 100 + 40 * 3 + 5, 50 + 20 * 9 + 19);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->first, 9);
    EXPECT_EQ(hit->second, 3);
    EXPECT_FALSE(hitTestGrid(m, g, 99, 60).has_value());
    EXPECT_FALSE(hitTestGrid(m, g, 100 + 40 * 8, 60).has_value());
    EXPECT_FALSE(hitTestGrid(m, g, 120, 50 + 20 * 16).has_value());
}

TEST(LayoutViewModel, HigherRankFlattensLeadingDimensions) {
    LayoutViewModel m = buildSharedView("S", layout::Layout::linear({2, 3, 4}), 32, true);
    EXPECT_EQ(m.rows, 6);
    EXPECT_EQ(m.cols, 4);
    EXPECT_EQ(m.logicalIndex(4, 1), (std::vector<int64_t>{1, 1, 1}));
    EXPECT_EQ(m.cellAt(4, 1)->offset, 17);
    EXPECT_EQ(m.cellAt(4, 1)->bank, 17);
}

TEST(LayoutViewModel, OversizedGridIsRefusedWithAReason) {
    LayoutViewModel m = buildSharedView("huge", layout::Layout::linear({1024, 1024}), 16, true);
    EXPECT_TRUE(m.empty());
    EXPECT_NE(m.error.find("1048576 cells"), std::string::npos);
}

TEST(LayoutViewModel, SvgGoldens) {
    std::string fragmentSvg = layoutViewToSvg(buildFragmentView("acc", mmaAccumulator()));
    EXPECT_NE(fragmentSvg.find(">T5:3</text>"), std::string::npos);
    EXPECT_NE(fragmentSvg.find("<title>(9, 3) -&gt; thread 5 (warp 0), register 3</title>"),
              std::string::npos);
    test::expectGolden(fragmentSvg, "fragment_mma_m16n8.svg");
    auto swizzled = layout::makeFullBankSwizzleLayout(8, 64, 16);
    test::expectGolden(layoutViewToSvg(buildSharedView("A_shared", *swizzled, 16, true)),
                       "shared_swizzle128_8x64.svg");
}

TEST(LayoutViewModel, FitShowsTheWholeGrid) {
    // A 1-D fragment of 64 elements: one row, as wide as the area allows, centred vertically.
    LayoutZoom row = fitLayoutGrid(1, 64, 800, 400);
    EXPECT_FLOAT_EQ(row.zoom, float(800.0 / (64 * kLayoutCellWidth)));
    EXPECT_LE(64 * kLayoutCellWidth * row.zoom, 800.0 + 1e-3);
    EXPECT_FLOAT_EQ(row.panX, 0);
    EXPECT_FLOAT_EQ(row.panY, float((400 - kLayoutCellHeight * row.zoom) / 2));
    // A small grid is magnified up to the zoom limit and centred both ways.
    LayoutZoom small = fitLayoutGrid(2, 2, 800, 400);
    EXPECT_FLOAT_EQ(small.zoom, kLayoutMaxZoom);
    EXPECT_FLOAT_EQ(small.panX, float((800 - 2 * kLayoutCellWidth * kLayoutMaxZoom) / 2));
    // A huge one stops at the smallest zoom (the user pans the rest).
    EXPECT_FLOAT_EQ(fitLayoutGrid(4096, 4096, 800, 400).zoom, kLayoutMinZoom);
    LayoutZoom none = fitLayoutGrid(0, 0, 800, 400);
    EXPECT_FLOAT_EQ(none.zoom, 1);
    EXPECT_FLOAT_EQ(none.panX, 0);
}

} // namespace tb::views
