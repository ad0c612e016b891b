// The layout canvas' pan and zoom belong to one buffer: picking another starts it fitted (a 1-D fragment
// after a panned 2-D tile is not blank), and Fit brings a panned-away grid back.
#include "AppTestSupport.h"

#include <QDockWidget>
#include <QImage>
#include <gtest/gtest.h>
#include <string>

namespace tb::app {

namespace {

struct LayoutFixture : test::WindowFixture {
    // Pixels of the first cell's colour (its owner thread's) on the canvas.
    int cellPixels(views::ImGuiCanvas* canvas) {
        const views::Rgba c = window->canvases().layoutModel().cells.at(0).color;
        QImage image = canvas->renderImage().convertToFormat(QImage::Format_RGB32);
        int count = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                QRgb p = image.pixel(x, y);
                count += qRed(p) == c.r && qGreen(p) == c.g && qBlue(p) == c.b;
            }
        return count;
    }
};

} // namespace

TEST_F(LayoutFixture, AnotherBufferStartsFittedAndFitBringsTheGridBack) {
    ASSERT_TRUE(window->openSample("softmax"));
    ASSERT_TRUE(window->compileNow());
    window->dock("layoutDock")->raise();
    CanvasPanels& c = window->canvases();
    views::ImGuiCanvas* canvas = c.layoutCanvas();
    int oneD = -1;
    for (size_t i = 0; i < c.layoutBuffers().size(); ++i)
        if (c.layoutBuffers()[i].rfind("row_max", 0) == 0)
            oneD = int(i);
    ASSERT_GE(oneD, 0);
    ASSERT_NE(oneD, c.layoutState().buffer);
    canvas->renderImage();          // the first buffer's own first frame (fitted)
    c.layoutState().panX = -100000; // the 2-D tile panned far away
    c.layoutState().zoom = 4;
    canvas->renderImage();

    c.layoutState().buffer = oneD; // what picking it in the combo does
    c.rebuildLayout();
    EXPECT_EQ(c.layoutModel().rows, 1);
    const int shown = cellPixels(canvas); // the first frame fits the grid
    const views::LayoutViewState& s = c.layoutState();
    EXPECT_FALSE(s.fitRequested);
    EXPECT_GE(s.panX, 0);
    EXPECT_LE(c.layoutModel().cols * views::kLayoutCellWidth * s.zoom, double(canvas->width()));
    EXPECT_GT(shown, 500); // the row is on screen, not panned away with the old buffer's offset

    // Panned away the grid is gone; Fit brings it back.
    c.layoutState().panX = -100000;
    EXPECT_EQ(cellPixels(canvas), 0);
    c.layoutState().fitRequested = true; // the Fit button
    EXPECT_GT(cellPixels(canvas), 500);
    EXPECT_GE(c.layoutState().panX, 0);
}

} // namespace tb::app
