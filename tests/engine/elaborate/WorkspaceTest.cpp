// T.alloc_global workspaces: global memory of the whole prim_func, whether the program allocates it before
// its kernels (TileLang's split/combine programs) or inside one; listed by the IR printer and the IR JSON,
// checked by the verifier. Also the element-wise loop a T.copy between fragments of different shapes
// elaborates to.
#include "ElaborateTestSupport.h"
#include "engine/ir/IrJson.h"
#include "engine/ir/Printer.h"
#include "engine/ir/Verifier.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace tb::test {
namespace {

const char* kSplitCombine = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def split_combine(M=128, parts=4):

    @T.prim_func
    def main(A: T.Tensor((parts, M), "float32"), Out: T.Tensor((M,), "float32")):
        partial = T.alloc_global((parts, M), "float16")
        with T.Kernel(parts, threads=128) as bx:
            for i in T.Parallel(M):
                partial[bx, i] = A[bx, i] * 2.0
        with T.Kernel(1, threads=128) as bx:
            scratch = T.alloc_global((M,), "float32")
            acc = T.alloc_fragment((M,), "float32")
            T.clear(acc)
            for p in T.serial(parts):
                for i in T.Parallel(M):
                    acc[i] += partial[p, i]
            T.copy(acc, scratch)
            T.copy(scratch, Out)

    return main
)";

bool allocatedInAKernel(const Elaborated& e, const ir::Buffer* b) {
    for (const ir::Stmt* k : collect(e.module->funcs[0].body, ir::StmtKind::Kernel))
        if (std::find(k->allocations.begin(), k->allocations.end(), b) != k->allocations.end())
            return true;
    return false;
}

TEST(Workspaces, AllocGlobalBeforeAndInsideKernelsIsAWorkspaceOfThePrimFunc) {
    auto e = elaborateText(kSplitCombine);
    ASSERT_TRUE(e->module) << e->report();
    const ir::PrimFunc& f = e->module->funcs[0];
    ASSERT_EQ(f.workspaces.size(), 2u);
    EXPECT_EQ(f.workspaces[0], e->buffer("partial"));
    EXPECT_EQ(f.workspaces[1], e->buffer("scratch"));
    for (const ir::Buffer* w : f.workspaces) {
        EXPECT_EQ(w->scope, ir::MemoryScope::Global);
        EXPECT_EQ(w->paramIndex, -1);
        EXPECT_FALSE(allocatedInAKernel(*e, w)) << w->name;
    }
    EXPECT_EQ(f.params.size(), 2u);
    EXPECT_TRUE(allocatedInAKernel(*e, e->buffer("acc")));
    DiagnosticEngine verify;
    EXPECT_TRUE(ir::verifyModule(*e->module, verify));

    // The listing shows them under the signature, before the kernels; the JSON lists them per function.
    const std::string listing = ir::printModule(*e->module);
    const size_t partial = listing.find("\n  workspace partial: global float16[4, 128]\n");
    const size_t scratch = listing.find("\n  workspace scratch: global float32[128]\n");
    EXPECT_NE(partial, std::string::npos) << listing;
    EXPECT_NE(scratch, std::string::npos) << listing;
    EXPECT_LT(scratch, listing.find("kernel grid(")) << listing;
    const std::string json = ir::moduleToJson(*e->module, nullptr, false);
    EXPECT_NE(json.find("\"workspaces\":[{\"id\":"), std::string::npos) << json.substr(0, 2000);
}

TEST(Workspaces, TheVerifierRejectsAGlobalBufferThatIsNeitherParameterNorWorkspace) {
    auto e = elaborateText(kSplitCombine);
    ASSERT_TRUE(e->module) << e->report();
    e->module->funcs[0].workspaces.pop_back(); // 'scratch' is still used by the combine kernel
    DiagnosticEngine verify;
    EXPECT_FALSE(ir::verifyModule(*e->module, verify));
    ASSERT_FALSE(verify.diagnostics().empty());
    EXPECT_NE(verify.diagnostics()[0].message.find(
                  "global buffer 'scratch' is neither a parameter nor a workspace"),
              std::string::npos)
        << verify.diagnostics()[0].message;
}

TEST(Workspaces, OnChipMemoryOutsideAKernelIsStillAnError) {
    auto e = elaborateText(R"(import tilelang
import tilelang.language as T


@tilelang.jit
def f(n=64):

    @T.prim_func
    def main(A: T.Tensor((n,), "float32")):
        tile = T.alloc_shared((n,), "float32")
        with T.Kernel(1, threads=64) as bx:
            T.copy(A, tile)

    return main
)");
    EXPECT_EQ(e->codes(), std::vector<std::string>{"kernel-outside-kernel@10:16"}) << e->report();
}

// TileLang lowers T.copy(lse_local[k, :], lse_local_split) to the element-wise parallel loop over the
// region's non-unit dims, each element cast to the destination's dtype.
TEST(Workspaces, CopyBetweenFragmentsOfDifferentShapesIsAnElementwiseParallelLoop) {
    auto e = elaborateText(R"(import tilelang
import tilelang.language as T


@tilelang.jit
def f(parts=4, block=128):

    @T.prim_func
    def main(A: T.Tensor((parts, block), "float16"), Out: T.Tensor((block,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            many = T.alloc_fragment((parts, block), "float16")
            one = T.alloc_fragment((block,), "float32")
            T.copy(A, many)
            for k in T.serial(parts):
                T.copy(many[k, :], one)
                T.copy(one, Out)
            T.copy(many[1, 2:3], one[5:6])

    return main
)");
    ASSERT_TRUE(e->module) << e->report();
    const std::string listing = ir::printModule(*e->module);
    EXPECT_NE(listing.find("      for i in parallel(128):\n"
                           "        one[i] = float32(many[k, i])\n"),
              std::string::npos)
        << listing;
    // A single element: a loop of one iteration at the regions' corners.
    EXPECT_NE(listing.find("    for i_1 in parallel(1):\n"
                           "      one[5] = float32(many[1, 2])\n"),
              std::string::npos)
        << listing;
    EXPECT_EQ(collect(e->module->funcs[0].body, ir::StmtKind::Copy).size(), 2u); // A in, one out
}

} // namespace
} // namespace tb::test
