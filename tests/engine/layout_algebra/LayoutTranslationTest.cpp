// layout::translationStride and vectorsSurviveRuntimeStart: a stage dimension in front of per-stage
// swizzled tiles repeats by the stage's size; a 128B swizzle repeats every 8 rows and every 64 columns
// (a whole atom) but not every 32 columns (its XOR), and a plain row-major layout repeats everywhere.
#include "engine/layout/algebra/LayoutTranslation.h"

#include "engine/layout/algebra/Swizzle.h"

#include <gtest/gtest.h>

namespace tb::layout {
namespace {

TEST(LayoutTranslation, RowMajorRepeatsAlongEveryDimension) {
    Layout l = Layout::linear({4, 6});
    EXPECT_EQ(translationStride(l, 0, 1), 6);
    EXPECT_EQ(translationStride(l, 1, 1), 1);
    EXPECT_EQ(translationStride(l, 1, 3), 3);
    EXPECT_EQ(translationStride(l, 0, 4), 0); // no start but 0 fits
    EXPECT_FALSE(translationStride(l, 2, 1).has_value());
    EXPECT_TRUE(vectorsSurviveRuntimeStart(l, 0, 1, 2));
    EXPECT_FALSE(vectorsSurviveRuntimeStart(l, 1, 1, 2)); // one column on: no longer 2-aligned
    EXPECT_TRUE(vectorsSurviveRuntimeStart(l, 1, 2, 2));
}

TEST(LayoutTranslation, ASwizzleRepeatsByWholeAtomsOnly) {
    // A 64 x 128 fp16 tile in the 128B swizzle (atoms of 8 rows x 64 columns), two of them as stages.
    LayoutResult<Layout> swizzled = makeSwizzledLayout(SwizzleKind::Full128B, 64, 128, 16);
    ASSERT_TRUE(swizzled.ok());
    const Layout& tile = *swizzled;
    EXPECT_EQ(translationStride(tile, 0, 8), 8 * 64);        // the next atom row
    EXPECT_FALSE(translationStride(tile, 0, 1).has_value()); // the XOR changes with the row
    EXPECT_EQ(translationStride(tile, 1, 64), 64 * 64);      // the next atom column
    EXPECT_FALSE(translationStride(tile, 1, 32).has_value());
    EXPECT_TRUE(vectorsSurviveRuntimeStart(tile, 1, 64, 8));
    EXPECT_FALSE(vectorsSurviveRuntimeStart(tile, 1, 32, 8));
    Layout staged = tile.expand({2});
    EXPECT_EQ(translationStride(staged, 0, 1), 64 * 128);
    EXPECT_TRUE(vectorsSurviveRuntimeStart(staged, 0, 1, 8));
}

} // namespace
} // namespace tb::layout
