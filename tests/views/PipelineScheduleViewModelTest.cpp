// The pipeline schedule view: the GEMM sample's warp-specialized (hopper) and multi-stage (portable) loops,
// and flash attention's single stage, simulated from the kernel schedule.
#include "views/model/PipelineScheduleViewModel.h"

#include "ViewTestSupport.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <string>

namespace tb::views {

namespace {

// step kind -> iteration -> slot
std::map<ScheduleStepKind, std::map<int64_t, int64_t>> slotsOf(const PipelineTimeline& t) {
    std::map<ScheduleStepKind, std::map<int64_t, int64_t>> slots;
    for (const ScheduleStep& s : t.steps) {
        EXPECT_EQ(s.stage, int(s.iteration % t.stages)) << s.label;
        slots[s.kind][s.iteration] = s.slot;
    }
    return slots;
}

// Invariants of any schedule: an iteration computes after its loads landed, computes come in order, and a
// stage's next load is issued only after its release.
void expectConsistent(const PipelineTimeline& t) {
    auto slots = slotsOf(t);
    for (int64_t k = 0; k < t.shownIterations; ++k) {
        EXPECT_GE(slots[ScheduleStepKind::Compute][k], slots[ScheduleStepKind::Complete][k]) << k;
        EXPECT_GT(slots[ScheduleStepKind::Complete][k], slots[ScheduleStepKind::Issue][k]) << k;
        if (k > 0) {
            EXPECT_GT(slots[ScheduleStepKind::Compute][k], slots[ScheduleStepKind::Compute][k - 1]) << k;
        }
        if (k >= t.stages) {
            EXPECT_GT(slots[ScheduleStepKind::Issue][k], slots[ScheduleStepKind::Release][k - t.stages]) << k;
        }
    }
}

PipelineTimeline gemmTimeline(Backend backend) {
    auto a = test::analyzeSample("gemm_relu", backend);
    EXPECT_TRUE(a && a->ok());
    PipelineScheduleViewModel m = buildPipelineScheduleView(*a->kernel(0), a->sources());
    EXPECT_EQ(m.pipelines.size(), 1u);
    return m.pipelines.empty() ? PipelineTimeline() : m.pipelines.front();
}

} // namespace

TEST(PipelineScheduleViewModel, HopperGemmProducerFillsEveryStageBeforeTheFirstWgmma) {
    PipelineTimeline t = gemmTimeline(Backend::Hopper);
    EXPECT_EQ(t.shape, "warp-specialized");
    EXPECT_EQ(t.stages, 3);
    ASSERT_EQ(t.lanes.size(), 2u);
    EXPECT_EQ(t.lanes[0], "producer warpgroup (TMA)");
    expectConsistent(t);
    EXPECT_EQ(t.loadsAheadOfFirstCompute(), 3); // one load per stage is in flight
    EXPECT_NE(t.explanation.find("keep the compute busy"), std::string::npos) << t.explanation;
    bool mentionsBarriers = false;
    for (const ScheduleStep& s : t.steps)
        mentionsBarriers |= s.label.find("full[") != std::string::npos;
    EXPECT_TRUE(mentionsBarriers);
    EXPECT_NE(pipelineScheduleViewToSvg({"gemm", {t}}).find("producer warpgroup (TMA)"), std::string::npos);
}

TEST(PipelineScheduleViewModel, PortableGemmIssuesStagesMinusOneAhead) {
    PipelineTimeline t = gemmTimeline(Backend::Portable);
    EXPECT_EQ(t.shape, "multi-stage");
    EXPECT_EQ(t.lanes[0], "cp.async (every thread)");
    expectConsistent(t);
    EXPECT_EQ(t.loadsAheadOfFirstCompute(), 2); // cp.async's prologue: num_stages - 1 iterations
    EXPECT_NE(t.explanation.find("keep the compute busy"), std::string::npos) << t.explanation;
}

TEST(PipelineScheduleViewModel, OneStageLeavesTheComputeWaiting) {
    auto a = test::analyzeSample("flash_attention", Backend::Hopper);
    ASSERT_TRUE(a && a->ok());
    PipelineScheduleViewModel m = buildPipelineScheduleView(*a->kernel(0), a->sources());
    ASSERT_EQ(m.pipelines.size(), 1u);
    const PipelineTimeline& t = m.pipelines.front();
    EXPECT_EQ(t.stages, 1);
    expectConsistent(t);
    EXPECT_EQ(t.loadsAheadOfFirstCompute(), 1);
    EXPECT_NE(t.explanation.find("more stages would hide the loads"), std::string::npos) << t.explanation;
}

} // namespace tb::views
