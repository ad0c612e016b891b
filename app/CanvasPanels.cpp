// Model building and the per-frame draw callbacks of the canvases.
#include "app/CanvasPanels.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMetaObject>
#include <QPointer>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace tb::app {

CanvasPanels::CanvasPanels(QObject* parent) : QObject(parent) {
    m_layoutCanvas = new views::ImGuiCanvas;
    m_bankCanvas = new views::ImGuiCanvas;
    m_warpCanvas = new views::ImGuiCanvas;
    m_budgetCanvas = new views::ImGuiCanvas;
    m_sweepCanvas = new views::ImGuiCanvas;
    m_layoutCanvas->setObjectName("layoutCanvas");
    m_bankCanvas->setObjectName("bankCanvas");
    m_warpCanvas->setObjectName("warpCanvas");
    m_budgetCanvas->setObjectName("budgetCanvas");
    m_sweepCanvas->setObjectName("sweepCanvas");

    m_layoutCanvas->setDrawFunction([this] {
        views::LayoutViewState before = m_layoutState;
        views::drawLayout(m_layout, m_bufferNames, m_layoutState);
        if (before.buffer != m_layoutState.buffer || before.swizzle != m_layoutState.swizzle ||
            before.byWarp != m_layoutState.byWarp)
            QTimer::singleShot(0, this, [this] { rebuildLayout(); });
    });
    m_bankCanvas->setDrawFunction([this] {
        int before = m_bankState.selected;
        views::drawBankConflicts(m_bank, m_bankState);
        if (m_bankState.selected != before && m_bankState.selected >= 0) {
            views::selectBankRow(m_bank, m_bankState.selected);
            m_bankCanvas->update();
        }
        if (m_bankState.clickedLine)
            QTimer::singleShot(0, this,
                               [this, line = int(m_bankState.clickedLine)] { emit lineClicked(line); });
    });
    m_warpCanvas->setDrawFunction([this] {
        views::drawWarpPartition(m_warp, m_warpState);
        if (m_warpState.clickedLine)
            QTimer::singleShot(0, this,
                               [this, line = int(m_warpState.clickedLine)] { emit lineClicked(line); });
    });
    m_budgetCanvas->setDrawFunction([this] {
        views::drawBudget(m_budget, m_budgetState);
        if (m_budgetState.registersRequested) {
            m_budgetState.registersRequested = false;
            QTimer::singleShot(0, this, [this] { emit registersRequested(); });
        }
    });
    m_sweepCanvas->setDrawFunction([this] {
        views::drawSweep(m_sweep, m_sweepState);
        if (m_sweepState.clicked >= 0) {
            int index = m_sweepState.clicked;
            m_sweepState.clicked = -1;
            QTimer::singleShot(0, this, [this, index] { openSweepPoint(index); });
        }
    });
    m_sweepPool.setMaxThreadCount(1);
}

CanvasPanels::~CanvasPanels() {
    m_sweepLatest->store(0); // a job still queued returns at once
    m_sweepPool.waitForDone();
}

void CanvasPanels::setKernelRegisters(uint64_t analysisGeneration, int registersPerThread,
                                      const std::string& source) {
    if (!m_analysis || m_analysis->generation != analysisGeneration || registersPerThread < 0)
        return;
    views::setBudgetRegisters(m_budget, registersPerThread, source);
    m_budgetCanvas->update();
}

void CanvasPanels::openSweepPoint(int index) {
    if (index >= 0 && size_t(index) < m_sweep.points.size())
        emit stagesVariantRequested(int(m_sweep.points[size_t(index)].value));
}

void CanvasPanels::planSweep(const AnalysisPtr& analysis) {
    const uint64_t generation = ++m_sweepGeneration;
    m_sweepLatest->store(generation);
    m_sweep.pending = true;
    QPointer<CanvasPanels> self(this);
    std::shared_ptr<std::atomic<uint64_t>> latest = m_sweepLatest;
    m_sweepPool.start([self, analysis, generation, latest] {
        // A newer analysis queued its own plan: skip this one.
        if (latest->load() != generation)
            return;
        profile::SweepPlanOptions o;
        o.compile.target = analysis->plan->target;
        for (const ir::SpecializationParam& p : analysis->compile->module->specialization)
            if (p.origin == ir::ParamOrigin::Override && p.name != "num_stages")
                o.baseOverrides.emplace_back(p.name, p.text);
        const SourceFile& file = analysis->sources().file(analysis->compile->file);
        auto plan = std::make_shared<profile::SweepPlan>(profile::planSweep(
            file.name(), file.text(), {views::stageSweepAxis()}, o, analysis->compile.get()));
        QMetaObject::invokeMethod(
            self.data(),
            [self, analysis, plan, generation] {
                if (!self || generation != self->m_sweepGeneration)
                    return;
                self->m_sweep = views::buildStageSweep(*plan, analysis->numStages());
                self->m_sweepDone = generation;
                self->applyMeasurements();
                self->m_sweepCanvas->update();
                emit self->sweepPlanned();
            },
            Qt::QueuedConnection);
    });
}

bool CanvasPanels::waitForSweep(int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (m_sweepDone != m_sweepGeneration && timer.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    return m_sweepDone == m_sweepGeneration;
}

void CanvasPanels::setDarkTheme(bool dark) {
    for (views::ImGuiCanvas* c : {m_layoutCanvas, m_bankCanvas, m_warpCanvas, m_budgetCanvas, m_sweepCanvas})
        c->setDarkTheme(dark);
}

void CanvasPanels::setAnalysis(const AnalysisPtr& analysis) {
    // A failed compile keeps the last good pictures: the user is mid-edit, and the Issues dock says why.
    if (!analysis || !analysis->plan || analysis->plan->kernels.empty())
        return;
    std::string previous = m_layoutState.buffer >= 0 && size_t(m_layoutState.buffer) < m_bufferNames.size()
                               ? m_bufferNames[size_t(m_layoutState.buffer)]
                               : std::string();
    m_analysis = analysis;
    m_buffers.clear();
    m_bufferNames.clear();
    bool several = analysis->plan->kernels.size() > 1;
    for (size_t k = 0; k < analysis->plan->kernels.size(); ++k) {
        const layout::KernelPlan& kernel = analysis->plan->kernels[k];
        std::string prefix = several ? "k" + std::to_string(k) + " " : "";
        for (size_t i = 0; i < kernel.fragments.size(); ++i) {
            m_buffers.push_back({k, true, i});
            m_bufferNames.push_back(prefix + kernel.fragments[i].buffer->name + " (fragment)");
        }
        for (size_t i = 0; i < kernel.sharedBuffers.size(); ++i) {
            m_buffers.push_back({k, false, i});
            m_bufferNames.push_back(prefix + kernel.sharedBuffers[i].buffer->name + " (shared)");
        }
    }
    // Keep the user's buffer across edits when it still exists.
    m_layoutState.buffer = 0;
    for (size_t i = 0; i < m_bufferNames.size(); ++i)
        if (m_bufferNames[i] == previous)
            m_layoutState.buffer = int(i);
    rebuildLayout();

    const layout::KernelPlan& kernel = analysis->plan->kernels.front();
    m_bank = views::buildBankConflictView(kernel, analysis->sources(), -1);
    m_bankState.selected = m_bank.selected;
    m_warp = views::buildWarpPartitionView(kernel, analysis->sources());
    m_budget = views::buildBudgetView(kernel, analysis->plan->target);
    planSweep(analysis);
    applyMeasurements();
    for (views::ImGuiCanvas* c : {m_bankCanvas, m_warpCanvas, m_budgetCanvas, m_sweepCanvas})
        c->update();
}

namespace {

std::string programText(const AnalysisPtr& a) {
    return a && a->compile ? a->sources().file(a->compile->file).text() : std::string();
}

std::string variantKey(const AnalysisPtr& a) {
    std::string key = programText(a);
    if (a && a->compile && a->compile->module)
        for (const ir::SpecializationParam& p : a->compile->module->specialization)
            key += "\n#param " + p.name + "=" + p.text;
    return key;
}

} // namespace

void CanvasPanels::setBankMeasurements(const AnalysisPtr& measuredOn,
                                       std::vector<views::MeasuredLineTotals> lines, int64_t blocks,
                                       std::string note) {
    m_bankMeasured = {variantKey(measuredOn), std::move(lines), blocks, std::move(note)};
    applyMeasurements();
    m_bankCanvas->update();
}

void CanvasPanels::setSweepMeasurements(const AnalysisPtr& measuredOn,
                                        std::vector<views::SweepMeasurement> points, std::string note) {
    m_sweepMeasured = {programText(measuredOn), std::move(points), std::move(note)};
    applyMeasurements();
    m_sweepCanvas->update();
}

void CanvasPanels::applyMeasurements() {
    if (!m_analysis)
        return;
    if (!m_bankMeasured.key.empty() && m_bankMeasured.key == variantKey(m_analysis))
        views::setMeasuredWavefronts(m_bank, m_bankMeasured.lines, m_bankMeasured.blocks,
                                     m_bankMeasured.note);
    else
        views::clearMeasuredWavefronts(m_bank);
    if (!m_sweepMeasured.key.empty() && m_sweepMeasured.key == programText(m_analysis))
        views::applySweepMeasurements(m_sweep, m_sweepMeasured.points, m_sweepMeasured.note);
}

void CanvasPanels::rebuildLayout() {
    if (!m_analysis || m_buffers.empty()) {
        m_layout = {};
        return;
    }
    m_layoutState.buffer = std::clamp(m_layoutState.buffer, 0, int(m_buffers.size()) - 1);
    const BufferEntry& e = m_buffers[size_t(m_layoutState.buffer)];
    const layout::KernelPlan& kernel = m_analysis->plan->kernels[e.kernel];
    if (e.fragment) {
        const layout::FragmentPlan& f = kernel.fragments[e.index];
        m_layout = views::buildFragmentView(f.buffer->name, f.fragment,
                                            m_layoutState.byWarp ? views::LayoutColoring::Warp
                                                                 : views::LayoutColoring::Thread);
        if (!f.origin.description.empty())
            m_layout.subtitle = f.origin.description + "  |  " + m_layout.subtitle;
    } else {
        const layout::SharedBufferPlan& b = kernel.sharedBuffers[e.index];
        int bits = ir::dtypeBits(b.buffer->dtype);
        m_layout = m_layoutState.swizzle ? views::buildSharedView(b.buffer->name, b.choice.layout, bits, true)
                                         : views::buildSharedView(b.buffer->name, b.unswizzled, bits, false);
        if (m_layoutState.swizzle)
            m_layout.subtitle =
                std::string(layout::sharedLayoutKindName(b.choice.kind)) + ": " + b.choice.reason;
    }
    m_layoutCanvas->update();
}

void CanvasPanels::setLinkedLine(int line) {
    m_bankState.highlightLine = uint32_t(std::max(0, line));
    m_warpState.highlightLine = uint32_t(std::max(0, line));
    // Select the line's first access so its punch card shows.
    auto rows = m_bank.rowsOfLine(uint32_t(std::max(0, line)));
    if (!rows.empty()) {
        views::selectBankRow(m_bank, rows.front());
        m_bankState.selected = m_bank.selected;
    }
    m_bankCanvas->update();
    m_warpCanvas->update();
}

} // namespace tb::app
