// Kernels with a grid barrier (T.sync_grid) on the CPU: every block runs up to the barrier before any block
// goes past it, each keeping its fragments across it, on the interpreter and (barriers at the top level of
// the kernel) on the JIT; a barrier inside a loop runs the blocks in lockstep on the interpreter, a loop or
// branch that differs between blocks is an error, and a sampled run still runs every block.
#include "tests/engine/jit/JitTestSupport.h"

#include <cstdint>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace tb {
namespace {

using testing::compileText;
using testing::firstDifference;
using testing::runBoth;

std::string gridBarrierProgram() {
    std::ifstream in(std::string(TILEBENCH_TESTS_DIR) + "/engine/codegen/programs/grid_barrier.py",
                     std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

float roundToFloat(double x) {
    return static_cast<float>(x);
}

// grid_barrier.py's meaning, from its inputs: Out[b, i] = A[b, i] * P[b + 1] + P[b - 1] (around the ring),
// P[b] the float32 sum of row b of A (summed in double and rounded once, as the executor's reduction does).
std::vector<double> expectedGridBarrier(const HostTensor& a, int64_t blocks, int64_t n) {
    std::vector<float> partial(static_cast<size_t>(blocks));
    for (int64_t b = 0; b < blocks; ++b) {
        double sum = 0;
        for (int64_t i = 0; i < n; ++i)
            sum += a.data[size_t(b * n + i)];
        partial[size_t(b)] = roundToFloat(sum);
    }
    std::vector<double> out;
    for (int64_t b = 0; b < blocks; ++b)
        for (int64_t i = 0; i < n; ++i) {
            const float product =
                roundToFloat(a.data[size_t(b * n + i)] * double(partial[size_t((b + 1) % blocks)]));
            out.push_back(roundToFloat(double(product) + double(partial[size_t((b + blocks - 1) % blocks)])));
        }
    return out;
}

std::string firstMismatch(const std::vector<double>& expected, const HostTensor& got) {
    if (expected.size() != got.data.size())
        return "size " + std::to_string(got.data.size()) + " instead of " + std::to_string(expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        if (!testing::sameBits(expected[i], got.data[i]))
            return "element " + std::to_string(i) + ": " + std::to_string(got.data[i]) + " instead of " +
                   std::to_string(expected[i]);
    return "";
}

TEST(GridSyncExecution, EveryBlockFinishesItsPhaseBeforeAnyGoesPastTheBarrier) {
    auto compiled = compileText("grid_barrier.py", gridBarrierProgram());
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    const ir::PrimFunc& func = compiled->module->funcs.front();
    auto runs = runBoth(*compiled, func, {}, 11);
    ASSERT_TRUE(runs.interpreterOk) << runs.interpreterDiags;
    // A, Partial (written by the kernel), Out.
    ASSERT_EQ(runs.interpreted.size(), 3u);
    EXPECT_EQ(firstMismatch(expectedGridBarrier(runs.interpreted[0], 6, 64), runs.interpreted[2]), "");
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    ASSERT_TRUE(runs.jitOk) << runs.jitDiags;
    EXPECT_EQ(runs.jitReport.used, CpuBackend::Jit) << runs.jitReport.fallbackNote;
    EXPECT_EQ(firstDifference(runs.interpreted, runs.jitted), "");
}

TEST(GridSyncExecution, WithoutTheBarrierTheProgramGivesAnotherResult) {
    // The test program is sensitive to the barrier: run one block after another (no barrier), some block
    // reads its neighbour's Partial before the neighbour wrote it.
    std::string text = gridBarrierProgram();
    const std::string barrier = "T.sync_grid()";
    ASSERT_NE(text.find(barrier), std::string::npos);
    text.replace(text.find(barrier), barrier.size(), "pass");
    auto compiled = compileText("grid_barrier.py", text);
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    auto runs = runBoth(*compiled, compiled->module->funcs.front(), {}, 11);
    ASSERT_TRUE(runs.interpreterOk) << runs.interpreterDiags;
    EXPECT_NE(firstMismatch(expectedGridBarrier(runs.interpreted[0], 6, 64), runs.interpreted[2]), "");
}

TEST(GridSyncExecution, ASampledRunStillRunsEveryBlock) {
    auto compiled = compileText("grid_barrier.py", gridBarrierProgram());
    ASSERT_TRUE(compiled->module);
    const ir::PrimFunc& func = compiled->module->funcs.front();
    for (CpuBackend backend : {CpuBackend::Interpreter, CpuBackend::Jit}) {
        if (backend == CpuBackend::Jit && !cpuJitAvailable())
            continue;
        DiagnosticEngine diags;
        std::vector<HostTensor> params = allocateParams(func, {}, 3, diags);
        ProgramExecutionOptions options;
        options.backend = backend;
        options.limits.blockSample = 2; // of 6 blocks
        ASSERT_TRUE(executeProgram(*compiled->module, func, params, {}, diags, options))
            << formatDiagnostics(compiled->sources, diags.diagnostics());
        EXPECT_EQ(firstMismatch(expectedGridBarrier(params[0], 6, 64), params[2]), "")
            << cpuBackendName(backend);
    }
}

// Every block's on-chip buffers live at once across a barrier: together they count against the buffer limit
// (6 blocks x 65 elements here), on both backends (the JIT leaves such a program to the interpreter).
TEST(GridSyncExecution, TheBlocksStatesTogetherStayWithinTheBufferLimit) {
    auto compiled = compileText("grid_barrier.py", gridBarrierProgram());
    ASSERT_TRUE(compiled->module);
    const ir::PrimFunc& func = compiled->module->funcs.front();
    for (int64_t limit : {int64_t(389), int64_t(390)}) {
        DiagnosticEngine diags;
        std::vector<HostTensor> params = allocateParams(func, {}, 3, diags);
        ProgramExecutionOptions options;
        options.backend = CpuBackend::Auto;
        options.limits.maxBufferElements = limit; // A has 384 elements
        const bool ok = executeProgram(*compiled->module, func, params, {}, diags, options);
        const std::string text = formatDiagnostics(compiled->sources, diags.diagnostics());
        EXPECT_EQ(ok, limit == 390) << limit << text;
        if (!ok) {
            EXPECT_NE(
                text.find("the on-chip buffers of the 6 blocks, which a grid barrier keeps alive together, "
                          "have more than 389 elements [execution-limit]"),
                std::string::npos)
                << text;
        }
    }
}

// The persistent MLA decode of TileLang's corpus at a small shape: 132 blocks (one per H200 SM), a grid
// barrier at the top level: the JIT runs it in two phases, bit for bit as the interpreter does.
TEST(GridSyncExecution, PersistentMlaDecodeRunsOnTheJitAsOnTheInterpreter) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    std::ifstream in(std::string(TILEBENCH_TESTS_DIR) +
                         "/corpus/tilelang-examples/deepseek_mla/example_mla_decode_persistent.py",
                     std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto compiled = compileText("example_mla_decode_persistent.py", text.str(),
                                {{"batch", "1"}, {"heads", "64"}, {"seqlen_kv", "256"}});
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    auto runs = runBoth(*compiled, compiled->module->funcs.front(), {}, 5);
    ASSERT_TRUE(runs.interpreterOk) << runs.interpreterDiags;
    ASSERT_TRUE(runs.jitOk) << runs.jitDiags;
    EXPECT_EQ(runs.jitReport.used, CpuBackend::Jit) << runs.jitReport.fallbackNote;
    EXPECT_EQ(firstDifference(runs.interpreted, runs.jitted), "");
}

// Blocks exchange rows around a ring `steps` times; each step writes one slot of Ring, waits, and adds the
// right neighbour's row: a grid barrier inside a T.serial loop.
const char* kRingProgram = R"(import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def ring(blocks=4, steps=3, N=32):
    @T.prim_func
    def main(A: T.Tensor((blocks, N), "float32"), Out: T.Tensor((blocks, N), "float32"),
             Ring: T.Tensor((2, blocks, N), "float32")):
        with T.Kernel(blocks, threads=32) as bx:
            acc = T.alloc_fragment((N,), "float32")
            T.copy(A[bx, 0:N], acc)
            for s in T.serial(steps):
                T.copy(acc, Ring[s % 2, bx, 0:N])
                T.sync_grid()
                for i in T.Parallel(N):
                    acc[i] = acc[i] + Ring[s % 2, (bx + 1) % blocks, i]
            T.copy(acc, Out[bx, 0:N])
    return main
)";

TEST(GridSyncExecution, ABarrierInALoopRunsTheBlocksInLockstep) {
    auto compiled = compileText("ring.py", kRingProgram);
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    const ir::PrimFunc& func = compiled->module->funcs.front();
    auto runs = runBoth(*compiled, func, {}, 9, CpuBackend::Auto);
    ASSERT_TRUE(runs.interpreterOk) << runs.interpreterDiags;
    std::vector<std::vector<float>> rows(4, std::vector<float>(32));
    for (size_t b = 0; b < 4; ++b)
        for (size_t i = 0; i < 32; ++i)
            rows[b][i] = static_cast<float>(runs.interpreted[0].data[b * 32 + i]);
    for (int step = 0; step < 3; ++step) {
        std::vector<std::vector<float>> next = rows;
        for (size_t b = 0; b < 4; ++b)
            for (size_t i = 0; i < 32; ++i)
                next[b][i] = roundToFloat(double(rows[b][i]) + double(rows[(b + 1) % 4][i]));
        rows = next;
    }
    std::vector<double> expected;
    for (const auto& row : rows)
        expected.insert(expected.end(), row.begin(), row.end());
    EXPECT_EQ(firstMismatch(expected, runs.interpreted[1]), "");
    // The JIT lowers barriers at the top level of a kernel only: this one runs on the interpreter, saying so.
    ASSERT_TRUE(runs.jitOk) << runs.jitDiags;
    EXPECT_EQ(runs.jitReport.used, CpuBackend::Interpreter);
    if (cpuJitAvailable()) {
        EXPECT_NE(runs.jitReport.fallbackNote.find("T.sync_grid inside a loop or branch"), std::string::npos)
            << runs.jitReport.fallbackNote;
    }
    EXPECT_EQ(firstDifference(runs.interpreted, runs.jitted), "");
}

TEST(GridSyncExecution, BlocksThatTakeDifferentPathsToTheBarrierAreAnError) {
    const char* program = R"(import tilelang.language as T

@T.prim_func
def split(A: T.Tensor((4, 32), "float32")):
    with T.Kernel(4, threads=32) as bx:
        flag = T.alloc_var("int32")
        flag = bx
        if flag < 2:
            T.sync_grid()
)";
    auto compiled = compileText("split.py", program);
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    auto runs = runBoth(*compiled, compiled->module->funcs.front(), {}, 1, CpuBackend::Auto);
    EXPECT_FALSE(runs.interpreterOk);
    EXPECT_NE(runs.interpreterDiags.find("grid-sync-divergent"), std::string::npos) << runs.interpreterDiags;
    EXPECT_NE(runs.interpreterDiags.find("block (0, 0, 0) decides true, block (2, 0, 0) decides false"),
              std::string::npos)
        << runs.interpreterDiags;
    EXPECT_NE(runs.interpreterDiags.find("split.py:8:9"), std::string::npos) << runs.interpreterDiags;
}

} // namespace
} // namespace tb
