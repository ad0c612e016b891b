// "The IR after each pass" (engine/pipeline/PassSnapshots.h): one non-empty snapshot per pipeline pass, in
// order, then codegen; links back to the tile program; passes after an error say they did not run.
#include "engine/pipeline/PassSnapshots.h"

#include "engine/pipeline/GeneratedArtifacts.h"
#include "tests/engine/codeviews/CodeViewsTestSupport.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace tb;

namespace {

// Whether some line linked to `tileLine` contains `needle`.
bool linkedLineContains(const PassSnapshot& s, int tileLine, const std::string& needle) {
    std::vector<std::string> lines = test::textLines(s.text);
    for (size_t i = 0; i < lines.size() && i < s.tileLines.size(); ++i)
        if (s.tileLines[i] == tileLine && lines[i].find(needle) != std::string::npos)
            return true;
    return false;
}

const PassSnapshot& find(const std::vector<PassSnapshot>& all, const std::string& pass) {
    for (const PassSnapshot& s : all)
        if (s.pass == pass)
            return s;
    static PassSnapshot none;
    ADD_FAILURE() << "no snapshot for " << pass;
    return none;
}

} // namespace

TEST(PassSnapshots, EveryPassOfEverySampleHasText) {
    for (const SampleInfo& sample : listSamples()) {
        auto result = test::compileSample(sample.name);
        ASSERT_TRUE(result && result->ok()) << sample.name;
        std::vector<PassSnapshot> snaps = passSnapshots(*result);
        ASSERT_EQ(snaps.size(), pipelinePasses().size()) << sample.name;
        for (size_t i = 0; i < pipelinePasses().size(); ++i)
            EXPECT_EQ(snaps[i].pass, pipelinePasses()[i].name);
        EXPECT_EQ(snaps.back().pass, "codegen");
        for (const PassSnapshot& s : snaps) {
            EXPECT_TRUE(s.ran) << sample.name << " " << s.pass;
            EXPECT_FALSE(s.text.empty()) << sample.name << " " << s.pass;
            EXPECT_EQ(s.text.back(), '\n');
            EXPECT_EQ(s.tileLines.size(), test::textLines(s.text).size()) << sample.name << " " << s.pass;
            EXPECT_EQ(s.text.find("(did not run"), std::string::npos) << sample.name << " " << s.pass;
        }
        // The codegen snapshot is generateCuda's text (through the same path tilec emit cuda uses); checked
        // on the two small samples, as generating twice is slow for the others in a debug build.
        if (sample.name != "gemm_relu" && sample.name != "elementwise_add")
            continue;
        GeneratedCuda cuda = generateCudaText(*result);
        ASSERT_TRUE(cuda.ok);
        EXPECT_EQ(snaps.back().text, cuda.text) << sample.name;
        EXPECT_EQ(snaps.back().tileLines, cuda.tileLines) << sample.name;
    }
}

TEST(PassSnapshots, GemmSectionsLinkToTheGemmLine) {
    auto result = test::compileSample("gemm_relu");
    ASSERT_TRUE(result && result->ok());
    std::vector<PassSnapshot> snaps = passSnapshots(*result);
    int gemm = test::sourceLineContaining(*result, "T.gemm(");
    int relu = test::sourceLineContaining(*result, "T.Parallel(");
    int copyA = test::sourceLineContaining(*result, "T.copy(A[");
    ASSERT_GT(gemm, 0);
    EXPECT_TRUE(linkedLineContains(find(snaps, "elaborate"), gemm, "gemm A_shared"));
    EXPECT_TRUE(linkedLineContains(find(snaps, "check"), gemm, "gemm A_shared"));
    // On sm_90a this gemm would be wgmma; the portable backend's plan says so, on the gemm's line.
    EXPECT_TRUE(linkedLineContains(find(snaps, "warp-partition"), gemm, "wgmma"));
    EXPECT_TRUE(linkedLineContains(find(snaps, "warp-partition"), gemm, "why:"));
    EXPECT_TRUE(linkedLineContains(find(snaps, "layout-inference"), gemm, "accumulator of gemm"));
    EXPECT_TRUE(linkedLineContains(find(snaps, "loop-planning"), relu, "parallel loop"));
    EXPECT_TRUE(linkedLineContains(find(snaps, "copy-planning"), copyA, "cp.async"));
    EXPECT_TRUE(linkedLineContains(find(snaps, "bank-analysis"), gemm, "B_shared"));
    EXPECT_TRUE(linkedLineContains(find(snaps, "codegen"), gemm, "tb_mma_f16("));
    // Sections hold only their pass's part of the plan.
    EXPECT_EQ(find(snaps, "warp-partition").text.find("parallel loop"), std::string::npos);
    EXPECT_EQ(find(snaps, "loop-planning").text.find("\n  gemm at line"), std::string::npos);
    EXPECT_NE(find(snaps, "warp-partition").text.find("\n  gemm at line"), std::string::npos);
    EXPECT_NE(find(snaps, "shared-memory-planning").text.find("blocks per SM"), std::string::npos);
    EXPECT_NE(find(snaps, "kernel-schedule").text.find("A_shared @ 0:"), std::string::npos);
    EXPECT_NE(find(snaps, "kernel-schedule").text.find("pipeline at line"), std::string::npos);
    EXPECT_EQ(find(snaps, "kernel-schedule").text.find("blocks per SM"), std::string::npos);
    EXPECT_EQ(find(snaps, "copy-planning").text.find("blocks per SM"), std::string::npos);
    EXPECT_NE(find(snaps, "shared-layouts").text.find("swizzle"), std::string::npos);
    // No reduction in this program: the section says so instead of being blank.
    EXPECT_NE(find(snaps, "reduce-planning").text.find("(nothing for this pass"), std::string::npos);
}

// The cooperative launch of a kernel with a grid barrier is planned with the budget: that section says it, on
// the barrier's line, and no other does.
TEST(PassSnapshots, TheBudgetSectionSaysTheKernelLaunchesCooperatively) {
    std::ifstream in(std::string(TILEBENCH_TESTS_DIR) + "/engine/codegen/programs/grid_barrier.py");
    std::stringstream text;
    text << in.rdbuf();
    auto result = compileTileProgram("grid_barrier.py", text.str());
    ASSERT_TRUE(result && result->ok()) << result->formattedDiagnostics();
    std::vector<PassSnapshot> snaps = passSnapshots(*result);
    const int barrier = test::sourceLineContaining(*result, "T.sync_grid()");
    ASSERT_GT(barrier, 0);
    EXPECT_TRUE(linkedLineContains(find(snaps, "shared-memory-planning"), barrier, "launch: cooperative"));
    EXPECT_TRUE(linkedLineContains(find(snaps, "elaborate"), barrier, "sync_grid"));
    EXPECT_EQ(find(snaps, "kernel-schedule").text.find("cooperative"), std::string::npos);
    EXPECT_EQ(find(snaps, "loop-planning").text.find("cooperative"), std::string::npos);
}

TEST(PassSnapshots, PassesAfterAnErrorDidNotRun) {
    // A shape error stops the pipeline at check: no layout passes, no code.
    std::string text = "import tilelang.language as T\n"
                       "@T.prim_func\n"
                       "def f(A: T.Tensor((64,), \"float32\"), B: T.Tensor((32,), \"float32\")):\n"
                       "    with T.Kernel(1, threads=32) as bx:\n"
                       "        T.copy(A, B)\n";
    auto result = compileTileProgram("bad.py", text);
    ASSERT_FALSE(result->ok());
    std::vector<PassSnapshot> snaps = passSnapshots(*result);
    ASSERT_EQ(snaps.size(), pipelinePasses().size());
    EXPECT_TRUE(find(snaps, "parse").ran);
    EXPECT_FALSE(find(snaps, "bank-analysis").ran);
    EXPECT_NE(find(snaps, "bank-analysis").text.find("did not run"), std::string::npos);
    EXPECT_FALSE(find(snaps, "codegen").ran);
    for (const PassSnapshot& s : snaps)
        EXPECT_FALSE(s.text.empty()) << s.pass;
}
