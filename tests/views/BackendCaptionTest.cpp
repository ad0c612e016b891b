// The caption every canvas shows: the backend that planned the kernel and the instruction it issues, from
// the plan itself (the same GEMM planned by each backend).
#include "views/model/BackendCaption.h"

#include "ViewTestSupport.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::views {

TEST(BackendCaption, PortableGemmIsMmaSync) {
    auto a = test::analyzeSample("gemm_relu", Backend::Portable);
    ASSERT_TRUE(a && a->plan) << (a ? a->compile->formattedDiagnostics() : "");
    EXPECT_EQ(backendCaption(a->compile->backend, a->plan->target, *a->kernel(0)),
              "portable backend: mma.sync m16n8k16");
}

TEST(BackendCaption, HopperGemmIsWgmmaWithTheWarpgroupAtom) {
    auto a = test::analyzeSample("gemm_relu", Backend::Hopper);
    ASSERT_TRUE(a && a->plan) << (a ? a->compile->formattedDiagnostics() : "");
    const layout::GemmPlan& gemm = a->kernel(0)->gemms.at(0);
    ASSERT_EQ(gemm.instruction.kind, layout::GemmInstructionKind::Wgmma);
    // One warpgroup owns the 128x128 tile: wgmma's N is the tile's 128 columns (the grid's atom).
    EXPECT_EQ(gemm.grid.atomN, 128);
    EXPECT_EQ(gemmInstructionCaption(gemm), "wgmma m64n128k16");
    EXPECT_EQ(backendCaption(a->compile->backend, a->plan->target, *a->kernel(0)),
              "hopper backend (sm_90a): wgmma m64n128k16");
}

TEST(BackendCaption, KernelWithoutGemmNamesItsBulkCopies) {
    auto a = test::analyzeSample("elementwise_add", Backend::Portable);
    ASSERT_TRUE(a && a->plan) << (a ? a->compile->formattedDiagnostics() : "");
    const std::string caption = backendCaption(a->compile->backend, a->plan->target, *a->kernel(0));
    EXPECT_EQ(caption.rfind("portable backend: no gemm", 0), 0u) << caption;
}

} // namespace tb::views
