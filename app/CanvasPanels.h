// The seven canvases (layout, bank conflicts, warp partition, shared-memory budget, sweep, data movement,
// pipeline schedule) and
// their view models and UI states. On a new analysis it rebuilds every model (pure C++, views/model); each
// frame the canvases draw them (views/canvas). When a view's state asks for another model (another buffer,
// swizzle off, another bank row) the model is rebuilt here, never inside the view. Linked selection: a
// tile-program line highlights its accesses and gemms; clicking one reports its line back.
#pragma once

#include "app/CompileService.h"
#include "views/canvas/ImGuiCanvas.h"
#include "views/canvas/Views.h"

#include <QObject>
#include <QThreadPool>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

class QMenu;

namespace tb::app {

class CanvasPanels : public QObject {
    Q_OBJECT
public:
    explicit CanvasPanels(QObject* parent = nullptr);
    ~CanvasPanels() override;

    void setAnalysis(const AnalysisPtr& analysis);
    void setLinkedLine(int line);
    void setDarkTheme(bool dark);
    // The backend the app compiles with (knownBackendNames()): every canvas' backend strip shows it.
    void setBackend(const std::string& name);

    views::ImGuiCanvas* layoutCanvas() const { return m_layoutCanvas; }
    views::ImGuiCanvas* bankCanvas() const { return m_bankCanvas; }
    views::ImGuiCanvas* warpCanvas() const { return m_warpCanvas; }
    views::ImGuiCanvas* budgetCanvas() const { return m_budgetCanvas; }
    views::ImGuiCanvas* sweepCanvas() const { return m_sweepCanvas; }
    views::ImGuiCanvas* movementCanvas() const { return m_movementCanvas; }
    views::ImGuiCanvas* scheduleCanvas() const { return m_scheduleCanvas; }

    // The current models (tests check that each shows real data).
    const views::LayoutViewModel& layoutModel() const { return m_layout; }
    const std::vector<std::string>& layoutBuffers() const { return m_bufferNames; }
    const views::BankConflictViewModel& bankModel() const { return m_bank; }
    const views::WarpPartitionViewModel& warpModel() const { return m_warp; }
    const views::BudgetViewModel& budgetModel() const { return m_budget; }
    const views::SweepPlotModel& sweepModel() const { return m_sweep; }
    const views::DataMovementViewModel& movementModel() const { return m_movement; }
    const views::PipelineScheduleViewModel& scheduleModel() const { return m_schedule; }
    // Why the pictures no longer match the program ("line 40: shared memory needs ..."); empty while they
    // do. The budget view is exempt when it draws the budget the shared-memory check rejected.
    const std::string& outOfDateReason() const { return m_outOfDate; }
    bool outOfDate(const views::ImGuiCanvas* canvas) const;
    // The backend strip of one canvas (caption, choice positions for hit tests).
    const views::BackendBarState& backendBar(const views::ImGuiCanvas* canvas) const;
    // A canvas' picture as its context menu exports it: the view model's SVG under the canvas' backend
    // caption, with the out-of-date banner while the canvas shows one.
    std::string canvasSvg(const views::ImGuiCanvas* canvas) const;
    // Writes canvasSvg for a .svg path, the rendered canvas for a .png path; false when it cannot.
    bool exportCanvas(views::ImGuiCanvas* canvas, const QString& path);
    // The menu a right click on a canvas opens: Export SVG..., Export PNG... (each asks for a file).
    QMenu* exportMenu(views::ImGuiCanvas* canvas);
    views::LayoutViewState& layoutState() { return m_layoutState; }
    views::BankViewState& bankState() { return m_bankState; }
    // Rebuilds the layout model for the current layout state (after a test changes it).
    void rebuildLayout();
    // Measurements from the Run panel, made on `measuredOn`. The bank columns stay while the program text
    // and parameters are the same; the sweep points while the text is (opening a num_stages variant from
    // the plot keeps them).
    void setBankMeasurements(const AnalysisPtr& measuredOn, std::vector<views::MeasuredLineTotals> lines,
                             int64_t blocks, std::string note);
    void setSweepMeasurements(const AnalysisPtr& measuredOn, std::vector<views::SweepMeasurement> points,
                              std::string note);
    // The stage-sweep plot's variants are compiled off the UI thread after each analysis
    // (profile::planSweep, the path of `tilec sweep`); waits (processing events) until the latest is in.
    bool waitForSweep(int timeoutMs);
    // What a click on sweep point `index` does: asks for that num_stages variant.
    void openSweepPoint(int index);
    // ptxas's registers per thread of the first kernel of the analysis with that generation: the budget
    // view's occupancy takes them (dropped when another analysis is shown).
    void setKernelRegisters(uint64_t analysisGeneration, int registersPerThread, const std::string& source);

Q_SIGNALS:
    void lineClicked(int line);
    void stagesVariantRequested(int stages);
    void sweepPlanned();
    // The budget view asks for ptxas's register count (its button).
    void registersRequested();
    // The user picked another backend on a canvas' strip.
    void backendRequested(const QString& name);
    // An export from a canvas' context menu could not be written ("cannot write PATH").
    void exportFailed(const QString& message);

private:
    struct BufferEntry {
        size_t kernel = 0;
        bool fragment = true;
        size_t index = 0;
    };

    // The canvases in a fixed order; m_bars[i] is canvas i's backend strip.
    std::array<views::ImGuiCanvas*, 7> canvases() const;
    size_t canvasIndex(const views::ImGuiCanvas* canvas) const;
    // Wraps a view's draw function with the backend strip and, while `stale` says so, the out-of-date veil.
    void installDraw(views::ImGuiCanvas* canvas, std::function<void()> draw, std::function<bool()> stale);
    void showOutOfDate(const views::ProgramAnalysis& failed);
    void installExportMenu(views::ImGuiCanvas* canvas);

    AnalysisPtr m_analysis; // the last analysis with a plan: what the canvases picture
    std::string m_outOfDate;
    bool m_budgetFromCheck = false; // m_budget is the rejected budget of the failed analysis
    std::array<views::BackendBarState, 7> m_bars;
    std::vector<BufferEntry> m_buffers;
    std::vector<std::string> m_bufferNames;
    std::string m_layoutShownBuffer; // the buffer the layout state's pan and zoom belong to
    views::LayoutViewModel m_layout;
    views::BankConflictViewModel m_bank;
    views::WarpPartitionViewModel m_warp;
    views::BudgetViewModel m_budget;
    views::SweepPlotModel m_sweep;
    views::DataMovementViewModel m_movement;
    views::PipelineScheduleViewModel m_schedule;
    views::LayoutViewState m_layoutState;
    views::BankViewState m_bankState;
    views::WarpViewState m_warpState;
    views::BudgetViewState m_budgetState;
    views::SweepViewState m_sweepState;
    views::DataMovementViewState m_movementState;
    views::PipelineScheduleViewState m_scheduleState;
    views::ImGuiCanvas* m_layoutCanvas;
    views::ImGuiCanvas* m_bankCanvas;
    views::ImGuiCanvas* m_warpCanvas;
    views::ImGuiCanvas* m_budgetCanvas;
    views::ImGuiCanvas* m_sweepCanvas;
    views::ImGuiCanvas* m_movementCanvas;
    views::ImGuiCanvas* m_scheduleCanvas;
    void applyMeasurements();
    void planSweep(const AnalysisPtr& analysis);
    QThreadPool m_sweepPool;
    uint64_t m_sweepGeneration = 0, m_sweepDone = 0;
    std::shared_ptr<std::atomic<uint64_t>> m_sweepLatest = std::make_shared<std::atomic<uint64_t>>(0);
    struct BankMeasurements {
        std::string key; // program text and specialization
        std::vector<views::MeasuredLineTotals> lines;
        int64_t blocks = 1;
        std::string note;
    } m_bankMeasured;
    struct SweepMeasurements {
        std::string key; // program text
        std::vector<views::SweepMeasurement> points;
        std::string note;
    } m_sweepMeasured;
};

} // namespace tb::app
