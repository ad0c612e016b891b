// CUDA bench files: directives, parameters (defaults, -p overrides, ${NAME}), launch arithmetic, errors.
#include "engine/profile/CudaBenchSpec.h"

#include "engine/catalog/SampleCatalog.h"

#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

namespace tb::profile {
namespace {

std::string kernelFile(const std::string& name) {
    std::string text;
    EXPECT_TRUE(readTextFile(std::string(TILEBENCH_PROFILE_KERNELS) + "/" + name, text)) << name;
    return text;
}

TEST(CudaBenchSpec, TransposeDefaultsAndOverrides) {
    DiagnosticEngine diags;
    CudaBenchSpec spec;
    ASSERT_TRUE(parseCudaBenchSpec(kernelFile("transpose.cu"), {{"PAD", "1"}}, spec, diags));
    EXPECT_EQ(spec.kernel, "transpose");
    EXPECT_EQ(spec.launchFields, "grid=256,256 block=32,32 args=buf:in,buf:out,i32:8192");
    ASSERT_EQ(spec.buffers.size(), 2u);
    EXPECT_EQ(spec.buffers[0].name, "in");
    EXPECT_EQ(spec.buffers[0].count, 8192u * 8192u);
    EXPECT_EQ(spec.buffers[0].init, "seed=1");
    EXPECT_EQ(spec.buffers[1].init, "zero");
    EXPECT_DOUBLE_EQ(spec.bytes, 2.0 * 4 * 8192 * 8192);
    EXPECT_EQ(spec.params, (std::vector<std::pair<std::string, std::string>>{{"N", "8192"}, {"PAD", "1"}}));
    EXPECT_EQ(spec.source.rfind("#define N 8192\n#define PAD 1\n#line 1\n", 0), 0u)
        << spec.source.substr(0, 80);
}

TEST(CudaBenchSpec, LaunchArithmeticAndGemmShape) {
    DiagnosticEngine diags;
    CudaBenchSpec spec;
    ASSERT_TRUE(parseCudaBenchSpec(kernelFile("rmsnorm_silu.cu"), {{"ROWS", "1024"}}, spec, diags));
    EXPECT_EQ(spec.launchFields, "grid=128 block=256 args=buf:x,buf:gamma,buf:y,i32:1024");
    ASSERT_TRUE(parseCudaBenchSpec(kernelFile("gemm_smem.cu"), {{"M", "256"}}, spec, diags));
    EXPECT_EQ(spec.gemmM, 256);
    EXPECT_EQ(spec.gemmN, 4096);
    EXPECT_DOUBLE_EQ(spec.flops, 2.0 * 256 * 4096 * 4096);
    EXPECT_EQ(spec.launchFields, "grid=64,4 block=256 args=buf:a,buf:b,buf:c");
}

std::string errorCode(const std::string& text, std::vector<std::pair<std::string, std::string>> params = {}) {
    DiagnosticEngine diags;
    CudaBenchSpec spec;
    EXPECT_FALSE(parseCudaBenchSpec(text, params, spec, diags));
    return diags.diagnostics().empty() ? "" : diags.diagnostics()[0].code;
}

TEST(CudaBenchSpec, Errors) {
    const std::string ok = "// tilebench-kernel: k\n// tilebench-launch: grid=1 block=32\n";
    EXPECT_EQ(errorCode(ok, {{"X", "1"}}), "bench-unknown-param");
    EXPECT_EQ(errorCode("// tilebench-kernel: k\n"), "bench-missing-directive");
    EXPECT_EQ(errorCode(ok + "// tilebench-buffer: b f33 16\n"), "bench-bad-buffer");
    EXPECT_EQ(errorCode(ok + "// tilebench-buffer: b f32 16 random\n"), "bench-bad-buffer");
    EXPECT_EQ(errorCode(ok + "// tilebench-colour: red\n"), "bench-bad-directive");
    EXPECT_EQ(errorCode("// tilebench-kernel: k\n// tilebench-launch: grid=3/2 block=32\n"),
              "bench-bad-directive");
    EXPECT_EQ(errorCode("// tilebench-kernel: k\n// tilebench-launch: grid=(1/0) block=32\n"),
              "bench-bad-directive");
    EXPECT_EQ(errorCode(ok + "// tilebench-gemm: m=0 n=1 k=1\n"), "bench-bad-directive");
    EXPECT_EQ(errorCode("// tilebench-kernel: k_${Y}\n// tilebench-launch: grid=1 block=1\n"),
              "bench-unknown-param");
    EXPECT_EQ(benchDtypeBytes("bf16"), 2);
    EXPECT_EQ(benchDtypeBytes("f8"), 0);
}

} // namespace
} // namespace tb::profile
