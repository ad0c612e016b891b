// Fragment containment (ProveFragmentContains semantics) by enumeration, with counterexamples.
#include "engine/layout/algebra/FragmentContains.h"

#include "engine/layout/algebra/GemmFragments.h"
#include "engine/layout/algebra/WarpPartition.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace tb::layout;

namespace {

Fragment blockC(int64_t M, int64_t N, int64_t warps, GemmWarpPolicy policy) {
    GemmInstruction mma;
    return *makeGemmFragmentC(*computeWarpGrid(M, N, warps, policy, mma));
}

} // namespace

TEST(FragmentContains, AFragmentContainsItself) {
    Fragment c = blockC(64, 64, 4, GemmWarpPolicy::FullRow);
    LayoutResult<ContainmentResult> r = fragmentContains(c, c, /*checkRegisterIndex=*/true);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->contains);
}

TEST(FragmentContains, FullyReplicatedLargeContainsEverything) {
    Fragment c = blockC(64, 64, 4, GemmWarpPolicy::FullRow);
    EXPECT_TRUE(fragmentContains(c, Fragment::fullyReplicated({64, 64}, 128))->contains);
    EXPECT_FALSE(fragmentContains(Fragment::fullyReplicated({64, 64}, 128), c)->contains);
}

TEST(FragmentContains, DifferentWarpGridsGiveACounterexample) {
    Fragment rows = blockC(64, 64, 4, GemmWarpPolicy::FullRow);
    Fragment cols = blockC(64, 64, 4, GemmWarpPolicy::FullCol);
    LayoutResult<ContainmentResult> r = fragmentContains(rows, cols);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->contains);
    ASSERT_EQ(r->element.size(), 2u);
    // The counterexample is real: the reading thread is not the holder.
    EXPECT_NE(*rows.threadOf(r->element), *cols.threadOf(r->element));
    EXPECT_NE(r->reason.find("does not hold"), std::string::npos);
}

TEST(FragmentContains, RowStatisticBroadcastThroughAnAccessMap) {
    // A row statistic of the 64x64 FullRow accumulator: element r lives in the 4 lanes that hold row r
    // (thread = 4*(r%8) + 32*(r//16) + rep for rep in [0, 4)). Reading it at (r, c) for every c of the
    // accumulator tile is contained in the accumulator's ownership.
    Fragment c = blockC(64, 64, 4, GemmWarpPolicy::FullRow);
    Fragment rowStat = Fragment::fromFunctions(
        {64},
        [](const std::vector<IndexExpr>& v, const IndexExpr& rep) {
            return IndexExpr(4) * floorMod(v[0], 8) + IndexExpr(32) * floorDiv(v[0], 16) + rep;
        },
        [](const std::vector<IndexExpr>& v) {
            return std::vector<IndexExpr>{floorDiv(floorMod(v[0], 16), 8)};
        },
        4);
    // Small = the accumulator tile's threads reading the statistic of their row.
    Layout rowOf({64, 64}, {IndexExpr::var("i", 64)});
    LayoutResult<ContainmentResult> r = fragmentContains(c, rowStat, rowOf);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->contains) << r->reason;
    // Reading the statistic of the transposed index is not.
    Layout colOf({64, 64}, {IndexExpr::var("j", 64)});
    EXPECT_FALSE(fragmentContains(c, rowStat, colOf)->contains);
}

TEST(FragmentContains, RegisterIndexCheck) {
    Fragment c = mmaAtomC16x16();
    Fragment swapped = Fragment(c.inputShape(), c.threadExpr(), {IndexExpr(7) - c.indexExprs()[0]});
    EXPECT_TRUE(fragmentContains(c, swapped)->contains);
    EXPECT_FALSE(fragmentContains(c, swapped, /*checkRegisterIndex=*/true)->contains);
}

TEST(FragmentContains, ThreadRangesCompareAbsoluteThreads) {
    Fragment c = mmaAtomC16x16();
    EXPECT_FALSE(fragmentContains(c.bindThreadRange(128, 32), c)->contains);
    EXPECT_TRUE(fragmentContains(c.bindThreadRange(128, 32), c.bindThreadRange(128, 32))->contains);
}

TEST(FragmentContains, AccessMapErrors) {
    Fragment c = mmaAtomC16x16();
    EXPECT_EQ(fragmentContains(c, c, Layout::linear({16, 16})).error().code, "fragment-access-shape");
    Layout shifted({16, 16}, {IndexExpr::var("i", 16) + IndexExpr(1), IndexExpr::var("j", 16)});
    EXPECT_EQ(fragmentContains(c, c, shifted).error().code, "fragment-access-out-of-range");
}
