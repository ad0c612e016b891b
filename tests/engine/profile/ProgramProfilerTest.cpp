// profileProgram and sweepProgram against the real tilebench-runner in `--fake --fake-cupti` mode (real
// code generation and NVRTC compiles, simulated device and CUPTI): the report's structure, SASS records
// placed on tile-program lines through the generated unit's line map, the bench history peer, a runner
// that cannot start, and sweeps (variant order, a variant over the shared-memory budget reported as a
// diagnostic row, progress and cancellation, an override that names no parameter).
#include "engine/profile/ProgramProfiler.h"

#include "ProfileTestSupport.h"
#include "engine/profile/ProgramSweep.h"
#include "engine/support/SourceManager.h"

#include <cstdint>
#include <fstream>
#include <gtest/gtest.h>
#include <initializer_list>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tb::profile {
namespace {

#define REQUIRE_NVRTC()                                                                                      \
    if (!TILEBENCH_HAS_NVRTC) {                                                                              \
        GTEST_SKIP() << "no NVRTC in this build";                                                            \
    }                                                                                                        \
    static_assert(true)

std::string samplePath(const std::string& name) {
    return std::string(TILEBENCH_SAMPLES_DIR) + "/" + name;
}

std::string readSample(const std::string& name) {
    std::ifstream in(samplePath(name));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::stringstream ss(text);
    for (std::string line; std::getline(ss, line);)
        lines.push_back(line);
    return lines;
}

std::unique_ptr<CompileResult> compileSample(const std::string& name,
                                             std::vector<std::pair<std::string, std::string>> overrides) {
    CompileOptions co;
    co.elaborate.overrides = std::move(overrides);
    return compileTileProgram(name, readSample(name), co);
}

ProgramProfileOptions quickOptions(ProfileCommand command) {
    ProgramProfileOptions o;
    o.command = command;
    o.warmup = 1;
    o.repeat = 5;
    return o;
}

TEST(ProgramProfiler, TheHeadlineNamesMedianSpreadRatesAndThePeer) {
    ProgramProfileReport r;
    r.totalMedianMs = 0.2976;
    ProfileReport k;
    k.timing.summary.spreadPct = 0.4;
    k.rates.tflops = 462;
    k.rates.fractionOfGemm = 0.694;
    PeerComparison cublas;
    cublas.ratio = 0.95;
    k.peers.push_back(cublas);
    r.kernels.push_back(k);
    ProgramHeadline h = programHeadline(r);
    EXPECT_EQ(h.text, "median " + formatDuration(0.2976) +
                          ", spread 0.4%, 462 TFLOP/s, 69.4% of cuBLAS peak, 0.95x the speed of cuBLAS");
    EXPECT_DOUBLE_EQ(h.tflops, 462);
    EXPECT_DOUBLE_EQ(h.gbps, 0);
    r.simulated = true;
    r.kernels.push_back(k); // two kernels: no per-kernel fractions
    EXPECT_EQ(programHeadline(r).text,
              "median " + formatDuration(0.2976) + ", spread 0.4%, 462 TFLOP/s (SIMULATED)");
}

TEST(ProgramProfiler, TileLineMapMarksBoilerplate) {
    codegen::LineMap map;
    map.add(3, SourceRange{}, 0);  // boilerplate
    map.add(7, SourceRange{}, 12); // a tile statement
    std::map<int, int> lines = tileLineMap(map);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines.at(3), -1);
    EXPECT_EQ(lines.at(7), 12);
}

TEST(ProgramProfiler, SassRecordsLandOnTheirFunctionsLines) {
    gpu::CubinLineTable table;
    table.functions["gemm_kernel"] = {{0x0, 10, "k.cu"}, {0x100, 12, "k.cu"}, {0x400, 0, "k.cu"}};
    std::vector<SassRecord> records(2);
    records[0].function = "gemm_kernel";
    records[0].pc = 0x110;
    records[1].function = "gemm_kernel";
    records[1].pc = 0x10;
    attributeSassRecords(records, table, {{10, 3}, {12, 5}});
    EXPECT_EQ(records[0].cudaLine, 12);
    EXPECT_EQ(records[0].tileLine, 5);
    EXPECT_EQ(records[1].tileLine, 3);
    // A function the cubin does not hold stays unplaced (no guessing).
    std::vector<SassRecord> foreign(1);
    foreign[0].function = "fake_kernel";
    foreign[0].pc = 0x110;
    attributeSassRecords(foreign, table, {{10, 3}, {12, 5}});
    EXPECT_EQ(foreign[0].function, "fake_kernel");
    EXPECT_EQ(foreign[0].cudaLine, -1);
    EXPECT_EQ(foreign[0].tileLine, -1);
}

TEST(ProgramProfiler, ProfileReportStructureAndTileLines) {
    REQUIRE_NVRTC();
    auto result = compileSample("03_gemm_transpose.py", {{"M", "256"}, {"N", "256"}, {"K", "256"}});
    ASSERT_TRUE(result->ok()) << result->formattedDiagnostics();
    gpu::RunnerClient client(test::fakeRunner("available"));
    ProgramProfileReport r =
        profileProgram(*result, client, quickOptions(ProfileCommand::Profile), "03_gemm_transpose.py");
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(r.simulated);
    EXPECT_EQ(r.correctness, "not checked (simulated runner)");
    EXPECT_NE(r.subject.find("M=256"), std::string::npos) << r.subject;
    EXPECT_NE(r.device.find("(sm_"), std::string::npos) << r.device;
    EXPECT_DOUBLE_EQ(r.work.flops, 2.0 * 256 * 256 * 256);
    EXPECT_DOUBLE_EQ(r.work.bytes, 3.0 * 256 * 256 * 2); // A, B and C in fp16
    ASSERT_EQ(r.kernels.size(), 1u);
    const ProfileReport& k = r.kernels.front();
    EXPECT_TRUE(k.timing.ok);
    EXPECT_EQ(k.timing.clock, "simulated");
    EXPECT_EQ(k.timing.summary.count, 5);
    EXPECT_GT(k.rates.tflops, 0);
    EXPECT_GT(k.registers, 0);
    EXPECT_DOUBLE_EQ(r.totalMedianMs, k.timing.summary.medianMs);
    EXPECT_TRUE(k.countersRequested);
    EXPECT_EQ(k.counters.availability, CounterAvailability::Available);
    EXPECT_FALSE(k.counters.values.empty());
    ASSERT_EQ(k.sass.records.size(), 3u);

    // Every SASS record is on a CUDA line and, through the line map, on a statement of the program
    // inside the kernel body (not a comment, not the signature).
    std::vector<std::string> lines = splitLines(readSample("03_gemm_transpose.py"));
    int kernelLine = 0;
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].find("with T.Kernel") != std::string::npos)
            kernelLine = int(i) + 1;
    ASSERT_GT(kernelLine, 0);
    for (const SassRecord& rec : k.sass.records) {
        EXPECT_GT(rec.cudaLine, 0) << rec.function << " pc " << rec.pc;
        ASSERT_GE(rec.tileLine, kernelLine) << "pc " << rec.pc;
        ASSERT_LE(rec.tileLine, int(lines.size()));
        std::string text = lines[size_t(rec.tileLine - 1)];
        size_t first = text.find_first_not_of(' ');
        ASSERT_NE(first, std::string::npos) << "line " << rec.tileLine << " is blank";
        EXPECT_NE(text[first], '#') << "line " << rec.tileLine << " is a comment: " << text;
    }
    ASSERT_FALSE(k.tileLines.empty());
    uint64_t wavefronts = 0;
    for (const LineTotals& t : k.tileLines) {
        EXPECT_NE(t.line, -1) << "a record was not placed on a tile line";
        wavefronts += t.sharedWavefronts;
    }
    EXPECT_EQ(wavefronts, 1024u + 32768u); // the fake's STS and conflicted LDS
    EXPECT_FALSE(k.cudaLines.empty());

    std::string text = formatProgramReportText(r);
    EXPECT_NE(text.find("shared memory by tile-program line"), std::string::npos) << text;
    EXPECT_NE(text.find("correctness: not checked (simulated runner)"), std::string::npos);
    std::string json = formatProgramReportJson(r);
    EXPECT_NE(json.find("\"reports\""), std::string::npos);
    EXPECT_NE(json.find("\"tileLine\": " + std::to_string(k.sass.records.front().tileLine)),
              std::string::npos)
        << json;
}

TEST(ProgramProfiler, BenchWritesHistoryAndComparesWithPrevious) {
    REQUIRE_NVRTC();
    auto result = compileSample("03_gemm_transpose.py", {{"M", "256"}, {"N", "256"}, {"K", "256"}});
    ASSERT_TRUE(result->ok());
    gpu::RunnerClient client(test::fakeRunner("available"));
    ProgramProfileOptions o = quickOptions(ProfileCommand::Bench);
    o.vs = PeerKind::Previous;
    o.historyPath = test::freshTempDir("program-history") + "/h.json";
    ProgramProfileReport first = profileProgram(*result, client, o, "g.py");
    ASSERT_TRUE(first.ok) << first.error;
    ASSERT_EQ(first.kernels.front().peers.size(), 1u);
    EXPECT_NE(first.kernels.front().peers[0].note.find("no earlier result"), std::string::npos);
    EXPECT_FALSE(first.kernels.front().sassRequested); // bench: no counters
    ProgramProfileReport second = profileProgram(*result, client, o, "g.py");
    ASSERT_TRUE(second.ok);
    EXPECT_EQ(second.kernels.front().peers[0].verdict, "same");
    EXPECT_NEAR(second.kernels.front().peers[0].ratio, 1.0, 1e-9);

    o.vs = PeerKind::Cublas;
    ProgramProfileReport cublas = profileProgram(*result, client, o, "g.py");
    ASSERT_TRUE(cublas.ok);
    const PeerComparison& peer = cublas.kernels.front().peers[0];
    EXPECT_NE(peer.name.find("cuBLAS fp16 GEMM 256x256x256"), std::string::npos);
    EXPECT_GT(peer.ratio, 0);
    // Timed alternately: one ratio per round, and our samples from every round in the median.
    const TimingOutcome& ours = cublas.kernels.front().timing;
    ASSERT_EQ(peer.roundRatios.size(), size_t(o.peerRounds));
    EXPECT_EQ(ours.samplesMs.size(), size_t(o.peerRounds * o.repeat));
    EXPECT_EQ(ours.summary.count, o.peerRounds * o.repeat);
    EXPECT_NEAR(peer.ratio, peer.peerMedianMs / ours.summary.medianMs, 1e-12);
    // Untimed launches of ours: a warm-up per round, and the joint warm-up before the first round.
    EXPECT_EQ(cublas.kernels.front().warmup, o.peerRounds * o.warmup + o.warmup + o.repeat);

    o.peerRounds = 1;
    ProgramProfileReport once = profileProgram(*result, client, o, "g.py");
    ASSERT_TRUE(once.ok);
    EXPECT_EQ(once.kernels.front().peers[0].roundRatios.size(), 1u);
    EXPECT_EQ(once.kernels.front().timing.samplesMs.size(), size_t(o.repeat));
}

TEST(ProgramProfiler, RunnerThatCannotStartIsAnError) {
    auto result = compileSample("03_gemm_transpose.py", {});
    ASSERT_TRUE(result->ok());
    gpu::RunnerOptions ro;
    ro.executable = "/nonexistent/tilebench-runner";
    gpu::RunnerClient client(ro);
    ProgramProfileReport r = profileProgram(*result, client, quickOptions(ProfileCommand::Bench));
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.stage, run::GpuRunStage::Runner);
    EXPECT_FALSE(r.error.empty());
    EXPECT_TRUE(r.kernels.empty());
}

TEST(ProgramProfiler, CancelledBeforeTiming) {
    REQUIRE_NVRTC();
    auto result = compileSample("03_gemm_transpose.py", {{"M", "256"}, {"N", "256"}, {"K", "256"}});
    gpu::RunnerClient client(test::fakeRunner("available"));
    ProgramProfileOptions o = quickOptions(ProfileCommand::Bench);
    o.cancelled = [] { return true; };
    ProgramProfileReport r = profileProgram(*result, client, o);
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.cancelled);
    EXPECT_TRUE(r.kernels.empty());
}

std::vector<SweepAxis> axes(std::initializer_list<const char*> texts) {
    std::vector<SweepAxis> out;
    DiagnosticEngine diags;
    for (const char* t : texts) {
        SweepAxis a;
        EXPECT_TRUE(parseSweepAxis(t, a, diags)) << t;
        out.push_back(a);
    }
    return out;
}

TEST(ProgramSweep, EnumeratesVariantsAndReportsOverBudgetAsDiagnostic) {
    REQUIRE_NVRTC();
    gpu::RunnerClient client(test::fakeRunner("available"));
    ProgramSweepOptions o;
    o.timing.warmup = 0;
    o.timing.repeat = 3;
    o.baseOverrides = {{"M", "256"}, {"N", "256"}, {"K", "512"}};
    std::vector<std::string> seen;
    ProgramSweepReport r = sweepProgram("03_gemm_transpose.py", readSample("03_gemm_transpose.py"),
                                        axes({"block_K=32,256", "num_stages=1..3"}), client, o,
                                        [&](size_t index, size_t total, const std::string& params) {
                                            EXPECT_EQ(index, seen.size());
                                            EXPECT_EQ(total, 6u);
                                            seen.push_back(params);
                                            return true;
                                        });
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_FALSE(r.cancelled);
    ASSERT_EQ(r.variants.size(), 6u);
    ASSERT_EQ(seen.size(), 6u);
    EXPECT_EQ(seen[0], "block_K=32 num_stages=1"); // first axis outermost, axis order kept
    EXPECT_EQ(seen[5], "block_K=256 num_stages=3");
    EXPECT_EQ(r.clock, "simulated");
    // block_K=32: every stage count fits, and more stages use more shared memory.
    for (size_t i = 0; i < 3; ++i) {
        const SweepVariant& v = r.variants[i];
        ASSERT_TRUE(v.ran()) << v.paramsText << ": " << v.message;
        EXPECT_GT(v.medianMs, 0);
        EXPECT_GT(v.rates.tflops, 0);
        EXPECT_EQ(v.kernels, 1);
        if (i > 0) {
            EXPECT_GT(v.sharedBytes, r.variants[i - 1].sharedBytes) << v.paramsText;
        }
    }
    // block_K=256: one stage (128 KiB of A and B tiles) fits; two or three stages do not, and say so.
    EXPECT_TRUE(r.variants[3].ran()) << r.variants[3].message;
    for (size_t i = 4; i < 6; ++i) {
        const SweepVariant& v = r.variants[i];
        EXPECT_EQ(v.status, VariantStatus::CompileError) << v.paramsText;
        bool budget = false;
        for (const Diagnostic& d : v.diagnostics)
            budget = budget || d.code == "shared-memory-over-limit";
        EXPECT_TRUE(budget) << v.paramsText << ": " << v.message;
        EXPECT_NE(v.message.find("[shared-memory-over-limit]"), std::string::npos) << v.message;
    }
    EXPECT_EQ(r.ranCount(), 4u);
    std::string table = formatSweepText(r, o);
    EXPECT_NE(table.find("block_K=256 num_stages=2"), std::string::npos) << table;
    EXPECT_NE(table.find("compile error: "), std::string::npos) << table;
    std::string json = formatSweepJson(r);
    EXPECT_NE(json.find("\"code\": \"shared-memory-over-limit\""), std::string::npos) << json;
}

TEST(ProgramSweep, CancelStopsBetweenVariants) {
    REQUIRE_NVRTC();
    gpu::RunnerClient client(test::fakeRunner("available"));
    ProgramSweepOptions o;
    o.timing.repeat = 2;
    o.timing.ceilings = false;
    o.baseOverrides = {{"M", "256"}, {"N", "256"}, {"K", "256"}};
    ProgramSweepReport r =
        sweepProgram("03_gemm_transpose.py", readSample("03_gemm_transpose.py"), axes({"num_stages=1..4"}),
                     client, o, [](size_t index, size_t, const std::string&) { return index < 2; });
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.variants.size(), 2u);
}

TEST(ProgramSweep, BadAxesAndUnusedParameters) {
    REQUIRE_NVRTC();
    gpu::RunnerClient client(test::fakeRunner("available"));
    ProgramSweepOptions o;
    o.timing.repeat = 2;
    o.timing.ceilings = false;
    ProgramSweepReport none = sweepProgram("x.py", "", {}, client, o);
    EXPECT_FALSE(none.ok);
    EXPECT_NE(none.error.find("at least one"), std::string::npos);

    // 02_gemm_relu's num_stages is a literal, not a jit parameter: each variant edits the literal (as a user
    // would), and the report says so.
    ProgramSweepReport edited =
        sweepProgram("02_gemm_relu.py", readSample("02_gemm_relu.py"), axes({"num_stages=1..2"}), client, o);
    ASSERT_TRUE(edited.ok) << edited.error;
    ASSERT_EQ(edited.variants.size(), 2u);
    EXPECT_TRUE(edited.warnings.empty());
    ASSERT_FALSE(edited.notes.empty());
    EXPECT_NE(edited.notes[0].find("num_stages"), std::string::npos) << edited.notes[0];

    // A name that is neither a jit parameter nor a literal of the program changes nothing: the report says
    // so.
    ProgramSweepReport same =
        sweepProgram("02_gemm_relu.py", readSample("02_gemm_relu.py"), axes({"nothing=1..2"}), client, o);
    ASSERT_TRUE(same.ok) << same.error;
    ASSERT_EQ(same.warnings.size(), 1u);
    EXPECT_NE(same.warnings[0].find("every variant is the same"), std::string::npos) << same.warnings[0];
}

} // namespace
} // namespace tb::profile
