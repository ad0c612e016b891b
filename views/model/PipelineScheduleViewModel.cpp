// The pipeline timelines: a small simulation of the loop's first iterations under the kernel schedule's
// rule for when each load may be issued, with one stated assumption (a load lands two compute iterations
// after it is issued), so the picture shows where the stages hide the loads and where the compute waits.
#include "views/model/PipelineScheduleViewModel.h"

#include "engine/ir/IrQueries.h"
#include "views/model/Color.h"
#include "views/model/SvgWriter.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::views {

namespace {

// A load lands this many compute iterations after it was issued: the model's one assumption.
constexpr int64_t kLoadLatency = 2;

struct Lanes {
    std::string loads, compute;
};

Lanes lanesOf(layout::PipelineShape shape) {
    switch (shape) {
    case layout::PipelineShape::WarpSpecialized:
        return {"producer warpgroup (TMA)", "consumer warpgroups"};
    case layout::PipelineShape::MultiStage:
        return {"cp.async (every thread)", "compute"};
    default:
        return {"loads", "compute"};
    }
}

// How many iterations ahead a load may be issued: into a free stage (warp specialization: the producer
// waits only for the stage's release), num_stages - 1 ahead (cp.async's prologue), or one (single stage).
int64_t aheadOf(layout::PipelineShape shape, int stages) {
    if (shape == layout::PipelineShape::WarpSpecialized)
        return std::max(1, stages);
    if (shape == layout::PipelineShape::MultiStage)
        return std::max(1, stages - 1);
    return 1;
}

PipelineTimeline simulate(const layout::PipelineSchedule& schedule, const ir::Stmt& loop,
                          const SourceManager& sources) {
    PipelineTimeline t;
    t.line = sources.lineOf(loop.range);
    t.shape = layout::pipelineShapeName(schedule.shape);
    t.stages = std::max(1, schedule.stages);
    t.description = schedule.description;
    t.iterations = ir::constantInt(loop.extent).value_or(-1);
    t.shownIterations = t.iterations < 0 ? t.stages + 4 : std::min<int64_t>(t.iterations, t.stages + 4);
    const Lanes lanes = lanesOf(schedule.shape);
    t.lanes = {lanes.loads, lanes.compute};
    const int64_t n = t.shownIterations, ahead = aheadOf(schedule.shape, t.stages);
    const auto count = static_cast<size_t>(n);
    std::vector<int64_t> issue(count), complete(count), compute(count);
    for (int64_t k = 0; k < n; ++k) {
        // Warp specialization: a later load waits for its stage's release, the end of the compute `ahead`
        // iterations earlier. cp.async: the threads issue it as they start the iteration `ahead` earlier.
        const int64_t issuedAfter = schedule.shape == layout::PipelineShape::MultiStage ? 0 : 1;
        issue[size_t(k)] = k < ahead ? 0 : compute[size_t(k - ahead)] + issuedAfter;
        if (k > 0)
            issue[size_t(k)] = std::max(issue[size_t(k)], issue[size_t(k - 1)]);
        complete[size_t(k)] = issue[size_t(k)] + kLoadLatency;
        compute[size_t(k)] = std::max(k > 0 ? compute[size_t(k - 1)] + 1 : int64_t(0), complete[size_t(k)]);
    }
    const bool ws = schedule.shape == layout::PipelineShape::WarpSpecialized;
    for (int64_t k = 0; k < n; ++k) {
        const int stage = int(k % t.stages);
        const std::string it = std::to_string(k), s = std::to_string(stage);
        std::string waits =
            k >= ahead ? " (after stage " + s + "'s release by iteration " + std::to_string(k - ahead) + ")"
                       : "";
        t.steps.push_back(
            {ScheduleStepKind::Issue, lanes.loads, k, stage, issue[size_t(k)],
             (ws ? "TMA load of iteration " : "cp.async of iteration ") + it + " into stage " + s + waits});
        t.steps.push_back({ScheduleStepKind::Complete, lanes.loads, k, stage, complete[size_t(k)],
                           ws ? "full[" + s + "] completes: iteration " + it + "'s bytes landed"
                              : "iteration " + it + "'s copies waited for (cp.async.wait_group)"});
        t.steps.push_back({ScheduleStepKind::Compute, lanes.compute, k, stage, compute[size_t(k)],
                           (ws ? "wgmma on stage " : "compute on stage ") + s + ", iteration " + it});
        t.steps.push_back({ScheduleStepKind::Release, lanes.compute, k, stage, compute[size_t(k)],
                           ws ? "arrive on empty[" + s + "]: stage " + s + " free for iteration " +
                                    std::to_string(k + t.stages)
                              : "stage " + s + " free for iteration " + std::to_string(k + t.stages)});
    }
    int64_t waits = 0;
    for (int64_t k = 1; k < n; ++k)
        waits += compute[size_t(k)] > compute[size_t(k - 1)] + 1;
    t.explanation =
        "if a load lands " + std::to_string(kLoadLatency) + " iterations of compute after its issue, " +
        std::to_string(t.stages) + " stage(s) " +
        (waits == 0 ? "keep the compute busy after the first loads"
                    : "leave the compute waiting " + std::to_string(waits) + " time(s) in the first " +
                          std::to_string(n) + " iterations: more stages would hide the loads");
    return t;
}

} // namespace

const char* scheduleStepKindName(ScheduleStepKind kind) {
    switch (kind) {
    case ScheduleStepKind::Issue:
        return "issue";
    case ScheduleStepKind::Complete:
        return "complete";
    case ScheduleStepKind::Compute:
        return "compute";
    case ScheduleStepKind::Release:
        return "release";
    }
    return "?";
}

int64_t PipelineTimeline::loadsAheadOfFirstCompute() const {
    int64_t firstCompute = -1;
    for (const ScheduleStep& s : steps)
        if (s.kind == ScheduleStepKind::Compute && s.iteration == 0)
            firstCompute = s.slot;
    int64_t count = 0;
    for (const ScheduleStep& s : steps)
        count += s.kind == ScheduleStepKind::Issue && s.slot < firstCompute;
    return count;
}

PipelineScheduleViewModel buildPipelineScheduleView(const layout::KernelPlan& kernel,
                                                    const SourceManager& sources) {
    PipelineScheduleViewModel model;
    model.title = "pipelines of " + std::string(kernel.func ? kernel.func->name : "kernel");
    if (!kernel.kernel)
        return model;
    ir::walkStmts(*kernel.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
        if (s.kind != ir::StmtKind::For || s.loopKind != ir::LoopKind::Pipelined)
            return;
        if (const layout::PipelineSchedule* schedule = kernel.schedule.pipelineOf(&s))
            model.pipelines.push_back(simulate(*schedule, s, sources));
    });
    return model;
}

std::string pipelineScheduleViewToSvg(const PipelineScheduleViewModel& model) {
    const double left = 190, cell = 46, laneH = 40, gap = 70;
    double height = 40, width = 600;
    for (const PipelineTimeline& t : model.pipelines) {
        int64_t slots = 0;
        for (const ScheduleStep& s : t.steps)
            slots = std::max(slots, s.slot + 1);
        width = std::max(width, left + cell * double(slots) + 20);
        height += laneH * double(t.lanes.size()) + gap;
    }
    SvgWriter svg(width, height);
    const Rgba black{0, 0, 0, 255};
    svg.text(10, 20, model.title, 14, black, "start", true);
    double y = 40;
    for (const PipelineTimeline& t : model.pipelines) {
        svg.text(10, y + 12,
                 "T.Pipelined at line " + std::to_string(t.line) + ": " + t.shape + ", " +
                     std::to_string(t.stages) + " stage(s); " + t.explanation,
                 10);
        y += 20;
        for (size_t lane = 0; lane < t.lanes.size(); ++lane) {
            const double top = y + laneH * double(lane);
            svg.text(10, top + laneH / 2 + 4, t.lanes[lane], 10);
            for (const ScheduleStep& s : t.steps) {
                if (s.lane != t.lanes[lane] || s.kind == ScheduleStepKind::Release)
                    continue;
                const Rgba color = categoricalColor(s.stage, t.stages);
                const double x = left + cell * double(s.slot), h = laneH - 8;
                const double offset = s.kind == ScheduleStepKind::Complete ? h / 2 : 0;
                svg.rect(x + 2, top + 4 + offset, cell - 4, s.kind == ScheduleStepKind::Compute ? h : h / 2,
                         color);
                svg.title(s.label);
                const std::string tag = std::string(s.kind == ScheduleStepKind::Issue      ? "L"
                                                    : s.kind == ScheduleStepKind::Complete ? "F"
                                                                                           : "C") +
                                        std::to_string(s.iteration);
                svg.text(x + cell / 2, top + 4 + offset + 11, tag, 9, black, "middle");
            }
        }
        y += laneH * double(t.lanes.size()) + gap - 20;
    }
    return svg.str();
}

} // namespace tb::views
