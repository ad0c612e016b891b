// What a user expects of any editor and of any picture in it: find and replace (counted matches, wrap
// around, Replace All as one undo step), View > Reset Layout, a "saved" message, and every canvas exported
// to SVG and PNG from its context menu, the SVG carrying the canvas' backend caption and out-of-date state.
#include "AppTestSupport.h"
#include "app/FindBar.h"
#include "views/model/SvgWriter.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTextCursor>
#include <gtest/gtest.h>
#include <string>

namespace tb::app {

namespace {

QAction* menuAction(QMainWindow& window, const QString& menu, const QString& text) {
    for (QAction* top : window.menuBar()->actions())
        if (top->text().remove('&') == menu && top->menu())
            for (QAction* a : top->menu()->actions())
                if (a->text().remove('&') == text)
                    return a;
    return nullptr;
}

QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

using EditorBasics = test::WindowFixture;

TEST_F(EditorBasics, FindCountsMatchesAndWrapsAround) {
    window->editor()->setPlainText("alpha beta\nAlpha gamma\nalpha\n");
    QAction* find = menuAction(*window, "Edit", "Find...");
    ASSERT_NE(find, nullptr);
    find->trigger();
    FindBar* bar = window->findBar();
    ASSERT_TRUE(bar->isVisible());
    bar->findField()->setText("alpha");
    EXPECT_EQ(bar->matchCount(), 3); // case-insensitive by default
    EXPECT_EQ(bar->statusText(), "3 matches");
    bar->caseSensitiveBox()->setChecked(true);
    EXPECT_EQ(bar->matchCount(), 2);
    QTextCursor start = window->editor()->textCursor();
    start.setPosition(0);
    window->editor()->setTextCursor(start);
    ASSERT_TRUE(bar->findNext());
    EXPECT_EQ(window->editor()->textCursor().blockNumber(), 0);
    ASSERT_TRUE(bar->findNext());
    EXPECT_EQ(window->editor()->textCursor().blockNumber(), 2); // "Alpha" skipped: case matters now
    ASSERT_TRUE(bar->findNext());
    EXPECT_EQ(window->editor()->textCursor().blockNumber(), 0); // wrapped
    ASSERT_TRUE(bar->findNext(/*backward=*/true));
    EXPECT_EQ(window->editor()->textCursor().blockNumber(), 2); // and back, wrapping the other way
    bar->findField()->setText("delta");
    EXPECT_FALSE(bar->findNext());
    EXPECT_EQ(bar->statusText(), "not found");
}

TEST_F(EditorBasics, ReplaceAllIsOneUndoStep) {
    const QString text = "block_M = 128\nT.copy(A, block_M)\nblock_MN = 1\n";
    window->editor()->setPlainText(text);
    menuAction(*window, "Edit", "Replace...")->trigger();
    FindBar* bar = window->findBar();
    ASSERT_TRUE(bar->replaceField()->isVisible());
    bar->findField()->setText("block_M");
    bar->replaceField()->setText("bm");
    EXPECT_EQ(bar->replaceAll(), 3);
    EXPECT_EQ(window->editor()->toPlainText(), "bm = 128\nT.copy(A, bm)\nbmN = 1\n");
    window->editor()->undo();
    EXPECT_EQ(window->editor()->toPlainText(), text);
    // Replace one at a time: the selected match first, then the next is selected.
    QTextCursor start = window->editor()->textCursor();
    start.setPosition(0);
    window->editor()->setTextCursor(start);
    ASSERT_TRUE(bar->replaceCurrent());
    EXPECT_EQ(window->editor()->toPlainText(), "bm = 128\nT.copy(A, block_M)\nblock_MN = 1\n");
    EXPECT_EQ(window->editor()->textCursor().selectedText(), "block_M");
    EXPECT_EQ(window->editor()->textCursor().blockNumber(), 1);
}

TEST_F(EditorBasics, FindStartsFromTheSelection) {
    window->editor()->setPlainText("x = T.alloc_shared((8, 8), dtype)\n");
    QTextCursor c = window->editor()->textCursor();
    c.setPosition(6);
    c.setPosition(18, QTextCursor::KeepAnchor);
    window->editor()->setTextCursor(c);
    window->findBar()->openFind();
    EXPECT_EQ(window->findBar()->findField()->text(), "alloc_shared");
}

TEST_F(EditorBasics, ResetLayoutBringsBackAClosedDock) {
    QDockWidget* layout = window->dock("layoutDock");
    ASSERT_NE(layout, nullptr);
    ASSERT_FALSE(layout->isHidden());
    layout->close();
    window->dock("budgetDock")->setFloating(true);
    ASSERT_TRUE(layout->isHidden());
    QAction* reset = menuAction(*window, "View", "Reset Layout");
    ASSERT_NE(reset, nullptr);
    reset->trigger();
    EXPECT_FALSE(layout->isHidden());
    EXPECT_FALSE(window->dock("budgetDock")->isFloating());
}

TEST_F(EditorBasics, SavingSaysSo) {
    QTemporaryDir dir;
    window->editor()->setPlainText("# a program\n");
    const QString path = dir.path() + "/saved.py";
    ASSERT_TRUE(window->saveTo(path));
    EXPECT_TRUE(window->statusBar()->currentMessage().startsWith("saved "))
        << window->statusBar()->currentMessage().toStdString();
    EXPECT_TRUE(window->statusBar()->currentMessage().endsWith("saved.py"));
}

TEST_F(EditorBasics, EveryCanvasExportsSvgAndPngFromItsContextMenu) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    CanvasPanels& c = window->canvases();
    QTemporaryDir dir;
    for (views::ImGuiCanvas* canvas : {c.layoutCanvas(), c.bankCanvas(), c.warpCanvas(), c.budgetCanvas(),
                                       c.sweepCanvas(), c.movementCanvas(), c.scheduleCanvas()}) {
        const QString name = canvas->objectName();
        EXPECT_EQ(canvas->contextMenuPolicy(), Qt::CustomContextMenu) << name.toStdString();
        QMenu* menu = c.exportMenu(canvas);
        QStringList labels;
        for (QAction* a : menu->actions())
            labels << a->text().remove('&');
        EXPECT_EQ(labels, (QStringList{"Export SVG...", "Export PNG..."})) << name.toStdString();
        delete menu;
        const QString svgPath = dir.path() + "/" + name + ".svg";
        ASSERT_TRUE(c.exportCanvas(canvas, svgPath)) << name.toStdString();
        const QString svg = readAll(svgPath);
        EXPECT_TRUE(svg.startsWith("<?xml")) << name.toStdString();
        // The caption the canvas' strip shows, and no out-of-date banner: the picture is current.
        const QString caption = QString::fromStdString(c.backendBar(canvas).caption);
        EXPECT_FALSE(caption.isEmpty());
        EXPECT_TRUE(svg.contains(">" + caption + "</text>")) << name.toStdString();
        EXPECT_FALSE(svg.contains("out of date")) << name.toStdString();
        const QString pngPath = dir.path() + "/" + name + ".png";
        ASSERT_TRUE(c.exportCanvas(canvas, pngPath)) << name.toStdString();
        QImage png(pngPath);
        EXPECT_FALSE(png.isNull()) << name.toStdString();
        EXPECT_GT(png.width(), 0);
    }
    EXPECT_FALSE(c.exportCanvas(c.layoutCanvas(), dir.path() + "/no/such/folder/layout.svg"));
}

TEST_F(EditorBasics, AStaleCanvasExportsWithItsBanner) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    window->editor()->setPlainText(window->editor()->toPlainText() + "\nthis is not python(\n");
    ASSERT_TRUE(window->compileNow());
    CanvasPanels& c = window->canvases();
    ASSERT_FALSE(c.outOfDateReason().empty());
    const std::string svg = c.canvasSvg(c.layoutCanvas());
    EXPECT_NE(svg.find(">out of date: the program has errors</text>"), std::string::npos);
    EXPECT_NE(svg.find(views::SvgWriter::escape(c.outOfDateReason())), std::string::npos);
}

TEST_F(EditorBasics, FindInACodeViewSearchesThatView) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    window->dock("cudaDock")->show();
    window->dock("cudaDock")->raise();
    ASSERT_TRUE(window->codeViews().waitForIdle(30000));
    QWidget* panel = window->codeViews().cudaPanel();
    auto* view = panel->findChild<QPlainTextEdit*>();
    ASSERT_NE(view, nullptr);
    view->setFocus();
    QApplication::processEvents();
    FindBar* bar = FindBar::nearest(view);
    ASSERT_NE(bar, nullptr);
    ASSERT_NE(bar, window->findBar()); // the view's own, not the editor's
    menuAction(*window, "Edit", "Find...")->trigger();
    EXPECT_TRUE(bar->isVisible());
    EXPECT_FALSE(window->findBar()->isVisible());
    bar->findField()->setText("__global__");
    EXPECT_GE(bar->matchCount(), 1);
    EXPECT_EQ(view->textCursor().selectedText(), "__global__");
    // Read-only: no replacing.
    menuAction(*window, "Edit", "Replace...")->trigger();
    EXPECT_FALSE(bar->replaceField()->isVisible());
    EXPECT_EQ(bar->replaceAll(), 0);
}

} // namespace tb::app
