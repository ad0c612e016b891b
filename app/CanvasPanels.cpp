// Model building and the per-frame draw callbacks of the canvases.
#include "app/CanvasPanels.h"

#include "engine/target/Backend.h"
#include "views/model/BackendCaption.h"
#include "views/model/WarpPartitionViewModel.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMetaObject>
#include <QPointer>
#include <QTimer>
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
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
    m_movementCanvas = new views::ImGuiCanvas;
    m_scheduleCanvas = new views::ImGuiCanvas;
    m_layoutCanvas->setObjectName("layoutCanvas");
    m_bankCanvas->setObjectName("bankCanvas");
    m_warpCanvas->setObjectName("warpCanvas");
    m_budgetCanvas->setObjectName("budgetCanvas");
    m_sweepCanvas->setObjectName("sweepCanvas");
    m_movementCanvas->setObjectName("movementCanvas");
    m_scheduleCanvas->setObjectName("scheduleCanvas");

    for (views::ImGuiCanvas* canvas : canvases())
        installExportMenu(canvas);
    for (views::BackendBarState& bar : m_bars)
        bar.backends = knownBackendNames();
    setBackend(backendName(defaultBackend(targetSm90a())));
    const auto stale = [this] { return !m_outOfDate.empty(); };
    // Stale pictures take no clicks: a line or variant they name belongs to an older program.
    installDraw(
        m_layoutCanvas,
        [this] {
            views::LayoutViewState before = m_layoutState;
            views::drawLayout(m_layout, m_bufferNames, m_layoutState);
            if (before.buffer != m_layoutState.buffer || before.swizzle != m_layoutState.swizzle ||
                before.byWarp != m_layoutState.byWarp)
                QTimer::singleShot(0, this, [this] { rebuildLayout(); });
        },
        stale);
    installDraw(
        m_bankCanvas,
        [this] {
            int before = m_bankState.selected;
            views::drawBankConflicts(m_bank, m_bankState);
            if (m_bankState.selected != before && m_bankState.selected >= 0) {
                views::selectBankRow(m_bank, m_bankState.selected);
                m_bankCanvas->update();
            }
            if (m_bankState.clickedLine && m_outOfDate.empty())
                QTimer::singleShot(0, this,
                                   [this, line = int(m_bankState.clickedLine)] { Q_EMIT lineClicked(line); });
        },
        stale);
    installDraw(
        m_warpCanvas,
        [this] {
            views::drawWarpPartition(m_warp, m_warpState);
            if (m_warpState.clickedLine && m_outOfDate.empty())
                QTimer::singleShot(0, this,
                                   [this, line = int(m_warpState.clickedLine)] { Q_EMIT lineClicked(line); });
        },
        stale);
    installDraw(
        m_budgetCanvas,
        [this] {
            views::drawBudget(m_budget, m_budgetState);
            if (m_budgetState.registersRequested) {
                m_budgetState.registersRequested = false;
                if (m_outOfDate.empty())
                    QTimer::singleShot(0, this, [this] { Q_EMIT registersRequested(); });
            }
        },
        [this] { return !m_outOfDate.empty() && !m_budgetFromCheck; });
    installDraw(
        m_sweepCanvas,
        [this] {
            views::drawSweep(m_sweep, m_sweepState);
            if (m_sweepState.clicked >= 0) {
                int index = m_sweepState.clicked;
                m_sweepState.clicked = -1;
                if (m_outOfDate.empty())
                    QTimer::singleShot(0, this, [this, index] { openSweepPoint(index); });
            }
        },
        stale);
    installDraw(
        m_movementCanvas,
        [this] {
            views::drawDataMovement(m_movement, m_movementState);
            if (m_movementState.clickedLine) {
                int line = int(m_movementState.clickedLine);
                m_movementState.clickedLine = 0;
                if (m_outOfDate.empty())
                    QTimer::singleShot(0, this, [this, line] { Q_EMIT lineClicked(line); });
            }
        },
        stale);
    installDraw(
        m_scheduleCanvas, [this] { views::drawPipelineSchedule(m_schedule, m_scheduleState); }, stale);
    m_sweepPool.setMaxThreadCount(1);
}

std::array<views::ImGuiCanvas*, 7> CanvasPanels::canvases() const {
    return {m_layoutCanvas, m_bankCanvas,     m_warpCanvas,    m_budgetCanvas,
            m_sweepCanvas,  m_movementCanvas, m_scheduleCanvas};
}

size_t CanvasPanels::canvasIndex(const views::ImGuiCanvas* canvas) const {
    const auto all = canvases();
    return size_t(std::find(all.begin(), all.end(), canvas) - all.begin());
}

const views::BackendBarState& CanvasPanels::backendBar(const views::ImGuiCanvas* canvas) const {
    return m_bars.at(canvasIndex(canvas));
}

bool CanvasPanels::outOfDate(const views::ImGuiCanvas* canvas) const {
    if (m_outOfDate.empty())
        return false;
    return canvas != m_budgetCanvas || !m_budgetFromCheck;
}

void CanvasPanels::installDraw(views::ImGuiCanvas* canvas, std::function<void()> draw,
                               std::function<bool()> stale) {
    const size_t index = canvasIndex(canvas);
    canvas->setDrawFunction([this, index, draw = std::move(draw), stale = std::move(stale)] {
        views::BackendBarState& bar = m_bars[index];
        views::drawBackendBar(bar);
        if (bar.requested >= 0 && size_t(bar.requested) < bar.backends.size()) {
            QString name = QString::fromStdString(bar.backends[size_t(bar.requested)]);
            bar.requested = -1;
            QTimer::singleShot(0, this, [this, name] { Q_EMIT backendRequested(name); });
        }
        draw();
        if (stale())
            views::drawOutOfDate(m_outOfDate, bar.bottom);
    });
}

void CanvasPanels::setBackend(const std::string& name) {
    for (views::BackendBarState& bar : m_bars) {
        auto it = std::find(bar.backends.begin(), bar.backends.end(), name);
        bar.current = it == bar.backends.end() ? 0 : int(it - bar.backends.begin());
    }
    for (views::ImGuiCanvas* c : canvases())
        c->update();
}

CanvasPanels::~CanvasPanels() {
    m_sweepLatest->store(0); // a job still queued returns at once
    m_sweepPool.waitForDone();
}

void CanvasPanels::setKernelRegisters(uint64_t analysisGeneration, int registersPerThread,
                                      const std::string& source) {
    // Out of date, the budget shown is not that kernel's (a rejected budget, or a veiled one).
    if (!m_analysis || m_analysis->generation != analysisGeneration || registersPerThread < 0 ||
        !m_outOfDate.empty())
        return;
    views::setBudgetRegisters(m_budget, registersPerThread, source);
    m_budgetCanvas->update();
}

void CanvasPanels::openSweepPoint(int index) {
    if (index >= 0 && size_t(index) < m_sweep.points.size())
        Q_EMIT stagesVariantRequested(int(m_sweep.points[size_t(index)].value));
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
        // The variants compile for the same device and backend as the analysis.
        o.compile.target = analysis->compile->device;
        o.compile.backend = analysis->compile->backend;
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
                Q_EMIT self->sweepPlanned();
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
    for (views::ImGuiCanvas* c : canvases())
        c->setDarkTheme(dark);
}

void CanvasPanels::showOutOfDate(const views::ProgramAnalysis& failed) {
    const std::string error = failed.firstError();
    m_outOfDate = error.empty() ? "there is no kernel to picture" : error;
    // The shared-memory check's numbers are this program's: the budget view draws them, not a stale plan.
    m_budgetFromCheck = !failed.rejectedSharedMemory.empty();
    if (m_budgetFromCheck)
        m_budget =
            views::buildRejectedBudgetView(failed.rejectedSharedMemory.front(), failed.compile->target);
    for (views::ImGuiCanvas* c : canvases())
        c->update();
}

void CanvasPanels::setAnalysis(const AnalysisPtr& analysis) {
    if (!analysis || !analysis->compile)
        return;
    // A failed compile keeps the last good pictures, veiled and marked out of date (the user is mid-edit;
    // the banner and the Issues dock say why).
    if (!analysis->plan || analysis->plan->kernels.empty()) {
        showOutOfDate(*analysis);
        return;
    }
    m_outOfDate.clear();
    m_budgetFromCheck = false;
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
    if (!analysis->bankFixes.empty())
        views::applyBankFixes(m_bank, analysis->bankFixes.front());
    m_bankState.selected = m_bank.selected;
    m_warp = views::buildWarpPartitionView(kernel, analysis->sources());
    m_budget = views::buildBudgetView(kernel, analysis->plan->target);
    m_movement = views::buildDataMovementView(kernel, analysis->sources());
    m_schedule = views::buildPipelineScheduleView(kernel, analysis->sources());
    const std::string caption =
        views::backendCaption(analysis->compile->backend, analysis->plan->target, kernel);
    for (views::BackendBarState& bar : m_bars)
        bar.caption = caption;
    setBackend(backendName(analysis->compile->backend));
    planSweep(analysis);
    applyMeasurements();
    for (views::ImGuiCanvas* c : canvases())
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
    // Pan and zoom belong to one buffer: another one (a 1-D fragment after a 128x128 tile) starts fitted.
    if (m_bufferNames[size_t(m_layoutState.buffer)] != m_layoutShownBuffer) {
        m_layoutShownBuffer = m_bufferNames[size_t(m_layoutState.buffer)];
        m_layoutState.zoom = 1;
        m_layoutState.panX = m_layoutState.panY = 0;
        m_layoutState.fitRequested = true;
    }
    const BufferEntry& e = m_buffers[size_t(m_layoutState.buffer)];
    const layout::KernelPlan& kernel = m_analysis->plan->kernels[e.kernel];
    if (e.fragment) {
        const layout::FragmentPlan& f = kernel.fragments[e.index];
        auto scope = kernel.registerScopeOf.find(f.buffer);
        const ir::Stmt* ws = scope == kernel.registerScopeOf.end() ? nullptr : scope->second;
        m_layout = views::buildFragmentView(f.buffer->name, f.fragment,
                                            m_layoutState.byWarp ? views::LayoutColoring::Warp
                                                                 : views::LayoutColoring::Thread,
                                            ws ? ws->firstThread : 0);
        if (ws)
            m_layout.title += views::warpGroupScopeCaption(*ws);
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
