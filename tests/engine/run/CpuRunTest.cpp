// The engine's CPU run and the run report that tilec and the app both show: a sample checked against its
// reference, a program without one described by its outputs, a run that cannot start, and the report's
// output lines (the tolerance, the first mismatch) for a GPU check.
#include "engine/run/CpuRun.h"

#include "CodegenTestSupport.h"
#include "engine/run/RunReport.h"

#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

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

// TileLang's float8 GEMM with two accumulators (promoted every 128 of K) computes A @ B^T for e4m3fn and e5m2
// operands on both CPU executors, at a block-multiple and a ragged shape.
TEST(CpuRun, Float8CorpusGemmComputesTheProduct) {
    const std::string file = "gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py";
    const std::string text =
        readFile(std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples/" + file) +
        "\n# tilebench-reference: gemm_nt\n";
    for (const char* dtype : {"T.float8_e4m3fn", "T.float8_e5m2"})
        for (auto shape :
             {std::vector<std::pair<std::string, std::string>>{{"M", "256"}, {"N", "256"}, {"K", "512"}},
              std::vector<std::pair<std::string, std::string>>{{"M", "200"}, {"N", "136"}, {"K", "200"}}}) {
            shape.push_back({"dtype", dtype});
            SCOPED_TRACE(std::string(dtype) + " M=" + shape[0].second);
            PlannedProgram p = planProgram(file, text, shape);
            ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
            for (CpuBackend backend : {CpuBackend::Interpreter, CpuBackend::Auto}) {
                run::CpuRunOptions options;
                options.backend = backend;
                run::CpuRunResult r = run::runOnCpu(*p.result, options);
                ASSERT_TRUE(r.executed) << r.error;
                EXPECT_TRUE(r.checked) << r.error;
                EXPECT_TRUE(r.ok) << run::describeCpuRun(r).text();
                ASSERT_EQ(r.outputs.size(), 1u);
                // Exact products, float32 sums: e4m3fn products are multiples of 2^-18 and these sums stay
                // below 2^6, so float32 holds them exactly; e5m2's span more binades and round (~1e-6 here).
                EXPECT_LT(r.outputs[0].comparison.maxAbsError, 1e-5);
            }
        }
}

// TileLang's hand-warp-specialized GEMMs run their producer and consumer T.ws scopes concurrently on the CPU,
// switching at their mbarrier waits as the GPU runs them, and compute A @ B (checked against the naive GEMM
// the test names for them).
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

// TileLang's persistent MLA decode (one block per SM looping over the tiles, a grid barrier between the split
// attention and the combination of the splits) computes the MLA decode: its parameters are the mla_decode
// reference's, glse and Output_partial included.
TEST(CpuRun, PersistentMlaDecodeComputesTheMlaDecode) {
    const std::string file = "deepseek_mla/example_mla_decode_persistent.py";
    const std::string text =
        readFile(std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples/" + file) +
        "\n# tilebench-reference: mla_decode\n";
    PlannedProgram p = planProgram(file, text, {{"batch", "2"}, {"heads", "128"}, {"seqlen_kv", "512"}});
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    run::CpuRunResult r = run::runOnCpu(*p.result);
    ASSERT_TRUE(r.executed) << r.error;
    EXPECT_TRUE(r.checked) << r.error;
    EXPECT_TRUE(r.ok) << run::describeCpuRun(r).text();
    EXPECT_EQ(r.outputs.size(), 3u) << run::describeCpuRun(r).text(); // glse, Output_partial, Output
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
