// Views that can no longer be computed say so: after an error every canvas is veiled under an "out of date"
// banner (drawn into the framebuffer), clicks on it do nothing, and the budget view instead draws the
// budget the failing shared-memory check rejected, with that check's bytes.
#include "AppTestSupport.h"

#include <QDockWidget>
#include <QImage>
#include <QListWidget>
#include <QPlainTextEdit>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

namespace tb::app {

namespace {

struct OutOfDateFixture : test::WindowFixture {
    // Pixels of the banner's colour on `canvas` (its dock raised so that it really draws).
    int bannerPixels(views::ImGuiCanvas* canvas, const char* dockName) {
        window->dock(dockName)->raise();
        QImage image = canvas->renderImage().convertToFormat(QImage::Format_RGB32);
        int count = 0;
        const views::Rgba c = views::kOutOfDateBanner;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                QRgb p = image.pixel(x, y);
                count += qRed(p) == c.r && qGreen(p) == c.g && qBlue(p) == c.b;
            }
        return count;
    }
    std::vector<std::pair<views::ImGuiCanvas*, const char*>> canvases() {
        CanvasPanels& c = window->canvases();
        return {{c.layoutCanvas(), "layoutDock"},
                {c.bankCanvas(), "bankDock"},
                {c.warpCanvas(), "warpDock"},
                {c.budgetCanvas(), "budgetDock"},
                {c.sweepCanvas(), "sweepDock"}};
    }
};

} // namespace

TEST_F(OutOfDateFixture, OverTheLimitVeilsThePlanViewsAndTheBudgetDrawsTheRejectedBytes) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    CanvasPanels& c = window->canvases();
    EXPECT_TRUE(c.outOfDateReason().empty());
    for (auto [canvas, dock] : canvases()) {
        SCOPED_TRACE(dock);
        EXPECT_FALSE(c.outOfDate(canvas));
        EXPECT_EQ(bannerPixels(canvas, dock), 0);
    }
    const QString good = window->editor()->toPlainText();
    QString bad = good;
    bad.replace("block_M=128", "block_M=100000");
    ASSERT_NE(bad, good);
    window->editor()->setPlainText(bad);
    ASSERT_TRUE(window->compileNow());

    EXPECT_NE(c.outOfDateReason().find("shared memory needs"), std::string::npos) << c.outOfDateReason();
    const views::BudgetViewModel& budget = c.budgetModel();
    EXPECT_TRUE(budget.overLimit()) << budget.summary();
    EXPECT_FALSE(budget.source.empty());
    // The bytes the Issues dock reports are the bytes the budget view draws.
    bool issueHasTheBytes = false;
    for (int i = 0; i < window->issues()->count(); ++i)
        issueHasTheBytes =
            issueHasTheBytes || window->issues()->item(i)->text().contains(
                                    QString("needs %1 bytes").arg(qlonglong(budget.totalBytes)));
    EXPECT_TRUE(issueHasTheBytes);
    for (auto [canvas, dock] : canvases()) {
        SCOPED_TRACE(dock);
        const bool isBudget = canvas == c.budgetCanvas();
        EXPECT_EQ(c.outOfDate(canvas), !isBudget);
        if (isBudget)
            EXPECT_EQ(bannerPixels(canvas, dock), 0);
        else
            EXPECT_GT(bannerPixels(canvas, dock), 1000);
    }

    window->editor()->setPlainText(good);
    ASSERT_TRUE(window->compileNow());
    EXPECT_TRUE(c.outOfDateReason().empty());
    EXPECT_FALSE(c.budgetModel().overLimit());
    EXPECT_TRUE(c.budgetModel().source.empty());
    EXPECT_EQ(bannerPixels(c.layoutCanvas(), "layoutDock"), 0);
}

TEST_F(OutOfDateFixture, AnEmptyFileNoLongerShowsTheGemm) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    ASSERT_TRUE(window->irView()->toPlainText().contains("gemm"));
    window->editor()->setPlainText("");
    ASSERT_TRUE(window->compileNow());
    // The Tile IR dock no longer lists the GEMM either.
    EXPECT_FALSE(window->irView()->toPlainText().contains("gemm"))
        << window->irView()->toPlainText().toStdString();
    CanvasPanels& c = window->canvases();
    EXPECT_FALSE(c.outOfDateReason().empty());
    for (auto [canvas, dock] : canvases()) {
        SCOPED_TRACE(dock);
        EXPECT_TRUE(c.outOfDate(canvas));
        EXPECT_GT(bannerPixels(canvas, dock), 1000);
    }
}

} // namespace tb::app
