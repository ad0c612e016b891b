// tilec bench / profile / sweep end to end on the fake runner (real NVRTC compiles, simulated GPU):
// reports, --vs previous with a history file, --vs cublas, sweep tables, usage errors, and the
// "unavailable and why" text when counters are not permitted.
#include "ProfileTestSupport.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <string>

namespace tb::profile {
namespace {

std::string tilec(const std::string& args) {
    return std::string(TILEC_PROFILE_PATH) + " " + args + " --runner " + test::runnerPath();
}

std::string kernel(const std::string& name) {
    return std::string(TILEBENCH_PROFILE_KERNELS) + "/" + name;
}

#define REQUIRE_NVRTC()                                                                                      \
    if (!TILEBENCH_HAS_NVRTC) {                                                                              \
        GTEST_SKIP() << "no NVRTC in this build";                                                            \
    }                                                                                                        \
    static_assert(true)

TEST(ProfileCli, BenchOnTheFakeRunner) {
    REQUIRE_NVRTC();
    test::CommandResult r = test::runCommand(
        tilec("bench " + kernel("transpose.cu") + " -p N=1024 --fake --history /dev/null/x"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("transpose.cu N=1024 PAD=0  [transpose]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("SIMULATED"), std::string::npos);
    EXPECT_NE(r.output.find("of the measured device copy bandwidth (4241 GB/s)"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("registers/thread"), std::string::npos);
}

// A Hopper .cu file: the generated device header is prepended, its tensor maps are built by the runner
// after the buffers, and the launch passes them by name (args=tmap:...).
TEST(ProfileCli, BenchHopperKernelWithTensorMaps) {
    REQUIRE_NVRTC();
    test::CommandResult r = test::runCommand(tilec("bench " + kernel("gemm_tma_wgmma.cu") +
                                                   " -p M=1024 -p N=1024 -p K=1024 --fake --no-ceilings "
                                                   "--history /dev/null/x"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("[gemm_tma_wgmma]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("168 registers/thread"), std::string::npos) << r.output;
    // A map that breaks the driver's rules is refused with the rule it breaks.
    test::CommandResult wide = test::runCommand(
        tilec("bench " + kernel("copy_tma.cu") + " -p BC=64 --fake --no-ceilings --history /dev/null/x"));
    EXPECT_NE(wide.exitCode, 0);
    EXPECT_NE(wide.output.find("more than the 128B swizzle span"), std::string::npos) << wide.output;
}

TEST(ProfileCli, VsPreviousUsesTheHistory) {
    REQUIRE_NVRTC();
    std::string history = test::freshTempDir("cli-history") + "/h.json";
    std::string cmd =
        tilec("bench " + kernel("transpose.cu") + " -p N=1024 --fake --vs previous --history " + history);
    test::CommandResult first = test::runCommand(cmd);
    EXPECT_EQ(first.exitCode, 0) << first.output;
    EXPECT_NE(first.output.find("vs previous run: unavailable: no earlier result"), std::string::npos)
        << first.output;
    test::CommandResult second = test::runCommand(cmd);
    EXPECT_NE(second.output.find("vs previous run ("), std::string::npos) << second.output;
    EXPECT_NE(second.output.find("ratio 1.000 (same)"), std::string::npos) << second.output;
    // Other parameters are another history key.
    test::CommandResult other = test::runCommand(tilec(
        "bench " + kernel("transpose.cu") + " -p N=1024 -p PAD=1 --fake --vs previous --history " + history));
    EXPECT_NE(other.output.find("no earlier result"), std::string::npos) << other.output;
}

TEST(ProfileCli, VsCublas) {
    REQUIRE_NVRTC();
    test::CommandResult r =
        test::runCommand(tilec("bench " + kernel("gemm_smem.cu") +
                               " -p M=256 -p N=256 -p K=256 --fake --vs cublas --history /dev/null/x"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("vs cuBLAS fp16 GEMM 256x256x256 (simulated, simulated)"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("timed alternately with ours in 3 rounds; ratio per round, in order: "),
              std::string::npos)
        << r.output;
    test::CommandResult two =
        test::runCommand(tilec("bench " + kernel("gemm_smem.cu") +
                               " -p M=256 -p N=256 -p K=256 --fake --vs cublas --rounds 2"
                               " --json --history /dev/null/x"));
    EXPECT_EQ(two.exitCode, 0) << two.output;
    EXPECT_NE(two.output.find("\"roundRatios\": [\n        0.00"), std::string::npos) << two.output;
    test::CommandResult bad =
        test::runCommand(tilec("bench " + kernel("gemm_smem.cu") + " --fake --rounds 0"));
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.output.find("--rounds must be 1..20"), std::string::npos) << bad.output;
    test::CommandResult none = test::runCommand(
        tilec("bench " + kernel("transpose.cu") + " -p N=1024 --fake --vs cublas --history /dev/null/x"));
    EXPECT_NE(none.output.find("no '// tilebench-gemm: m= n= k=' directive"), std::string::npos)
        << none.output;
}

TEST(ProfileCli, ProfileReportsUnavailableCountersAndWhy) {
    REQUIRE_NVRTC();
    test::CommandResult r =
        test::runCommand(tilec("profile " + kernel("transpose.cu") + " -p N=1024 --fake-cupti=permission"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("counters (Range Profiler): unavailable (permission)"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("SASS metrics: unavailable (permission)"), std::string::npos);
    EXPECT_NE(r.output.find("time: median"), std::string::npos);
    test::CommandResult ok =
        test::runCommand(tilec("profile " + kernel("transpose.cu") + " -p N=1024 --fake --json"));
    EXPECT_EQ(ok.exitCode, 0) << ok.output;
    EXPECT_NE(ok.output.find("\"availability\": \"available\""), std::string::npos) << ok.output;
    EXPECT_NE(ok.output.find("\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\""),
              std::string::npos);
}

TEST(ProfileCli, SweepTableAndProgress) {
    REQUIRE_NVRTC();
    test::CommandResult r = test::runCommand(
        tilec("sweep " + kernel("gemm_smem.cu") + " -p BLOCK=32,64 -p M=128..256:128 --fake"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("[4/4]"), std::string::npos) << r.output; // progress on stderr
    // Rows name the swept parameters, in order (first parameter outermost).
    size_t last = 0;
    for (const char* row : {"BLOCK=32 M=128 ", "BLOCK=32 M=256 ", "BLOCK=64 M=128 ", "BLOCK=64 M=256 "}) {
        EXPECT_GT(r.output.find(row), last) << row;
        last = r.output.find(row);
    }
    for (const char* row : {"BLOCK=32 M=128", "BLOCK=64 M=256"})
        EXPECT_NE(r.output.find(row), std::string::npos) << row << "\n" << r.output;
    EXPECT_NE(r.output.find("smem B"), std::string::npos);
    // BLOCK=32 uses 2 * 16 * 33 floats of shared memory, BLOCK=64 2 * 16 * 65.
    EXPECT_NE(r.output.find(" 4224 "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" 8320 "), std::string::npos) << r.output;
}

// A tile program: compiled with the -p overrides, generated, NVRTC-compiled, loaded and timed per kernel;
// FLOPs and the cuBLAS shape come from the jit parameters M, N, K.
TEST(ProfileCli, BenchTileProgramOnTheFakeRunner) {
    REQUIRE_NVRTC();
    std::string sample = std::string(TILEBENCH_SAMPLES_DIR) + "/02_gemm_relu.py";
    test::CommandResult r =
        test::runCommand(tilec("bench " + sample + " --fake --vs cublas --history /dev/null/x"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("matmul_relu_kernel"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("M=512"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("time: median"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("SIMULATED"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("compute: "), std::string::npos) << r.output; // 2*512^3 FLOPs were counted
    EXPECT_NE(r.output.find("memory:  "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("vs cuBLAS fp16 GEMM 512x512x512 (simulated"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("correctness: not checked (simulated runner)"), std::string::npos) << r.output;

    // -p overrides reach the compile: another shape, another cuBLAS peer.
    test::CommandResult small = test::runCommand(tilec(
        "bench " + sample + " -p M=256 -p K=128 --fake --vs cublas --no-ceilings --history /dev/null/x"));
    EXPECT_EQ(small.exitCode, 0) << small.output;
    EXPECT_NE(small.output.find("M=256"), std::string::npos) << small.output;
    EXPECT_NE(small.output.find("vs cuBLAS fp16 GEMM 256x512x128"), std::string::npos) << small.output;

    // JSON: one report per kernel under "reports".
    test::CommandResult json =
        test::runCommand(tilec("bench " + sample + " --fake --json --no-ceilings --history /dev/null/x"));
    EXPECT_EQ(json.exitCode, 0) << json.output;
    EXPECT_NE(json.output.find("\"reports\""), std::string::npos) << json.output;
    EXPECT_NE(json.output.find("\"correctness\": \"not checked (simulated runner)\""), std::string::npos)
        << json.output;
}

TEST(ProfileCli, TileProgramErrors) {
    REQUIRE_NVRTC();
    std::string sample = std::string(TILEBENCH_SAMPLES_DIR) + "/02_gemm_relu.py";
    // A block size that does not fit shared memory is a compile error, reported before any runner work.
    test::CommandResult bad = test::runCommand(
        tilec("bench " + sample + " -p block_K=4096 --fake --no-ceilings --history /dev/null/x"));
    EXPECT_EQ(bad.exitCode, 1) << bad.output;
    EXPECT_NE(bad.output.find("did not compile"), std::string::npos) << bad.output;
    // sweep takes .cu files and .py tile programs, nothing else.
    std::string other = test::freshTempDir("cli-sweep") + "/kernel.txt";
    FILE* f = std::fopen(other.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("x\n", f);
    std::fclose(f);
    test::CommandResult sweep =
        test::runCommand(tilec("sweep " + other + " -p M=128,256 --fake --no-ceilings"));
    EXPECT_NE(sweep.output.find("is neither a .cu file"), std::string::npos) << sweep.output;
}

// bench --cuda FILE: the edited copy is what NVRTC compiles and the runner times (a broken edit fails to
// compile, the generated code as a file runs); a sweep, which generates each variant, refuses it.
TEST(ProfileCli, BenchTileProgramWithAnEditedCuda) {
    REQUIRE_NVRTC();
    std::string sample = std::string(TILEBENCH_SAMPLES_DIR) + "/02_gemm_relu.py";
    std::string dir = test::freshTempDir("cli-bench-cuda");
    test::CommandResult emitted =
        test::runCommand(std::string(TILEC_PATH) + " emit cuda " + sample + " > " + dir + "/edited.cu");
    ASSERT_EQ(emitted.exitCode, 0) << emitted.output;
    test::CommandResult same = test::runCommand(tilec(
        "bench " + sample + " --cuda " + dir + "/edited.cu --fake --no-ceilings --history /dev/null/x"));
    EXPECT_EQ(same.exitCode, 0) << same.output;
    EXPECT_NE(same.output.find("timing the CUDA of '" + dir + "/edited.cu'"), std::string::npos)
        << same.output;
    EXPECT_NE(same.output.find("time: median"), std::string::npos) << same.output;

    FILE* f = std::fopen((dir + "/broken.cu").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("extern \"C\" __global__ void matmul_relu_kernel_kernel() { this is not CUDA; }\n", f);
    std::fclose(f);
    test::CommandResult broken = test::runCommand(tilec(
        "bench " + sample + " --cuda " + dir + "/broken.cu --fake --no-ceilings --history /dev/null/x"));
    EXPECT_EQ(broken.exitCode, 1) << broken.output;
    EXPECT_NE(broken.output.find("compile failed"), std::string::npos) << broken.output;

    test::CommandResult sweep = test::runCommand(
        tilec("sweep " + sample + " -p block_N=64,128 --cuda " + dir + "/edited.cu --fake --no-ceilings"));
    EXPECT_EQ(sweep.exitCode, 2) << sweep.output;
    EXPECT_NE(sweep.output.find("--cuda replaces"), std::string::npos) << sweep.output;
}

// bench --fill NAME=SPEC: index inputs made on the host as `tilec run --fill` makes them (here the varlen
// attention's cumulative sequence lengths); a fill of no input of the program, a malformed one and a fill
// for a .cu file are errors, named.
TEST(ProfileCli, BenchTileProgramWithFilledInputs) {
    REQUIRE_NVRTC();
    std::string program = std::string(TILEBENCH_TESTS_DIR) +
                          "/corpus/tilelang-examples/flash_attention/example_mha_fwd_varlen.py";
    std::string dims = " --dim UQ=1024 --dim UKV=1024 --dim max_seqlen_q=256";
    test::CommandResult ok = test::runCommand(
        tilec("bench " + program + dims +
              " --fill cu_seqlens_q=sorted:0..UQ --fill cu_seqlens_k=sorted:0..UKV --fake --no-ceilings"
              " --history /dev/null/x"));
    EXPECT_EQ(ok.exitCode, 0) << ok.output;
    EXPECT_NE(ok.output.find("time: median"), std::string::npos) << ok.output;

    test::CommandResult unknown =
        test::runCommand(tilec("bench " + program + dims +
                               " --fill no_such_input=arange --fake --no-ceilings --history /dev/null/x"));
    EXPECT_NE(unknown.exitCode, 0) << unknown.output;
    EXPECT_NE(unknown.output.find("no_such_input"), std::string::npos) << unknown.output;

    // A sweep makes each variant's inputs; a fill of no input is every row's diagnostic.
    test::CommandResult sweep = test::runCommand(tilec(
        "sweep " + program + dims + " -p block_M=64,128 --fill no_such_input=arange --fake --no-ceilings"));
    EXPECT_NE(sweep.output.find("[fill-unknown-input]"), std::string::npos) << sweep.output;

    test::CommandResult malformed =
        test::runCommand(tilec("bench " + program + " --fill cu_seqlens_q=sorted --fake --no-ceilings"));
    EXPECT_EQ(malformed.exitCode, 2) << malformed.output;
    EXPECT_NE(malformed.output.find("--fill cu_seqlens_q"), std::string::npos) << malformed.output;

    test::CommandResult cu = test::runCommand(
        tilec("bench " + kernel("transpose.cu") + " -p N=1024 --fill x=zeros --fake --history /dev/null/x"));
    EXPECT_EQ(cu.exitCode, 2) << cu.output;
    EXPECT_NE(cu.output.find("--fill makes a tile program's inputs"), std::string::npos) << cu.output;
}

// tilec sweep FILE.py: each variant compiled with its -p values; a progress line, a table in axis order,
// and a variant over the shared-memory budget as a row with its diagnostic.
TEST(ProfileCli, SweepTileProgram) {
    REQUIRE_NVRTC();
    std::string sample = std::string(TILEBENCH_SAMPLES_DIR) + "/03_gemm_transpose.py";
    test::CommandResult r = test::runCommand(tilec("sweep " + sample +
                                                   " -p M=256 -p N=256 -p K=512 -p block_K=32,256 "
                                                   "-p num_stages=1..2 --fake --no-ceilings --repeat 3"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("[4/4]"), std::string::npos) << r.output;
    size_t last = 0;
    for (const char* row : {"M=256 N=256 K=512 block_K=32 num_stages=1 ", "block_K=32 num_stages=2 ",
                            "block_K=256 num_stages=1 ", "block_K=256 num_stages=2 "}) {
        size_t at = r.output.find(row, last);
        EXPECT_NE(at, std::string::npos) << row << "\n" << r.output;
        last = at == std::string::npos ? last : at;
    }
    EXPECT_NE(r.output.find("compile error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[shared-memory-over-limit]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("ran (correctness not checked in a sweep)"), std::string::npos) << r.output;
    test::CommandResult json = test::runCommand(tilec(
        "sweep " + sample + " -p M=256 -p N=256 -p K=256 -p num_stages=1..2 --fake --no-ceilings --json"));
    EXPECT_EQ(json.exitCode, 0) << json.output;
    EXPECT_NE(json.output.find("\"status\": \"ran\""), std::string::npos) << json.output;
}

// A swept name that is a literal of the program, not a jit parameter (the GEMM sample's
// T.Pipelined(..., num_stages=3)), is edited in each variant: the variants differ, and no variant gets an
// override that changes nothing.
TEST(ProfileCli, SweepEditsALiteral) {
    REQUIRE_NVRTC();
    std::string sample = std::string(TILEBENCH_SAMPLES_DIR) + "/02_gemm_relu.py";
    test::CommandResult r = test::runCommand(tilec("sweep " + sample +
                                                   " -p M=256 -p N=256 -p K=256 -p num_stages=1..2 --fake "
                                                   "--no-ceilings --repeat 3"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(
        r.output.find("note: num_stages is not a jit parameter but the literal num_stages=3 at line 33: "
                      "each variant edits it"),
        std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("every variant is the same"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("unused-override"), std::string::npos) << r.output;
    // 32768 bytes of A and B tiles per stage (128 x 64 and 64 x 128 fp16).
    EXPECT_NE(r.output.find(" 32768 "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" 65536 "), std::string::npos) << r.output;
}

// tilec profile FILE.py places the SASS records on tile-program lines (the generated unit's line map).
TEST(ProfileCli, ProfileTileProgramHasTileLines) {
    REQUIRE_NVRTC();
    std::string sample = std::string(TILEBENCH_SAMPLES_DIR) + "/03_gemm_transpose.py";
    test::CommandResult r = test::runCommand(
        tilec("profile " + sample + " -p M=256 -p N=256 -p K=256 --fake-cupti=available --no-ceilings"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("shared memory by tile-program line"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("shared memory by CUDA line"), std::string::npos) << r.output;
}

TEST(ProfileCli, UsageErrors) {
    EXPECT_EQ(test::runCommand(tilec("bench")).exitCode, 2);
    EXPECT_EQ(test::runCommand(tilec("bench x.cu --vs nobody")).exitCode, 2);
    test::CommandResult bad =
        test::runCommand(tilec("sweep " + kernel("transpose.cu") + " -p PAD=4..1 --fake"));
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.output.find("[sweep-empty-range]"), std::string::npos) << bad.output;
    test::CommandResult tile = test::runCommand(tilec("bench gemm.py --fake"));
    EXPECT_EQ(tile.exitCode, 4);
    test::CommandResult unknown = test::runCommand(
        tilec("bench " + kernel("transpose.cu") + " -p NOPE=1 --fake --history /dev/null/x"));
    EXPECT_NE(unknown.output.find("bench-unknown-param"), std::string::npos) << unknown.output;
}

TEST(ProfileCli, RunWithAnEditedCudaFileThatCannotBeReadSaysSo) {
    // Checked before any runner or GPU is needed: the user's file is named, nothing is run.
    test::CommandResult r = test::runCommand(std::string(TILEC_PATH) + " run " + TILEBENCH_SAMPLES_DIR +
                                             "/02_gemm_relu.py --gpu --cuda /nonexistent/x.cu");
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_NE(r.output.find("cannot read the CUDA file '/nonexistent/x.cu'"), std::string::npos) << r.output;
}

} // namespace
} // namespace tb::profile
