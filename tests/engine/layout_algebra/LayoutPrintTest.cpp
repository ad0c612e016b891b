// Canonical text of layouts and the layout table printer.
#include "engine/layout/algebra/Layout.h"
#include "engine/layout/algebra/Swizzle.h"

#include <gtest/gtest.h>
#include <string>

using namespace tb::layout;

TEST(LayoutPrint, CanonicalText) {
    EXPECT_EQ(Layout::linear({8, 8}).toString(), "Layout(shape=[8, 8], forward=[8*i + j])");
    EXPECT_EQ(makeFullBankSwizzleLayout(8, 64, 16)->toString(),
              "Layout(shape=[8, 64], forward=[0, 0, 8*((j//8) ^ i) + 64*i + j%8])");
    // The same function built two ways prints the same.
    Layout a({4, 8}, {IndexExpr::var("j", 8) + IndexExpr::var("i", 4) * IndexExpr(8)});
    EXPECT_EQ(a.toString(), Layout::linear({4, 8}).toString());
}

TEST(LayoutPrint, Table) {
    EXPECT_EQ(printLayoutTable(Layout::linear({2, 3})), "0 1 2\n3 4 5\n");
    std::string swizzled = printLayoutTable(*makeQuarterBankSwizzleLayout(8, 16, 16));
    // Row 4 of a 32B swizzle swaps its two 16-byte chunks: it starts at offset 4*16 + 8.
    size_t row4 = 0;
    for (int r = 0; r < 4; ++r)
        row4 = swizzled.find('\n', row4) + 1;
    EXPECT_EQ(swizzled.substr(row4, 3), " 72");
    EXPECT_EQ(printLayoutTable(Layout::linear({2048, 1024})).find("<the layout has 2097152 points"), 0u);
}
