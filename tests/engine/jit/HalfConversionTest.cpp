// float16 conversions on the JIT: with F16C a half loads as one exact conversion, and a float32 value rounds
// to half and stores as one conversion each (Lowerer::halfToDouble, convertStored, doubleToHalf). Every
// half bit pattern, and floats on and around every half rounding boundary (ties to even, the overflow
// threshold, the subnormal range), must give the interpreter's values, which are FloatFormats' roundings.
#include "engine/exec/FloatFormats.h"
#include "tests/engine/jit/JitTestSupport.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <string>
#include <vector>

namespace tb {
namespace {

using testing::compileText;
using testing::firstDifference;
using testing::sameBits;

constexpr int64_t kHalves = 65536;
constexpr int64_t kFloats = 4 * kHalves;

const char* kProgram = R"(import tilelang.language as T

@T.prim_func
def halves(H: T.Tensor((65536,), "float16"), F: T.Tensor((262144,), "float32"),
           HF: T.Tensor((65536,), "float32"), HH: T.Tensor((65536,), "float16"),
           FH: T.Tensor((262144,), "float16")):
    with T.Kernel(64, threads=128) as b:
        t = T.alloc_shared((1024,), "float16")
        T.copy(H[b * 1024], t)
        for i in T.Parallel(1024):
            HF[b * 1024 + i] = T.cast(t[i], "float32")
        T.copy(t, HH[b * 1024])
        for i in T.Parallel(4096):
            FH[b * 4096 + i] = T.cast(F[b * 4096 + i], "float16")
)";

// For every half: the half itself, the midpoint to the next half up in magnitude (a tie), and the floats
// just below and above that midpoint. Non-finite halves give infinities, NaN and the overflow threshold.
std::vector<double> floatsAroundHalves() {
    std::vector<double> out;
    out.reserve(size_t(kFloats));
    for (int64_t bits = 0; bits < kHalves; ++bits) {
        const double h = float16Value(uint16_t(bits));
        double next = float16Value(uint16_t(bits + 1));
        if (!std::isfinite(h) || !std::isfinite(next) || std::signbit(h) != std::signbit(next))
            next = std::copysign(65536.0, h); // past the largest finite half: the tie is 65520, where
                                              // rounding overflows to infinity
        const float tie = static_cast<float>((h + next) / 2);
        out.push_back(std::isnan(h) ? std::numeric_limits<double>::quiet_NaN() : h);
        out.push_back(tie);
        out.push_back(std::nextafter(tie, 0.0f));
        out.push_back(std::nextafter(tie, std::copysign(std::numeric_limits<float>::infinity(), tie)));
    }
    return out;
}

TEST(HalfConversions, EveryHalfAndEveryRoundingBoundaryGiveTheInterpretersValues) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    auto compiled = compileText("halves.py", kProgram);
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    const ir::PrimFunc& f = compiled->module->funcs.at(0);
    DiagnosticEngine diags;
    std::vector<HostTensor> jitted = allocateParams(f, {}, 1, diags);
    for (int64_t bits = 0; bits < kHalves; ++bits)
        jitted[0].data[size_t(bits)] = float16Value(uint16_t(bits));
    jitted[1].data = floatsAroundHalves();
    std::vector<HostTensor> interpreted = jitted;
    ProgramExecutionOptions jit, interpreter;
    jit.backend = CpuBackend::Jit;
    interpreter.backend = CpuBackend::Interpreter;
    ASSERT_TRUE(executeProgram(*compiled->module, f, jitted, {}, diags, jit));
    ASSERT_TRUE(executeProgram(*compiled->module, f, interpreted, {}, diags, interpreter));
    EXPECT_EQ(firstDifference(interpreted, jitted), "");
    // And both are FloatFormats' roundings, bit for bit (NaN matches NaN).
    for (int64_t i = 0; i < kHalves; ++i) {
        ASSERT_TRUE(sameBits(jitted[2].data[size_t(i)], jitted[0].data[size_t(i)])) << "half bits " << i;
        ASSERT_TRUE(sameBits(jitted[3].data[size_t(i)], jitted[0].data[size_t(i)])) << "half bits " << i;
    }
    for (int64_t i = 0; i < kFloats; ++i) {
        const double x = jitted[1].data[size_t(i)];
        ASSERT_TRUE(sameBits(jitted[4].data[size_t(i)], float16Value(float16Bits(x)))) << "float " << x;
    }
}

} // namespace
} // namespace tb
