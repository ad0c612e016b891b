// A kernel with a grid barrier launches cooperatively: the plan says so (and `tilec plan` prints it), and a
// grid larger than blocks per SM x SMs of the target is an error saying how many blocks fit.
#include "engine/layout/plan/PlanPrinter.h"
#include "engine/target/Target.h"
#include "tests/engine/passes/PassTestSupport.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace tb::passtest {
namespace {

// `blocks` blocks of 256 threads, each with 64 KiB of shared memory (3 fit on an H200 SM by shared memory,
// 2 on an A100's 164 KiB).
std::string persistentKernel(int blocks) {
    return R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((1024, 8192), "float32"), B: T.Tensor((1024, 8192), "float32")):
    with T.Kernel()" +
           std::to_string(blocks) + R"(, threads=256) as bx:
        tile = T.alloc_shared((2, 8192), "float32")
        T.copy(A[bx * 2, 0], tile)
        T.sync_grid()
        T.copy(tile, B[bx * 2, 0])
)";
}

TEST(CooperativeLaunch, ThePlanSaysTheKernelLaunchesCooperatively) {
    auto p = planText("grid.py", persistentKernel(132), targetSm90a());
    ASSERT_FALSE(hasErrors(*p)) << p->diagnosticsText();
    const layout::CooperativeLaunchPlan& coop = p->kernel().cooperative;
    EXPECT_TRUE(coop.required);
    ASSERT_TRUE(coop.gridBlocks.has_value());
    EXPECT_EQ(*coop.gridBlocks, 132);
    EXPECT_EQ(p->kernel().budget.blocksPerSm, 3);
    EXPECT_EQ(coop.residentBlocks, 3 * 132);
    layout::PlanPrintOptions options;
    options.sources = &p->compiled->sources;
    const std::string text = layout::printPlanText(p->plan, options);
    EXPECT_NE(text.find("launch: cooperative (T.sync_grid at line 8): 132 blocks, all resident at once; at "
                        "most 396 fit (3 per SM x 132 SMs)"),
              std::string::npos)
        << text;
}

TEST(CooperativeLaunch, AKernelWithoutGridBarrierIsNotCooperative) {
    std::string text = persistentKernel(132);
    text.replace(text.find("T.sync_grid()"), 13, "pass");
    auto p = planText("grid.py", text, targetSm90a());
    ASSERT_FALSE(hasErrors(*p)) << p->diagnosticsText();
    EXPECT_FALSE(p->kernel().cooperative.required);
    EXPECT_EQ(layout::printPlanText(p->plan).find("cooperative"), std::string::npos);
}

TEST(CooperativeLaunch, AGridThatCannotBeResidentAtOnceIsAnError) {
    for (const Target& target : {targetSm90a(), targetSm80()}) {
        const int fit = target.smCount * (target.smVersion >= 90 ? 3 : 2);
        auto fits = planTextOn("grid.py", persistentKernel(fit), target, Backend::Portable);
        EXPECT_FALSE(hasErrors(*fits)) << target.name << fits->diagnosticsText();
        auto p = planTextOn("grid.py", persistentKernel(fit + 1), target, Backend::Portable);
        const std::string all = p->diagnosticsText();
        ASSERT_TRUE(hasErrors(*p)) << target.name;
        const Diagnostic* d = nullptr;
        for (const Diagnostic& x : p->diagnostics.diagnostics())
            if (x.code == "grid-not-co-resident")
                d = &x;
        ASSERT_NE(d, nullptr) << all;
        EXPECT_NE(d->message.find("all " + std::to_string(fit + 1) +
                                  " blocks of its grid must be resident at "
                                  "once, but " +
                                  target.name + " holds at most " + std::to_string(fit)),
                  std::string::npos)
            << d->message;
        EXPECT_NE(d->hint.find("driver.get_num_sms() gives " + std::to_string(target.smCount) + " SMs"),
                  std::string::npos)
            << d->hint;
        EXPECT_NE(all.find("grid.py:5:5: error"), std::string::npos) << all; // the T.Kernel
        ASSERT_EQ(d->notes.size(), 1u);
        EXPECT_EQ(d->notes[0].message, "the grid barrier");
    }
}

} // namespace
} // namespace tb::passtest
