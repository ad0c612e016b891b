// The pipeline schedule view's model: why num_stages matters, drawn from the kernel schedule. For each
// T.Pipelined loop, the first iterations as a timeline of steps: who issues each iteration's loads into which
// stage buffer, when they complete, when the compute reads them and when the stage is released for a later
// load. Warp-specialized loops (hopper): the producer warpgroup's TMA issue, the full mbarrier's completion,
// the consumers' wgmma, the release on the empty mbarrier. Multi-stage loops (cp.async): the copies issued
// num_stages - 1 iterations ahead, the wait_group before the compute. Single-stage and program-order loops:
// loads and compute take turns.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/SourceManager.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb::views {

enum class ScheduleStepKind {
    Issue,    // the loads of an iteration are issued into a stage buffer
    Complete, // they have landed (mbarrier complete / cp.async group waited for)
    Compute,  // the loop body reads the stage
    Release,  // the stage is free for the load of iteration + stages
};
const char* scheduleStepKindName(ScheduleStepKind kind); // "issue", "complete", "compute", "release"

struct ScheduleStep {
    ScheduleStepKind kind = ScheduleStepKind::Issue;
    std::string lane; // "producer (TMA)", "consumers (wgmma)", "cp.async", "compute"
    int64_t iteration = 0;
    int stage = 0;     // the stage buffer: iteration % stages
    int64_t slot = 0;  // when, in steps of one loop iteration of the consumers
    std::string label; // "TMA load it 3 -> stage 0 (waits for stage 0's release by it 0)"
};

struct PipelineTimeline {
    uint32_t line = 0;
    std::string shape; // pipelineShapeName
    int stages = 1;
    int64_t iterations = -1;        // the loop's trip count; -1 when symbolic
    int64_t shownIterations = 0;    // the timeline's iterations (the first few)
    std::vector<std::string> lanes; // in drawing order
    std::vector<ScheduleStep> steps;
    std::string description; // the kernel schedule's own words
    std::string explanation; // one sentence on what the stages buy here
    // The number of iterations whose loads were issued before iteration 0 starts to compute.
    int64_t loadsAheadOfFirstCompute() const;
};

struct PipelineScheduleViewModel {
    std::string title;
    std::vector<PipelineTimeline> pipelines;
};

PipelineScheduleViewModel buildPipelineScheduleView(const layout::KernelPlan& kernel,
                                                    const SourceManager& sources);
std::string pipelineScheduleViewToSvg(const PipelineScheduleViewModel& model);

} // namespace tb::views
