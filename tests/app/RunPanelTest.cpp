// The Run panel driven as a user would, against the REAL tilebench-runner binary in `--fake
// --fake-cupti=available` mode (simulated device: launches do nothing, CUPTI numbers are fixed): pick the
// device, Run (the outputs stay zero, and the panel says so with the errors and the first mismatch), Bench
// (median, history entry), Profile (metrics table, measured bank columns), Sweep (measured sweep points),
// the diff of two history entries; then a runner that is not there, and a runner that finds no GPU (the
// CPU reference run still works). TILEBENCH_SCREENSHOT_DIR=<dir> also saves the panel and bank view.
#include "AppTestSupport.h"
#include "engine/gpu/CudaDriver.h"
#include "engine/profile/MetricCatalog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>

namespace tb::app {

namespace {

struct RunPanelFixture : test::WindowFixture {
    RunPanel* panel = nullptr;
    void SetUp() override {
        test::WindowFixture::SetUp();
        if (HasFatalFailure())
            return;
        panel = window->runPanel();
        ASSERT_NE(panel, nullptr);
    }
    void click(const QString& name) {
        QPushButton* b = panel->button(name);
        ASSERT_NE(b, nullptr) << name.toStdString();
        ASSERT_TRUE(b->isEnabled()) << name.toStdString();
        QTest::mouseClick(b, Qt::LeftButton);
    }
    QString output() const { return panel->output()->toPlainText(); }
};

QStringList fakeArguments() {
    return {"--fake", "--fake-cupti=available"};
}

} // namespace

TEST_F(RunPanelFixture, FakeRunnerRunBenchProfileSweepAndDiff) {
    ASSERT_TRUE(window->openSample("gemm_transpose"));
    // Small shapes keep the CPU oracle of the correctness run short.
    window->setOverride("M", "128");
    window->setOverride("N", "128");
    window->setOverride("K", "128");
    ASSERT_TRUE(window->compileNow());
    panel->setRunner(TILEBENCH_RUNNER_PATH, fakeArguments());
    ASSERT_TRUE(panel->waitForDevices(30000));
    ASSERT_TRUE(panel->hasGpu()) << panel->gpuLabel()->text().toStdString();
    EXPECT_TRUE(panel->devicePicker()->currentText().startsWith("GPU 0: "))
        << panel->devicePicker()->currentText().toStdString();
    EXPECT_TRUE(panel->devicePicker()->currentText().contains("simulated"));

    // Run: the fake's launches do nothing, so C stays zero; the panel reports the mismatch honestly.
    click("run");
    EXPECT_TRUE(panel->busy());
    ASSERT_TRUE(panel->waitForIdle(180000));
    QString out = output();
    EXPECT_TRUE(out.startsWith("WRONG RESULTS on the GPU (max abs err ")) << out.toStdString();
    EXPECT_TRUE(out.contains("MISMATCH")) << out.toStdString();
    EXPECT_TRUE(out.contains("max rel err")) << out.toStdString();
    EXPECT_TRUE(out.contains("elements differ; first at [")) << out.toStdString(); // as tilec prints it
    EXPECT_TRUE(out.contains("got 0, expected")) << out.toStdString();
    EXPECT_TRUE(out.contains("simulated")) << out.toStdString();
    ASSERT_EQ(panel->historyModel().size(), 1u);
    const views::RunRecord& run = panel->historyModel().records().back();
    EXPECT_EQ(run.kind, views::RunKind::GpuRun);
    EXPECT_FALSE(run.ok);
    ASSERT_TRUE(run.maxAbsError.has_value());
    EXPECT_GT(*run.maxAbsError, 0);
    EXPECT_EQ(run.params.at("M"), "128");

    // Bench: the fake CUPTI's samples are 10.0, 10.1, ... 10.4 us: median 10.2 us, spread 0.4 / 10.2.
    click("bench");
    ASSERT_TRUE(panel->waitForIdle(120000));
    out = output();
    EXPECT_TRUE(out.startsWith("bench: median 10.20 us, spread 3.9%")) << out.toStdString();
    EXPECT_TRUE(out.contains("TFLOP/s")) << out.toStdString();
    EXPECT_TRUE(out.contains("x the speed of cuBLAS")) << out.toStdString();
    EXPECT_TRUE(out.contains("SIMULATED")) << out.toStdString();
    ASSERT_EQ(panel->historyModel().size(), 2u);
    const views::RunRecord& bench = panel->historyModel().records().back();
    EXPECT_EQ(bench.kind, views::RunKind::Bench);
    ASSERT_TRUE(bench.medianMs.has_value());
    EXPECT_NEAR(*bench.medianMs, 0.0102, 1e-9);
    EXPECT_EQ(panel->history()->count(), 2);
    EXPECT_TRUE(panel->history()->item(0)->text().contains("bench"))
        << panel->history()->item(0)->text().toStdString();

    // Profile: the metrics table has the Range Profiler's default set; the bank view gains measured columns.
    EXPECT_FALSE(window->canvases().bankModel().measured);
    click("profile");
    ASSERT_TRUE(panel->waitForIdle(120000));
    EXPECT_EQ(panel->metricsTable()->rowCount(), int(profile::defaultRangeMetrics().size()))
        << output().toStdString();
    bool sawDuration = false;
    for (int r = 0; r < panel->metricsTable()->rowCount(); ++r)
        if (panel->metricsTable()->item(r, 1)->text() == "gpu__time_duration.sum") {
            sawDuration = true;
            EXPECT_EQ(panel->metricsTable()->item(r, 2)->text(), "10000");
        }
    EXPECT_TRUE(sawDuration);
    const views::BankConflictViewModel& bank = window->canvases().bankModel();
    EXPECT_TRUE(bank.measured) << output().toStdString();
    EXPECT_FALSE(bank.measuredLines.empty());
    int measuredRows = 0;
    for (const views::BankAccessRow& r : bank.rows)
        measuredRows += r.measuredWavefronts.has_value();
    EXPECT_GT(measuredRows, 0);
    EXPECT_NE(bank.measuredNote.find("SIMULATED"), std::string::npos) << bank.measuredNote;
    ASSERT_EQ(panel->historyModel().size(), 3u);
    EXPECT_FALSE(panel->historyModel().records().back().metrics.empty());

    // Two entries selected: their diff (bench -> profile: same parameters, same fake median).
    int benchId = panel->historyModel().records()[1].id, profileId = panel->historyModel().records()[2].id;
    panel->selectHistory({profileId, benchId});
    QString diff = panel->diffView()->toPlainText();
    EXPECT_TRUE(diff.startsWith(QString("diff #%1").arg(benchId))) << diff.toStdString();
    EXPECT_TRUE(diff.contains("parameters: unchanged")) << diff.toStdString();
    EXPECT_TRUE(diff.contains("ratio 1.000 (same)")) << diff.toStdString();
    EXPECT_TRUE(diff.contains("different kinds: bench vs profile")) << diff.toStdString();
    EXPECT_TRUE(diff.contains("gpu__time_duration.sum: - -> 10000")) << diff.toStdString();

    if (QString dir = qEnvironmentVariable("TILEBENCH_SCREENSHOT_DIR"); !dir.isEmpty()) {
        // Floated and enlarged so the report, the metrics and the diff are readable in the picture.
        QDockWidget* runDock = window->dock("runDock");
        ASSERT_NE(runDock, nullptr);
        runDock->setFloating(true);
        runDock->resize(1000, 900);
        QTest::qWait(400);
        EXPECT_TRUE(panel->grab().save(dir + "/run.png"));
        runDock->setFloating(false);
        if (QDockWidget* d = window->dock("bankDock")) {
            d->show();
            d->raise();
            QTest::qWait(500);
            EXPECT_TRUE(window->canvases().bankCanvas()->renderImage().save(dir + "/bank-measured.png"));
        }
    }

    // Sweep: num_stages 1..4, each compiled and timed; the sweep plot gets measured points.
    click("sweep");
    ASSERT_TRUE(panel->waitForIdle(300000));
    out = output();
    EXPECT_TRUE(out.contains("num_stages=4")) << out.toStdString();
    const views::SweepPlotModel& sweep = window->canvases().sweepModel();
    ASSERT_TRUE(views::hasMeasurements(sweep)) << out.toStdString();
    for (int64_t stages = 1; stages <= 4; ++stages) {
        auto it = std::find_if(sweep.points.begin(), sweep.points.end(),
                               [&](const views::SweepPoint& p) { return p.value == stages; });
        ASSERT_NE(it, sweep.points.end());
        EXPECT_TRUE(it->milliseconds.has_value() || !it->measuredStatus.empty()) << stages;
    }
    // The plot and the report give each variant the same shared memory.
    QRegularExpression row(
        R"(^num_stages=(\d+) .* (-?\d+) +(-?\d+)  (ran|compile error|run failed|timing failed))",
        QRegularExpression::MultilineOption);
    int rows = 0;
    for (auto m = row.globalMatch(out); m.hasNext();) {
        QRegularExpressionMatch match = m.next();
        int64_t stages = match.captured(1).toLongLong(), bytes = match.captured(2).toLongLong();
        auto it = std::find_if(sweep.points.begin(), sweep.points.end(),
                               [&](const views::SweepPoint& p) { return p.value == stages; });
        ASSERT_NE(it, sweep.points.end());
        if (bytes >= 0) {
            EXPECT_EQ(it->sharedBytes, bytes) << "num_stages=" << stages << "\n" << out.toStdString();
        }
        ++rows;
    }
    EXPECT_EQ(rows, 4) << out.toStdString();
    EXPECT_EQ(panel->historyModel().records().back().kind, views::RunKind::Sweep);
    if (QString dir = qEnvironmentVariable("TILEBENCH_SCREENSHOT_DIR"); !dir.isEmpty()) {
        if (QDockWidget* d = window->dock("sweepDock")) {
            d->show();
            d->raise();
            QTest::qWait(500);
            EXPECT_TRUE(window->canvases().sweepCanvas()->renderImage().save(dir + "/sweep-measured.png"));
        }
    }
}

namespace {

// The registers per thread the Run report gives for its kernel (ptxas's figure), or -1.
int reportedRegisters(const QString& report) {
    QRegularExpressionMatch m = QRegularExpression(R"((\d+) registers/thread)").match(report);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

} // namespace

// Quick compile: Run compiles with NVRTC's fast-compile mode (ptxas allocates the kernel's registers
// differently: 30 vs 21 for this kernel) and says so, in the output and in the summary the history keeps,
// then compiles at full optimization and reports those registers too; unchecked, a Run says nothing of it.
TEST_F(RunPanelFixture, QuickCompileRunSaysSo) {
    ASSERT_TRUE(window->openSample("elementwise_add"));
    window->setOverride("M", "64");
    window->setOverride("N", "64");
    ASSERT_TRUE(window->compileNow());
    panel->setRunner(TILEBENCH_RUNNER_PATH, fakeArguments());
    ASSERT_TRUE(panel->waitForDevices(30000));
    ASSERT_TRUE(panel->hasGpu()) << panel->gpuLabel()->text().toStdString();
    ASSERT_NE(panel->quickCompile(), nullptr);
    EXPECT_FALSE(panel->quickCompile()->isChecked());
    click("run");
    ASSERT_TRUE(panel->waitForIdle(120000));
    EXPECT_FALSE(output().contains("quick compile")) << output().toStdString();
    const int fullRegisters = reportedRegisters(output());
    ASSERT_GT(fullRegisters, 0) << output().toStdString();

    QTest::mouseClick(panel->quickCompile(), Qt::LeftButton);
    ASSERT_TRUE(panel->quickCompile()->isChecked());
    click("run");
    ASSERT_TRUE(panel->waitForIdle(120000));
    QString out = output();
    EXPECT_TRUE(out.contains("quick compile (NVRTC --Ofast-compile=mid)")) << out.toStdString();
    const int quickRegisters = reportedRegisters(out);
    ASSERT_GT(quickRegisters, 0) << out.toStdString();
    EXPECT_NE(quickRegisters, fullRegisters) << "the quick compile did not reach NVRTC";
    // Tiered: after the checked result the kernel is compiled as Bench will run it, and the report gives
    // the registers of that full compile.
    const qsizetype full = out.indexOf("full optimization (what Bench and Profile run");
    ASSERT_GE(full, 0) << out.toStdString();
    EXPECT_EQ(reportedRegisters(out.mid(full)), fullRegisters) << out.toStdString();
    ASSERT_EQ(panel->historyModel().size(), 2u);
    EXPECT_NE(panel->historyModel().records().back().summary.find(", quick compile"), std::string::npos);
    EXPECT_EQ(panel->historyModel().records().front().summary.find("quick compile"), std::string::npos);
}

TEST_F(RunPanelFixture, NoRunnerExplainsItselfAndTheCpuRunWorks) {
    ASSERT_TRUE(window->openSample("elementwise_add"));
    window->setOverride("M", "64");
    window->setOverride("N", "64");
    ASSERT_TRUE(window->compileNow());
    panel->setRunner("/nonexistent/tilebench-runner", {});
    ASSERT_TRUE(panel->waitForDevices(30000));
    EXPECT_FALSE(panel->hasGpu());
    QString label = panel->gpuLabel()->text();
    EXPECT_TRUE(
        label.startsWith("no GPU: CPU reference execution (tilebench-runner not available: cannot start "
                         "/nonexistent/tilebench-runner"))
        << label.toStdString();
    // Without a GPU, Bench, Profile and Sweep are disabled and say why; Run stays (the CPU reference).
    for (const QString& name : {QString("bench"), QString("profile"), QString("sweep")}) {
        QPushButton* b = panel->button(name);
        ASSERT_NE(b, nullptr);
        EXPECT_FALSE(b->isEnabled()) << name.toStdString();
        EXPECT_TRUE(b->toolTip().startsWith("needs a GPU: tilebench-runner not available"))
            << b->toolTip().toStdString();
    }
    EXPECT_TRUE(panel->button("run")->isEnabled());
    panel->bench(); // what Ctrl+B does: explained in the output
    EXPECT_FALSE(panel->busy());
    EXPECT_TRUE(output().startsWith("bench needs a GPU and tilebench-runner; none is available here: "
                                    "tilebench-runner not available"))
        << output().toStdString();
    EXPECT_EQ(panel->historyModel().size(), 0u);
    click("run");
    ASSERT_TRUE(panel->waitForIdle(60000));
    EXPECT_TRUE(output().contains("correct against 'elementwise_add'")) << output().toStdString();
    ASSERT_EQ(panel->historyModel().size(), 1u);
    EXPECT_EQ(panel->historyModel().records().back().kind, views::RunKind::CpuRun);
    EXPECT_TRUE(panel->historyModel().records().back().ok);
}

TEST_F(RunPanelFixture, RunnerWithoutGpuFallsBackToTheCpu) {
    if (gpu::probeGpus().available)
        GTEST_SKIP() << "this machine has a GPU: the real runner would find it";
    ASSERT_TRUE(window->openSample("elementwise_add"));
    window->setOverride("M", "64");
    window->setOverride("N", "64");
    ASSERT_TRUE(window->compileNow());
    panel->setRunner(TILEBENCH_RUNNER_PATH, {}); // the real runner, not simulated
    ASSERT_TRUE(panel->waitForDevices(30000));
    EXPECT_FALSE(panel->hasGpu());
    QString label = panel->gpuLabel()->text();
    EXPECT_TRUE(label.startsWith("no GPU: CPU reference execution (")) << label.toStdString();
    EXPECT_EQ(panel->devicePicker()->currentText(), "no GPU: CPU reference execution");
    EXPECT_EQ(panel->button("run")->text(), "Run on the CPU");
    window->runProgram(); // Ctrl+R goes to the panel
    ASSERT_TRUE(window->waitForRun(60000));
    EXPECT_TRUE(output().contains("correct against 'elementwise_add'")) << output().toStdString();
    ASSERT_EQ(window->runHistory()->count(), 1);
    EXPECT_TRUE(window->runHistory()->item(0)->text().contains("correct"));
}

// The runner is found from the executable's own location, as every binary finds it: this test binary
// (build/tests/app/tests_app) and the app (build/app/tilebench) both find build/engine/tools/runner's,
// with no TILEBENCH_RUNNER; and a runner that starts without a GPU is named, with its reason, not called
// missing.
TEST(RunnerLocation, RunPanelFindsTheBuildsRunnerAndSaysWhyThereIsNoGpu) {
    QByteArray saved = qgetenv("TILEBENCH_RUNNER");
    qunsetenv("TILEBENCH_RUNNER");
    QTemporaryDir recovery;
    MainWindow window{Recovery(recovery.path())};
    if (!saved.isNull())
        qputenv("TILEBENCH_RUNNER", saved);
    RunPanel* panel = window.runPanel();
    EXPECT_EQ(QFileInfo(panel->runnerExecutable()).canonicalFilePath(),
              QFileInfo(TILEBENCH_RUNNER_PATH).canonicalFilePath())
        << panel->runnerExecutable().toStdString();
    EXPECT_TRUE(panel->runnerLocation().endsWith("(build tree)")) << panel->runnerLocation().toStdString();
    ASSERT_TRUE(panel->waitForDevices(30000));
    QString label = panel->gpuLabel()->text();
    EXPECT_FALSE(label.contains("not available")) << label.toStdString();
    if (!gpu::probeGpus().available) {
        EXPECT_TRUE(label.startsWith("no GPU: CPU reference execution (the runner found no GPU: "))
            << label.toStdString();
    } else {
        EXPECT_TRUE(panel->hasGpu()) << label.toStdString();
    }
}

TEST(RunnerLocation, TheAppBinaryFindsTheRunnerFromItsOwnLocation) {
    QProcess app;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("TILEBENCH_RUNNER");
    app.setProcessEnvironment(env);
    app.start(TILEBENCH_APP_PATH, {"--runner-info"});
    ASSERT_TRUE(app.waitForFinished(30000));
    QString out = QString::fromUtf8(app.readAllStandardOutput());
    EXPECT_EQ(app.exitCode(), 0) << out.toStdString();
    QString expected =
        "tilebench-runner: " + QFileInfo(TILEBENCH_RUNNER_PATH).absoluteFilePath() + " (build tree)";
    EXPECT_TRUE(out.startsWith(expected)) << out.toStdString();
    EXPECT_TRUE(out.contains("runner: started, ")) << out.toStdString();
}

} // namespace tb::app
