// The bank table at the default window: every column keeps the width its header needs (the table scrolls
// sideways instead of squeezing "ideal", "N-way", "swizzle off" to one letter), and the worst access is the
// first row.
#include "AppTestSupport.h"

#include <QDockWidget>
#include <gtest/gtest.h>
#include <string>

namespace tb::app {

namespace {
struct BankViewFixture : test::WindowFixture {};
} // namespace

TEST_F(BankViewFixture, ColumnsKeepTheirHeadersWidthAtTheDefaultWindow) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    window->dock("bankDock")->raise();
    views::ImGuiCanvas* canvas = window->canvases().bankCanvas();
    canvas->renderImage();
    const views::BankViewState& state = window->canvases().bankState();
    ASSERT_GE(state.columns.size(), 5u);
    for (const views::BankViewState::ColumnFit& c : state.columns)
        EXPECT_GE(c.given + 1, c.needed) << c.header << ": " << c.given << " of " << c.needed;
    EXPECT_EQ(state.sortColumn, views::BankColumn::Excess);
    EXPECT_TRUE(state.sortDescending);
}

} // namespace tb::app
