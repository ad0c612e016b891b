// The five canvases (layout, bank conflicts, warp partition, shared-memory budget, sweep) and their view
// models and UI states. On a new analysis it rebuilds every model (pure C++, views/model); each frame the
// canvases draw them (views/canvas). When a view's state asks for another model (another buffer, swizzle
// off, another bank row) the model is rebuilt here, never inside the view. Linked selection: a tile-program
// line highlights its accesses and gemms; clicking one reports its line back.
#pragma once

#include "app/CompileService.h"
#include "views/canvas/ImGuiCanvas.h"
#include "views/canvas/Views.h"

#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tb::app {

class CanvasPanels : public QObject {
    Q_OBJECT
public:
    explicit CanvasPanels(QObject* parent = nullptr);
    ~CanvasPanels() override;

    void setAnalysis(const AnalysisPtr& analysis);
    void setLinkedLine(int line);
    void setDarkTheme(bool dark);

    views::ImGuiCanvas* layoutCanvas() const { return m_layoutCanvas; }
    views::ImGuiCanvas* bankCanvas() const { return m_bankCanvas; }
    views::ImGuiCanvas* warpCanvas() const { return m_warpCanvas; }
    views::ImGuiCanvas* budgetCanvas() const { return m_budgetCanvas; }
    views::ImGuiCanvas* sweepCanvas() const { return m_sweepCanvas; }

    // The current models (tests check that each shows real data).
    const views::LayoutViewModel& layoutModel() const { return m_layout; }
    const std::vector<std::string>& layoutBuffers() const { return m_bufferNames; }
    const views::BankConflictViewModel& bankModel() const { return m_bank; }
    const views::WarpPartitionViewModel& warpModel() const { return m_warp; }
    const views::BudgetViewModel& budgetModel() const { return m_budget; }
    const views::SweepPlotModel& sweepModel() const { return m_sweep; }
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

signals:
    void lineClicked(int line);
    void stagesVariantRequested(int stages);
    void sweepPlanned();
    // The budget view asks for ptxas's register count (its button).
    void registersRequested();

private:
    struct BufferEntry {
        size_t kernel = 0;
        bool fragment = true;
        size_t index = 0;
    };

    AnalysisPtr m_analysis;
    std::vector<BufferEntry> m_buffers;
    std::vector<std::string> m_bufferNames;
    views::LayoutViewModel m_layout;
    views::BankConflictViewModel m_bank;
    views::WarpPartitionViewModel m_warp;
    views::BudgetViewModel m_budget;
    views::SweepPlotModel m_sweep;
    views::LayoutViewState m_layoutState;
    views::BankViewState m_bankState;
    views::WarpViewState m_warpState;
    views::BudgetViewState m_budgetState;
    views::SweepViewState m_sweepState;
    views::ImGuiCanvas* m_layoutCanvas;
    views::ImGuiCanvas* m_bankCanvas;
    views::ImGuiCanvas* m_warpCanvas;
    views::ImGuiCanvas* m_budgetCanvas;
    views::ImGuiCanvas* m_sweepCanvas;
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
