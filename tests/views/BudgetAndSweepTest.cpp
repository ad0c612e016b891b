// Budget bars and the stage sweep, on the GEMM sample and on a hand-made plan.
#include "ViewTestSupport.h"
#include "views/model/BudgetViewModel.h"
#include "views/model/SweepPlotModel.h"

#include <cstdint>
#include <gtest/gtest.h>

namespace tb::views {

namespace {

layout::KernelPlan handMadePlan(const ir::Buffer* a, const ir::Buffer* b) {
    layout::KernelPlan k;
    layout::SharedBufferPlan pa;
    pa.buffer = a;
    pa.bytes = 8192;
    pa.stages = 3;
    layout::SharedBufferPlan pb;
    pb.buffer = b;
    pb.bytes = 1024;
    pb.stages = 1;
    k.sharedBuffers = {pa, pb};
    k.budget.totalBytes = 8192 * 3 + 1024;
    k.budget.limitBytes = 40000;
    k.budget.blocksPerSmBySharedMemory = 1;
    k.budget.blocksPerSmByThreads = 16;
    k.budget.blocksPerSm = 1;
    return k;
}

} // namespace

TEST(BudgetViewModel, BarsStackToTheTotal) {
    ir::Buffer a, b;
    a.name = "A_shared";
    b.name = "S";
    BudgetViewModel m = buildBudgetView(handMadePlan(&a, &b), targetSm90a());
    ASSERT_EQ(m.bars.size(), 2u);
    EXPECT_EQ(m.bars[0].totalBytes, 24576);
    EXPECT_EQ(m.bars[1].startBytes, 24576);
    EXPECT_EQ(m.totalBytes, 25600);
    EXPECT_FALSE(m.overLimit());
    EXPECT_EQ(m.summary(), "25600 of 40000 bytes (64%); 1 blocks/SM (limited by shared memory)");
    test::expectGolden(budgetViewToSvg(m), "budget_hand_made.svg");
}

TEST(BudgetViewModel, GemmSampleAgainstTheTargetLimit) {
    auto an = test::analyzeSample("gemm_relu");
    ASSERT_TRUE(an && an->ok());
    BudgetViewModel m = buildBudgetView(*an->kernel(0), an->plan->target);
    ASSERT_GE(m.bars.size(), 2u);
    int64_t sum = 0;
    for (const BudgetBar& b : m.bars)
        sum += b.totalBytes;
    EXPECT_EQ(sum, m.totalBytes);
    EXPECT_EQ(m.limitBytes, targetSm90a().maxSharedMemoryPerBlock);
    EXPECT_EQ(m.bars[0].stages, 3); // A_shared is multi-buffered by T.Pipelined(num_stages=3)
    EXPECT_GT(m.blocksPerSm, 0);
}

TEST(SweepPlotModel, StagesScaleOnlyPipelinedBuffers) {
    ir::Buffer a, b;
    SweepPlotModel m = buildStageSweep(handMadePlan(&a, &b), 3, 6);
    ASSERT_EQ(m.points.size(), 6u);
    EXPECT_EQ(m.points[0].sharedBytes, 8192 + 1024);
    EXPECT_EQ(m.points[2].sharedBytes, 3 * 8192 + 1024);
    EXPECT_TRUE(m.points[3].fits);  // 33792
    EXPECT_FALSE(m.points[4].fits); // 41984 > 40000
    EXPECT_EQ(m.current, 3);
    // Hit-testing finds a point at its own position and nothing far away.
    auto [x, y] = m.position(SweepMetric::SharedMemory, 4, 0, 0, 600, 300);
    EXPECT_EQ(m.hitTest(SweepMetric::SharedMemory, 0, 0, 600, 300, x + 2, y - 2), 4);
    EXPECT_EQ(m.hitTest(SweepMetric::SharedMemory, 0, 0, 600, 300, x + 40, y), -1);
    // No time is measured yet: no point to hit on the time plot; after a measurement there is.
    EXPECT_EQ(m.hitTest(SweepMetric::Time, 0, 0, 600, 300, x, y, 1000), -1);
    m.setMeasured(2, 0.5, 120.0);
    EXPECT_EQ(m.hitTest(SweepMetric::Time, 0, 0, 600, 300, x, y, 1000), 1);
    test::expectGolden(sweepPlotToSvg(m), "sweep_hand_made.svg");
}

} // namespace tb::views
