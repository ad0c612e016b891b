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

std::string specErrorCode(const std::string& text,
                          std::vector<std::pair<std::string, std::string>> params = {}) {
    DiagnosticEngine diags;
    CudaBenchSpec spec;
    EXPECT_FALSE(parseCudaBenchSpec(text, params, spec, diags));
    return diags.diagnostics().empty() ? "" : diags.diagnostics()[0].code;
}

TEST(CudaBenchSpec, Errors) {
    const std::string ok = "// tilebench-kernel: k\n// tilebench-launch: grid=1 block=32\n";
    EXPECT_EQ(specErrorCode(ok, {{"X", "1"}}), "bench-unknown-param");
    EXPECT_EQ(specErrorCode("// tilebench-kernel: k\n"), "bench-missing-directive");
    EXPECT_EQ(specErrorCode(ok + "// tilebench-buffer: b f33 16\n"), "bench-bad-buffer");
    EXPECT_EQ(specErrorCode(ok + "// tilebench-buffer: b f32 16 random\n"), "bench-bad-buffer");
    EXPECT_EQ(specErrorCode(ok + "// tilebench-colour: red\n"), "bench-bad-directive");
    EXPECT_EQ(specErrorCode("// tilebench-kernel: k\n// tilebench-launch: grid=3/2 block=32\n"),
              "bench-bad-directive");
    EXPECT_EQ(specErrorCode("// tilebench-kernel: k\n// tilebench-launch: grid=(1/0) block=32\n"),
              "bench-bad-directive");
    EXPECT_EQ(specErrorCode(ok + "// tilebench-gemm: m=0 n=1 k=1\n"), "bench-bad-directive");
    EXPECT_EQ(specErrorCode("// tilebench-kernel: k_${Y}\n// tilebench-launch: grid=1 block=1\n"),
              "bench-unknown-param");
    EXPECT_EQ(benchDtypeBytes("bf16"), 2);
    EXPECT_EQ(benchDtypeBytes("f8"), 0);
}

TEST(CudaBenchSpec, DeviceHeaderAndTensorMapDirectives) {
    const std::string base = "// tilebench-param: K=256\n// tilebench-kernel: k\n// tilebench-launch: grid=1 "
                             "block=128 args=tmap:t\n";
    CudaBenchSpec spec;
    DiagnosticEngine diags;
    ASSERT_TRUE(parseCudaBenchSpec(base + "// tilebench-device-header: hopper wgmma=m64n64k16_f32_bf16_rs\n"
                                          "// tilebench-tensormap: t x dtype=f32 rank=2 dims=${K},${K}/2 "
                                          "strides=${K}*4 box=32,${K}/4 swizzle=128B\n",
                                   {}, spec, diags));
    EXPECT_NE(spec.source.find("void tb_wgmma_m64n64k16_f32_bf16_rs("), std::string::npos);
    EXPECT_LT(spec.source.find("tb_wgmma_m64n64k16"), spec.source.find("#define K 256"));
    ASSERT_EQ(spec.tensorMaps.size(), 1u);
    EXPECT_EQ(spec.tensorMaps[0].second.dims[1], 128u);
    EXPECT_EQ(spec.tensorMaps[0].second.strides[0], 1024u);
    EXPECT_EQ(spec.tensorMaps[0].second.box[1], 64u);

    ASSERT_TRUE(parseCudaBenchSpec(base + "// tilebench-device-header: portable\n", {}, spec, diags));
    EXPECT_EQ(spec.source.find("mbarrier."), std::string::npos);

    auto message = [&](const std::string& directive) {
        DiagnosticEngine d;
        CudaBenchSpec s;
        EXPECT_FALSE(parseCudaBenchSpec(base + directive, {}, s, d)) << directive;
        return d.diagnostics().empty() ? std::string() : d.diagnostics()[0].message;
    };
    EXPECT_NE(message("// tilebench-device-header: hopper wgmma=m64n260k16_f32_f16_ss\n")
                  .find("n=260 is not a multiple of 8 in 8..256"),
              std::string::npos);
    EXPECT_NE(message("// tilebench-device-header: portable wgmma=m64n64k16_f32_f16_ss\n")
                  .find("wgmma= needs hopper"),
              std::string::npos);
    EXPECT_NE(message("// tilebench-device-header: blackwell\n").find("'blackwell' is not hopper"),
              std::string::npos);
    EXPECT_NE(message("// tilebench-tensormap: t x dtype=f32 rank=2 dims=16,16 strides=40 box=4,4\n")
                  .find("strides[0] = 40 bytes (of dim 1) is not a multiple of 16"),
              std::string::npos);
    EXPECT_NE(message("// tilebench-tensormap: t x dtype=f32 rank=2 dims=16,16/3 strides=64 box=4,4\n")
                  .find("is not a whole number"),
              std::string::npos);
}

} // namespace
} // namespace tb::profile
