// Layout and fragment equality by enumeration.
#include "engine/layout/algebra/LayoutEquality.h"

#include "LayoutTestTable.h"
#include "engine/layout/algebra/GemmFragments.h"

#include <gtest/gtest.h>

using namespace tb::layout;

TEST(LayoutEquality, WorkedExample) {
    Layout rowMajor = Layout::linear({4, 8});
    Layout same({4, 8}, {IndexExpr::var("i", 4) * IndexExpr(8) + IndexExpr::var("j", 8)});
    Layout columnMajor({4, 8}, {IndexExpr::var("i", 4) + IndexExpr::var("j", 8) * IndexExpr(4)});
    EXPECT_TRUE(*layoutsEqual(rowMajor, same));
    EXPECT_FALSE(*layoutsEqual(rowMajor, columnMajor));
    EXPECT_FALSE(*layoutsEqual(rowMajor, Layout::linear({8, 4})));
}

TEST(LayoutEquality, EqualFunctionsWithDifferentTextAreEqual) {
    IndexExpr n = IndexExpr::var("i", 64);
    Layout a({64}, {n});
    Layout b({64}, {bitXor(bitXor(n, IndexExpr(5)), IndexExpr(5))});
    EXPECT_TRUE(*layoutsEqual(a, b));
}

TEST(LayoutEquality, EveryTableLayoutEqualsItselfAndNoOther) {
    auto table = fixtures::layoutTable();
    for (size_t x = 0; x < table.size(); ++x)
        for (size_t y = 0; y < table.size(); ++y) {
            LayoutResult<bool> equal = layoutsEqual(table[x].layout, table[y].layout);
            ASSERT_TRUE(equal.ok());
            EXPECT_EQ(*equal, x == y) << table[x].name << " vs " << table[y].name;
        }
}

TEST(LayoutEquality, Fragments) {
    EXPECT_TRUE(*fragmentsEqual(mmaAtomC16x16(), mmaAtomC16x16()));
    EXPECT_FALSE(*fragmentsEqual(mmaAtomC16x16(), mmaAtomA().permuteInputs({1, 0})));
    EXPECT_TRUE(*fragmentsEqual(mmaAtomC16x16(), mmaAtomA())); // the same map, as §3.2 says
    EXPECT_FALSE(*fragmentsEqual(mmaAtomC(), mmaAtomC().replicate(2)));
}
