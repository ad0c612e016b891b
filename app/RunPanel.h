// The Run dock: a GPU picker (the runner's devices, or "no GPU: CPU reference execution (<reason>)"), the
// actions Run (a correctness run: max abs/rel error and the first mismatches per output, on the GPU
// through the runner, else on the CPU reference executor), Bench (median and spread, TFLOP/s, GB/s,
// fractions of the measured ceilings, the ratio to cuBLAS for a GEMM), Profile (the CUPTI metrics table,
// and the SASS wavefronts per tile-program line handed to the bank view) and Sweep (num_stages 1..4, handed
// to the sweep plot), a progress bar and Cancel, and the history (views/model/RunHistoryModel): selecting
// two entries shows their diff. Every action runs off the UI thread, on one worker thread that owns the
// one RunnerClient; the editor never waits. The runner is found as every binary finds it
// (gpu::locateRunner: $TILEBENCH_RUNNER, beside the executable, the installed layout, the build tree) with
// the arguments of $TILEBENCH_RUNNER_ARGS (e.g. "--fake --fake-cupti=available"), or what setRunner sets
// (tests). A runner that starts but finds no GPU is named as such, with its reason.
#pragma once

#include "app/CanvasPanels.h"
#include "app/CompileService.h"
#include "engine/gpu/RunnerClient.h"
#include "views/model/RunHistoryModel.h"

#include <QStringList>
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QCheckBox;
class QPushButton;
class QTableWidget;
class QThread;

namespace tb::app {

// What one action produced, built on the worker thread and shown on the UI thread.
struct RunOutcome;

class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(CanvasPanels* canvases, QWidget* parent = nullptr);
    ~RunPanel() override;

    // The runner to use (restarts it and lists its devices again, asynchronously).
    void setRunner(const QString& executable, const QStringList& arguments);
    const QString& runnerExecutable() const { return m_runnerPath; }
    // The document the actions run on; `fileName` names it in reports and history.
    void setAnalysis(const AnalysisPtr& analysis, const QString& fileName);

    void run();      // GPU correctness run when a GPU is picked, else the CPU run
    void runOnCpu(); // the CPU reference executor and the sample's naive reference
    void bench();
    void profile();
    void sweep();
    void cancel();

    bool busy() const { return m_busy; }
    bool hasGpu() const;
    // Waits (processing events) until the device list is known / the current action finished.
    bool waitForDevices(int timeoutMs);
    bool waitForIdle(int timeoutMs);

    // Widgets, for MainWindow and tests.
    QLabel* gpuLabel() const { return m_gpuLabel; }
    const QString& runnerLocation() const { return m_runnerLocation; }
    QComboBox* devicePicker() const { return m_devices; }
    QPlainTextEdit* output() const { return m_output; }
    QTableWidget* metricsTable() const { return m_metrics; }
    QListWidget* history() const { return m_history; }
    QPlainTextEdit* diffView() const { return m_diff; }
    QProgressBar* progressBar() const { return m_progress; }
    QPushButton* button(const QString& name) const;            // "run", "bench", "profile", "sweep", "cancel"
    QCheckBox* quickCompile() const { return m_quickCompile; } // Run with NVRTC's fast-compile mode
    const views::RunHistoryModel& historyModel() const { return m_historyModel; }
    // Selects history entries by record id (tests; the user clicks).
    void selectHistory(const std::vector<int>& ids);

Q_SIGNALS:
    void actionFinished(const QString& summary);

private:
    struct Worker; // the worker thread's state: the RunnerClient

    void startAction(const QString& label, std::function<void(RunOutcome&)> job);
    void startProfileJob(const QString& what, bool counters);
    void finishAction(const std::shared_ptr<RunOutcome>& outcome);
    void probeDevices();
    gpu::RunnerOptions runnerOptions() const; // the runner executable, its arguments and the watchdog
    void showDevices(const QStringList& names, const QString& reason);
    void updateButtons();
    void updateDiff();
    bool ready(const QString& action, bool needsGpu);

    CanvasPanels* m_canvases;
    AnalysisPtr m_analysis;
    QString m_fileName = "untitled.py";
    QString m_runnerPath;
    QString m_runnerLocation; // "tilebench-runner: PATH (build tree)": where the search found it
    QStringList m_runnerArguments;
    QString m_noGpuReason;
    bool m_devicesKnown = false;
    bool m_busy = false;
    int m_probeGeneration = 0;

    QThread* m_thread;
    QObject* m_workerContext; // lives on m_thread: jobs are queued to it
    std::shared_ptr<Worker> m_worker;
    std::shared_ptr<std::atomic<bool>> m_cancel;

    QLabel* m_gpuLabel;
    QComboBox* m_devices;
    QPushButton* m_run;
    QPushButton* m_bench;
    QPushButton* m_profile;
    QPushButton* m_sweep;
    QPushButton* m_cancelButton;
    QCheckBox* m_quickCompile;
    QProgressBar* m_progress;
    QLabel* m_status;
    QPlainTextEdit* m_output;
    QTableWidget* m_metrics;
    QListWidget* m_history;
    QPlainTextEdit* m_diff;
    views::RunHistoryModel m_historyModel;
};

} // namespace tb::app
