// What the views show is the kernel that runs: for every sample, the plan the views draw is the very plan
// object the compile line generated the CUDA from, and what the warp-partition and budget views state (the
// instruction, the warp grid and per-warp tile, the shared memory) is what the generated kernel does.
#include "ViewTestSupport.h"
#include "engine/catalog/SampleCatalog.h"
#include "views/model/BudgetViewModel.h"
#include "views/model/ProgramAnalysis.h"
#include "views/model/WarpPartitionViewModel.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::views {
namespace {

TEST(OnePlan, ViewsDrawThePlanTheCudaWasGeneratedFrom) {
    for (const SampleInfo& sample : listSamples()) {
        SCOPED_TRACE(sample.name);
        auto a = test::analyzeSample(sample.name, Backend::Portable);
        ASSERT_TRUE(a && a->ok()) << (a ? a->compile->formattedDiagnostics() : "");
        // The same object, not an equal copy: no second plan is computed anywhere.
        ASSERT_EQ(a->plan, a->compile->plan.get());
        ASSERT_TRUE(a->compile->cuda && a->compile->cuda->ok);
        const codegen::GeneratedUnit& unit = a->compile->cuda->units.at(0);
        ASSERT_EQ(unit.kernels.size(), a->plan->kernels.size());
        for (size_t k = 0; k < a->plan->kernels.size(); ++k) {
            const layout::KernelPlan& kernel = a->plan->kernels[k];
            // The budget view's bytes are the dynamic shared memory the kernel is launched with.
            BudgetViewModel budget = buildBudgetView(kernel, a->plan->target);
            EXPECT_EQ(budget.totalBytes, unit.kernels[k].launch.dynamicSharedBytes);
            EXPECT_EQ(kernel.schedule.arena.totalBytes, unit.kernels[k].launch.dynamicSharedBytes);
            // Each gemm the warp-partition view draws is emitted with that instruction and that warp grid.
            WarpPartitionViewModel warps = buildWarpPartitionView(kernel, a->sources());
            for (const GemmPartition& g : warps.gemms) {
                EXPECT_EQ(g.instruction.rfind("mma.sync", 0), 0u) << g.instruction;
                EXPECT_NE(unit.source.find("): " + g.instruction + ", " + g.grid + ", "), std::string::npos)
                    << "no gemm emitted as " << g.instruction << ", " << g.grid;
            }
        }
    }
}

TEST(OnePlan, ThePortablePlanOnSm90aSaysWhatTheDeviceWouldIssue) {
    auto a = test::analyzeSample("gemm_relu", Backend::Portable);
    ASSERT_TRUE(a && a->ok());
    ASSERT_EQ(a->compile->backend, Backend::Portable);
    const layout::GemmPlan& g = a->plan->kernels.at(0).gemms.at(0);
    EXPECT_EQ(g.instruction.kind, layout::GemmInstructionKind::MmaSync);
    EXPECT_NE(g.instruction.reason.find("wgmma m64n"), std::string::npos) << g.instruction.reason;
    EXPECT_NE(g.instruction.reason.find("emitting mma.sync: portable backend"), std::string::npos);
}

TEST(OnePlan, TheHopperBackendPlansWgmma) {
    auto a = test::analyzeSample("gemm_relu", Backend::Hopper);
    ASSERT_TRUE(a && a->plan) << a->compile->formattedDiagnostics();
    const layout::GemmPlan& g = a->plan->kernels.at(0).gemms.at(0);
    EXPECT_EQ(g.instruction.kind, layout::GemmInstructionKind::Wgmma);
    // The views draw the hopper backend's plan.
    WarpPartitionViewModel warps = buildWarpPartitionView(a->plan->kernels.at(0), a->sources());
    ASSERT_FALSE(warps.gemms.empty());
    EXPECT_EQ(warps.gemms[0].instruction.rfind("wgmma", 0), 0u);
}

} // namespace
} // namespace tb::views
