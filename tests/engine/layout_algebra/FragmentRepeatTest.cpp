// Fragment::repeat: the new shape, the block-coordinate order (lowerDimFirst), thread vs register growth,
// and errors.
#include "engine/layout/algebra/FragmentTable.h"
#include "engine/layout/algebra/GemmFragments.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace tb::layout;

namespace {

// A 2x2 fragment over 4 threads, one register each: thread = 2*i + j.
Fragment tiny() {
    return Fragment::fromFunctions(
        {2, 2}, [](const std::vector<IndexExpr>& v, const IndexExpr&) { return v[0] * IndexExpr(2) + v[1]; },
        [](const std::vector<IndexExpr>&) { return std::vector<IndexExpr>{IndexExpr(0)}; });
}

} // namespace

TEST(FragmentRepeat, OnThreadsFirstDimensionFastest) {
    LayoutResult<Fragment> r = tiny().repeat({3, 2}, /*repeatOnThread=*/true, /*lowerDimFirst=*/false);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->inputShape(), (std::vector<int64_t>{6, 4}));
    EXPECT_EQ(r->threadExtent(), 4 * 6);
    EXPECT_EQ(r->registersPerThread(), 1);
    for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 4; ++j) {
            int64_t q = i / 2 + 3 * (j / 2); // first dim fastest
            EXPECT_EQ(r->threadOf({i, j}), 2 * (i % 2) + j % 2 + 4 * q) << i << "," << j;
            EXPECT_EQ(r->registerOf({i, j}), 0);
        }
}

TEST(FragmentRepeat, OnRegistersLastDimensionFastest) {
    LayoutResult<Fragment> r = tiny().repeat({3, 2}, /*repeatOnThread=*/false, /*lowerDimFirst=*/true);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->threadExtent(), 4);
    EXPECT_EQ(r->registersPerThread(), 6);
    for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 4; ++j) {
            int64_t q = (i / 2) * 2 + j / 2; // last dim fastest
            EXPECT_EQ(r->threadOf({i, j}), 2 * (i % 2) + j % 2);
            EXPECT_EQ(r->registerOf({i, j}), q);
        }
}

TEST(FragmentRepeat, WorkedExampleAccumulatorAtom) {
    Fragment atom = mmaAtomC16x16();
    EXPECT_EQ(atom.indexExprs()[0].toString(), "2*(i//8) + j%2 + 4*(j//8)");
    EXPECT_EQ(atom.registersPerThread(), 8);
    EXPECT_EQ(atom.threadExtent(), 32);
}

TEST(FragmentRepeat, StaysInjective) {
    LayoutResult<Fragment> r = mmaAtomC().repeat({2, 4}, false, true);
    ASSERT_TRUE(r.ok());
    LayoutResult<Fragment> t = r->repeat({2, 2}, true, false);
    ASSERT_TRUE(t.ok());
    LayoutResult<FragmentInverseTable> inverse = inverseFragment(*t);
    ASSERT_TRUE(inverse.ok()) << inverse.error().message;
    EXPECT_EQ(inverse->unusedSlots(), 0);
}

TEST(FragmentRepeat, Errors) {
    EXPECT_EQ(tiny().repeat({2}, true, false).error().code, "fragment-repeat-rank");
    EXPECT_EQ(tiny().repeat({0, 1}, true, false).error().code, "fragment-repeat-rank");
    Fragment twoDimIndex({2, 2}, IndexExpr(0), {IndexExpr::var("i", 2), IndexExpr::var("j", 2)});
    EXPECT_EQ(twoDimIndex.repeat({2, 1}, false, false).error().code, "fragment-repeat-index-rank");
}
