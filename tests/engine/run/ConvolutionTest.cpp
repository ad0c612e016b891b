// TileLang's im2col convolution (tests/corpus/tilelang-examples/convolution/example_convolution_autotune.py,
// unmodified) through the whole compile line at small shapes: the CPU interpreter and the JIT agree bit for
// bit and equal a conv2d written out here (NHWC image, HWCF filter, stride, dilation, zero padding), the
// ragged last tiles and a filter narrower than the block included; the generated CUDA compiles with NVRTC
// for sm_80 and sm_90a on the portable backend and for sm_90a on the hopper backend, for the host code's
// sm_80 configuration (no out_shared stage) as well as its sm_90a one.
#include "CodegenTestSupport.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/ir/Printer.h"
#include "engine/jit/ProgramExecution.h"
#include "tests/engine/jit/JitTestSupport.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace tb;
using namespace tb::codegen::test;

namespace {

const char* const kProgram = "convolution/example_convolution_autotune.py";

using Params = std::vector<std::pair<std::string, std::string>>;

struct ConvShape {
    int64_t n, c, h, w, f, k, s, d, p;
    Params blocks; // block_M, block_N, block_K, num_stages, thread_num
    Params params() const {
        Params out = {{"N", std::to_string(n)}, {"C", std::to_string(c)}, {"H", std::to_string(h)},
                      {"W", std::to_string(w)}, {"F", std::to_string(f)}, {"K", std::to_string(k)},
                      {"S", std::to_string(s)}, {"D", std::to_string(d)}, {"P", std::to_string(p)}};
        out.insert(out.end(), blocks.begin(), blocks.end());
        return out;
    }
};

std::vector<ConvShape> shapes() {
    const Params small = {
        {"block_M", "64"}, {"block_N", "64"}, {"block_K", "32"}, {"num_stages", "2"}, {"thread_num", "128"}};
    // The host code's sm_90a configuration: a 256-wide filter tile over a narrower filter.
    const Params hopper = {{"block_M", "128"},
                           {"block_N", "256"},
                           {"block_K", "64"},
                           {"num_stages", "3"},
                           {"thread_num", "256"}};
    return {
        {2, 64, 10, 10, 96, 3, 1, 1, 1, small}, // 200 pixels: a ragged last row tile; 96 = 1.5 column tiles
        {3, 32, 10, 9, 64, 3, 2, 2, 0, small},  // stride 2, dilation 2, no padding: 3 x 3 outputs
        {1, 64, 7, 12, 48, 5, 1, 1, 2, small},  // a 5-tap filter, more padding, a non-square image
        {1, 128, 12, 12, 128, 3, 1, 1, 1, hopper},
    };
}

// out[n, oh, ow, f] = sum over kh, kw, c of img[n, oh*S - P + kh*D, ow*S - P + kw*D, c] * w[kh, kw, c, f],
// zero outside the image, in double.
std::vector<double> naiveConvolution(const ConvShape& s, const HostTensor& img, const HostTensor& w) {
    const int64_t oh = (s.h + 2 * s.p - s.d * (s.k - 1) - 1) / s.s + 1;
    const int64_t ow = (s.w + 2 * s.p - s.d * (s.k - 1) - 1) / s.s + 1;
    std::vector<double> out(size_t(s.n * oh * ow * s.f), 0.0);
    for (int64_t n = 0; n < s.n; ++n)
        for (int64_t y = 0; y < oh; ++y)
            for (int64_t x = 0; x < ow; ++x)
                for (int64_t f = 0; f < s.f; ++f) {
                    double sum = 0;
                    for (int64_t kh = 0; kh < s.k; ++kh)
                        for (int64_t kw = 0; kw < s.k; ++kw) {
                            const int64_t iy = y * s.s - s.p + kh * s.d, ix = x * s.s - s.p + kw * s.d;
                            if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                                continue;
                            for (int64_t c = 0; c < s.c; ++c)
                                sum += img.data[size_t(((n * s.h + iy) * s.w + ix) * s.c + c)] *
                                       w.data[size_t(((kh * s.k + kw) * s.c + c) * s.f + f)];
                        }
                    out[size_t(((n * oh + y) * ow + x) * s.f + f)] = sum;
                }
    return out;
}

std::string shapeName(const ConvShape& s) {
    std::string text;
    for (const auto& [name, value] : s.params())
        text += name + "=" + value + " ";
    return text;
}

TEST(Convolution, InterpreterAndJitAgreeAndEqualANaiveConvolution) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    const std::string text =
        readFile(std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples/" + kProgram);
    for (const ConvShape& s : shapes()) {
        SCOPED_TRACE(shapeName(s));
        auto compiled = tb::testing::compileText(kProgram, text, s.params());
        ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
        const ir::PrimFunc& func = compiled->module->funcs.at(0);
        tb::testing::BothRuns runs = tb::testing::runBoth(*compiled, func, {}, 11);
        ASSERT_TRUE(runs.interpreterOk) << runs.interpreterDiags;
        ASSERT_TRUE(runs.jitOk) << runs.jitDiags;
        EXPECT_EQ(runs.jitReport.used, CpuBackend::Jit) << runs.jitReport.fallbackNote;
        EXPECT_EQ(tb::testing::firstDifference(runs.interpreted, runs.jitted), "");
        // The inputs are float16; the kernel sums in float32 and rounds once to float16.
        const std::vector<double> want = naiveConvolution(s, runs.interpreted[0], runs.interpreted[1]);
        const HostTensor& out = runs.interpreted[2];
        ASSERT_EQ(out.data.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
            ASSERT_NEAR(out.data[i], want[i], 2e-3 * std::abs(want[i]) + 2e-3) << "element " << i;
    }
}

// The program as `tilec` compiles it for `target` and `backend`, with `params` given.
std::unique_ptr<CompileResult> compileFor(const Target& target, Backend backend, const Params& params) {
    CompileOptions options;
    options.target = target;
    options.backend = backend;
    options.elaborate.overrides = params;
    return compileTileProgram(
        kProgram, readFile(std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples/" + kProgram),
        options);
}

TEST(Convolution, TheGeneratedCudaCompilesForBothBackendsAndArchitectures) {
    // The program's own sizes and configurations (the host code's heuristic config for the target), and a
    // small shape with ragged tiles.
    const std::vector<Params> settings = {{}, shapes()[0].params()};
    for (const Params& params : settings)
        for (const Target* target : {&targetSm90a(), &targetSm80()})
            for (Backend backend : {Backend::Portable, Backend::Hopper}) {
                if (backend == Backend::Hopper && !target->hasWgmma)
                    continue;
                SCOPED_TRACE(target->name + (backend == Backend::Hopper ? " hopper " : " portable ") +
                             std::to_string(params.size()) + " overrides");
                auto result = compileFor(*target, backend, params);
                ASSERT_TRUE(result->ok()) << result->formattedDiagnostics();
                const codegen::GeneratedUnit& unit = result->cuda->units.at(0);
                // The views are the parameters' storage under another shape.
                EXPECT_NE(unit.source.find("half_t* kernel_flat = kernel; // view of 'kernel'"),
                          std::string::npos);
                EXPECT_NE(unit.source.find("half_t* out_flat = out; // view of 'out'"), std::string::npos);
                // check_hopper(): the sm_90a target stages the output through out_shared, sm_80 stores the
                // fragment directly.
                const std::string listing = ir::printModule(*result->module);
                EXPECT_EQ(listing.find("-> out_shared") != std::string::npos, target->smVersion == 90)
                    << listing;
                EXPECT_EQ(listing.find("copy out_local[0:128, 0:256] -> out_flat") != std::string::npos ||
                              listing.find("copy out_local[0:64, 0:64] -> out_flat") != std::string::npos,
                          target->smVersion != 90)
                    << listing;
                if (gpu::nvrtcVersionString().empty())
                    continue;
                PlannedProgram planned;
                planned.result = std::move(result);
                std::string errors;
                codegen::CudaKernelSource code = generateFor(planned, errors);
                ASSERT_TRUE(code.ok) << errors;
                EXPECT_EQ(nvrtcFailures(code, target->name), "");
                if (target->smVersion == 90 && backend == Backend::Portable) {
                    EXPECT_EQ(nvrtcFailures(code, "sm_80"), ""); // the portable code of the sm_90a config
                }
            }
}

} // namespace
