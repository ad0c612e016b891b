// The stage-sweep plot in the window: its points are the num_stages variants compiled one by one
// (profile::planSweep, the path of `tilec sweep`), computed off the UI thread after each analysis; a click
// on a point re-specializes a jit parameter num_stages, and edits a num_stages literal in the source as
// one undoable step instead of adding an override that changes nothing.
#include "AppTestSupport.h"

#include <QListWidget>
#include <QPlainTextEdit>
#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>

namespace tb::app {

namespace {

struct SweepFixture : test::WindowFixture {
    int pointOf(int64_t stages) {
        const auto& points = window->canvases().sweepModel().points;
        for (size_t i = 0; i < points.size(); ++i)
            if (points[i].value == stages)
                return int(i);
        return -1;
    }
    bool issuesContain(const QString& code) {
        for (int i = 0; i < window->issues()->count(); ++i)
            if (window->issues()->item(i)->text().contains(code))
                return true;
        return false;
    }
};

} // namespace

TEST_F(SweepFixture, FlashAttentionPointsArePlannedPerVariant) {
    ASSERT_TRUE(window->openSample("flash_attention"));
    ASSERT_TRUE(window->compileNow());
    ASSERT_TRUE(window->canvases().waitForSweep(60000));
    const views::SweepPlotModel& m = window->canvases().sweepModel();
    ASSERT_EQ(m.points.size(), 4u);
    EXPECT_EQ(m.current, 1);
    EXPECT_EQ(m.points[0].sharedBytes, 32768);
    EXPECT_EQ(m.points[1].sharedBytes, 49152);
    EXPECT_EQ(m.points[2].sharedBytes, 65536);
    // A click on 2 re-specializes the jit parameter.
    window->canvases().openSweepPoint(pointOf(2));
    ASSERT_TRUE(window->compiler().waitForIdle(20000));
    ASSERT_TRUE(window->canvases().waitForSweep(60000));
    EXPECT_EQ(window->compiler().current()->numStages(), 2);
    EXPECT_EQ(window->canvases().sweepModel().current, 2);
    EXPECT_EQ(window->canvases().budgetModel().totalBytes, 49152);
}

TEST_F(SweepFixture, ClickOnALiteralEditsItUndoably) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    ASSERT_TRUE(window->canvases().waitForSweep(60000));
    const QString original = window->editor()->toPlainText();
    ASSERT_TRUE(original.contains("num_stages=3"));
    EXPECT_TRUE(window->canvases().sweepModel().literal);
    const int64_t threeStages = window->canvases().sweepModel().points[size_t(pointOf(3))].sharedBytes;
    const int64_t twoStages = window->canvases().sweepModel().points[size_t(pointOf(2))].sharedBytes;
    EXPECT_LT(twoStages, threeStages);

    EXPECT_FALSE(window->isModified());
    EXPECT_FALSE(window->editor()->document()->isModified());
    window->canvases().openSweepPoint(pointOf(2));
    QString edited = window->editor()->toPlainText();
    EXPECT_TRUE(edited.contains("T.Pipelined(T.ceildiv(K, block_K), num_stages=2)")) << edited.toStdString();
    EXPECT_FALSE(edited.contains("num_stages=3):")); // the comment at the top keeps its own text
    ASSERT_TRUE(window->compileNow());
    EXPECT_FALSE(issuesContain("unused-override"));
    EXPECT_EQ(window->compiler().current()->numStages(), 2);
    EXPECT_EQ(window->canvases().budgetModel().totalBytes, twoStages);
    EXPECT_TRUE(window->isModified());

    // One undo step restores the literal (and the unmodified document).
    window->editor()->undo();
    EXPECT_EQ(window->editor()->toPlainText(), original);
    EXPECT_FALSE(window->editor()->document()->isModified())
        << window->editor()->document()->availableUndoSteps();
    EXPECT_FALSE(window->isModified());
    ASSERT_TRUE(window->compileNow());
    EXPECT_EQ(window->compiler().current()->numStages(), 3);
}

} // namespace tb::app
