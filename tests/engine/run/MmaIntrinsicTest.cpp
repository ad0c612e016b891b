// TileLang's TensorCoreIntrinEmitter through the whole compile line: the CPU executor's result of a GEMM
// written with ldmatrix_a / ldmatrix_b / mma / stmatrix equals a naive GEMM for every operand layout, warp
// grid and 16-bit dtype; the generated CUDA issues one ldmatrix.x4 (.trans where the shared tile is
// MN-major) per micro tile, two mma.sync per micro tile pair and compiles for sm_80 and sm_90a; the corpus
// example itself runs on the CPU; a block with fewer threads than the emitter's warps is a diagnostic.
#include "CodegenTestSupport.h"
#include "engine/exec/Executor.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/run/CpuRun.h"
#include "engine/run/RunReport.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

using namespace tb;
using namespace tb::codegen::test;

namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

// The emitter GEMM of tests/engine/run/programs: outside the folders every program of which the JIT must
// lower (the emitter's per-thread fragments run on the interpreter).
std::string intrinsicsPath() {
    return std::string(TILEBENCH_TESTS_DIR) + "/engine/run/programs/gemm_intrinsics.py";
}

PlannedProgram planIntrinsics(const Params& params) {
    return planProgram("gemm_intrinsics.py", readFile(intrinsicsPath()), params);
}

// C = op(A) @ op(B) in double from the executor's own inputs.
std::vector<double> naiveGemm(const HostTensor& a, const HostTensor& b, int64_t m, int64_t n, int64_t k,
                              bool transA, bool transB) {
    std::vector<double> c(size_t(m * n), 0.0);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double sum = 0;
            for (int64_t p = 0; p < k; ++p)
                sum += (transA ? a.data[size_t(p * m + i)] : a.data[size_t(i * k + p)]) *
                       (transB ? b.data[size_t(j * k + p)] : b.data[size_t(p * n + j)]);
            c[size_t(i * n + j)] = sum;
        }
    return c;
}

int64_t value(const Params& params, const std::string& name, int64_t fallback) {
    for (const auto& [k, v] : params)
        if (k == name)
            return std::stoll(v);
    return fallback;
}

bool flag(const Params& params, const std::string& name, bool fallback) {
    for (const auto& [k, v] : params)
        if (k == name)
            return v == "True";
    return fallback;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

struct Config {
    Params params;
};

// "M=256 trans_A=True ...": which configuration a failure is about.
std::string labelOf(const Config& c) {
    std::string label;
    for (const auto& [k, v] : c.params)
        label += k + "=" + v + " ";
    return label;
}

std::vector<Config> configs() {
    std::vector<Config> out;
    for (const char* a : {"False", "True"})
        for (const char* b : {"False", "True"})
            out.push_back({{{"trans_A", a}, {"trans_B", b}}});
    // bfloat16, and a block of 2 x 1 warps with 64 x 32 warp tiles (warp_m and warp_n told apart).
    out.push_back({{{"dtype", "'bfloat16'"}, {"trans_A", "False"}, {"trans_B", "False"}}});
    out.push_back({{{"M", "256"},
                    {"N", "64"},
                    {"K", "96"},
                    {"block_row_warps", "2"},
                    {"block_col_warps", "1"},
                    {"warp_row_tiles", "64"},
                    {"warp_col_tiles", "32"},
                    {"trans_A", "True"}}});
    return out;
}

TEST(MmaIntrinsics, TheExecutorMatchesANaiveGemmInEveryOperandLayout) {
    for (const Config& c : configs()) {
        SCOPED_TRACE(labelOf(c));
        PlannedProgram p = planIntrinsics(c.params);
        ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
        const ir::PrimFunc& f = p.result->module->funcs.at(0);
        DiagnosticEngine diags;
        std::vector<HostTensor> params = allocateParams(f, {}, 11, diags);
        ASSERT_EQ(params.size(), 3u);
        ASSERT_TRUE(executePrimFunc(*p.result->module, f, params, {}, diags))
            << formatDiagnostics(p.result->sources, diags.diagnostics());
        const int64_t m = value(c.params, "M", 128), n = value(c.params, "N", 128),
                      k = value(c.params, "K", 64);
        std::vector<double> want = naiveGemm(params[0], params[1], m, n, k, flag(c.params, "trans_A", false),
                                             flag(c.params, "trans_B", true));
        ASSERT_EQ(params[2].data.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
            ASSERT_NEAR(params[2].data[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "element " << i;
    }
}

TEST(MmaIntrinsics, CpuRunChecksAgainstTheNaiveReferenceThroughTheInterpreter) {
    PlannedProgram p = planIntrinsics({{"trans_A", "True"}, {"trans_B", "False"}});
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    run::CpuRunResult r = run::runOnCpu(*p.result);
    const std::string report = run::describeCpuRun(r).text();
    EXPECT_TRUE(r.ok && r.checked) << report;
    EXPECT_EQ(r.reference, "gemm_transpose");
    // The JIT leaves the emitter's per-thread fragments to the interpreter and says so.
    EXPECT_NE(report.find("TensorCoreIntrinEmitter"), std::string::npos) << report;
}

TEST(MmaIntrinsics, CodeIssuesLdmatrixAndMmaSyncAndCompiles) {
    for (const Config& c : configs()) {
        SCOPED_TRACE(labelOf(c));
        PlannedProgram p = planIntrinsics(c.params);
        ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
        std::string errors;
        codegen::CudaKernelSource code = generateFor(p, errors);
        ASSERT_TRUE(code.ok) << errors;
        // The kernel, without the device header's definitions of the helpers it calls.
        const std::string& unit = code.units.at(0).source;
        const std::string src = unit.substr(unit.find("extern \"C\" __global__"));
        const bool transA = flag(c.params, "trans_A", false), transB = flag(c.params, "trans_B", true);
        const int64_t warpRows = value(c.params, "warp_row_tiles", 32) / 16;
        const int64_t warpCols = value(c.params, "warp_col_tiles", 32) / 16;
        // One ldmatrix.x4 per micro tile of the warp; .trans for A [K, M] and B [K, N].
        EXPECT_EQ(count(src, "tb_ldmatrix_x4_trans("),
                  size_t((transA ? warpRows : 0) + (!transB ? warpCols : 0)))
            << src;
        EXPECT_EQ(count(src, "tb_ldmatrix_x4("), size_t((transA ? 0 : warpRows) + (!transB ? 0 : warpCols)))
            << src;
        const bool bf16 = c.params.front().second == "'bfloat16'";
        EXPECT_EQ(count(src, bf16 ? "tb_mma_bf16(" : "tb_mma_f16("), size_t(2 * warpRows * warpCols)) << src;
        // The accumulators are stored through the accumulator map, lane / 4 and 2 * (lane % 4).
        EXPECT_EQ(count(src, "= C_local["), size_t(warpRows * warpCols * 8)) << src;
        if (!gpu::nvrtcVersionString().empty()) {
            for (const char* arch : {"sm_80", "sm_90a"})
                EXPECT_EQ(nvrtcFailures(code, arch), "") << arch;
        }
    }
}

TEST(MmaIntrinsics, TheCorpusExampleRunsOnTheCpuAndCompiles) {
    PlannedProgram p =
        planCorpusProgram("gemm/example_gemm_intrinsics.py", {{"M", "256"}, {"N", "256"}, {"K", "128"}});
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    const ir::PrimFunc& f = p.result->module->funcs.at(0);
    DiagnosticEngine diags;
    std::vector<HostTensor> params = allocateParams(f, {}, 5, diags);
    ASSERT_EQ(params.size(), 3u);
    ASSERT_TRUE(executePrimFunc(*p.result->module, f, params, {}, diags))
        << formatDiagnostics(p.result->sources, diags.diagnostics());
    // ref_program: A @ B.T, into float16.
    std::vector<double> want = naiveGemm(params[0], params[1], 256, 256, 128, false, true);
    for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(params[2].data[i], want[i], 1e-2 * (1 + std::abs(want[i]))) << "element " << i;
    std::string errors;
    codegen::CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    if (!gpu::nvrtcVersionString().empty()) {
        for (const char* arch : {"sm_80", "sm_90a"})
            EXPECT_EQ(nvrtcFailures(code, arch), "") << arch;
    }
}

TEST(MmaIntrinsics, ABlockWithFewerThreadsThanTheEmittersWarpsIsAnError) {
    std::string text = readFile(intrinsicsPath());
    const std::string launch = "threads=emitter.threads";
    ASSERT_NE(text.find(launch), std::string::npos);
    text.replace(text.find(launch), launch.size(), "threads=64");
    PlannedProgram p = planProgram("few_threads.py", text);
    ASSERT_TRUE(p.result);
    EXPECT_EQ(p.result->failedPass, "check");
    const std::string report = p.result->formattedDiagnostics();
    EXPECT_NE(report.find("[mma-intrinsic-threads]"), std::string::npos) << report;
    EXPECT_NE(report.find("needs 128 threads"), std::string::npos) << report;
    EXPECT_NE(report.find("threads=128"), std::string::npos) << report;
}

TEST(MmaIntrinsics, TileLevelCodeReadingAPerThreadLocalIsAnExecutorDiagnostic) {
    std::string text = readFile(intrinsicsPath());
    const std::string store = "C_shared[i // 16, j // 16, i % 16, j % 16]";
    ASSERT_NE(text.find(store), std::string::npos);
    text.replace(text.find(store), store.size(), "C_local[0]");
    PlannedProgram p = planProgram("per_thread_read.py", text);
    ASSERT_TRUE(p.result && p.result->module) << p.result->formattedDiagnostics();
    const ir::PrimFunc& f = p.result->module->funcs.at(0);
    DiagnosticEngine diags;
    std::vector<HostTensor> params = allocateParams(f, {}, 3, diags);
    EXPECT_FALSE(executePrimFunc(*p.result->module, f, params, {}, diags));
    const std::string report = formatDiagnostics(p.result->sources, diags.diagnostics());
    EXPECT_NE(report.find("[execution-per-thread-local]"), std::string::npos) << report;
    EXPECT_NE(report.find("'C_local' is a per-thread array"), std::string::npos) << report;
}

} // namespace
