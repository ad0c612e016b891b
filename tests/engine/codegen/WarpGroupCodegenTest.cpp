// TileLang's hand-warp-specialized GEMMs (tests/corpus/tilelang-examples/warp_specialize): T.ws scopes become
// branches over their warpgroups with scope-local thread ids, the plan partitions each scope's tile ops over
// that scope's threads only, the mbarriers are initialized in the shared arena and waited and arrived on as
// the program says, synchronization inside a scope is a named barrier over its threads, and the code compiles
// with NVRTC for sm_90a on both backends. What cannot work (one fragment in two scopes, mbarriers on sm_80)
// is a diagnostic.
#include "engine/gpu/Nvrtc.h"
#include "tests/engine/codegen/CodegenTestSupport.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::codegen::test {
namespace {

const std::vector<std::string>& warpSpecializedGemms() {
    static const std::vector<std::string> names = {"barrierpipe_stage2", "copy_0_gemm_1", "copy_1_gemm_0",
                                                   "copy_gemm_0_1", "softpipe_stage2"};
    return names;
}

std::string corpusFile(const std::string& name) {
    return "warp_specialize/example_warp_specialize_gemm_" + name + ".py";
}

std::string cudaOf(const PlannedProgram& p) {
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    EXPECT_TRUE(code.ok) << errors;
    return code.ok ? code.units.at(0).source : std::string();
}

TEST(WarpGroupCodegen, EachScopeRunsOnItsWarpgroupWithLocalThreadIds) {
    PlannedProgram p =
        planCorpusProgram(corpusFile("copy_0_gemm_1"), {{"M", "256"}, {"N", "256"}, {"K", "256"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    const std::string cuda = cudaOf(p);
    // T.ws(0) is the producer (threads 0..127), T.ws(1) the consumer with the gemm and the epilogue.
    EXPECT_EQ(countOf(cuda, "if (tx >= 0 && tx < 128)"), 1u) << cuda;
    EXPECT_EQ(countOf(cuda, "if (tx >= 128 && tx < 256)"), 3u) << cuda;
    EXPECT_NE(cuda.find("= tx - 128;"), std::string::npos);
    // The gemm is partitioned over the consumer warpgroup's 4 warps, not the block's 8.
    const layout::KernelPlan& k = p.plan().kernels.at(0);
    ASSERT_EQ(k.gemms.size(), 1u);
    EXPECT_EQ(k.gemms[0].grid.mWarp * k.gemms[0].grid.nWarp, 4);
    const layout::FragmentPlan* acc = k.fragmentOf(k.gemms[0].gemm->c.buffer);
    ASSERT_NE(acc, nullptr);
    EXPECT_EQ(acc->fragment.threadExtent(), 128);
    EXPECT_EQ(k.threadsOf(k.gemms[0].gemm), 128);
}

TEST(WarpGroupCodegen, TheProgramsMbarriersAreInitializedWaitedAndArrivedOn) {
    PlannedProgram p =
        planCorpusProgram(corpusFile("barrierpipe_stage2"), {{"M", "256"}, {"N", "256"}, {"K", "512"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    const std::string cuda = cudaOf(p);
    // mbarrier_list = [128, 128] * 2: four mbarriers of 128 arrivals, 8 bytes apart in the arena.
    for (const char* init : {"tb_mbarrier_init(mbars + 0, 128);", "tb_mbarrier_init(mbars + 24, 128);"})
        EXPECT_NE(cuda.find(init), std::string::npos) << init << "\n" << cuda;
    EXPECT_EQ(countOf(cuda, "tb_mbarrier_init(mbars"), 4u);
    EXPECT_EQ(countOf(cuda, "); // T.mbarrier_wait_parity"), 2u);
    EXPECT_EQ(countOf(cuda, "); // T.mbarrier_arrive"), 2u);
    const layout::SharedArena& arena = p.plan().kernels.at(0).schedule.arena;
    const ir::Buffer* mbars = nullptr;
    for (const layout::SharedArenaSlot& s : arena.slots)
        if (s.buffer->scope == ir::MemoryScope::Barrier)
            mbars = s.buffer;
    ASSERT_NE(mbars, nullptr) << "the mbarriers have a slot of the shared arena";
    EXPECT_EQ(arena.slotOf(mbars)->totalBytes(), 4 * 8);
    // The emitted address is the slot's offset: the arena the budget shows is the one the kernel uses.
    EXPECT_NE(cuda.find("mbars = tb_smem_s + " + std::to_string(arena.slotOf(mbars)->offset) + ";"),
              std::string::npos);
}

TEST(WarpGroupCodegen, SynchronizationInsideAScopeIsANamedBarrierOverItsThreads) {
    // copy_gemm_0_1: each scope copies its half of B and multiplies it; the copy and the gemm of one scope
    // are ordered among its own 128 threads, the block-wide copy of A and the scopes by __syncthreads.
    PlannedProgram p =
        planCorpusProgram(corpusFile("copy_gemm_0_1"), {{"M", "256"}, {"N", "256"}, {"K", "256"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    const std::string cuda = cudaOf(p);
    EXPECT_NE(cuda.find("tb_named_barrier_sync(2, 128);"), std::string::npos) << cuda;
    EXPECT_NE(cuda.find("tb_named_barrier_sync(3, 128);"), std::string::npos) << cuda;
    // No __syncthreads inside a scope (the other warpgroup would never reach it).
    size_t scope = cuda.find("// T.ws:");
    while (scope != std::string::npos) {
        size_t next = cuda.find("// T.ws:", scope + 1);
        size_t end = cuda.find("\n    }\n", scope); // the scope's branch closes at the loop body's indent
        std::string body = cuda.substr(scope, std::min(next, end) - scope);
        EXPECT_EQ(body.find("__syncthreads"), std::string::npos) << body;
        scope = next;
    }
}

// barrierpipe_stage2's producer waits for a stage to be released before it refills it: its scope and the
// consumer's run at the same time, synchronized once before them and not between them (a block barrier
// there would hold the consumer while the producer waits for it). copy_gemm_0_1's scopes use no mbarriers
// and keep the block barrier that orders them.
TEST(WarpGroupCodegen, ScopesOrderedByMbarriersRunConcurrently) {
    PlannedProgram p =
        planCorpusProgram(corpusFile("barrierpipe_stage2"), {{"M", "256"}, {"N", "256"}, {"K", "512"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    const std::string cuda = cudaOf(p);
    const size_t run = cuda.find("T.ws scopes run concurrently, ordered by the program's mbarriers");
    ASSERT_NE(run, std::string::npos) << cuda;
    const size_t producer = cuda.find("// T.ws: warpgroup(s) of threads 128..255", run);
    const size_t consumer = cuda.find("// T.ws: warpgroup(s) of threads 0..127", producer);
    ASSERT_NE(producer, std::string::npos);
    ASSERT_NE(consumer, std::string::npos);
    EXPECT_EQ(cuda.substr(producer, consumer - producer).find("__syncthreads"), std::string::npos)
        << cuda.substr(producer, consumer - producer);
    EXPECT_NE(cuda.rfind("__syncthreads", run), std::string::npos) << "one block barrier before the run";

    PlannedProgram plain =
        planCorpusProgram(corpusFile("copy_gemm_0_1"), {{"M", "256"}, {"N", "256"}, {"K", "256"}});
    ASSERT_TRUE(plain.ok()) << plain.planErrors;
    EXPECT_EQ(cudaOf(plain).find("run concurrently"), std::string::npos);
}

TEST(WarpGroupCodegen, TheHandPipelinedLoopRunsSerially) {
    PlannedProgram p =
        planCorpusProgram(corpusFile("softpipe_stage2"), {{"M", "256"}, {"N", "256"}, {"K", "256"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    bool warned = false;
    for (const Diagnostic& d : p.result->diagnostics.diagnostics())
        warned = warned || d.code == "pipeline-over-warp-groups";
    EXPECT_TRUE(warned) << "T.Pipelined(num_stages=2) over T.ws scopes says that it runs serially";
    EXPECT_TRUE(p.plan().kernels.at(0).schedule.pipelines.empty());
}

TEST(WarpGroupCodegen, EveryWarpSpecializedGemmCompilesForSm90aOnBothBackends) {
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    for (Backend backend : {Backend::Portable, Backend::Hopper})
        for (const std::string& name : warpSpecializedGemms()) {
            SCOPED_TRACE(name + (backend == Backend::Hopper ? " (hopper)" : " (portable)"));
            PlannedProgram p =
                planCorpusProgram(corpusFile(name), {{"M", "512"}, {"N", "512"}, {"K", "512"}}, backend);
            ASSERT_TRUE(p.ok()) << p.planErrors;
            std::string errors;
            CudaKernelSource code = generateFor(p, errors);
            ASSERT_TRUE(code.ok) << errors;
            EXPECT_EQ(nvrtcFailures(code, "sm_90a"), "");
            // On the hopper backend every one is wgmma, as in TileLang: one stage of a 3-D buffer the program
            // multi-buffers itself is a whole tile whose descriptors start at the stage's tile.
            const layout::GemmPlan& g = p.plan().kernels.at(0).gemms.at(0);
            if (backend == Backend::Hopper) {
                EXPECT_EQ(g.instruction.kind, layout::GemmInstructionKind::Wgmma) << g.instruction.reason;
            }
            if (backend == Backend::Hopper && name == "barrierpipe_stage2") {
                const std::string& cuda = code.units.at(0).source;
                size_t base = cuda.find("const unsigned desc_a = ");
                ASSERT_NE(base, std::string::npos) << cuda;
                EXPECT_NE(cuda.substr(base, cuda.find('\n', base) - base).find("tb_floormod<int>(ko, 2)"),
                          std::string::npos)
                    << "the stage index moves the descriptor";
            }
        }
}

const char* kFragmentInTwoScopes = R"(import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((128, 128), "float32"), B: T.Tensor((128, 128), "float32")):
    with T.Kernel(1, threads=256) as bx:
        acc = T.alloc_fragment((128, 128), "float32")
        with T.ws(0):
            T.copy(A, acc)
        with T.ws(1):
            T.copy(acc, B)
)";

TEST(WarpGroupCodegen, AFragmentUsedByTwoScopesIsADiagnostic) {
    PlannedProgram p = planProgram("two_scopes.py", kFragmentInTwoScopes);
    ASSERT_TRUE(p.result);
    EXPECT_FALSE(p.result->ok());
    EXPECT_NE(p.result->formattedDiagnostics().find("fragment-across-warp-groups"), std::string::npos)
        << p.result->formattedDiagnostics();
    EXPECT_NE(p.result->formattedDiagnostics().find("two_scopes.py:6:"), std::string::npos)
        << "names the allocation";
}

TEST(WarpGroupCodegen, MbarriersOnSm80AreADiagnostic) {
    CompileOptions options;
    options.target = targetSm80();
    options.elaborate.overrides = {{"M", "256"}, {"N", "256"}, {"K", "256"}};
    std::string file = corpusFile("copy_0_gemm_1");
    auto result = compileTileProgram(
        file, readFile(std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples/" + file), options);
    EXPECT_FALSE(result->ok());
    EXPECT_NE(result->formattedDiagnostics().find("codegen-mbarrier-target"), std::string::npos)
        << result->formattedDiagnostics();
}

} // namespace
} // namespace tb::codegen::test
