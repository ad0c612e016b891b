// Layout composition: identity laws, associativity on samples from the layout table, the stage-dimension
// pass-through of forward(), and shape errors.
#include "LayoutTestTable.h"
#include "engine/layout/algebra/LayoutEquality.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace tb::layout;

namespace {

Layout identity(const std::vector<int64_t>& shape) {
    return Layout(shape, inputVarsFor(shape));
}

// A 1-D permutation of [0, n): x -> (x * 5 + 3) % n (bijective when gcd(5, n) == 1).
Layout affinePermutation(int64_t n) {
    return Layout::fromFunction({n}, [n](const std::vector<IndexExpr>& v) {
        return std::vector<IndexExpr>{floorMod(v[0] * IndexExpr(5) + IndexExpr(3), n)};
    });
}

} // namespace

TEST(LayoutCompose, IdentityIsNeutral) {
    for (const auto& c : fixtures::layoutTable()) {
        std::vector<int64_t> out = c.layout.outputShape();
        LayoutResult<Layout> left = compose(identity(c.layout.inputShape()), c.layout);
        LayoutResult<Layout> right = compose(c.layout, identity(out));
        ASSERT_TRUE(left.ok() && right.ok()) << c.name;
        EXPECT_TRUE(*layoutsEqual(*left, c.layout)) << c.name;
        EXPECT_TRUE(*layoutsEqual(*right, c.layout)) << c.name;
    }
}

TEST(LayoutCompose, IsAssociativeOnSamples) {
    for (const auto& c : fixtures::layoutTable()) {
        Layout a = c.layout.linearized();
        int64_t n = a.outputShape()[0];
        if (n % 5 == 0)
            continue;
        Layout b = affinePermutation(n);
        Layout d =
            cuteSwizzle(Layout::linear({n}), 1, 0, 1); // x ^ ((x >> 1) & 1): stays below n when n is even
        if (n % 2 != 0)
            continue;
        LayoutResult<Layout> ab = compose(a, b);
        ASSERT_TRUE(ab.ok()) << c.name << ": " << ab.error().message;
        LayoutResult<Layout> abThenD = compose(*ab, d);
        LayoutResult<Layout> bd = compose(b, d);
        ASSERT_TRUE(abThenD.ok() && bd.ok()) << c.name;
        LayoutResult<Layout> aThenBd = compose(a, *bd);
        ASSERT_TRUE(aThenBd.ok()) << c.name;
        EXPECT_TRUE(*layoutsEqual(*abThenD, *aThenBd)) << c.name;
    }
}

TEST(LayoutCompose, WorkedExampleSwizzlesRowMajorOffsets) {
    // Row-major 8x64 f16 offsets through Swizzle<3,3,3> is the full-bank swizzle of §4.1.
    Layout swizzle = cuteSwizzle(Layout::linear({512}), 3, 3, 3);
    LayoutResult<Layout> composed = compose(Layout::linear({8, 64}), swizzle);
    ASSERT_TRUE(composed.ok());
    EXPECT_TRUE(*layoutsEqual(*composed, makeFullBankSwizzleLayout(8, 64, 16)->linearized()));
    EXPECT_EQ(composed->offset({1, 8}), 64 + 8 * (1 ^ 1));
    EXPECT_EQ(composed->offset({3, 17}), 3 * 64 + 8 * (2 ^ 3) + 1);
}

TEST(LayoutCompose, RejectsMismatchedShapes) {
    LayoutResult<Layout> rank = compose(Layout::linear({4, 4}), Layout::linear({4, 4}));
    ASSERT_FALSE(rank.ok());
    EXPECT_EQ(rank.error().code, "layout-compose-shape");
    LayoutResult<Layout> extent = compose(Layout::linear({4, 4}), Layout::linear({8}));
    ASSERT_FALSE(extent.ok());
    EXPECT_EQ(extent.error().code, "layout-compose-shape");
    EXPECT_NE(extent.error().message.find("16"), std::string::npos);
}

TEST(LayoutCompose, ForwardPassesLeadingStageDimensionsThrough) {
    Layout swizzle = *makeFullBankSwizzleLayout(8, 64, 16);
    IndexExpr stage = IndexExpr::var("s", 3), i = IndexExpr::var("i", 8), j = IndexExpr::var("j", 64);
    std::vector<IndexExpr> out = swizzle.forward({stage, i, j});
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0].toString(), "s");
    EXPECT_EQ(out[3].toString(), swizzle.forwardIndex()[2].toString());
}
