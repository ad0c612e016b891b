// The Run dock (see RunPanel.h): widgets, the worker thread and its jobs, and the history.
#include "app/RunPanel.h"

#include "engine/gpu/CudaDriver.h"
#include "engine/gpu/RunnerClient.h"
#include "engine/gpu/RunnerLocation.h"
#include "engine/gpu/RunnerProtocol.h"
#include "engine/profile/MetricCatalog.h"
#include "engine/profile/ProgramProfiler.h"
#include "engine/profile/ProgramSweep.h"
#include "engine/run/CpuRun.h"
#include "engine/run/GpuRun.h"
#include "engine/run/RunReport.h"
#include "engine/support/NumberText.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QTime>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tb::app {

struct RunOutcome {
    QString text;    // the report shown in the output pane
    QString summary; // one line for the status bar
    bool addToHistory = true;
    views::RunRecord record;
    // Profile: the metrics table rows (kernel, metric, value, unit, meaning).
    std::vector<QStringList> metrics;
    bool hasBankMeasurements = false;
    std::vector<views::MeasuredLineTotals> bankLines;
    int64_t blocks = 1;
    std::string bankNote;
    bool hasSweep = false;
    std::vector<views::SweepMeasurement> sweep;
    std::string sweepNote;
    bool runnerUnavailable = false; // the runner could not be started: the picker says so
    QString runnerError;
};

// The worker thread's state. Only jobs on that thread touch the client.
struct RunPanel::Worker {
    gpu::RunnerOptions options;
    std::unique_ptr<gpu::RunnerClient> client;
    int device = 0;

    gpu::RunnerClient& runner() {
        if (!client) {
            gpu::RunnerOptions o = options;
            if (device > 0)
                o.arguments.push_back("--device=" + std::to_string(device));
            client = std::make_unique<gpu::RunnerClient>(o);
        }
        return *client;
    }
    void reset(gpu::RunnerOptions o, int d) {
        client.reset();
        options = std::move(o);
        device = d;
    }
};

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

std::map<std::string, std::string> specialization(const views::ProgramAnalysis& a) {
    std::map<std::string, std::string> params;
    if (a.compile && a.compile->module)
        for (const ir::SpecializationParam& p : a.compile->module->specialization)
            params[p.name] = p.text;
    return params;
}

std::vector<std::pair<std::string, std::string>> userOverrides(const views::ProgramAnalysis& a,
                                                               const std::string& except) {
    std::vector<std::pair<std::string, std::string>> out;
    if (a.compile && a.compile->module)
        for (const ir::SpecializationParam& p : a.compile->module->specialization)
            if (p.origin == ir::ParamOrigin::Override && p.name != except)
                out.emplace_back(p.name, p.text);
    return out;
}

bool hasGemm(const views::ProgramAnalysis& a) {
    if (!a.plan)
        return false;
    for (const auto& k : a.plan->kernels)
        if (!k.gemms.empty())
            return true;
    return false;
}

void cpuRunJob(const AnalysisPtr& a, RunOutcome& out) {
    // The engine's CPU run and report, as `tilec run --cpu` prints it (engine/run/CpuRun.h, RunReport.h).
    run::CpuRunOptions options;
    options.seed = 1;
    run::CpuRunResult result = run::runOnCpu(*a->compile, options);
    run::RunReport report = run::describeCpuRun(result);
    out.text = "CPU reference executor\n" + qs(report.text());
    out.summary = qs(report.headline);
    out.record.kind = views::RunKind::CpuRun;
    out.record.device = "CPU reference executor";
    out.record.ok = result.ok;
    out.record.summary = report.headline;
    if (report.checked) {
        out.record.maxAbsError = report.maxAbsError;
        out.record.maxRelError = report.maxRelError;
    }
}

// NVRTC's fast-compile level of a quick Run: about a third of the full compile of a GEMM tile, for a kernel
// that spills (docs/benchmarks.md); enough to check results, not to time them.
constexpr const char* kQuickCompileLevel = "mid";

// Shows a result while the job goes on: a quick Run's checked result, before the full compile.
using PartialResult = std::function<void(const QString& summary, const QString& text)>;

// What the kernels will be at full optimization, as Bench and Profile compile them.
QString fullCompileText(const run::FullCompile& fc) {
    if (!fc.ok)
        return qs("full optimization: the compile failed: " + fc.error + "\n");
    QString text = QString("full optimization (what Bench and Profile run; compiled after the result, %1 ms, "
                           "now in the compile cache):\n")
                       .arg(fc.milliseconds, 0, 'f', 0);
    for (const auto& [name, r] : fc.kernels)
        text += qs("  kernel " + name + ": " + std::to_string(r.registers) + " registers/thread, " +
                   (r.spillStoreBytes >= 0 ? std::to_string(r.spillStoreBytes) + " B spill stores"
                                           : std::string("spills not reported")) +
                   "\n");
    return text;
}

void gpuRunJob(gpu::RunnerClient& client, const AnalysisPtr& a, bool quickCompile,
               const PartialResult& partial, RunOutcome& out) {
    run::GpuRunOptions ro;
    ro.client = &client;
    if (quickCompile)
        ro.fastCompile = kQuickCompileLevel;
    run::GpuRunResult r = run::runOnGpu(*a->compile, ro);
    out.record.kind = views::RunKind::GpuRun;
    out.record.device = r.device.empty() ? "GPU" : r.device + " (" + r.arch + ")";
    QString text = qs("GPU run on " + out.record.device + ", checked against the CPU reference executor\n");
    if (quickCompile)
        text +=
            QString("quick compile (NVRTC --Ofast-compile=%1): kernel times below are not representative; "
                    "Bench compiles fully\n")
                .arg(kQuickCompileLevel);
    if (!r.ran) {
        out.summary =
            qs("the GPU run failed at " + std::string(run::gpuRunStageName(r.stage)) + ": " + r.message);
        text += out.summary;
        if (r.fault)
            text += "\nthe kernel faulted; the runner was restarted";
        if (r.timeout)
            text += "\nthe watchdog stopped the kernel; the runner was restarted";
        out.record.ok = false;
        out.record.summary = out.summary.toStdString();
        out.text = text;
        return;
    }
    // The engine's description of the run, the lines `tilec run --gpu` prints (engine/run/RunReport.h).
    run::RunReport report = run::describeGpuRun(r);
    for (const std::string& line : report.lines)
        text += qs(line) + "\n";
    const double maxAbs = report.maxAbsError, maxRel = report.maxRelError;
    out.summary = QString("%1 on the GPU (max abs err %2, max rel err %3%4)")
                      .arg(r.matches ? "correct" : "WRONG RESULTS")
                      .arg(maxAbs, 0, 'g', 3)
                      .arg(maxRel, 0, 'g', 3)
                      .arg(quickCompile ? ", quick compile" : "");
    if (client.helloReply().field("mode") == "fake")
        text += "note: the runner is simulated (--fake): its launches do nothing, so outputs stay zero\n";
    out.text = out.summary + "\n" + text;
    out.record.ok = r.matches;
    out.record.summary = out.summary.toStdString();
    out.record.maxAbsError = maxAbs;
    out.record.maxRelError = maxRel;
    // Tiered: the checked result shows now; the full-optimization compile follows, so that the report can
    // give the registers the kernel will really have and the next Bench finds it compiled.
    if (quickCompile) {
        partial(out.summary, out.text + "compiling at full optimization for Bench and Profile...\n");
        out.text += fullCompileText(run::compileAtFullOptimization(*a->compile, r.arch));
    }
}

void profileJob(gpu::RunnerClient& client, const AnalysisPtr& a, const std::string& file, bool profile,
                std::shared_ptr<std::atomic<bool>> cancel, RunOutcome& out) {
    profile::ProgramProfileOptions o;
    o.command = profile ? profile::ProfileCommand::Profile : profile::ProfileCommand::Bench;
    o.vs = hasGemm(*a) ? profile::PeerKind::Cublas : profile::PeerKind::None;
    o.cancelled = [cancel] { return cancel->load(); };
    profile::ProgramProfileReport r = profile::profileProgram(*a->compile, client, o, file);
    out.record.kind = profile ? views::RunKind::Profile : views::RunKind::Bench;
    out.record.device = r.device;
    out.record.ok = r.ok;
    if (!r.ok && r.kernels.empty()) {
        out.summary = qs((profile ? "profile" : "bench") + std::string(" failed: ") + r.error);
        out.text = out.summary;
        if (!r.diagnostics.empty())
            out.text += "\n" + qs(formatDiagnostics(a->sources(), r.diagnostics));
        out.record.summary = out.summary.toStdString();
        out.addToHistory = !r.cancelled;
        return;
    }
    // The headline: median and spread, rates, fractions of the ceilings, the cuBLAS ratio (the engine's).
    const profile::ProgramHeadline headline = profile::programHeadline(r);
    const std::string& head = headline.text;
    const double spread = headline.spreadPct, tflops = headline.tflops, gbps = headline.gbps;
    out.summary = qs(std::string(profile ? "profile: " : "bench: ") + head);
    out.text = out.summary + "\n" + qs(profile::formatProgramReportText(r));
    for (const std::string& w : r.warnings)
        out.text += qs("warning: " + w + "\n");
    out.record.summary = head;
    out.record.medianMs = r.totalMedianMs;
    out.record.spreadPct = spread;
    if (tflops > 0)
        out.record.tflops = tflops;
    if (gbps > 0)
        out.record.gbps = gbps;
    if (!profile)
        return;
    bool several = r.kernels.size() > 1;
    for (const profile::ProfileReport& k : r.kernels) {
        std::string prefix = several ? k.kernel + ": " : "";
        if (k.counters.availability != profile::CounterAvailability::Available) {
            out.metrics.push_back(
                {qs(k.kernel), "(counters unavailable)",
                 qs(profile::availabilityCode(k.counters.availability)), "",
                 qs(k.counters.reason + " " + profile::availabilityHint(k.counters.availability))});
            continue;
        }
        for (const profile::MetricValue& m : k.counters.values) {
            const profile::MetricInfo* info = profile::findMetric(m.name);
            out.metrics.push_back(
                {qs(k.kernel), qs(m.name), m.available ? qs(formatNumber("%.6g", m.value)) : "n/a",
                 info ? profile::metricUnitName(info->unit) : "", info ? info->meaning : qs(m.note)});
            if (m.available)
                out.record.metrics[prefix + m.name] = m.value;
        }
    }
    // The bank view shows the first kernel (CanvasPanels): its SASS wavefronts per tile-program line.
    const profile::ProfileReport& first = r.kernels.front();
    if (first.sass.availability == profile::CounterAvailability::Available && !first.tileLines.empty()) {
        out.hasBankMeasurements = true;
        for (const profile::LineTotals& t : first.tileLines)
            if (t.line > 0)
                out.bankLines.push_back({uint32_t(t.line), t.sharedWavefronts, t.sharedWavefrontsIdeal});
        if (!r.launches.empty())
            out.blocks = r.launches[0].grid[0] * r.launches[0].grid[1] * r.launches[0].grid[2];
        out.bankNote = "profiled on " + r.device + ", " + std::to_string(out.blocks) + " blocks" +
                       (first.sass.simulated ? ", SIMULATED" : "");
    } else {
        out.text += qs("bank view: no measured columns (SASS metrics " +
                       std::string(profile::availabilityCode(first.sass.availability)) +
                       (first.lineInfoNote.empty() ? "" : "; " + first.lineInfoNote) + ")\n");
    }
}

void sweepJob(gpu::RunnerClient& client, const AnalysisPtr& a, const std::string& file,
              std::shared_ptr<std::atomic<bool>> cancel,
              const std::function<void(int, int, QString)>& progress, RunOutcome& out) {
    profile::ProgramSweepOptions o;
    o.timing.cancelled = [cancel] { return cancel->load(); };
    o.baseOverrides = userOverrides(*a, "num_stages");
    o.backend = a->compile->backend;                   // the variants keep the document's backend
    profile::SweepAxis axis = views::stageSweepAxis(); // the plot's points
    std::string text = a->sources().file(a->compile->file).text();
    profile::ProgramSweepReport r = profile::sweepProgram(file, text, {axis}, client, o,
                                                          [&](size_t i, size_t total, const std::string& p) {
                                                              progress(int(i), int(total), qs(p));
                                                              return !cancel->load();
                                                          });
    out.record.kind = views::RunKind::Sweep;
    out.record.device = r.device;
    if (!r.ok) {
        out.summary = qs("sweep failed: " + r.error);
        out.text = out.summary;
        out.record.summary = r.error;
        return;
    }
    out.text = qs(profile::formatSweepText(r, o));
    for (const profile::SweepVariant& v : r.variants)
        if (!v.ran() && !v.formattedDiagnostics.empty())
            out.text += qs(v.paramsText + ":\n" + v.formattedDiagnostics);
    out.hasSweep = true;
    const profile::SweepVariant* best = nullptr;
    for (const profile::SweepVariant& v : r.variants) {
        views::SweepMeasurement m;
        m.value = std::atoll(v.params.front().second.c_str());
        m.ran = v.ran();
        m.sharedBytes = v.sharedBytes;
        m.milliseconds = v.medianMs;
        m.tflops = v.rates.tflops;
        m.status = v.ran() ? "" : std::string(profile::variantStatusName(v.status)) + ": " + v.message;
        out.sweep.push_back(m);
        if (v.ran() && (!best || v.medianMs < best->medianMs))
            best = &v;
    }
    out.sweepNote = "measured on " + r.device + (r.simulated ? " (SIMULATED)" : "");
    out.record.ok = best != nullptr;
    std::string head =
        std::to_string(r.ranCount()) + " of " + std::to_string(r.variants.size()) + " variants ran";
    if (best) {
        head += "; best " + best->paramsText + " at " + profile::formatDuration(best->medianMs);
        out.record.medianMs = best->medianMs;
        out.record.spreadPct = best->spreadPct;
        if (best->rates.tflops > 0)
            out.record.tflops = best->rates.tflops;
    }
    if (r.cancelled)
        head += " (cancelled)";
    out.summary = qs("sweep: " + head);
    out.record.summary = head;
}

} // namespace

RunPanel::RunPanel(CanvasPanels* canvases, QWidget* parent)
    : QWidget(parent), m_canvases(canvases), m_worker(std::make_shared<Worker>()),
      m_cancel(std::make_shared<std::atomic<bool>>(false)) {
    setObjectName("runPanel");
    m_thread = new QThread(this);
    m_thread->setObjectName("runPanelWorker");
    m_workerContext = new QObject;
    m_workerContext->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_workerContext, &QObject::deleteLater);
    m_thread->start();

    auto* layout = new QVBoxLayout(this);
    m_gpuLabel = new QLabel;
    m_gpuLabel->setObjectName("gpuLabel");
    m_gpuLabel->setWordWrap(true);
    m_devices = new QComboBox;
    m_devices->setObjectName("devicePicker");
    // Two rows of buttons keep the panel narrow, so the editor beside it keeps its width.
    auto* buttons = new QGridLayout;
    int buttonCount = 0;
    auto makeButton = [&](const QString& text, const QString& name, const QString& tip) {
        auto* b = new QPushButton(text);
        b->setObjectName(name);
        b->setToolTip(tip);
        buttons->addWidget(b, buttonCount / 3, buttonCount % 3);
        ++buttonCount;
        return b;
    };
    m_run = makeButton("Run", "run", "correctness run against the CPU reference executor (Ctrl+R)");
    m_bench = makeButton("Bench", "bench", "median and spread, TFLOP/s, GB/s, vs cuBLAS for a GEMM (Ctrl+B)");
    m_profile = makeButton("Profile", "profile", "CUPTI metrics and measured bank wavefronts (Ctrl+P)");
    m_sweep = makeButton("Sweep", "sweep", "time num_stages = 1..4 for the stage-sweep plot");
    m_cancelButton = makeButton("Cancel", "cancel", "stop after the current step");
    m_quickCompile = new QCheckBox("Quick compile");
    m_quickCompile->setObjectName("quickCompile");
    m_quickCompile->setToolTip(
        "Run compiles with NVRTC --Ofast-compile=mid: results sooner after an edit (a GEMM "
        "tile compiles in about a third of the time), a slower kernel. Bench, Profile and "
        "Sweep always compile fully.");
    buttons->addWidget(m_quickCompile, buttonCount / 3, buttonCount % 3);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_output = new QPlainTextEdit;
    m_output->setObjectName("runOutput");
    m_output->setReadOnly(true);
    m_output->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_metrics = new QTableWidget(0, 4);
    m_metrics->setObjectName("metricsTable");
    m_metrics->setHorizontalHeaderLabels({"kernel", "metric", "value", "unit"});
    m_metrics->horizontalHeader()->setStretchLastSection(true);
    m_metrics->verticalHeader()->setVisible(false);
    m_metrics->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_history = new QListWidget;
    m_history->setObjectName("runHistory");
    m_history->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_diff = new QPlainTextEdit;
    m_diff->setObjectName("runDiff");
    m_diff->setReadOnly(true);
    m_diff->setPlaceholderText("select two history entries to see their diff");

    layout->addWidget(m_gpuLabel);
    layout->addWidget(m_devices);
    layout->addLayout(buttons);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_output);
    split->addWidget(m_metrics);
    auto* historyBox = new QWidget;
    auto* historyLayout = new QVBoxLayout(historyBox);
    historyLayout->setContentsMargins(0, 0, 0, 0);
    historyLayout->addWidget(new QLabel("history (select two for a diff)"));
    historyLayout->addWidget(m_history, 2);
    historyLayout->addWidget(m_diff, 1);
    split->addWidget(historyBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 3);
    layout->addWidget(split, 1);

    connect(m_run, &QPushButton::clicked, this, &RunPanel::run);
    connect(m_bench, &QPushButton::clicked, this, &RunPanel::bench);
    connect(m_profile, &QPushButton::clicked, this, &RunPanel::profile);
    connect(m_sweep, &QPushButton::clicked, this, &RunPanel::sweep);
    connect(m_cancelButton, &QPushButton::clicked, this, &RunPanel::cancel);
    connect(m_history, &QListWidget::itemSelectionChanged, this, &RunPanel::updateDiff);
    connect(m_devices, &QComboBox::activated, this, [this](int index) {
        int device = m_devices->itemData(index).toInt();
        if (device < 0 || m_busy)
            return;
        gpu::RunnerOptions o = runnerOptions();
        std::shared_ptr<Worker> worker = m_worker;
        QMetaObject::invokeMethod(m_workerContext, [worker, o, device] { worker->reset(o, device); });
    });

    // Until the runner answers, the in-process driver probe says whether there is a GPU at all.
    gpu::GpuAvailability gpus = gpu::probeGpus();
    m_noGpuReason = gpus.available ? QString() : qs(gpus.reason);
    m_gpuLabel->setText(gpus.available ? "looking for the runner's GPUs..."
                                       : "no GPU: CPU reference execution (" + m_noGpuReason + ")");

    // The same search as tilec's, from this executable's own location (engine/gpu/RunnerLocation.h).
    gpu::RunnerLocation runner = gpu::locateRunner();
    m_runnerLocation = qs(gpu::describeRunnerLocation(runner));
    setRunner(qs(runner.path), qEnvironmentVariable("TILEBENCH_RUNNER_ARGS").split(' ', Qt::SkipEmptyParts));
}

RunPanel::~RunPanel() {
    m_cancel->store(true);
    std::shared_ptr<Worker> worker = m_worker;
    QMetaObject::invokeMethod(m_workerContext, [worker] { worker->client.reset(); });
    m_thread->quit();
    m_thread->wait();
}

QPushButton* RunPanel::button(const QString& name) const {
    for (QPushButton* b : {m_run, m_bench, m_profile, m_sweep, m_cancelButton})
        if (b->objectName() == name)
            return b;
    return nullptr;
}

bool RunPanel::hasGpu() const {
    return m_devices->count() > 0 && m_devices->currentData().toInt() >= 0;
}

gpu::RunnerOptions RunPanel::runnerOptions() const {
    gpu::RunnerOptions o;
    o.executable = m_runnerPath.toStdString();
    for (const QString& a : m_runnerArguments)
        o.arguments.push_back(a.toStdString());
    o.watchdog = std::chrono::milliseconds(60000);
    return o;
}

void RunPanel::setRunner(const QString& executable, const QStringList& arguments) {
    if (!m_runnerPath.isEmpty() && executable != m_runnerPath)
        m_runnerLocation = "tilebench-runner: " + executable;
    m_runnerPath = executable;
    m_runnerArguments = arguments;
    probeDevices();
}

void RunPanel::probeDevices() {
    m_devicesKnown = false;
    int generation = ++m_probeGeneration;
    gpu::RunnerOptions o = runnerOptions();
    std::shared_ptr<Worker> worker = m_worker;
    QPointer<RunPanel> self(this);
    QMetaObject::invokeMethod(m_workerContext, [worker, o, self, generation] {
        worker->reset(o, 0);
        QStringList names;
        QString reason;
        std::string error;
        gpu::RunnerClient& client = worker->runner();
        if (!client.start(&error)) {
            reason = qs("tilebench-runner not available: cannot start " + o.executable + ": " + error);
        } else if (client.helloReply().field("gpus", "0") == "0") {
            // The runner is there; say why it has no device (no driver, no device), not that it is missing.
            reason = qs("the runner found no GPU: " +
                        gpu::unescapeProtocolValue(client.helloReply().field("reason", "no device")));
        } else {
            gpu::RunnerReply devices = client.request("devices");
            for (const std::string& line : devices.dataLines) {
                gpu::ProtocolLine d = gpu::parseProtocolLine(line);
                if (d.words.empty())
                    continue;
                names << qs("GPU " + d.words[0] + ": " + gpu::unescapeProtocolValue(d.field("name")) + " (" +
                            d.field("arch") + ")" +
                            (client.helloReply().field("mode") == "fake" ? ", simulated" : ""));
            }
            if (names.isEmpty())
                reason = qs(devices.ok() ? devices.field("reason", "no devices") : devices.message);
        }
        QMetaObject::invokeMethod(
            self.data(),
            [self, names, reason, generation] {
                if (self && generation == self->m_probeGeneration)
                    self->showDevices(names, reason);
            },
            Qt::QueuedConnection);
    });
}

void RunPanel::showDevices(const QStringList& names, const QString& reason) {
    m_devices->clear();
    for (int i = 0; i < names.size(); ++i)
        m_devices->addItem(names[i], i);
    if (names.isEmpty()) {
        m_noGpuReason = reason;
        m_devices->addItem("no GPU: CPU reference execution", -1);
        m_gpuLabel->setText("no GPU: CPU reference execution (" + reason + ")\n" + m_runnerLocation);
    } else {
        m_noGpuReason.clear();
        m_gpuLabel->setText(names.join("\n") + "\nrunner: " + m_runnerPath +
                            (m_runnerArguments.isEmpty() ? "" : " " + m_runnerArguments.join(' ')));
    }
    m_devicesKnown = true;
    updateButtons();
}

bool RunPanel::waitForDevices(int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (!m_devicesKnown && timer.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    return m_devicesKnown;
}

bool RunPanel::waitForIdle(int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (m_busy && timer.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    return !m_busy;
}

void RunPanel::setAnalysis(const AnalysisPtr& analysis, const QString& fileName) {
    m_analysis = analysis;
    m_fileName = fileName;
    updateButtons();
}

void RunPanel::updateButtons() {
    bool gpu = hasGpu();
    m_run->setText(gpu ? "Run" : "Run on the CPU");
    // Run falls back to the CPU; Bench, Profile and Sweep time a GPU, so without one they are disabled and
    // their tooltip says why (Ctrl+B and the menu still explain it in the output).
    m_run->setEnabled(!m_busy);
    for (QPushButton* b : {m_bench, m_profile, m_sweep})
        b->setEnabled(!m_busy && gpu);
    m_cancelButton->setEnabled(m_busy);
    QString why =
        m_devicesKnown ? "needs a GPU: " + m_noGpuReason : QString("needs a GPU: looking for one...");
    m_bench->setToolTip(gpu ? "median and spread, TFLOP/s, GB/s, vs cuBLAS for a GEMM (Ctrl+B)" : why);
    m_profile->setToolTip(gpu ? "CUPTI metrics and measured bank wavefronts (Ctrl+P)" : why);
    m_sweep->setToolTip(gpu ? "time num_stages = 1..4 for the stage-sweep plot" : why);
}

bool RunPanel::ready(const QString& action, bool needsGpu) {
    if (m_busy) {
        m_status->setText("busy: cancel the current action first");
        return false;
    }
    if (!m_analysis || !m_analysis->ok() || !m_analysis->plan) {
        m_output->setPlainText("cannot " + action + ": the program has errors (see Issues)");
        return false;
    }
    if (needsGpu && !hasGpu()) {
        m_output->setPlainText(action + " needs a GPU and tilebench-runner; none is available here: " +
                               (m_noGpuReason.isEmpty() ? QString("no device picked") : m_noGpuReason) +
                               "\nRun still checks the program on the CPU reference executor.");
        m_status->setText(action + ": no GPU");
        return false;
    }
    return true;
}

void RunPanel::run() {
    if (!hasGpu()) {
        runOnCpu();
        return;
    }
    if (!ready("run", true))
        return;
    AnalysisPtr a = m_analysis;
    std::shared_ptr<Worker> worker = m_worker;
    bool quick = m_quickCompile->isChecked();
    QPointer<RunPanel> self(this);
    PartialResult partial = [self](const QString& summary, const QString& text) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, summary, text] {
                if (!self)
                    return;
                self->m_status->setText(summary + "; compiling at full optimization...");
                self->m_output->setPlainText(text);
            },
            Qt::QueuedConnection);
    };
    startAction("running on the GPU", [worker, a, quick, partial](RunOutcome& out) {
        gpuRunJob(worker->runner(), a, quick, partial, out);
    });
}

void RunPanel::runOnCpu() {
    if (!ready("run", false))
        return;
    AnalysisPtr a = m_analysis;
    startAction("running on the CPU reference executor", [a](RunOutcome& out) { cpuRunJob(a, out); });
}

void RunPanel::bench() {
    startProfileJob("bench", false);
}

void RunPanel::profile() {
    startProfileJob("profile", true);
}

// Bench and Profile differ only in whether counters and SASS metrics are collected.
void RunPanel::startProfileJob(const QString& what, bool counters) {
    if (!ready(what, true))
        return;
    AnalysisPtr a = m_analysis;
    std::shared_ptr<Worker> worker = m_worker;
    std::string file = m_fileName.toStdString();
    auto cancel = m_cancel;
    startAction(what, [worker, a, file, cancel, counters](RunOutcome& out) {
        profileJob(worker->runner(), a, file, counters, cancel, out);
    });
}

void RunPanel::sweep() {
    if (!ready("sweep", true))
        return;
    AnalysisPtr a = m_analysis;
    std::shared_ptr<Worker> worker = m_worker;
    std::string file = m_fileName.toStdString();
    auto cancel = m_cancel;
    QPointer<RunPanel> self(this);
    auto progress = [self](int index, int total, QString params) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, index, total, params] {
                if (!self)
                    return;
                self->m_progress->setRange(0, total);
                self->m_progress->setValue(index);
                self->m_status->setText(QString("sweep [%1/%2] %3").arg(index + 1).arg(total).arg(params));
            },
            Qt::QueuedConnection);
    };
    startAction("sweep", [worker, a, file, cancel, progress](RunOutcome& out) {
        sweepJob(worker->runner(), a, file, cancel, progress, out);
    });
}

void RunPanel::cancel() {
    if (!m_busy)
        return;
    m_cancel->store(true);
    m_status->setText("cancelling after the current step...");
}

void RunPanel::startAction(const QString& label, std::function<void(RunOutcome&)> job) {
    m_busy = true;
    m_cancel->store(false);
    updateButtons();
    m_progress->setRange(0, 0); // busy until a job reports steps
    m_status->setText(label + "...");
    views::RunRecord record;
    record.time = QTime::currentTime().toString("HH:mm:ss").toStdString();
    record.file = m_fileName.toStdString();
    record.params = specialization(*m_analysis);
    QPointer<RunPanel> self(this);
    QMetaObject::invokeMethod(m_workerContext, [self, job = std::move(job), record] {
        auto outcome = std::make_shared<RunOutcome>();
        job(*outcome);
        outcome->record.time = record.time;
        outcome->record.file = record.file;
        outcome->record.params = record.params;
        QMetaObject::invokeMethod(
            self.data(),
            [self, outcome] {
                if (self)
                    self->finishAction(outcome);
            },
            Qt::QueuedConnection);
    });
}

void RunPanel::finishAction(const std::shared_ptr<RunOutcome>& outcome) {
    m_busy = false;
    bool cancelled = m_cancel->exchange(false);
    m_progress->setRange(0, 1);
    m_progress->setValue(1);
    m_status->setText(outcome->summary + (cancelled ? " (cancelled)" : ""));
    m_output->setPlainText(outcome->text);
    if (outcome->record.kind == views::RunKind::Profile) {
        m_metrics->setRowCount(0);
        for (const QStringList& row : outcome->metrics) {
            int r = m_metrics->rowCount();
            m_metrics->insertRow(r);
            for (int c = 0; c < 4 && c < row.size(); ++c) {
                auto* item = new QTableWidgetItem(row[c]);
                if (row.size() > 4)
                    item->setToolTip(row[4]);
                m_metrics->setItem(r, c, item);
            }
        }
        m_metrics->resizeColumnsToContents();
    }
    if (outcome->hasBankMeasurements && m_canvases)
        m_canvases->setBankMeasurements(m_analysis, outcome->bankLines, outcome->blocks, outcome->bankNote);
    if (outcome->hasSweep && m_canvases)
        m_canvases->setSweepMeasurements(m_analysis, outcome->sweep, outcome->sweepNote);
    if (outcome->addToHistory) {
        int id = m_historyModel.add(outcome->record);
        const views::RunRecord* r = m_historyModel.find(id);
        QString line = qs(views::formatRunRecord(*r));
        if (r->ok && !r->summary.empty() &&
            (r->kind == views::RunKind::CpuRun || r->kind == views::RunKind::GpuRun))
            line += "  " + qs(r->summary);
        auto* item = new QListWidgetItem(QString("#%1  %2").arg(id).arg(line));
        item->setData(Qt::UserRole, id);
        item->setToolTip(outcome->summary);
        item->setForeground(r->ok ? QColor("#4ec94e") : QColor("#f14c4c"));
        m_history->insertItem(0, item);
        while (m_history->count() > int(views::RunHistoryModel::kMaxRecords))
            delete m_history->takeItem(m_history->count() - 1);
    }
    updateButtons();
    Q_EMIT actionFinished(outcome->summary);
}

void RunPanel::selectHistory(const std::vector<int>& ids) {
    m_history->clearSelection();
    for (int i = 0; i < m_history->count(); ++i)
        for (int id : ids)
            if (m_history->item(i)->data(Qt::UserRole).toInt() == id)
                m_history->item(i)->setSelected(true);
}

void RunPanel::updateDiff() {
    QList<QListWidgetItem*> selected = m_history->selectedItems();
    if (selected.size() != 2) {
        m_diff->setPlainText(selected.size() > 2 ? "select exactly two entries for a diff" : "");
        return;
    }
    int a = selected[0]->data(Qt::UserRole).toInt(), b = selected[1]->data(Qt::UserRole).toInt();
    auto diff = m_historyModel.diff(a, b);
    if (!diff) {
        m_diff->setPlainText("one of the entries is no longer in the history");
        return;
    }
    m_diff->setPlainText(qs(views::formatRunDiff(*diff, *m_historyModel.find(diff->beforeId),
                                                 *m_historyModel.find(diff->afterId))));
}

} // namespace tb::app
