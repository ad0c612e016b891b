// The engine's CPU run and the run report that tilec and the app both show: a sample checked against its
// reference, a program without one described by its outputs, a run that cannot start, and the report's
// output lines (the tolerance, the first mismatch) for a GPU check.
#include "engine/run/CpuRun.h"

#include "CodegenTestSupport.h"
#include "engine/run/RunReport.h"

#include <gtest/gtest.h>
#include <string>

using namespace tb;
using namespace tb::codegen::test;

TEST(CpuRun, ASampleIsCheckedAgainstItsReferenceAndReportedOnce) {
    PlannedProgram p = planSample("01_elementwise_add.py", {{"M", "64"}, {"N", "96"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    run::CpuRunResult r = run::runOnCpu(*p.result);
    ASSERT_TRUE(r.executed) << r.error;
    EXPECT_TRUE(r.checked);
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.reference, "elementwise_add");
    ASSERT_EQ(r.outputs.size(), 1u);
    run::RunReport report = run::describeCpuRun(r);
    EXPECT_TRUE(report.ok && report.checked);
    EXPECT_EQ(report.headline.rfind("correct against 'elementwise_add' (CPU ", 0), 0u) << report.headline;
    ASSERT_FALSE(report.lines.empty());
    EXPECT_NE(report.lines.back().find("ok        max abs err"), std::string::npos) << report.lines.back();
    EXPECT_NE(run::cpuRunJson(r).find("\"reference\": \"elementwise_add\""), std::string::npos);
}

TEST(CpuRun, WithoutAReferenceTheOutputsAreDescribed) {
    PlannedProgram p = planTestProgram("fuzz_one_index_var.py");
    ASSERT_TRUE(p.ok()) << p.planErrors;
    run::CpuRunResult r = run::runOnCpu(*p.result);
    ASSERT_TRUE(r.executed) << r.error;
    EXPECT_FALSE(r.checked);
    EXPECT_NE(r.error.find("no naive reference"), std::string::npos);
    ASSERT_FALSE(r.statistics.empty());
    run::RunReport report = run::describeCpuRun(r);
    EXPECT_NE(report.headline.find("not checked"), std::string::npos);
    EXPECT_FALSE(report.ok); // nothing compared: not a pass
    EXPECT_NE(report.text().find(" min "), std::string::npos) << report.text();
}

TEST(CpuRun, AProgramThatDoesNotCompileDoesNotRun) {
    CompileOptions options;
    auto bad = compileTileProgram("bad.py", "import tilelang.language as T\nT.nope(\n", options);
    run::CpuRunResult r = run::runOnCpu(*bad);
    EXPECT_FALSE(r.executed);
    EXPECT_EQ(run::describeCpuRun(r).headline.rfind("did not run: ", 0), 0u);
}

TEST(RunReport, OutputLinesGiveTheToleranceAndTheFirstMismatch) {
    ComparisonResult c;
    c.maxAbsError = 0.5;
    c.maxRelError = 1;
    c.mismatches = 3;
    c.firstMismatch = {2, 7};
    c.actualAtMismatch = 0;
    c.expectedAtMismatch = 0.5;
    auto lines = run::outputCheckLines("C", c, 0.03, 0.03, "C_f (bfloat16)");
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_NE(lines[0].find("MISMATCH"), std::string::npos);
    EXPECT_NE(lines[0].find("(atol 0.03, rtol 0.03: C_f (bfloat16))"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[1], "    3 elements differ; first at [2, 7]: got 0, expected 0.5");
    run::GpuRunResult failed;
    failed.stage = run::GpuRunStage::Runner;
    failed.message = "cannot start tilebench-runner";
    EXPECT_EQ(run::describeGpuRun(failed).headline,
              "the GPU run failed at runner: cannot start tilebench-runner");
}

// TileLang's hand-warp-specialized GEMMs run their T.ws scopes in program order on the CPU, which their
// mbarrier protocol allows, and compute A @ B (checked against the naive GEMM the test names for them).
TEST(CpuRun, WarpSpecializedCorpusGemmsComputeTheProduct) {
    for (const char* name :
         {"barrierpipe_stage2", "copy_0_gemm_1", "copy_1_gemm_0", "copy_gemm_0_1", "softpipe_stage2"}) {
        SCOPED_TRACE(name);
        const std::string file = std::string("warp_specialize/example_warp_specialize_gemm_") + name + ".py";
        const std::string text =
            readFile(std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples/" + file) +
            "\n# tilebench-reference: gemm\n";
        PlannedProgram p = planProgram(file, text, {{"M", "192"}, {"N", "136"}, {"K", "200"}});
        ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
        run::CpuRunResult r = run::runOnCpu(*p.result);
        ASSERT_TRUE(r.executed) << r.error;
        EXPECT_TRUE(r.checked) << r.error;
        EXPECT_TRUE(r.ok) << run::describeCpuRun(r).text();
    }
}

// TileLang's flash decoding (a split kernel writing T.alloc_global workspaces, a combine kernel merging them
// by their log-sum-exp) computes attention: checked against the naive attention reference, whose K and V
// may be longer than Q, at a block multiple and with a ragged seqlen_q.
TEST(CpuRun, FlashDecodingComputesAttention) {
    const std::string file = "flash_decoding/example_mha_inference.py";
    const std::string text =
        readFile(std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples/" + file) +
        "\n# tilebench-reference: flash_attention\n";
    for (const char* seqlenQ : {"128", "200"}) {
        SCOPED_TRACE(seqlenQ);
        PlannedProgram p = planProgram(
            file, text,
            {{"batch", "1"}, {"heads", "2"}, {"seqlen_q", seqlenQ}, {"seqlen_kv", "512"}, {"dim", "64"}});
        ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
        run::CpuRunResult r = run::runOnCpu(*p.result);
        ASSERT_TRUE(r.executed) << r.error;
        EXPECT_TRUE(r.checked) << r.error;
        EXPECT_TRUE(r.ok) << run::describeCpuRun(r).text();
    }
}

// A GPU run whose CPU check could not finish is reported as not checked, not as wrong; a sampled check says
// how much it compared.
TEST(RunReport, AFailedOracleIsNotCheckedAndASampledCheckSaysWhatItCompared) {
    run::GpuRunResult failed;
    failed.ran = true;
    failed.stage = run::GpuRunStage::Oracle;
    failed.message = "the CPU executor failed";
    run::RunReport r = run::describeGpuRun(failed);
    EXPECT_EQ(r.headline.rfind("ran on the GPU; not checked: the CPU executor failed", 0), 0u) << r.headline;
    EXPECT_FALSE(r.ok);

    run::GpuRunResult sampled;
    sampled.ran = true;
    sampled.matches = true;
    sampled.stage = run::GpuRunStage::Done;
    sampled.oracleBackend = "jit";
    sampled.oracleBlocks = 256;
    sampled.gridBlocks = 8192;
    HostTensor out;
    out.data.assign(1000, 0.0);
    sampled.gpuParams.push_back(out);
    run::GpuOutputCheck check;
    check.name = "O";
    check.paramIndex = 0;
    check.checkedElements = 40;
    sampled.outputs.push_back(check);
    EXPECT_NE(
        run::describeGpuRun(sampled).headline.find("sampled: 256 of 8192 blocks, 40 of 1000 output elements"),
        std::string::npos)
        << run::describeGpuRun(sampled).headline;
}
