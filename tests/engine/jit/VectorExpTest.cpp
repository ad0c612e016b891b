// T.exp and T.exp2 of float32 dtype on the JIT (engine/jit/VectorExp.h): vector code that must give the
// interpreter's (float)std::exp(x) for every float, including the lanes it hands to libm (NaN, infinities,
// results outside the normal floats, results near a rounding midpoint).
#include "tests/engine/jit/JitTestSupport.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb {
namespace {

using testing::compileText;
using testing::firstDifference;
using testing::runBoth;
using testing::sameBits;

std::string expProgram(int64_t n) {
    return "import tilelang.language as T\n"
           "\n"
           "@T.prim_func\n"
           "def exps(X: T.Tensor((" +
           std::to_string(n) + ",), \"float32\"), E: T.Tensor((" + std::to_string(n) +
           ",), \"float32\"), E2: T.Tensor((" + std::to_string(n) +
           ",), \"float32\")):\n"
           "    with T.Kernel(" +
           std::to_string(n / 1024) +
           ", threads=128) as b:\n"
           "        for i in T.Parallel(1024):\n"
           "            E[b * 1024 + i] = T.exp(X[b * 1024 + i])\n"
           "            E2[b * 1024 + i] = T.exp2(X[b * 1024 + i])\n";
}

// Every 2048th float bit pattern (every exponent and sign, NaNs, infinities, subnormals), then floats
// spread densely over [-130, 130), where the results are normal floats or just outside them.
std::vector<double> exponents(int64_t n) {
    std::vector<double> x(static_cast<size_t>(n));
    const int64_t half = n / 2;
    for (int64_t i = 0; i < half; ++i)
        x[size_t(i)] = std::bit_cast<float>(uint32_t(uint64_t(i) * (uint64_t(1) << 32) / uint64_t(half)));
    for (int64_t i = half; i < n; ++i)
        x[size_t(i)] = float(-130.0 + 260.0 * double(i - half) / double(n - half));
    return x;
}

TEST(VectorExp, EveryFloatGivesTheInterpretersValue) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "no CPU JIT in this build";
    const int64_t n = int64_t(1) << 22;
    auto compiled = compileText("exps.py", expProgram(n));
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    const ir::PrimFunc& f = compiled->module->funcs.at(0);
    DiagnosticEngine diags;
    std::vector<HostTensor> params = allocateParams(f, {}, 1, diags);
    params[0].data = exponents(n);
    ProgramExecutionOptions jit;
    jit.backend = CpuBackend::Jit;
    ASSERT_TRUE(executeProgram(*compiled->module, f, params, {}, diags, jit));
    // The interpreter's expression for a float32 T.exp (Executor.cpp): libm in double, rounded to float.
    for (int64_t i = 0; i < n; ++i) {
        const double x = params[0].data[size_t(i)];
        ASSERT_TRUE(sameBits(params[1].data[size_t(i)], double(float(std::exp(x))))) << "exp(" << x << ")";
        ASSERT_TRUE(sameBits(params[2].data[size_t(i)], double(float(std::exp2(x))))) << "exp2(" << x << ")";
    }
}

// Every one of the 2^32 floats, 2^24 at a time: TB_VECTOR_EXP_EXHAUSTIVE=1 (a few minutes on 2 cores; run
// when VectorExp.cpp changes, and recorded in docs/cpu-jit.md).
TEST(VectorExp, EveryFloatExhaustively) {
    if (!std::getenv("TB_VECTOR_EXP_EXHAUSTIVE"))
        GTEST_SKIP() << "set TB_VECTOR_EXP_EXHAUSTIVE=1 to check all 2^32 floats";
    if (!cpuJitAvailable())
        GTEST_SKIP() << "no CPU JIT in this build";
    const int64_t n = int64_t(1) << 24;
    auto compiled = compileText("exps.py", expProgram(n));
    ASSERT_TRUE(compiled->module);
    const ir::PrimFunc& f = compiled->module->funcs.at(0);
    DiagnosticEngine diags;
    std::vector<HostTensor> params = allocateParams(f, {}, 1, diags);
    int64_t checked = 0;
    for (uint64_t start = 0; start < (uint64_t(1) << 32); start += uint64_t(n)) {
        std::vector<double> x(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
            x[size_t(i)] = std::bit_cast<float>(uint32_t(start + uint64_t(i)));
        params[0].data = x;
        ProgramExecutionOptions jit;
        jit.backend = CpuBackend::Jit;
        ASSERT_TRUE(executeProgram(*compiled->module, f, params, {}, diags, jit));
        for (int64_t i = 0; i < n; ++i, ++checked) {
            ASSERT_TRUE(sameBits(params[1].data[size_t(i)], double(float(std::exp(x[size_t(i)])))))
                << x[size_t(i)];
            ASSERT_TRUE(sameBits(params[2].data[size_t(i)], double(float(std::exp2(x[size_t(i)])))))
                << x[size_t(i)];
        }
    }
    EXPECT_EQ(checked, int64_t(1) << 32);
}

TEST(VectorExp, TheInterpreterAgreesOnASlice) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "no CPU JIT in this build";
    const int64_t n = int64_t(1) << 16;
    auto compiled = compileText("exps.py", expProgram(n));
    ASSERT_TRUE(compiled->module);
    const ir::PrimFunc& f = compiled->module->funcs.at(0);
    testing::BothRuns runs = runBoth(*compiled, f);
    ASSERT_TRUE(runs.interpreterOk && runs.jitOk) << runs.interpreterDiags << runs.jitDiags;
    EXPECT_EQ(firstDifference(runs.interpreted, runs.jitted), "");
}

} // namespace
} // namespace tb
