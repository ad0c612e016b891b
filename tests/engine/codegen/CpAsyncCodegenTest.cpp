// The program's own cp.async (T.ptx_cp_async) and its noinc mbarrier arrive (T.cp_async_barrier_noinc) in a
// T.ws producer (tests/engine/run/programs/ws_cp_async_gemm.py, FlashMLA's pattern): each copy is one
// cp.async of the width asked for, to the shared element under the buffer's planned layout; the arrive is
// cp.async.mbarrier.arrive.noinc on the stage's mbarrier; on the hopper backend the consumer fences what it
// waited for to the async proxy before wgmma reads it; the code compiles with NVRTC for sm_90a on both
// backends; on sm_80 the mbarriers are a diagnostic; and the bank analysis says it does not model them.
#include "engine/gpu/Nvrtc.h"
#include "tests/engine/codegen/CodegenTestSupport.h"

#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

namespace tb::codegen::test {
namespace {

const char* kProgram = "ws_cp_async_gemm.py";

std::string cudaOf(const PlannedProgram& p) {
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    EXPECT_TRUE(code.ok) << errors;
    return code.ok ? code.units.at(0).source : std::string();
}

// The program's CUDA compiles with NVRTC for sm_90a, and for sm_80 too on the portable backend (nothing to
// check without NVRTC in the build).
void expectCompilesForItsArchitectures(const PlannedProgram& p, Backend backend) {
    if (gpu::nvrtcVersionString().empty())
        return;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    EXPECT_EQ(nvrtcFailures(code, "sm_90a"), "");
    if (backend == Backend::Portable) {
        EXPECT_EQ(nvrtcFailures(code, "sm_80"), "");
    }
}

TEST(CpAsyncCodegen, EachCopyIsOneCpAsyncAndTheArriveIsNoinc) {
    PlannedProgram p = planInterpreterProgram(kProgram);
    ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics();
    const std::string cuda = cudaOf(p);
    // The helpers are in the header of this unit (and only where a kernel uses them).
    EXPECT_NE(cuda.find("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];"), std::string::npos);
    EXPECT_NE(cuda.find("cp.async.ca.shared.global [%0], [%1], 8;"), std::string::npos);
    // B: 16 bytes per thread through L1-bypassing cp.async.cg; A: the zero-filling form with its predicate.
    EXPECT_EQ(countOf(cuda, "tb_cp_async_16(tb_smem_addr(&B_shared["), 1u) << cuda;
    EXPECT_EQ(countOf(cuda, "tb_cp_async_16_fill(tb_smem_addr(&A_shared["), 1u) << cuda;
    EXPECT_NE(cuda.find(") ? 16 : 0); // T.ptx_cp_async: 16 bytes into A_shared"), std::string::npos) << cuda;
    EXPECT_EQ(countOf(cuda, "tb_cp_async_mbarrier_arrive_noinc((ready + 8 * ("), 1u) << cuda;
    // The producer and the consumer run concurrently, ordered by the mbarriers.
    EXPECT_NE(cuda.find("T.ws scopes run concurrently"), std::string::npos) << cuda;
    // The copies are waited for on the mbarrier, not by cp.async.wait_group, and no block barrier stands
    // between a copy and its arrive.
    const size_t first = cuda.find("tb_cp_async_16_fill(tb_smem_addr");
    const size_t arrive = cuda.find("tb_cp_async_mbarrier_arrive_noinc((");
    ASSERT_LT(first, arrive);
    const std::string between = cuda.substr(first, arrive - first);
    EXPECT_EQ(between.find("tb_cp_async_wait"), std::string::npos) << between;
    EXPECT_EQ(between.find("barrier_sync"), std::string::npos) << between;
    EXPECT_EQ(between.find("__syncthreads"), std::string::npos) << between;
    // Portable: mma.sync reads through the generic proxy, no fence after the wait.
    EXPECT_EQ(cuda.find("the cp.async data it waited for"), std::string::npos);
}

TEST(CpAsyncCodegen, OnHopperTheConsumerFencesWhatItWaitedForBeforeWgmma) {
    PlannedProgram p = planInterpreterProgram(kProgram, {}, Backend::Hopper);
    ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics();
    const std::string cuda = cudaOf(p);
    EXPECT_EQ(p.plan().kernels.at(0).gemms.at(0).instruction.kind, layout::GemmInstructionKind::Wgmma);
    const size_t wait = cuda.find("tb_mbarrier_wait((ready + 8 * (");
    ASSERT_NE(wait, std::string::npos) << cuda;
    const size_t waitLine = cuda.rfind('\n', wait);
    const std::string next = cuda.substr(waitLine, cuda.find('\n', cuda.find('\n', wait) + 1) - waitLine);
    EXPECT_NE(next.find("tb_mbarrier_wait("), std::string::npos) << next;
    EXPECT_NE(next.find("tb_fence_proxy_async(); // the cp.async data it waited for"), std::string::npos)
        << next;
    // The waits on `free` (released by plain arrives, nothing to fence) have no such fence.
    EXPECT_EQ(countOf(cuda, "the cp.async data it waited for"), 1u) << cuda;
}

TEST(CpAsyncCodegen, TheShapeOfEachCopyFollowsItsWidth) {
    // vec=4 halves are 8 bytes (cp.async.ca), vec=2 are 4.
    for (auto [vec, helper] : {std::pair{"4", "tb_cp_async_8("}, std::pair{"2", "tb_cp_async_4("}}) {
        SCOPED_TRACE(vec);
        PlannedProgram p = planInterpreterProgram(kProgram, {{"vec", vec}});
        ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics();
        const std::string cuda = cudaOf(p);
        EXPECT_NE(cuda.find(std::string(helper) + "tb_smem_addr(&B_shared["), std::string::npos) << cuda;
        EXPECT_EQ(cuda.find("tb_cp_async_16(tb_smem_addr"), std::string::npos);
    }
}

TEST(CpAsyncCodegen, ItCompilesForSm90aOnBothBackends) {
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    for (Backend backend : {Backend::Portable, Backend::Hopper})
        for (const char* vec : {"8", "2"}) {
            SCOPED_TRACE(std::string(backend == Backend::Hopper ? "hopper" : "portable") + " vec=" + vec);
            PlannedProgram p = planInterpreterProgram(kProgram, {{"vec", vec}}, backend);
            ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics();
            std::string errors;
            CudaKernelSource code = generateFor(p, errors);
            ASSERT_TRUE(code.ok) << errors;
            EXPECT_EQ(nvrtcFailures(code, "sm_90a"), "");
        }
}

// Copies at starts a loop computes (tests/engine/codegen/programs/runtime_copy_starts.py): where the
// swizzle repeats at the start's known multiple they are 16-byte cp.async like constant-start copies, where
// it does not they go element by element; what the bank analysis says (SamplesBankTest) is the same, and
// the code compiles on both backends for every architecture they emit for.
TEST(CpAsyncCodegen, RunTimeStartsVectorizeWhereTheSwizzleRepeats) {
    for (Backend backend : {Backend::Portable, Backend::Hopper}) {
        SCOPED_TRACE(backend == Backend::Hopper ? "hopper" : "portable");
        PlannedProgram p = planTestProgram("runtime_copy_starts.py", {}, backend);
        ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics();
        const std::string cuda = cudaOf(p);
        EXPECT_NE(cuda.find("// T.copy(A -> A_shared): cp.async.cg 16 B, 4 per thread (line 21)"),
                  std::string::npos)
            << cuda;
        EXPECT_NE(cuda.find("// T.copy(B -> B_shared): cp.async.cg 16 B, 2 per thread (line 23)"),
                  std::string::npos)
            << cuda;
        EXPECT_NE(cuda.find("// T.copy(A -> A_shared), element by element: 16 elements per thread (line 26)"),
                  std::string::npos)
            << cuda;
        expectCompilesForItsArchitectures(p, backend);
    }
}

// Rows of 24 vectors (head dim 192 in fp16): TileLang's PlanLoopPartition deals them to threads in flat
// order, which bit fields cannot express; the copies are 16-byte cp.async with the partition's division and
// remainder (BitFitTest), not ownership-guarded loops over the whole tile, and the code compiles.
TEST(CpAsyncCodegen, RowsOfTwentyFourVectorsAreCopiedAsVectors) {
    PlannedProgram p = planSample("06_flash_attention.py", {{"dim", "192"}, {"seq_len", "256"}});
    ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics();
    const std::string cuda = cudaOf(p);
    EXPECT_EQ(cuda.find("ownership-guarded"), std::string::npos) << cuda;
    for (const char* copy : {"// T.copy(Q -> Q_shared): cp.async.cg 16 B, 12 per thread",
                             "// T.copy(K -> K_shared): cp.async.cg 16 B, 12 per thread",
                             "// T.copy(V -> V_shared): cp.async.cg 16 B, 12 per thread"})
        EXPECT_NE(cuda.find(copy), std::string::npos) << copy << "\n" << cuda;
    EXPECT_NE(cuda.find("% 192)"), std::string::npos) << cuda;
    expectCompilesForItsArchitectures(p, Backend::Portable);
}

// Tiles whose vectors leave the last round of threads partial (tests/engine/codegen/programs/
// partial_partition.py, 384 threads): the copies are 16-byte cp.async and the loops skip the slots past the
// tile, where they used to loop over the whole tile in every thread; the code compiles on both backends.
TEST(CpAsyncCodegen, APartialLastRoundKeepsVectorsAndSkipsEmptySlots) {
    for (Backend backend : {Backend::Portable, Backend::Hopper}) {
        SCOPED_TRACE(backend == Backend::Hopper ? "hopper" : "portable");
        PlannedProgram p = planTestProgram("partial_partition.py", {}, backend);
        ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics();
        const std::string cuda = cudaOf(p);
        EXPECT_EQ(cuda.find("ownership-guarded"), std::string::npos) << cuda;
        EXPECT_NE(cuda.find("// T.copy(A -> tile): cp.async.cg 16 B, 11 per thread"), std::string::npos)
            << cuda;
        EXPECT_NE(cuda.find("if (!((((r / 8) * 384 + tx) * 8 + r % 8) < 32768)) continue; // past the tile"),
                  std::string::npos)
            << cuda;
        expectCompilesForItsArchitectures(p, backend);
    }
}

TEST(CpAsyncCodegen, OnSm80TheMbarriersAreADiagnostic) {
    CompileOptions options;
    options.target = targetSm80();
    auto result = compileTileProgram(
        kProgram, readFile(std::string(TILEBENCH_TESTS_DIR) + "/engine/run/programs/" + kProgram), options);
    EXPECT_FALSE(result->ok());
    EXPECT_NE(result->formattedDiagnostics().find("codegen-mbarrier-target"), std::string::npos)
        << result->formattedDiagnostics();
}

TEST(CpAsyncCodegen, TheBankAnalysisSaysItDoesNotModelTheCopies) {
    PlannedProgram p = planInterpreterProgram(kProgram);
    ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics();
    int skipped = 0;
    for (const Diagnostic& d : p.result->diagnostics.diagnostics())
        if (d.code == "bank-analysis-skipped" && d.message.find("T.ptx_cp_async into") != std::string::npos)
            ++skipped;
    EXPECT_EQ(skipped, 2) << p.result->formattedDiagnostics();
}

} // namespace
} // namespace tb::codegen::test
