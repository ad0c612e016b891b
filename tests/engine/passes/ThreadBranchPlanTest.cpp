// How the layout passes plan what TileLang plans by the threads an op runs on: a branch over the thread
// index is a warpgroup scope, a gemm that wgmma would issue keeps wgmma's warps when mma.sync issues it,
// and the free level lets loops follow a known fragment before it hands out default partitions.
#include "engine/target/Target.h"
#include "tests/engine/passes/PassTestSupport.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace tb::passtest {
namespace {

std::unique_ptr<Planned> planOn(const std::string& text, const Target& target, Backend backend) {
    return planTextOn("test.py", text, target, backend);
}

// A 256-thread block whose first warpgroup runs a 64x64 gemm and whose second loads the operands: the
// shape of TileLang's hand-specialized Hopper kernels (`tx = T.get_thread_binding(); if tx < 128: ...`).
const char* const kBranchOverThreads = R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=256) as bx:
        A_shared = T.alloc_shared((64, 64), "float16")
        B_shared = T.alloc_shared((64, 64), "float16")
        C_local = T.alloc_fragment((64, 64), "float32")
        tx = T.get_thread_binding()
        if tx >= 128:
            T.copy(A, A_shared)
            T.copy(B, B_shared)
        else:
            T.clear(C_local)
            T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C)
)";

TEST(ThreadBranch, BranchesOverWholeWarpgroupsAreWarpgroupScopes) {
    auto p = planOn(kBranchOverThreads, targetSm90a(), Backend::Hopper);
    ASSERT_FALSE(hasErrors(*p)) << p->diagnosticsText();
    std::vector<const ir::Stmt*> scopes = warpGroupScopesOf(p->kernel());
    ASSERT_EQ(scopes.size(), 2u);
    EXPECT_EQ(scopes[0]->firstThread, 128); // the then branch: tx >= 128
    EXPECT_EQ(scopes[1]->firstThread, 0);   // the else branch
    EXPECT_EQ(scopes[1]->threadCount, 128);
    // The gemm is planned over the 4 warps of its branch, as TileLang plans it over the branch's threads.
    const layout::GemmPlan& gemm = p->kernel().gemms.at(0);
    EXPECT_EQ(gemm.grid.mWarp * gemm.grid.nWarp, 4);
    EXPECT_EQ(p->kernel().threadsOf(gemm.gemm), 128);
}

TEST(ThreadBranch, EveryWayOfWritingTheRangeGivesTheSameScopes) {
    for (const char* condition : {"128 <= tx", "127 < tx", "tx > 127", "128 <= tx < 256", "not tx < 128"}) {
        std::string text = kBranchOverThreads;
        text.replace(text.find("tx >= 128"), 9, condition);
        auto p = planOn(text, targetSm90a(), Backend::Hopper);
        std::vector<const ir::Stmt*> scopes = warpGroupScopesOf(p->kernel());
        if (std::string(condition).rfind("not", 0) == 0) {
            EXPECT_TRUE(scopes.empty()) << condition << ": a negation stays an if";
            continue;
        }
        ASSERT_FALSE(hasErrors(*p)) << condition << "\n" << p->diagnosticsText();
        ASSERT_EQ(scopes.size(), 2u) << condition;
        EXPECT_EQ(scopes[0]->firstThread, 128) << condition;
        EXPECT_EQ(scopes[0]->threadCount, 128) << condition;
        EXPECT_EQ(scopes[1]->firstThread, 0) << condition;
    }
}

TEST(ThreadBranch, OtherConditionsStayAnIf) {
    // 32 threads are not a warpgroup: the branch stays a run-time if over the whole block.
    std::string text = kBranchOverThreads;
    text.replace(text.find("tx >= 128"), 9, "tx >= 32 ");
    auto p = planOn(text, targetSm90a(), Backend::Hopper);
    std::vector<const ir::Stmt*> scopes = warpGroupScopesOf(p->kernel());
    EXPECT_TRUE(scopes.empty());
    ASSERT_FALSE(p->kernel().gemms.empty()) << p->diagnosticsText();
    EXPECT_EQ(p->kernel().threadsOf(p->kernel().gemms[0].gemm), 256);
}

// A per-thread scalar that the whole block sets (a count read from global memory) serves either branch: every
// thread has its own. A fragment cannot be shared that way (WarpGroupCodegenTest).
TEST(ThreadBranch, APerThreadScalarSetByTheBlockServesEveryScope) {
    std::string text = kBranchOverThreads;
    text.replace(text.find("        tx = T.get_thread_binding()\n"), 0,
                 "        n = T.alloc_var(\"int32\")\n        n = 2\n");
    text.replace(
        text.find("            T.copy(C_local, C)\n"), 0,
        "            for i, j in T.Parallel(64, 64):\n                C_local[i, j] = C_local[i, j] * n\n");
    text.replace(text.find("            T.copy(B, B_shared)\n"), 0,
                 "            if n > 1:\n                T.copy(A, B_shared)\n");
    auto p = planOn(text, targetSm90a(), Backend::Hopper);
    EXPECT_FALSE(hasErrors(*p)) << p->diagnosticsText();
    EXPECT_EQ(p->diagnosticsText().find("fragment-across-warp-groups"), std::string::npos);
}

const char* const kGemm64 = R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_shared = T.alloc_shared((64, 64), "float16")
        B_shared = T.alloc_shared((64, 64), "float16")
        C_local = T.alloc_fragment((64, 64), "float32")
        T.copy(A, A_shared)
        T.copy(B, B_shared)
        T.clear(C_local)
        T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C)
)";

TEST(WgmmaShapedMma, MmaSyncKeepsWgmmasWarpsWhereTheDeviceWouldIssueWgmma) {
    auto wgmma = planOn(kGemm64, targetSm90a(), Backend::Hopper);
    auto portable = planOn(kGemm64, targetSm90a(), Backend::Portable);
    auto ampere = planOn(kGemm64, targetSm80(), Backend::Portable);
    for (const Planned* p : {wgmma.get(), portable.get(), ampere.get()})
        ASSERT_FALSE(hasErrors(*p)) << p->diagnosticsText();
    const layout::GemmPlan& w = wgmma->kernel().gemms.at(0);
    const layout::GemmPlan& m = portable->kernel().gemms.at(0);
    EXPECT_EQ(w.grid.instruction, layout::GemmInstructionKind::Wgmma);
    EXPECT_EQ(m.grid.instruction, layout::GemmInstructionKind::MmaSync);
    // One warpgroup over 64 rows: four warps of 16 rows, whose mma.sync accumulator is wgmma's.
    EXPECT_EQ(m.grid.mWarp, 4);
    EXPECT_EQ(m.grid.nWarp, 1);
    EXPECT_TRUE(equalFragments(w.fragmentC, m.fragmentC)) << w.fragmentC.toString() << "\n"
                                                          << m.fragmentC.toString();
    // On sm_80 nothing would issue wgmma: Square is 2x2.
    const layout::GemmPlan& a = ampere->kernel().gemms.at(0);
    EXPECT_EQ(a.grid.mWarp, 2);
    EXPECT_EQ(a.grid.nWarp, 2);
}

// A row vector copied in from shared memory and combined with a reduction's result: the loop that reads
// both follows the reduction, and the copy then follows the loop, instead of the copy taking a default
// partition that the loop could not use.
const char* const kRowMaxFromShared = R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16"), M: T.Tensor((64,), "float32"),
         S: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_shared = T.alloc_shared((64, 64), "float16")
        B_shared = T.alloc_shared((64, 64), "float16")
        row_max = T.alloc_shared((64,), "float32")
        acc = T.alloc_fragment((64, 64), "float32")
        prev = T.alloc_fragment((64,), "float32")
        cur = T.alloc_fragment((64,), "float32")
        scale = T.alloc_fragment((64,), "float32")
        T.copy(A, A_shared)
        T.copy(B, B_shared)
        T.copy(M, row_max)
        T.clear(acc)
        T.gemm(A_shared, B_shared, acc, transpose_B=True)
        T.copy(row_max, prev)
        T.reduce_max(acc, cur, dim=1)
        for i in T.Parallel(64):
            scale[i] = T.exp2(prev[i] - cur[i])
        T.copy(scale, S)
)";

TEST(FreeLevel, LoopsFollowAKnownFragmentBeforeDefaultsAreTaken) {
    for (Backend backend : {Backend::Hopper, Backend::Portable}) {
        auto p = planOn(kRowMaxFromShared, targetSm90a(), backend);
        ASSERT_FALSE(hasErrors(*p)) << p->diagnosticsText();
        const layout::FragmentPlan* prev = fragmentNamed(p->kernel(), "prev");
        const layout::FragmentPlan* cur = fragmentNamed(p->kernel(), "cur");
        ASSERT_TRUE(prev && cur);
        EXPECT_TRUE(equalFragments(prev->fragment, cur->fragment)) << prev->fragment.toString() << "\n"
                                                                   << cur->fragment.toString();
        EXPECT_EQ(prev->fragment.replicateExtent(), 4); // the quad of the reduction, not a default partition
    }
}

} // namespace
} // namespace tb::passtest
