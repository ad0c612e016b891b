// Every canvas names the backend and instruction it pictures, and its backend strip switches the backend the
// whole app compiles with (the View > Backend setting): clicked as a user would, the document is re-planned.
#include "AppTestSupport.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QPoint>
#include <QTest>
#include <algorithm>
#include <gtest/gtest.h>
#include <string>

namespace tb::app {

namespace {

struct BackendFixture : test::WindowFixture {
    QAction* backendAction(const QString& name) {
        for (QAction* a : window->findChildren<QAction*>())
            if (a->text() == name && a->isCheckable())
                return a;
        return nullptr;
    }
};

} // namespace

TEST_F(BackendFixture, TheCanvasStripShowsAndSwitchesTheBackend) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    CanvasPanels& c = window->canvases();
    EXPECT_EQ(window->backend(), Backend::Portable);
    for (views::ImGuiCanvas* canvas :
         {c.layoutCanvas(), c.bankCanvas(), c.warpCanvas(), c.budgetCanvas(), c.sweepCanvas()})
        EXPECT_EQ(c.backendBar(canvas).caption, "portable backend: mma.sync m16n8k16");

    // Click "hopper" on the warp-partition canvas' strip: move, press, release, a frame after each.
    window->dock("warpDock")->raise();
    views::ImGuiCanvas* canvas = c.warpCanvas();
    canvas->renderImage();
    const views::BackendBarState& bar = c.backendBar(canvas);
    auto hopper = std::find(bar.backends.begin(), bar.backends.end(), "hopper");
    ASSERT_NE(hopper, bar.backends.end());
    ASSERT_EQ(bar.choiceCenters.size(), bar.backends.size());
    const auto [x, y] = bar.choiceCenters[size_t(hopper - bar.backends.begin())];
    const QPoint at{int(x), int(y)};
    QTest::mouseMove(canvas, at);
    canvas->renderImage();
    QTest::mousePress(canvas, Qt::LeftButton, {}, at);
    canvas->renderImage();
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, at);
    canvas->renderImage();
    for (int i = 0; i < 50 && window->backend() != Backend::Hopper; ++i)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    ASSERT_EQ(window->backend(), Backend::Hopper);
    ASSERT_TRUE(window->compileNow());

    AnalysisPtr a = window->compiler().current();
    ASSERT_TRUE(a && a->plan) << a->compile->formattedDiagnostics();
    EXPECT_EQ(a->compile->backend, Backend::Hopper);
    EXPECT_EQ(c.backendBar(c.layoutCanvas()).caption, "hopper backend (sm_90a): wgmma m64n128k16");
    EXPECT_EQ(c.warpModel().gemms.at(0).instruction.rfind("wgmma", 0), 0u);
    ASSERT_NE(backendAction("hopper"), nullptr);
    EXPECT_TRUE(backendAction("hopper")->isChecked());
    EXPECT_EQ(c.backendBar(canvas).backends[size_t(c.backendBar(canvas).current)], "hopper");

    // The menu sets the same option back.
    backendAction("portable")->trigger();
    ASSERT_TRUE(window->compileNow());
    EXPECT_EQ(window->compiler().current()->compile->backend, Backend::Portable);
    EXPECT_EQ(c.backendBar(canvas).caption, "portable backend: mma.sync m16n8k16");
}

TEST_F(BackendFixture, AQuickClickBetweenTwoFramesIsNotLost) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    CanvasPanels& c = window->canvases();
    window->dock("budgetDock")->raise();
    views::ImGuiCanvas* canvas = c.budgetCanvas();
    canvas->renderImage();
    const views::BackendBarState& bar = c.backendBar(canvas);
    auto hopper = std::find(bar.backends.begin(), bar.backends.end(), "hopper");
    ASSERT_NE(hopper, bar.backends.end());
    const auto [x, y] = bar.choiceCenters.at(size_t(hopper - bar.backends.begin()));
    // Press and release with no frame in between, as a fast click arrives: the canvas queues both.
    QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(int(x), int(y)));
    canvas->renderImage();
    for (int i = 0; i < 50 && window->backend() != Backend::Hopper; ++i)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    EXPECT_EQ(window->backend(), Backend::Hopper);
}

} // namespace tb::app
