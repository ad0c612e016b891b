// The whole window, driven as a user would: every sample shows real data in every view, a broken edit
// shows its diagnostic, linked selection works both ways, a run without a GPU explains itself, parameters
// re-specialize, stale compiles are dropped, and autosaved work is recovered.
#include "AppTestSupport.h"
#include "engine/catalog/SampleCatalog.h"
#include "engine/gpu/CudaDriver.h"

#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace tb::app {

using test::lineContaining;

namespace {

struct Fixture : test::WindowFixture {};

} // namespace

TEST_F(Fixture, EverySampleShowsRealDataInEveryView) {
    for (const SampleInfo& s : listSamples()) {
        SCOPED_TRACE(s.name);
        ASSERT_TRUE(window->openSample(QString::fromStdString(s.name)));
        ASSERT_TRUE(window->compileNow());
        AnalysisPtr a = window->compiler().current();
        ASSERT_TRUE(a && a->ok()) << a->compile->formattedDiagnostics();
        EXPECT_FALSE(window->irView()->toPlainText().isEmpty());
        EXPECT_FALSE(window->parametersPanel()->findChildren<QLineEdit*>().isEmpty());
        CanvasPanels& c = window->canvases();
        EXPECT_FALSE(c.layoutBuffers().empty());
        EXPECT_FALSE(c.layoutModel().empty()) << c.layoutModel().error;
        EXPECT_GT(c.budgetModel().limitBytes, 0);
        ASSERT_TRUE(c.waitForSweep(60000)); // the sweep's variants compile on a worker thread
        EXPECT_FALSE(c.sweepModel().points.empty());
        const layout::KernelPlan& k = *a->kernel(0);
        EXPECT_EQ(c.bankModel().rows.size(), k.sharedAccesses.size());
        EXPECT_EQ(c.warpModel().gemms.size(), k.gemms.size());
        if (s.name == "gemm_relu" || s.name == "mla_decode") {
            EXPECT_FALSE(c.bankModel().rows.empty());
            EXPECT_FALSE(c.warpModel().gemms.empty());
        }
        if (s.name == "mla_decode") {
            ASSERT_FALSE(c.warpModel().exchanges.empty());
            EXPECT_EQ(c.warpModel().exchanges[0].shared, "S_shared");
        }
    }
}

TEST_F(Fixture, CanvasesRenderUnderX) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    views::ImGuiCanvas* canvas = window->canvases().layoutCanvas();
    window->dock("layoutDock")->raise();
    QImage image = canvas->renderImage();
    ASSERT_FALSE(image.isNull());
    EXPECT_GT(canvas->framesDrawn(), 0);
    // The grid draws many distinct thread colours: far more than a blank canvas has.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    EXPECT_GT(colours.size(), 20);
}

TEST_F(Fixture, BrokenEditShowsItsDiagnosticInTheEditor) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    EXPECT_EQ(window->issues()->count(), 0);
    QString text = window->editor()->toPlainText();
    text.replace("T.gemm(A_shared, B_shared, C_local)", "T.gemm(A_shared, B_shared, C_localx)");
    window->editor()->setPlainText(text);
    ASSERT_TRUE(window->compileNow());
    ASSERT_GT(window->issues()->count(), 0);
    int line = lineContaining(text, "C_localx");
    const auto& diags = window->editor()->diagnostics();
    ASSERT_FALSE(diags.empty());
    EXPECT_EQ(diags[0].line, line);
    EXPECT_TRUE(diags[0].error);
    bool underlined = false;
    for (const QTextEdit::ExtraSelection& s : window->editor()->extraSelections())
        if (s.format.underlineStyle() == QTextCharFormat::WaveUnderline &&
            s.cursor.block().blockNumber() + 1 == line)
            underlined = true;
    EXPECT_TRUE(underlined);
    // Clicking the issue jumps there; F8 cycles to it too.
    window->editor()->gotoLine(1);
    QListWidgetItem* item = window->issues()->item(0);
    Q_EMIT window->issues()->itemClicked(item);
    EXPECT_EQ(window->editor()->currentLine(), line);
    window->editor()->gotoLine(1);
    EXPECT_TRUE(window->editor()->gotoNextDiagnostic());
    EXPECT_EQ(window->editor()->currentLine(), line);
}

TEST_F(Fixture, HintsAreChildRowsInTheIssuesList) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    QString text = window->editor()->toPlainText();
    text.replace("block_M=128", "block_M=100000"); // shared memory over the limit: an error with a hint
    window->editor()->setPlainText(text);
    ASSERT_TRUE(window->compileNow());
    const auto& diags = window->editor()->diagnostics();
    QListWidget* issues = window->issues();
    int hinted = 0;
    for (const EditorDiagnostic& d : diags) {
        if (d.hint.isEmpty())
            continue;
        ++hinted;
        // The diagnostic's row, then its hint on the row below, at the same place in the program.
        int row = -1;
        for (int i = 0; i < issues->count(); ++i)
            if (issues->item(i)->text().contains(d.message))
                row = i;
        ASSERT_GE(row, 0) << d.message.toStdString();
        ASSERT_LT(row + 1, issues->count());
        QListWidgetItem* hint = issues->item(row + 1);
        EXPECT_EQ(hint->text().trimmed(), "hint: " + d.hint);
        window->editor()->gotoLine(1);
        Q_EMIT issues->itemClicked(hint);
        EXPECT_EQ(window->editor()->currentLine(), d.line);
    }
    EXPECT_GT(hinted, 0);
    // The dock counts diagnostics, not rows.
    EXPECT_EQ(window->dock("issuesDock")->windowTitle(), QString("Issues (%1)").arg(diags.size()));
}

TEST_F(Fixture, LinkedSelectionBetweenEditorIrAndCanvases) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    int gemmLine = lineContaining(window->editor()->toPlainText(), "T.gemm(A_shared");
    ASSERT_GT(gemmLine, 0);
    window->editor()->gotoLine(gemmLine);
    ASSERT_FALSE(window->irLinkedLines().empty());
    int irLine = window->irLinkedLines().front();
    QString irText = window->irView()->document()->findBlockByNumber(irLine).text();
    EXPECT_TRUE(irText.contains("gemm")) << irText.toStdString();
    EXPECT_EQ(window->canvases().bankState().highlightLine, uint32_t(gemmLine));
    // The bank view selected one of the gemm line's accesses.
    const auto& bank = window->canvases().bankModel();
    if (!bank.rowsOfLine(uint32_t(gemmLine)).empty()) {
        EXPECT_EQ(bank.rows[size_t(bank.selected)].line, uint32_t(gemmLine));
    }
    // Reverse: clicking the IR line highlights the tile-program line.
    window->editor()->gotoLine(1);
    window->irView()->setTextCursor(QTextCursor(window->irView()->document()->findBlockByNumber(0)));
    QTextCursor c(window->irView()->document()->findBlockByNumber(irLine));
    window->irView()->setTextCursor(c);
    EXPECT_EQ(window->editor()->linkedLines(), std::vector<int>{gemmLine});
}

TEST_F(Fixture, RunWithoutGpuExplainsItselfAndChecksOnTheCpu) {
    ASSERT_TRUE(window->openSample("elementwise_add"));
    // Small sizes keep the CPU run short.
    window->setOverride("M", "64");
    window->setOverride("N", "64");
    ASSERT_TRUE(window->compileNow());
    QString gpu = window->gpuLabel()->text();
    auto availability = gpu::probeGpus();
    if (!availability.available) {
        EXPECT_TRUE(gpu.startsWith("no GPU: CPU reference execution (")) << gpu.toStdString();
    }
    window->runProgram();
    ASSERT_TRUE(window->waitForRun(60000));
    QString out = window->runOutput()->toPlainText();
    EXPECT_TRUE(out.contains("correct against 'elementwise_add'")) << out.toStdString();
    ASSERT_EQ(window->runHistory()->count(), 1);
    EXPECT_TRUE(window->runHistory()->item(0)->text().contains("correct"));
}

TEST_F(Fixture, ParameterOverrideRespecializes) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    auto* field = window->parametersPanel()->findChild<QLineEdit*>("param_block_M");
    ASSERT_NE(field, nullptr);
    EXPECT_EQ(field->text(), "128");
    field->setText("64");
    Q_EMIT field->editingFinished();
    ASSERT_TRUE(window->compiler().waitForIdle(20000));
    AnalysisPtr a = window->compiler().current();
    ASSERT_TRUE(a->ok());
    bool overridden = false;
    for (const ir::SpecializationParam& p : a->compile->module->specialization)
        if (p.name == "block_M") {
            EXPECT_EQ(p.text, "64");
            overridden = p.origin == ir::ParamOrigin::Override;
        }
    EXPECT_TRUE(overridden);
    ASSERT_FALSE(window->canvases().warpModel().gemms.empty());
    EXPECT_EQ(window->canvases().warpModel().gemms[0].M, 64);
}

TEST_F(Fixture, StaleCompilesAreDropped) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    QString text = window->editor()->toPlainText();
    CompileService& service = window->compiler();
    // Two requests without waiting: the first one's result, if it finishes, must not be shown.
    service.request("a.py", text, {}, 0);
    QCoreApplication::processEvents();
    service.request("b.py", text + "\n# newer\n", {}, 0);
    ASSERT_TRUE(service.waitForIdle(20000));
    EXPECT_EQ(service.current()->generation, service.latestGeneration());
    EXPECT_TRUE(
        QString::fromStdString(service.current()->sources().file(service.current()->compile->file).text())
            .contains("# newer"));
}

TEST(Recovery, AutosavedWorkIsOfferedOnTheNextStart) {
    QTemporaryDir dir;
    {
        MainWindow first(Recovery(dir.path()));
        first.openFile(QString::fromStdString(findSample("softmax")->path));
        first.editor()->setPlainText("# unsaved edit\nx = 1\n");
        first.autosaveNow();
        // The window "crashes": destroyed without a clean close.
    }
    MainWindow second(Recovery(dir.path()));
    ASSERT_TRUE(second.recoverUnsavedWork(/*ask=*/false));
    EXPECT_EQ(second.editor()->toPlainText(), "# unsaved edit\nx = 1\n");
    EXPECT_TRUE(second.filePath().endsWith("04_softmax.py"));
    // Saving clears the recovery file.
    ASSERT_TRUE(second.saveTo(dir.path() + "/saved.py"));
    EXPECT_FALSE(Recovery(dir.path()).exists());
}

} // namespace tb::app
