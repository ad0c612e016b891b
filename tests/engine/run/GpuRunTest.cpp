// Every sample on the GPU against the CPU oracle, at several shapes including sizes that are not multiples
// of the block sizes (small, so the oracle is fast), and a deliberately faulting kernel that must leave the
// caller alive. Skipped with a message when no GPU is available (CI).
#include "engine/run/GpuRun.h"

#include "CodegenTestSupport.h"
#include "engine/exec/InputFill.h"
#include "engine/gpu/CudaDriver.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace tb;
using namespace tb::codegen::test;

namespace {

std::string runnerPath() {
    if (const char* env = std::getenv("TILEBENCH_RUNNER"); env && *env)
        return env;
#ifdef TILEBENCH_RUNNER_PATH
    return TILEBENCH_RUNNER_PATH;
#else
    return gpu::defaultRunnerPath();
#endif
}

gpu::RunnerClient& sharedRunner() {
    static gpu::RunnerClient client([] {
        gpu::RunnerOptions o;
        o.executable = runnerPath();
        o.watchdog = std::chrono::milliseconds(20000);
        return o;
    }());
    return client;
}

bool gpuAvailable(std::string& why) {
    static gpu::GpuAvailability a = gpu::probeGpus();
    why = a.reason;
    return a.available && !a.devices.empty();
}

std::string describe(const run::GpuRunResult& r) {
    std::string s = std::string("stage ") + run::gpuRunStageName(r.stage) + ": " + r.message;
    for (const auto& d : r.diagnostics)
        s += "\n  " + d.code + ": " + d.message;
    for (const auto& o : r.outputs)
        s += "\n  " + o.name + (o.comparison.ok() ? " ok" : " MISMATCH") + " max abs " +
             std::to_string(o.comparison.maxAbsError) + " mismatches " +
             std::to_string(o.comparison.mismatches);
    return s;
}

struct Case {
    std::string file;
    std::vector<std::pair<std::string, std::string>> params;
    bool testProgram = false; // under tests/engine/codegen/programs, not a sample
    Backend backend = Backend::Portable;
    uint64_t inputSeed = 0; // 0: runOnGpu's default; a fuzz reproducer's own seed gives its inputs again
    bool corpus = false;    // a TileLang example under tests/corpus/tilelang-examples
};

PlannedProgram planCase(const Case& c) {
    if (c.corpus)
        return planCorpusProgram(c.file, c.params, c.backend);
    return c.testProgram ? planTestProgram(c.file, c.params, c.backend)
                         : planSample(c.file, c.params, c.backend);
}

// Programs of TileLang's example corpus: the hand-warp-specialized GEMMs (T.ws, T.alloc_barrier, T.tma_copy,
// the mbarrier protocol) at a block-multiple and a ragged shape, the scan, the float8 cast and the
// convolution.
std::vector<Case> corpusCases() {
    std::vector<Case> out;
    for (const char* name :
         {"barrierpipe_stage2", "copy_0_gemm_1", "copy_1_gemm_0", "copy_gemm_0_1", "softpipe_stage2"})
        for (auto shape :
             {std::vector<std::pair<std::string, std::string>>{{"M", "256"}, {"N", "256"}, {"K", "512"}},
              std::vector<std::pair<std::string, std::string>>{{"M", "200"}, {"N", "136"}, {"K", "200"}}}) {
            Case c;
            c.file = std::string("warp_specialize/example_warp_specialize_gemm_") + name + ".py";
            c.params = shape;
            c.corpus = true;
            out.push_back(c);
        }
    // T.cumsum (a shared tile, and a fragment through its scratch tile), at the program's own shape and a
    // ragged one, forward and reverse.
    Case scan;
    scan.file = "gdn/example_cumsum.py";
    scan.corpus = true;
    out.push_back(scan);
    scan.params = {
        {"S", "1000"}, {"H", "5"}, {"use_fragment", "True"}, {"reverse", "False"}, {"head_first", "True"}};
    out.push_back(scan);
    // float8 casts: a per-token quantization with saturation at +-448, at a small and a ragged shape.
    Case cast;
    cast.file = "cast/example_group_per_split_token_cast_to_fp8.py";
    cast.corpus = true;
    cast.params = {{"M", "512"}, {"N", "1024"}, {"M_max", "384"}};
    out.push_back(cast);
    cast.params = {{"M", "300"}, {"N", "640"}, {"M_max", "200"}, {"BG", "3"}};
    out.push_back(cast);
    // A grid barrier (T.sync_grid, a cooperative launch): the persistent MLA decode, one block per SM, at a
    // small shape; its own shape is GridSyncOnGpu below.
    Case persistent;
    persistent.file = "deepseek_mla/example_mla_decode_persistent.py";
    persistent.corpus = true;
    persistent.params = {{"batch", "2"}, {"heads", "128"}, {"seqlen_kv", "512"}};
    out.push_back(persistent);
    // float8 T.gemm (mma.sync m16n8k32 / wgmma m64nNk32, K-major operands, two accumulators): at the
    // program's own shape (1024 x 1024 x 8192, e4m3fn), e5m2 at a smaller one and a ragged e4m3fn one.
    Case fp8;
    fp8.file = "gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py";
    fp8.corpus = true;
    out.push_back(fp8);
    fp8.params = {{"M", "512"}, {"N", "256"}, {"K", "1024"}, {"dtype", "T.float8_e5m2"}};
    out.push_back(fp8);
    fp8.params = {{"M", "200"}, {"N", "136"}, {"K", "200"}};
    out.push_back(fp8);
    // TensorCoreIntrinEmitter: ldmatrix / mma.sync / stored accumulators on per-thread locals, a custom
    // swizzle annotation (the program has no bounds guards: block multiples only).
    Case intrinsics;
    intrinsics.file = "gemm/example_gemm_intrinsics.py";
    intrinsics.corpus = true;
    intrinsics.params = {{"M", "256"}, {"N", "256"}, {"K", "128"}};
    out.push_back(intrinsics);
    intrinsics.params = {{"M", "384"}, {"N", "256"}, {"K", "256"}};
    out.push_back(intrinsics);
    // The im2col convolution (T.im2col, views of the filter and the output): a small shape with ragged tiles
    // in the host code's sm_90a configuration (a filter tile wider than the filter), and stride 2, dilation
    // 2, no padding in small blocks.
    Case conv;
    conv.file = "convolution/example_convolution_autotune.py";
    conv.corpus = true;
    conv.params = {{"N", "2"}, {"C", "64"}, {"H", "10"}, {"W", "10"}, {"F", "96"}, {"K", "3"}};
    out.push_back(conv);
    conv.params = {{"N", "3"},          {"C", "32"},          {"H", "10"},       {"W", "9"},
                   {"F", "64"},         {"K", "3"},           {"S", "2"},        {"D", "2"},
                   {"P", "0"},          {"block_M", "64"},    {"block_N", "64"}, {"block_K", "32"},
                   {"num_stages", "2"}, {"thread_num", "128"}};
    out.push_back(conv);
    // Flash decoding: a split kernel writes T.alloc_global workspaces (glse, Output_partial) that a combine
    // kernel reads, which also copies between fragments of different shapes; small, ragged in seqlen_q (the
    // copies' bound guards on the workspaces too), and at the program's own shape.
    Case decode;
    decode.file = "flash_decoding/example_mha_inference.py";
    decode.corpus = true;
    decode.params = {
        {"batch", "1"}, {"heads", "2"}, {"seqlen_q", "128"}, {"seqlen_kv", "1024"}, {"dim", "64"}};
    out.push_back(decode);
    decode.params = {
        {"batch", "2"}, {"heads", "3"}, {"seqlen_q", "200"}, {"seqlen_kv", "512"}, {"dim", "128"}};
    out.push_back(decode);
    decode.params = {};
    out.push_back(decode);
    // T.ws scopes that run concurrently (FlashMLA's two consumer warpgroups ping-pong through mbarriers,
    // ws(0) waiting on arrives of ws(1)): the CPU oracle runs them as the GPU does.
    Case flashmla;
    flashmla.file = "warp_specialize/example_warp_specialize_flashmla.py";
    flashmla.corpus = true;
    flashmla.params = {{"batch", "2"}, {"heads", "64"}, {"seqlen_kv", "512"}};
    out.push_back(flashmla);
    return out;
}

std::vector<Case> portableCases() {
    return {
        {"01_elementwise_add.py", {{"M", "64"}, {"N", "128"}}},
        {"01_elementwise_add.py", {{"M", "100"}, {"N", "70"}}},
        {"02_gemm_relu.py", {{"M", "256"}, {"N", "256"}, {"K", "128"}}},
        {"02_gemm_relu.py", {{"M", "200"}, {"N", "136"}, {"K", "72"}}},
        {"03_gemm_transpose.py", {{"M", "256"}, {"N", "128"}, {"K", "128"}}},
        {"03_gemm_transpose.py",
         {{"M", "192"}, {"N", "160"}, {"K", "96"}, {"trans_A", "True"}, {"trans_B", "False"}}},
        {"04_softmax.py", {{"M", "64"}, {"N", "1024"}}},
        {"04_softmax.py", {{"M", "30"}, {"N", "700"}}},
        // One chunk wider than the rows (a copy past the tensor's extent, reading zeros, masked to -inf).
        {"04_softmax.py", {{"M", "30"}, {"N", "300"}}},
        {"05_rmsnorm_silu.py", {{"M", "64"}, {"C", "256"}}},
        {"05_rmsnorm_silu.py", {{"M", "61"}, {"C", "320"}}},
        {"06_flash_attention.py", {{"batch", "1"}, {"heads", "2"}, {"seq_len", "128"}, {"dim", "64"}}},
        {"06_flash_attention.py", {{"batch", "1"}, {"heads", "1"}, {"seq_len", "100"}, {"dim", "64"}}},
        // Head dim 192: rows of 24 vectors, copied in PlanLoopPartition's flat order (division, remainder).
        {"06_flash_attention.py", {{"batch", "1"}, {"heads", "2"}, {"seq_len", "200"}, {"dim", "192"}}},
        {"07_mla_decode.py", {{"seqlen_kv", "256"}}},
        {"07_mla_decode.py", {{"seqlen_kv", "200"}, {"heads", "128"}, {"batch", "2"}}},
        // The per-load ldmatrix formulas (operands at run-time offsets), in all four operand layouts.
        {"gemm_k_slices.py", {{"M", "200"}, {"N", "136"}, {"K", "128"}}, true},
        {"gemm_k_slices.py", {{"M", "128"}, {"N", "192"}, {"K", "64"}, {"trans_A", "True"}}, true},
        {"gemm_k_slices.py", {{"M", "192"}, {"N", "128"}, {"K", "128"}, {"trans_B", "True"}}, true},
        {"gemm_k_slices.py",
         {{"M", "136"}, {"N", "200"}, {"K", "64"}, {"trans_A", "True"}, {"trans_B", "True"}},
         true},
        // Reproducers of the GPU fuzzer (docs/fuzzing.md), each a bug once: codegen, schedule, or the check.
        // float8 operands of two formats (e4m3fn x e5m2): a woven pipeline, and k slices at run-time offsets.
        {"gemm_float8_mixed.py", {}, true},
        {"gemm_float8_mixed.py", {{"k_slices", "True"}, {"M", "128"}, {"N", "200"}, {"K", "256"}}, true},
        {"fuzz_one_index_var.py", {}, true},
        {"fuzz_replicated_copy.py", {}, true},
        {"fuzz_bfloat16_fragment.py", {}, true, Backend::Portable, 12000607},
        {"fuzz_float16_literal.py", {}, true, Backend::Portable, 9001026},
        {"fuzz_wgmma_mn_major_panel.py", {}, true, Backend::Portable, 3024},
        // A grid barrier: blocks read what their neighbours wrote before it (cooperative launch).
        {"grid_barrier.py", {}, true},
        {"grid_barrier.py", {{"blocks", "264"}, {"block_N", "256"}}, true},
        // Copies into a swizzled tile at starts a loop computes: vectors where the swizzle repeats, element
        // by element where it does not.
        {"runtime_copy_starts.py", {}, true},
        {"runtime_copy_starts.py", {{"M", "200"}, {"N", "136"}, {"K", "200"}}, true},
        // Vectors that leave the last round of 384 threads partial: the loops skip the empty slots.
        {"partial_partition.py", {}, true},
        {"partial_partition.py", {{"M", "40"}, {"N", "3000"}}, true},
        // A T.alloc_global workspace between a split and a combine kernel, at a block multiple and ragged.
        {"split_combine_workspace.py", {}, true},
        {"split_combine_workspace.py", {{"M", "200"}, {"N", "384"}, {"parts", "3"}}, true},
    };
}

// Every case again on the hopper backend (wgmma, TMA, warp specialization where the plan says so), the
// ragged shapes included: TMA's zero fill and the epilogue's bounds.
std::vector<Case> cases() {
    std::vector<Case> portable = portableCases();
    for (const Case& c : corpusCases())
        portable.push_back(c);
    std::vector<Case> all = portable;
    for (Case c : portable) {
        c.backend = Backend::Hopper;
        all.push_back(c);
    }
    return all;
}

} // namespace

class SampleOnGpu : public ::testing::TestWithParam<Case> {};

TEST_P(SampleOnGpu, MatchesTheCpuOracle) {
    std::string why;
    if (!gpuAvailable(why))
        GTEST_SKIP() << "no GPU: " << why;
    const Case& c = GetParam();
    PlannedProgram p = planCase(c);
    ASSERT_TRUE(p.ok()) << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
    run::GpuRunOptions options;
    options.client = &sharedRunner();
    if (c.inputSeed)
        options.seed = c.inputSeed;
    run::GpuRunResult r = run::runOnGpu(*p.result, options);
    EXPECT_TRUE(r.ok()) << c.file << ": " << describe(r);
    EXPECT_FALSE(r.outputs.empty());
}

INSTANTIATE_TEST_SUITE_P(Samples, SampleOnGpu, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                             const std::string kind = info.param.corpus ? std::string("c")
                                                      : info.param.testProgram
                                                          ? std::string("p")
                                                          : "s" + info.param.file.substr(0, 2);
                             return kind + (info.param.backend == Backend::Hopper ? "_hopper_" : "_") +
                                    std::to_string(info.index);
                         });

TEST(GpuRun, FaultingKernelLeavesTheCallerAlive) {
    std::string why;
    if (!gpuAvailable(why))
        GTEST_SKIP() << "no GPU: " << why;
    const char* program = R"PY(import tilelang
import tilelang.language as T


@tilelang.jit
def bad(M=256):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(M):
                B[i + 2000000000] = A[i]

    return main
)PY";
    PlannedProgram p = planProgram("bad.py", program);
    ASSERT_TRUE(p.ok()) << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
    run::GpuRunOptions options;
    options.client = &sharedRunner();
    run::GpuRunResult r = run::runOnGpu(*p.result, options);
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(r.fault) << describe(r);
    EXPECT_TRUE(r.runnerRestarted);
    EXPECT_EQ(r.stage, run::GpuRunStage::Launch);
    // The next run works on the fresh runner.
    PlannedProgram good = planSample("01_elementwise_add.py", {{"M", "64"}, {"N", "64"}});
    ASSERT_TRUE(good.ok());
    run::GpuRunResult ok = run::runOnGpu(*good.result, options);
    EXPECT_TRUE(ok.ok()) << describe(ok);
}

// The persistent MLA decode of the TileLang corpus at its own default shape (batch 128, heads 128, kv_ctx
// 8192: a 2^29-element KV cache), as `tilec run --gpu` runs it: one block per SM, a grid barrier between the
// split attention and the combination, every block checked against the CPU executor.
TEST(GridSyncOnGpu, PersistentMlaDecodeAtItsOwnShape) {
    std::string why;
    if (!gpuAvailable(why))
        GTEST_SKIP() << "no GPU: " << why;
    for (Backend backend : {Backend::Portable, Backend::Hopper}) {
        PlannedProgram p = planCorpusProgram("deepseek_mla/example_mla_decode_persistent.py", {}, backend);
        ASSERT_TRUE(p.ok()) << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
        run::GpuRunOptions options;
        options.client = &sharedRunner();
        run::GpuRunResult r = run::runOnGpu(*p.result, options);
        EXPECT_TRUE(r.ok()) << backendName(backend) << ": " << describe(r);
        EXPECT_EQ(r.oracleBlocks, 0) << "a kernel with a grid barrier is checked whole";
    }
}

// MInference's vertical-slash attention: its producer scope, first in program order, refills a 2-stage K/V
// ring that the consumer scope reads, at up to 16 slash blocks per query block (index inputs as
// run-inputs.txt gives them, scaled to seq_len 1024); and the ring test program whose consumer scope comes
// first. Both need the CPU oracle to run the scopes concurrently, switching at their mbarrier waits.
TEST(ConcurrentScopesOnGpu, ProducerConsumerRingsMatchTheCpuOracle) {
    std::string why;
    if (!gpuAvailable(why))
        GTEST_SKIP() << "no GPU: " << why;
    for (Backend backend : {Backend::Portable, Backend::Hopper}) {
        SCOPED_TRACE(backendName(backend));
        PlannedProgram p =
            planCorpusProgram("minference/example_vertical_slash_sparse_attn.py",
                              {{"seq_len", "1024"}, {"vertical_size", "128"}, {"slash_size", "16"}}, backend);
        ASSERT_TRUE(p.ok()) << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
        run::GpuRunOptions options;
        options.client = &sharedRunner();
        for (auto [name, text] :
             std::vector<std::pair<std::string, std::string>>{{"BlockCount", "randint:0..16"},
                                                              {"BlockOffset", "randint:0..960"},
                                                              {"ColumnCount", "randint:0..128"},
                                                              {"ColumnIndex", "randint:0..1023"}}) {
            std::string error;
            std::optional<InputFill> fill = parseInputFill(text, error);
            ASSERT_TRUE(fill) << error;
            options.fills[name] = *fill;
        }
        run::GpuRunResult r = run::runOnGpu(*p.result, options);
        EXPECT_TRUE(r.ok()) << describe(r);
        PlannedProgram ring = planInterpreterProgram("ws_ring_consumer_first.py", {}, backend);
        ASSERT_TRUE(ring.ok()) << ring.planErrors << (ring.result ? ring.result->formattedDiagnostics() : "");
        run::GpuRunOptions ringOptions;
        ringOptions.client = &sharedRunner();
        run::GpuRunResult rr = run::runOnGpu(*ring.result, ringOptions);
        EXPECT_TRUE(rr.ok()) << describe(rr);
    }
}

// CI half of the GPU cases (no GPU needed): every case plans and generates CUDA, and its kernels launch
// with a positive grid.
TEST(GpuRunCases, EveryCaseGeneratesCode) {
    for (const Case& c : cases()) {
        PlannedProgram p = planCase(c);
        ASSERT_TRUE(p.ok()) << c.file << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
        std::string errors;
        codegen::CudaKernelSource code = generateFor(p, errors);
        ASSERT_TRUE(code.ok) << c.file << errors;
        for (const auto& k : code.units[0].kernels)
            for (const auto& g : k.launch.grid)
                EXPECT_GE(codegen::evaluateLaunchExpr(g, {}).value_or(0), 1) << c.file;
    }
}

// The GPU run's side of T.alloc_global workspaces, on the fake runner (no GPU): one zeroed runner buffer per
// workspace after the parameters' buffers, passed to every kernel's launch after the tensors.
TEST(GpuRunCases, WorkspacesAreRunnerBuffersPassedToEveryLaunch) {
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    PlannedProgram p = planTestProgram("split_combine_workspace.py");
    ASSERT_TRUE(p.ok()) << p.planErrors;
    gpu::RunnerOptions fake;
    fake.executable = runnerPath();
    fake.arguments = {"--fake"};
    gpu::RunnerClient client(fake);
    std::string why;
    ASSERT_TRUE(client.start(&why)) << why;
    run::GpuLaunchOptions options;
    options.prefix = "ws_";
    options.arch = "sm_90a";
    run::GpuLaunchSetup setup = run::setUpForLaunches(*p.result, client, options);
    ASSERT_TRUE(setup.ok) << setup.message;
    EXPECT_EQ(setup.bufferNames, (std::vector<std::string>{"ws_p0", "ws_p1", "ws_w0"}));
    EXPECT_EQ(setup.paramBytes.size(), 2u);
    ASSERT_EQ(setup.launchFields.size(), 2u);
    for (const std::string& launch : setup.launchFields)
        EXPECT_NE(launch.find(" args=buf:ws_p0,buf:ws_p1,buf:ws_w0"), std::string::npos) << launch;
    // The workspace is a real buffer of the runner: 4 parts x 256 rows of float16.
    std::vector<char> bytes;
    ASSERT_TRUE(client.readBuffer("ws_w0", bytes).ok());
    EXPECT_EQ(bytes.size(), 4u * 256u * 2u);
}

// The follow-up of a quick-compile Run: the kernels compiled at full optimization with the options
// setUpForLaunches uses, so that the compile cache hands the next Bench this very compile.
TEST(GpuRunCases, FullOptimizationCompileIsTheOneALaunchSetupUses) {
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    PlannedProgram p = planSample("02_gemm_relu.py", {{"M", "256"}, {"N", "256"}, {"K", "128"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    run::FullCompile full = run::compileAtFullOptimization(*p.result, "sm_90a");
    ASSERT_TRUE(full.ok) << full.error;
    ASSERT_EQ(full.kernels.size(), 1u);
    EXPECT_EQ(full.kernels[0].first, "matmul_relu_kernel_kernel");
    EXPECT_GT(full.kernels[0].second.registers, 128); // the 128-register accumulator, not a spilling kernel
    std::string errors;
    codegen::CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    gpu::CudaCompileResult launch = gpu::compileCuda(code.units[0].source, full.kernels[0].first,
                                                     run::launchCompileOptions(code.units[0], "sm_90a", {}));
    EXPECT_TRUE(launch.cacheHit);
    EXPECT_EQ(launch.cubin, full.kernels[0].second.cubin);
    EXPECT_TRUE(run::launchCompileOptions(code.units[0], "sm_90a", {}).fastCompile.empty());
}

// The CUDA backend's float8 conversions are the CPU executor's, bit for bit: saturation (e4m3), overflow to
// inf (e5m2), normals and subnormals, into tensors and through a fragment.
TEST(Float8OnGpu, ConversionsEqualTheCpuRoundingExactly) {
    std::string why;
    if (!gpuAvailable(why))
        GTEST_SKIP() << "no GPU: " << why;
    for (Backend backend : {Backend::Portable, Backend::Hopper}) {
        PlannedProgram p = planTestProgram("float8_rounding.py", {}, backend);
        ASSERT_TRUE(p.ok()) << p.planErrors;
        run::GpuRunOptions options;
        options.client = &sharedRunner();
        run::GpuRunResult r = run::runOnGpu(*p.result, options);
        ASSERT_TRUE(r.ok()) << describe(r);
        ASSERT_EQ(r.outputs.size(), 3u) << describe(r);
        for (const run::GpuOutputCheck& o : r.outputs)
            EXPECT_EQ(o.comparison.maxAbsError, 0.0) << o.name << ": " << describe(r);
    }
}
