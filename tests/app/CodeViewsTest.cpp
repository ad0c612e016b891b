// The code views (CUDA, PTX, SASS, Passes) in the real window: each sample's kernel appears, the editor's
// gemm line highlights the mma lines and a click on one brings the editor back, NVRTC's PTX shows
// mma.sync for sm_90a when the PTX dock is visible, the SASS dock shows SASS or says why it cannot, and
// the Passes dock has text for every pass.
#include "AppTestSupport.h"
#include "engine/catalog/SampleCatalog.h"
#include "engine/gpu/Nvrtc.h"

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::app {

using test::lineContaining;

namespace {

QString lineText(const QPlainTextEdit* view, int line) {
    return view->document()->findBlockByNumber(line - 1).text();
}

bool anyHighlightedContains(const LinkedCodeView* view, const QString& needle) {
    for (int line : view->highlightedLines())
        if (lineText(view, line).contains(needle))
            return true;
    return false;
}

// Whether this machine has a SASS disassembler: a junk cubin fails either way, but only a machine without
// the tools says that neither is installed.
bool haveDisassembler() {
    std::string reason;
    gpu::disassembleSass(std::vector<char>{'x'}, &reason);
    return reason.find("neither nvdisasm nor cuobjdump") == std::string::npos;
}

struct CodeViewsFixture : test::WindowFixture {
    void openGemm() {
        ASSERT_TRUE(window->openSample("gemm_relu"));
        ASSERT_TRUE(window->compileNow());
        ASSERT_TRUE(window->codeViews().waitForIdle(20000));
    }
    void raise(const char* dock) {
        QDockWidget* d = window->dock(dock);
        ASSERT_NE(d, nullptr) << dock;
        d->show();
        d->raise();
        QTest::qWait(50);
    }
};

} // namespace

TEST_F(CodeViewsFixture, CudaDockShowsEverySamplesKernel) {
    for (const SampleInfo& s : listSamples()) {
        SCOPED_TRACE(s.name);
        ASSERT_TRUE(window->openSample(QString::fromStdString(s.name)));
        ASSERT_TRUE(window->compileNow());
        ASSERT_TRUE(window->codeViews().waitForIdle(20000));
        AnalysisPtr a = window->compiler().current();
        ASSERT_TRUE(a && a->ok());
        QString cuda = window->codeViews().cudaView()->toPlainText();
        EXPECT_TRUE(window->codeViews().cudaView()->showsCode()) << cuda.left(400).toStdString();
        // The prim_func's name is in the generated kernel's name and in the header comment.
        QString func = QString::fromStdString(a->compile->module->funcs.front().name);
        EXPECT_TRUE(cuda.contains("extern \"C\" __global__")) << cuda.left(400).toStdString();
        EXPECT_TRUE(cuda.contains(func + "_kernel")) << func.toStdString();
        EXPECT_TRUE(cuda.contains("from " + QString::fromStdString(s.fileName)) ||
                    cuda.contains(QString::fromStdString(s.fileName)));
    }
}

TEST_F(CodeViewsFixture, GemmLineHighlightsMmaAndAClickComesBack) {
    openGemm();
    raise("cudaDock");
    int gemm = lineContaining(window->editor()->toPlainText(), "T.gemm(");
    ASSERT_GT(gemm, 0);
    window->editor()->gotoLine(gemm);
    LinkedCodeView* cuda = window->codeViews().cudaView();
    ASSERT_FALSE(cuda->highlightedLines().empty());
    EXPECT_TRUE(anyHighlightedContains(cuda, "tb_mma_f16(")) << "no mma among the highlighted CUDA lines";
    for (int line : cuda->highlightedLines())
        EXPECT_EQ(cuda->tileLineOf(line), gemm);

    // Move the editor away, then click a highlighted mma line of the CUDA view.
    int relu = lineContaining(window->editor()->toPlainText(), "T.max(C_local");
    window->editor()->gotoLine(gemm); // keep the gemm highlight
    int target = 0;
    for (int line : cuda->highlightedLines())
        if (lineText(cuda, line).contains("tb_mma_f16("))
            target = line;
    ASSERT_GT(target, 0);
    window->editor()->gotoLine(relu);
    ASSERT_EQ(window->editor()->currentLine(), relu);
    EXPECT_FALSE(std::count(cuda->highlightedLines().begin(), cuda->highlightedLines().end(), target));
    // Scroll the target into view without moving the cursor, then click it where it is drawn.
    cuda->verticalScrollBar()->setValue(std::max(0, target - 2)); // a QPlainTextEdit scrolls by lines
    QTest::qWait(20);
    ASSERT_EQ(window->editor()->currentLine(), relu);
    QRect rect = cuda->cursorRect(QTextCursor(cuda->document()->findBlockByNumber(target - 1)));
    ASSERT_TRUE(cuda->viewport()->rect().contains(rect.center())) << "target line not on screen";
    QTest::mouseClick(cuda->viewport(), Qt::LeftButton, {}, QPoint(rect.left() + 40, rect.center().y()));
    EXPECT_EQ(window->editor()->currentLine(), gemm);
    EXPECT_TRUE(anyHighlightedContains(cuda, "tb_mma_f16("));
}

TEST_F(CodeViewsFixture, PtxDockCompilesWhenVisibleAndShowsMmaSync) {
    openGemm();
    // Hidden behind another tab: nothing is compiled.
    raise("cudaDock");
    ASSERT_TRUE(window->codeViews().waitForIdle(20000));
    EXPECT_EQ(window->codeViews().machineCodeCompiles(), 0);
    raise("ptxDock");
#if TILEBENCH_HAS_NVRTC
    ASSERT_TRUE(window->codeViews().waitForIdle(60000));
    EXPECT_EQ(window->codeViews().machineCodeCompiles(), 1);
    LinkedCodeView* ptx = window->codeViews().ptxView();
    ASSERT_TRUE(ptx->showsCode()) << ptx->toPlainText().left(600).toStdString();
    QString text = ptx->toPlainText();
    EXPECT_TRUE(text.contains(".target sm_90a"));
    EXPECT_TRUE(text.contains("mma.sync.aligned.m16n8k16"));
    EXPECT_TRUE(window->codeViews().ptxStatus()->text().contains("registers"));
    int gemm = lineContaining(window->editor()->toPlainText(), "T.gemm(");
    window->editor()->gotoLine(gemm);
    EXPECT_TRUE(anyHighlightedContains(ptx, "mma.sync")) << "no mma.sync among the highlighted PTX lines";
    // A new analysis of the same program recompiles only while the dock is visible (NVRTC's cache hits).
    raise("issuesDock");
    window->setOverride("block_K", "32");
    ASSERT_TRUE(window->compileNow());
    ASSERT_TRUE(window->codeViews().waitForIdle(20000));
    EXPECT_EQ(window->codeViews().machineCodeCompiles(), 1);
    EXPECT_TRUE(window->codeViews().ptxStatus()->text().contains("earlier version"));
    raise("ptxDock");
    ASSERT_TRUE(window->codeViews().waitForIdle(60000));
    EXPECT_EQ(window->codeViews().machineCodeCompiles(), 2);
    EXPECT_FALSE(window->codeViews().ptxStatus()->text().contains("earlier version"));
#else
    ASSERT_TRUE(window->codeViews().waitForIdle(20000));
    EXPECT_TRUE(window->codeViews().ptxView()->toPlainText().contains("NVRTC not available"));
#endif
}

TEST_F(CodeViewsFixture, SassDockShowsSassOrSaysWhy) {
    openGemm();
    raise("sassDock");
    ASSERT_TRUE(window->codeViews().waitForIdle(60000));
    LinkedCodeView* sass = window->codeViews().sassView();
#if TILEBENCH_HAS_NVRTC
    if (haveDisassembler()) {
        ASSERT_TRUE(sass->showsCode()) << sass->toPlainText().left(600).toStdString();
        EXPECT_TRUE(sass->toPlainText().contains("HMMA"));
        int gemm = lineContaining(window->editor()->toPlainText(), "T.gemm(");
        window->editor()->gotoLine(gemm);
        EXPECT_TRUE(anyHighlightedContains(sass, "HMMA"));
    } else {
        EXPECT_FALSE(sass->showsCode());
        QString text = sass->toPlainText();
        EXPECT_TRUE(text.contains("neither nvdisasm nor cuobjdump is installed")) << text.toStdString();
        EXPECT_TRUE(text.contains("Install")) << text.toStdString();
        EXPECT_TRUE(window->codeViews().sassStatus()->text().contains("unavailable"));
    }
#else
    EXPECT_FALSE(sass->showsCode());
#endif
}

TEST_F(CodeViewsFixture, PassesDockListsEveryPassWithText) {
    openGemm();
    raise("passesDock");
    QComboBox* picker = window->codeViews().passPicker();
    ASSERT_EQ(size_t(picker->count()), pipelinePasses().size());
    for (size_t i = 0; i < pipelinePasses().size(); ++i)
        EXPECT_EQ(picker->itemText(int(i)).toStdString(), pipelinePasses()[i].name);
    EXPECT_EQ(picker->itemText(picker->count() - 1), "codegen");
    int gemm = lineContaining(window->editor()->toPlainText(), "T.gemm(");
    window->editor()->gotoLine(gemm);
    for (int i = 0; i < picker->count(); ++i) {
        picker->setCurrentIndex(i);
        SCOPED_TRACE(picker->itemText(i).toStdString());
        QString text = window->codeViews().passView()->toPlainText();
        EXPECT_FALSE(text.trimmed().isEmpty());
        EXPECT_FALSE(text.contains("did not run"));
        QString pass = picker->itemText(i);
        if (pass == "elaborate" || pass == "warp-partition" || pass == "codegen") {
            EXPECT_FALSE(window->codeViews().passView()->highlightedLines().empty());
        }
    }
    picker->setCurrentText("codegen");
    EXPECT_EQ(window->codeViews().passView()->toPlainText(), window->codeViews().cudaView()->toPlainText());
    // A click in the pass view links back too.
    picker->setCurrentText("warp-partition");
    window->editor()->gotoLine(1);
    LinkedCodeView* view = window->codeViews().passView();
    int gemmLine = lineContaining(view->toPlainText(), "gemm at line");
    ASSERT_GT(gemmLine, 0);
    view->setTextCursor(QTextCursor(view->document()->findBlockByNumber(0))); // "target ...": no link
    EXPECT_EQ(window->editor()->currentLine(), 1);
    view->setTextCursor(QTextCursor(view->document()->findBlockByNumber(gemmLine - 1)));
    EXPECT_EQ(window->editor()->currentLine(), gemm);
}

TEST_F(CodeViewsFixture, ProgramWithErrorsSaysSoInsteadOfStaleCode) {
    openGemm();
    window->editor()->setPlainText(
        "import tilelang.language as T\n@T.prim_func\ndef f(A: T.Tensor((64,), "
        "\"float32\")):\n    with T.Kernel(1, threads=32) as bx:\n        T.nope(A)\n");
    ASSERT_TRUE(window->compileNow());
    ASSERT_TRUE(window->codeViews().waitForIdle(20000));
    EXPECT_FALSE(window->codeViews().cudaView()->showsCode());
    EXPECT_TRUE(window->codeViews().cudaView()->toPlainText().contains("errors"));
}

// TILEBENCH_SCREENSHOT_DIR=docs/screenshots renders the four docks on the GEMM sample, the cursor on the
// T.gemm line (docs/app.md shows them).
TEST_F(CodeViewsFixture, ScreenshotsWhenAsked) {
    QString dir = qEnvironmentVariable("TILEBENCH_SCREENSHOT_DIR");
    if (dir.isEmpty())
        GTEST_SKIP() << "set TILEBENCH_SCREENSHOT_DIR to write the code views' screenshots";
    openGemm();
    int gemm = lineContaining(window->editor()->toPlainText(), "T.gemm(");
    window->codeViews().passPicker()->setCurrentText("warp-partition");
    for (const char* name : {"cuda", "ptx", "sass", "passes"}) {
        QDockWidget* d = window->dock(QString(name) + "Dock");
        ASSERT_NE(d, nullptr);
        d->setFloating(true);
        d->resize(1100, 640);
        d->show();
        d->raise();
        ASSERT_TRUE(window->codeViews().waitForIdle(60000));
        window->editor()->gotoLine(1);
        window->editor()->gotoLine(gemm);
        QTest::qWait(200);
        EXPECT_TRUE(d->widget()->grab().save(dir + "/" + name + ".png"));
        d->setFloating(false);
    }
}

} // namespace tb::app
