// What the JIT does besides agreeing with the interpreter on good programs: the fallback (a program it
// does not lower runs on the interpreter under Auto, with the reason; under Jit it is an error), runtime
// errors reported at the same statement as the interpreter's, kernels with atomic adds run in block
// order, and results independent of the thread count.
#include "tests/engine/jit/JitTestSupport.h"

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

const char* kPrintProgram = R"(import tilelang.language as T

@T.prim_func
def shout(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(2, threads=32) as bx:
        frag = T.alloc_fragment((32,), "float32")
        T.copy(A[bx * 32], frag)
        T.print(frag, msg="tile")
        for i in T.Parallel(32):
            B[bx * 32 + i] = frag[i] * 2.0
)";

TEST(JitFallback, AutoRunsTheInterpreterAndSaysWhy) {
    auto compiled = compileText("print.py", kPrintProgram);
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    const ir::PrimFunc& func = compiled->module->funcs.front();
    auto runs = runBoth(*compiled, func, {}, 5, CpuBackend::Auto);
    ASSERT_TRUE(runs.interpreterOk) << runs.interpreterDiags;
    ASSERT_TRUE(runs.jitOk) << runs.jitDiags;
    EXPECT_EQ(runs.jitReport.used, CpuBackend::Interpreter);
    EXPECT_NE(runs.jitReport.fallbackNote.find("T.print"), std::string::npos) << runs.jitReport.fallbackNote;
    EXPECT_EQ(firstDifference(runs.interpreted, runs.jitted), "");
}

TEST(JitFallback, JitOnlyReportsTheConstructItCannotLower) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    auto compiled = compileText("print.py", kPrintProgram);
    ASSERT_TRUE(compiled->module);
    auto runs = runBoth(*compiled, compiled->module->funcs.front(), {}, 5, CpuBackend::Jit);
    EXPECT_FALSE(runs.jitOk);
    EXPECT_NE(runs.jitDiags.find("jit-unsupported"), std::string::npos) << runs.jitDiags;
    EXPECT_NE(runs.jitDiags.find("T.print"), std::string::npos) << runs.jitDiags;
}

// The "file:line:col" of the first diagnostic and its code.
std::string firstLocation(const std::string& diags) {
    std::string line = diags.substr(0, diags.find('\n'));
    return line.substr(0, line.find(": error")) + " " + line.substr(line.rfind('['));
}

TEST(JitRuntimeErrors, OutOfBoundsFragmentStoreAtTheSameStatement) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    auto compiled = compileText("oob.py", R"(import tilelang.language as T

@T.prim_func
def oob(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(2, threads=32) as bx:
        frag = T.alloc_fragment((32,), "float32")
        for i in T.Parallel(32):
            frag[i + bx] = A[bx * 32 + i]
        T.copy(frag, B[bx * 32])
)");
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    auto runs = runBoth(*compiled, compiled->module->funcs.front());
    EXPECT_FALSE(runs.interpreterOk);
    EXPECT_FALSE(runs.jitOk);
    EXPECT_NE(runs.jitDiags.find("runtime-out-of-bounds"), std::string::npos) << runs.jitDiags;
    EXPECT_EQ(firstLocation(runs.jitDiags), firstLocation(runs.interpreterDiags)) << runs.jitDiags << "\n"
                                                                                  << runs.interpreterDiags;
    EXPECT_NE(runs.jitDiags.find("in block (1, 0, 0)"), std::string::npos) << runs.jitDiags;
}

TEST(JitRuntimeErrors, IntegerDivisionByZero) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    auto compiled = compileText("div.py", R"(import tilelang.language as T

@T.prim_func
def div(A: T.Tensor((32,), "int32"), B: T.Tensor((32,), "int32")):
    with T.Kernel(1, threads=32) as bx:
        for i in T.Parallel(32):
            B[i] = A[i] // (i - 7)
)");
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    auto runs = runBoth(*compiled, compiled->module->funcs.front());
    EXPECT_FALSE(runs.interpreterOk);
    EXPECT_FALSE(runs.jitOk);
    EXPECT_NE(runs.jitDiags.find("runtime-division-by-zero"), std::string::npos) << runs.jitDiags;
    EXPECT_EQ(firstLocation(runs.jitDiags), firstLocation(runs.interpreterDiags));
}

std::string readProgram(const std::string& name) {
    std::ifstream in(std::string(TILEBENCH_TESTS_DIR) + "/engine/jit/programs/" + name, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(JitBlocks, AtomicAddKernelsRunInBlockOrder) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    auto compiled = compileText("atomic_rows.py", readProgram("atomic_rows.py"));
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    auto runs = runBoth(*compiled, compiled->module->funcs.front());
    ASSERT_TRUE(runs.jitOk) << runs.jitDiags;
    EXPECT_TRUE(runs.jitReport.sequentialKernels);
    EXPECT_EQ(firstDifference(runs.interpreted, runs.jitted), "");
}

// A sampled check (ExecutionLimits::blockSample) runs the same blocks on both backends, also where the
// blocks combine results through atomic adds (the JIT ran every block of such a kernel, bench_cpu_corpus
// found): 2 of atomic_rows' 6 blocks, whose sum differs from all six's.
TEST(JitBlocks, ASampledAtomicAddKernelRunsTheInterpretersBlocks) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    auto compiled = compileText("atomic_rows.py", readProgram("atomic_rows.py"));
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    const ir::PrimFunc& func = compiled->module->funcs.front();
    DiagnosticEngine diags;
    const std::vector<HostTensor> inputs = allocateParams(func, {}, 21, diags);
    std::vector<HostTensor> interpreted = inputs, jitted = inputs, whole = inputs;
    ProgramExecutionOptions interpreter, jit;
    interpreter.backend = CpuBackend::Interpreter;
    jit.backend = CpuBackend::Jit;
    ASSERT_TRUE(executeProgram(*compiled->module, func, whole, {}, diags, jit));
    interpreter.limits.blockSample = jit.limits.blockSample = 2;
    ASSERT_TRUE(executeProgram(*compiled->module, func, interpreted, {}, diags, interpreter));
    ASSERT_TRUE(executeProgram(*compiled->module, func, jitted, {}, diags, jit));
    EXPECT_EQ(firstDifference(interpreted, jitted), "");
    EXPECT_NE(firstDifference(whole, jitted), "") << "the sample ran every block";
}

TEST(JitBlocks, ResultsDoNotDependOnTheThreadCount) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    std::ifstream in(std::string(TILEBENCH_SAMPLES_DIR) + "/02_gemm_relu.py", std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto compiled = compileText("gemm.py", text.str(), {{"M", "300"}, {"N", "200"}, {"K", "64"}});
    ASSERT_TRUE(compiled->module);
    const ir::PrimFunc& func = compiled->module->funcs.front();
    DiagnosticEngine diags;
    std::vector<HostTensor> first = allocateParams(func, {}, 9, diags);
    std::vector<HostTensor> second = first;
    ProgramExecutionOptions one, three;
    one.backend = three.backend = CpuBackend::Jit;
    one.threads = 1;
    three.threads = 3;
    ProgramExecutionReport report;
    ASSERT_TRUE(executeProgram(*compiled->module, func, first, {}, diags, one, nullptr, &report));
    EXPECT_EQ(report.threads, 1);
    ASSERT_TRUE(executeProgram(*compiled->module, func, second, {}, diags, three, nullptr, &report));
    EXPECT_EQ(report.threads, 3);
    EXPECT_EQ(firstDifference(first, second), "");
}

} // namespace
} // namespace tb
