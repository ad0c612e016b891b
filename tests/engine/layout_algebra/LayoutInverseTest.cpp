// Layout inverse by enumeration: bijective where claimed, inverse ∘ forward = id and forward ∘ inverse = id
// over the whole table of layouts, clear errors for non-injective and too-large layouts.
#include "engine/layout/algebra/LayoutInverse.h"

#include "LayoutTestTable.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace tb::layout;

TEST(LayoutInverse, BijectiveAndInjectiveWhereClaimed) {
    for (const auto& c : fixtures::layoutTable()) {
        LayoutResult<bool> injective = isInjective(c.layout);
        ASSERT_TRUE(injective.ok()) << c.name << ": " << injective.error().message;
        EXPECT_EQ(*injective, c.injective) << c.name;
        LayoutResult<bool> bijective = isBijective(c.layout);
        ASSERT_TRUE(bijective.ok()) << c.name;
        EXPECT_EQ(*bijective, c.bijective) << c.name << " " << c.layout.toString();
    }
}

TEST(LayoutInverse, InverseAfterForwardIsIdentity) {
    for (const auto& c : fixtures::layoutTable()) {
        if (!c.injective)
            continue;
        LayoutResult<InverseTable> inverse = inverseLayout(c.layout);
        ASSERT_TRUE(inverse.ok()) << c.name << ": " << inverse.error().message;
        int64_t reached = 0;
        std::vector<int64_t> shape = c.layout.inputShape();
        std::vector<int64_t> point(shape.size(), 0);
        for (int64_t flat = 0; flat < c.layout.inputSize(); ++flat) {
            int64_t rest = flat;
            for (size_t d = shape.size(); d-- > 0;) {
                point[d] = rest % shape[d];
                rest /= shape[d];
            }
            auto physical = c.layout.apply(point);
            ASSERT_TRUE(physical.has_value()) << c.name;
            auto back = inverse->logicalOf(*physical);
            ASSERT_TRUE(back.has_value()) << c.name;
            EXPECT_EQ(*back, point) << c.name;
            ++reached;
        }
        EXPECT_EQ(reached, c.layout.inputSize());
        // forward ∘ inverse = id on every reached physical point.
        for (size_t slot = 0; slot < inverse->preimage.size(); ++slot) {
            if (inverse->preimage[slot] < 0) {
                EXPECT_FALSE(c.bijective) << c.name << " leaves physical slot " << slot << " unreached";
                continue;
            }
            int64_t rest = inverse->preimage[slot];
            for (size_t d = shape.size(); d-- > 0;) {
                point[d] = rest % shape[d];
                rest /= shape[d];
            }
            std::vector<int64_t> outShape = c.layout.outputShape();
            int64_t flat = 0;
            auto physical = *c.layout.apply(point);
            for (size_t d = 0; d < outShape.size(); ++d)
                flat = flat * outShape[d] + physical[d];
            EXPECT_EQ(flat, int64_t(slot)) << c.name;
        }
    }
}

TEST(LayoutInverse, WorkedExample) {
    LayoutResult<InverseTable> inverse = inverseLayout(Layout::linear({4, 8}));
    ASSERT_TRUE(inverse.ok());
    EXPECT_EQ(inverse->logicalOf({13}), (std::vector<int64_t>{1, 5}));
    EXPECT_FALSE(inverse->logicalOf({32}).has_value());
}

TEST(LayoutInverse, NotInjectiveNamesTheCollision) {
    Layout sum = Layout::fromFunction(
        {4, 4}, [](const std::vector<IndexExpr>& v) { return std::vector<IndexExpr>{v[0] + v[1]}; });
    LayoutResult<InverseTable> inverse = inverseLayout(sum);
    ASSERT_FALSE(inverse.ok());
    EXPECT_EQ(inverse.error().code, "layout-not-injective");
    EXPECT_NE(inverse.error().message.find("(0, 1) and (1, 0)"), std::string::npos)
        << inverse.error().message;
}

TEST(LayoutInverse, RefusesDomainsOverTheCap) {
    LayoutResult<InverseTable> inverse = inverseLayout(Layout::linear({2048, 1024}));
    ASSERT_FALSE(inverse.ok());
    EXPECT_EQ(inverse.error().code, "layout-domain-too-large");
    EXPECT_NE(inverse.error().message.find("2097152"), std::string::npos);
    // Exactly at the cap is still enumerated.
    EXPECT_TRUE(isBijective(Layout::linear({1024, 1024})).ok());
}
