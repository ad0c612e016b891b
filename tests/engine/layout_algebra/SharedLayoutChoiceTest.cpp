// chooseSharedLayout: the §4.4 selection table for the mma path (padding allowed) and the WGMMA/TMA path.
#include "engine/layout/algebra/SharedLayoutChoice.h"

#include "engine/layout/algebra/LayoutEquality.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace tb::layout;

namespace {

struct ChoiceCase {
    int64_t rows, cols;
    int bits;
    bool kMajor, allowPad;
    SharedLayoutKind expected;
};

} // namespace

TEST(SharedLayoutChoice, SelectionTable) {
    const ChoiceCase cases[] = {
        // f16 on the mma path: block_K 64 -> 128B, 32 -> 64B, 16 -> 32B, 8 -> padded.
        {128, 64, 16, true, true, SharedLayoutKind::Full128B},
        {128, 32, 16, true, true, SharedLayoutKind::Half64B},
        {128, 16, 16, true, true, SharedLayoutKind::Quarter32B},
        {128, 8, 16, true, true, SharedLayoutKind::Padded},
        {32, 128, 16, false, true, SharedLayoutKind::Full128B}, // B [K][N], N contiguous
        {12, 64, 16, true, true, SharedLayoutKind::Padded},     // rows not a multiple of 8
        {64, 128, 8, true, true, SharedLayoutKind::Full128B},
        {64, 128, 8, false, true, SharedLayoutKind::Padded}, // 8-bit MN-major
        {64, 64, 64, true, true, SharedLayoutKind::Padded},  // fp64 not modelled
        {64, 32, 32, true, true, SharedLayoutKind::Full128B},
        // WGMMA/TMA: no padding.
        {64, 64, 16, true, false, SharedLayoutKind::Full128B},
        {64, 48, 16, true, false, SharedLayoutKind::Quarter32B},
        {64, 8, 16, true, false, SharedLayoutKind::Linear},
        {12, 64, 16, true, false, SharedLayoutKind::Linear},
        {64, 64, 64, true, false, SharedLayoutKind::Quarter32B}, // fp64 capped at 32B
    };
    for (const ChoiceCase& c : cases) {
        LayoutResult<SharedLayoutChoice> choice =
            chooseSharedLayout(c.rows, c.cols, c.bits, c.kMajor, c.allowPad);
        ASSERT_TRUE(choice.ok()) << c.rows << "x" << c.cols;
        EXPECT_EQ(choice->kind, c.expected) << c.rows << "x" << c.cols << " " << c.bits
                                            << "-bit pad=" << c.allowPad << ": " << choice->reason;
        EXPECT_FALSE(choice->reason.empty());
        EXPECT_EQ(choice->layout.inputShape(), (std::vector<int64_t>{c.rows, c.cols}));
    }
}

TEST(SharedLayoutChoice, LayoutMatchesItsKind) {
    LayoutResult<SharedLayoutChoice> choice = chooseSharedLayout(128, 32, 16, true, true);
    ASSERT_TRUE(choice.ok());
    EXPECT_TRUE(*layoutsEqual(choice->layout, *makeHalfBankSwizzleLayout(128, 32, 16)));
    EXPECT_NE(choice->reason.find("32 columns"), std::string::npos) << choice->reason;
}

TEST(SharedLayoutChoice, WgmmaRejectsPartialVectors) {
    LayoutResult<SharedLayoutChoice> choice = chooseSharedLayout(64, 12, 16, true, false);
    ASSERT_FALSE(choice.ok());
    EXPECT_EQ(choice.error().code, "shared-layout-unsupported");
    EXPECT_TRUE(chooseSharedLayout(64, 12, 16, true, true).ok()); // the mma path pads instead
}

TEST(SharedLayoutChoice, ContinuityBoundsAnMnMajorWgmmaOperandsSwizzle) {
    // A 32x64 f16 B tile read by two warpgroups of 32 columns: 64B panels (32 columns), not 128B.
    auto wide = chooseSharedLayout(32, 64, 16, false, false);
    auto bounded = chooseSharedLayout(32, 64, 16, false, false, 32);
    ASSERT_TRUE(wide.ok() && bounded.ok());
    EXPECT_EQ(wide->kind, SharedLayoutKind::Full128B);
    EXPECT_EQ(bounded->kind, SharedLayoutKind::Half64B);
    EXPECT_NE(bounded->reason.find("32 columns per warpgroup"), std::string::npos) << bounded->reason;
    EXPECT_EQ(chooseSharedLayout(32, 64, 16, false, false, 64)->kind, SharedLayoutKind::Full128B);
}
