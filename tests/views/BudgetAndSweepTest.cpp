// Budget bars and the stage sweep, on the GEMM sample and on a hand-made plan.
#include "ViewTestSupport.h"
#include "views/model/BudgetViewModel.h"
#include "views/model/SweepPlotModel.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>

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
    k.threads = 128;
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
    // 233472 B per SM / (25600 + the 1 KB reservation) = 8 blocks; threads allow 16.
    EXPECT_EQ(m.summary(),
              "25 KiB of 39.1 KiB (25600 of 40000 bytes, 64%); 8 blocks/SM (limited by shared memory)");
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
    EXPECT_GT(m.occupancy.blocks, 0);
}

// The budget draws the arena the kernel is launched with: each buffer at the offset the kernel addresses it
// at, with the stages the schedule gave it, and the regions that are not buffers named.
void expectBarsAtTheArena(const layout::KernelPlan& k, const BudgetViewModel& m) {
    const layout::SharedArena& arena = k.schedule.arena;
    ASSERT_FALSE(arena.slots.empty());
    EXPECT_EQ(m.totalBytes, arena.totalBytes);
    for (const layout::SharedArenaSlot& slot : arena.slots) {
        auto bar = std::find_if(m.bars.begin(), m.bars.end(),
                                [&](const BudgetBar& b) { return b.buffer == slot.buffer->name; });
        ASSERT_NE(bar, m.bars.end()) << slot.buffer->name;
        EXPECT_EQ(bar->startBytes, slot.offset) << slot.buffer->name;
        EXPECT_EQ(bar->stages, slot.stages) << slot.buffer->name;
        EXPECT_EQ(bar->totalBytes, slot.stageBytes * slot.stages) << slot.buffer->name;
    }
    for (const BudgetBar& b : m.bars)
        EXPECT_LE(b.startBytes + b.totalBytes, m.totalBytes) << b.buffer;
}

const BudgetBar* barNamed(const BudgetViewModel& m, const std::string& name) {
    for (const BudgetBar& b : m.bars)
        if (b.buffer == name)
            return &b;
    return nullptr;
}

TEST(BudgetViewModel, HopperGemmDrawsItsArenaWithTheMbarriers) {
    auto an = test::analyzeSample("gemm_relu", Backend::Hopper);
    ASSERT_TRUE(an && an->ok());
    const layout::KernelPlan& k = *an->kernel(0);
    BudgetViewModel m = buildBudgetView(k, an->plan->target);
    expectBarsAtTheArena(k, m);
    const BudgetBar* barriers = barNamed(m, "mbarriers");
    ASSERT_NE(barriers, nullptr);
    EXPECT_EQ(barriers->startBytes, k.schedule.arena.barrierOffset);
    EXPECT_EQ(barriers->totalBytes, k.schedule.arena.barrierBytes);
    EXPECT_GT(barriers->totalBytes, 0);
}

TEST(BudgetViewModel, SoftmaxDrawsItsReductionScratch) {
    auto an = test::analyzeSample("softmax");
    ASSERT_TRUE(an && an->ok());
    const layout::KernelPlan& k = *an->kernel(0);
    BudgetViewModel m = buildBudgetView(k, an->plan->target);
    expectBarsAtTheArena(k, m);
    const BudgetBar* scratch = barNamed(m, "reduce scratch");
    ASSERT_NE(scratch, nullptr);
    EXPECT_EQ(scratch->startBytes, k.schedule.arena.reduceScratchOffset);
    EXPECT_EQ(scratch->totalBytes, k.schedule.arena.reduceScratchBytes);
    EXPECT_EQ(barNamed(m, "mbarriers"), nullptr); // the portable backend has none
}

TEST(BudgetViewModel, MlaDecodeBarsFollowTheScheduleStages) {
    auto an = test::analyzeSample("mla_decode");
    ASSERT_TRUE(an && an->ok());
    const layout::KernelPlan& k = *an->kernel(0);
    BudgetViewModel m = buildBudgetView(k, an->plan->target);
    expectBarsAtTheArena(k, m);
    const BudgetBar* kv = barNamed(m, "KV_shared");
    ASSERT_NE(kv, nullptr);
    EXPECT_EQ(kv->stages, 2); // T.Pipelined(num_stages=2) multi-buffers the loaded tiles only
    EXPECT_EQ(barNamed(m, "Q_shared")->stages, 1);
}

// A planned sweep as profile::planSweep returns it: the pipelined buffer 8192 B x stages, 1024 B fixed,
// against a 40000 B limit.
profile::SweepPlan handMadeSweep() {
    profile::SweepPlan plan;
    plan.ok = true;
    for (int s = 1; s <= 6; ++s) {
        profile::PlannedVariant v;
        v.params = {{"num_stages", std::to_string(s)}};
        v.paramsText = "num_stages=" + std::to_string(s);
        v.sharedBytes = 8192 * s + 1024;
        v.limitBytes = 40000;
        v.compiled = v.sharedBytes <= v.limitBytes;
        v.fits = v.compiled;
        if (!v.compiled)
            v.message = "over the limit [shared-memory-over-limit]";
        plan.variants.push_back(v);
    }
    return plan;
}

TEST(SweepPlotModel, PointsAreThePlannedVariants) {
    SweepPlotModel m = buildStageSweep(handMadeSweep(), 3);
    ASSERT_EQ(m.points.size(), 6u);
    EXPECT_EQ(m.points[0].sharedBytes, 8192 + 1024);
    EXPECT_EQ(m.points[2].sharedBytes, 3 * 8192 + 1024);
    EXPECT_TRUE(m.points[3].fits);  // 33792
    EXPECT_FALSE(m.points[4].fits); // 41984 > 40000
    EXPECT_EQ(m.current, 3);
    EXPECT_EQ(m.limitBytes, 40000);
    EXPECT_EQ(m.parameter, "num_stages");
    EXPECT_EQ(m.points[4].status, "over the limit [shared-memory-over-limit]");
    EXPECT_FALSE(m.literal);
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

// The plot of the flash-attention sample (num_stages a jit parameter, default 1) is computed per variant:
// 2 and 3 stages need what `tilec plan -p num_stages=N` says (49152 and 65536 B), not the 32768 B of one
// stage for every point (the old static rule found no multi-buffered buffer at num_stages=1).
TEST(SweepPlotModel, FlashAttentionVariantsArePlannedOneByOne) {
    auto an = test::analyzeSample("flash_attention");
    ASSERT_TRUE(an && an->ok());
    const SourceFile& file = an->sources().file(an->compile->file);
    SweepPlotModel m = buildStageSweep(
        profile::planSweep(file.name(), file.text(), {stageSweepAxis()}, {}, an->compile.get()),
        an->numStages());
    ASSERT_EQ(m.points.size(), size_t(kSweepStages));
    EXPECT_EQ(m.current, 1);
    EXPECT_EQ(m.points[0].sharedBytes, 32768);
    EXPECT_EQ(m.points[1].sharedBytes, 49152);
    EXPECT_EQ(m.points[2].sharedBytes, 65536);
    EXPECT_FALSE(m.literal);
}

// The GEMM sample's num_stages is a literal: the plot says so and its points differ per stage count.
TEST(SweepPlotModel, GemmLiteralStagesAreEditedPerVariant) {
    auto an = test::analyzeSample("gemm_relu");
    ASSERT_TRUE(an && an->ok());
    const SourceFile& file = an->sources().file(an->compile->file);
    SweepPlotModel m = buildStageSweep(
        profile::planSweep(file.name(), file.text(), {stageSweepAxis()}, {}, an->compile.get()),
        an->numStages());
    EXPECT_TRUE(m.literal);
    ASSERT_EQ(m.notes.size(), 1u);
    ASSERT_EQ(m.points.size(), size_t(kSweepStages));
    EXPECT_EQ(m.points[2].sharedBytes, an->kernel(0)->budget.totalBytes); // the program's own 3 stages
    EXPECT_EQ(m.points[0].sharedBytes * 2, m.points[1].sharedBytes);
}

// Flash attention on sm_90a: 128 threads, 32768 B of shared memory. Shared memory alone allows
// 233472 / (32768 + 1024) = 6 blocks (not 7: the runtime reserves 1 KB per block, and the SM's capacity
// counts, not the per-block opt-in limit); with ptxas's 96 registers per thread, 65536 / (4 warps x 3072)
// = 5, and registers are the limit.
TEST(BudgetViewModel, FlashAttentionOccupancyNamesTheTrueLimiter) {
    auto an = test::analyzeSample("flash_attention");
    ASSERT_TRUE(an && an->ok());
    BudgetViewModel m = buildBudgetView(*an->kernel(0), an->plan->target);
    EXPECT_EQ(m.totalBytes, 32768);
    EXPECT_EQ(m.threads, 128);
    EXPECT_FALSE(m.occupancy.registersKnown());
    EXPECT_EQ(m.occupancy.bySharedMemory, 6);
    EXPECT_EQ(m.occupancy.blocks, 6);
    EXPECT_EQ(m.occupancy.limiter, OccupancyLimiter::SharedMemory);
    EXPECT_NE(m.summary().find("6 blocks/SM (limited by shared memory)"), std::string::npos) << m.summary();
    EXPECT_EQ(m.occupancyLines()[0], "registers: not known before ptxas (open the PTX view, or Run)");
    // The plan (tilec plan) says the same.
    EXPECT_EQ(an->kernel(0)->budget.blocksPerSm, 6);

    setBudgetRegisters(m, 96, "ptxas");
    EXPECT_EQ(m.occupancy.byRegisters, 5);
    EXPECT_EQ(m.occupancy.blocks, 5);
    EXPECT_EQ(m.occupancy.limiter, OccupancyLimiter::Registers);
    EXPECT_NE(m.summary().find("5 blocks/SM (limited by registers: 96 per thread)"), std::string::npos)
        << m.summary();
    EXPECT_NE(m.occupancyLines()[0].find("<- the limit"), std::string::npos) << m.occupancyLines()[0];
}

TEST(BudgetView, BytesReadInKibibytes) {
    EXPECT_EQ(kibibytes(512), "512 B");
    EXPECT_EQ(kibibytes(49152), "48 KiB");
    EXPECT_EQ(kibibytes(232448), "227 KiB");
    EXPECT_EQ(kibibytes(40000), "39.1 KiB");
    EXPECT_EQ(kibibytes(1075), "1.0 KiB"); // rounded to a tenth, not truncated
    EXPECT_EQ(kibibytes(1126), "1.1 KiB");
}

} // namespace tb::views
