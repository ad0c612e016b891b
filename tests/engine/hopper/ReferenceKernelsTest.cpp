// The hand-written Hopper reference kernels (tests/engine/profile/kernels/copy_tma.cu, gemm_tma_wgmma.cu)
// as `tilec bench` sees them: their directives parse (the generated device header prepended, the tensor
// maps legal), they compile with NVRTC for sm_90a without spills or ptxas warnings, and their SASS is the
// Hopper path: HGMMA.64x256x16 (fp16 and bf16), UTMALDG, setmaxnreg, mbarrier waits, no local memory.
#include "HopperTestSupport.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/gpu/TensorMapSpec.h"

#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::hopper {
namespace {

#define REQUIRE_NVRTC()                                                                                      \
    if (!TILEBENCH_HAS_NVRTC)                                                                                \
    GTEST_SKIP() << "NVRTC not available in this build"

TEST(ReferenceKernels, DirectivesGiveTheHeaderTensorMapsAndLaunch) {
    std::string error;
    profile::CudaBenchSpec gemm = test::kernelSpec("gemm_tma_wgmma.cu", {}, &error);
    ASSERT_FALSE(gemm.source.empty()) << error;
    EXPECT_EQ(gemm.kernel, "gemm_tma_wgmma");
    EXPECT_EQ(gemm.source.rfind("// ---- TileBench device helpers", 0), 0u) << "the header comes first";
    EXPECT_NE(gemm.source.find("void tb_wgmma_m64n256k16_f32_f16_ss("), std::string::npos);
    EXPECT_LT(gemm.source.find("// ---- end of sm_90a helpers"), gemm.source.find("#define M 4096"));
    EXPECT_EQ(gemm.launchFields,
              "grid=132 block=384 smem=198656 args=tmap:tA,tmap:tB,buf:c,i32:4096,i32:4096,i32:4096");
    ASSERT_EQ(gemm.tensorMaps.size(), 2u);
    EXPECT_EQ(gemm.tensorMaps[0].first, "tA");
    EXPECT_EQ(gpu::formatTensorMapRequest("tA", gemm.tensorMaps[0].second),
              "tensormap tA a dtype=f16 rank=2 dims=4096,4096 strides=8192 box=64,128 elem_strides=1,1 "
              "interleave=none swizzle=128B l2=128B oob=zero offset=0");
    EXPECT_EQ(gemm.gemmM, 4096);

    profile::CudaBenchSpec bf16 =
        test::kernelSpec("gemm_tma_wgmma.cu", {{"DTYPE", "bf16"}, {"M", "1000"}}, &error);
    ASSERT_FALSE(bf16.source.empty()) << error;
    EXPECT_NE(bf16.source.find("void tb_wgmma_m64n256k16_f32_bf16_ss("), std::string::npos);
    EXPECT_EQ(bf16.tensorMaps[0].second.dtype, gpu::TensorMapDtype::BF16);
    EXPECT_EQ(bf16.tensorMaps[0].second.dims[1], 1000u);
    EXPECT_EQ(bf16.buffers[0].dtype, "bf16");

    // A tensor map that breaks the driver's rules is a directive error with the rule's message.
    std::string text = test::readKernelFile("copy_tma.cu");
    profile::CudaBenchSpec spec;
    DiagnosticEngine diags;
    EXPECT_FALSE(profile::parseCudaBenchSpec(text, {{"BC", "64"}}, spec, diags));
    ASSERT_FALSE(diags.diagnostics().empty());
    EXPECT_NE(
        diags.diagnostics()[0].message.find("box[0] is 64 elements x 4 bytes = 256 bytes, more than the 128B "
                                            "swizzle span"),
        std::string::npos)
        << diags.diagnostics()[0].message;
}

struct Compiled {
    gpu::CudaCompileResult result;
    std::optional<std::string> sass;
    std::string why;
};

Compiled compileKernel(const std::string& file,
                       const std::vector<std::pair<std::string, std::string>>& params) {
    Compiled c;
    std::string error;
    profile::CudaBenchSpec spec = test::kernelSpec(file, params, &error);
    EXPECT_FALSE(spec.source.empty()) << error;
    c.result = test::compileSm90a(spec.source, spec.kernel);
    if (c.result.ok)
        c.sass = gpu::disassembleSass(c.result.cubin, &c.why);
    return c;
}

TEST(ReferenceKernels, TmaCopyCompilesToTmaLoadsAndStores) {
    REQUIRE_NVRTC();
    Compiled c = compileKernel("copy_tma.cu", {});
    ASSERT_TRUE(c.result.ok) << c.result.log;
    EXPECT_EQ(c.result.spillStoreBytes, 0);
    EXPECT_EQ(c.result.stackBytes, 0);
    EXPECT_EQ(test::ptxasWarnings(c.result.log), "");
    if (!c.sass)
        GTEST_SKIP() << "compiled for sm_90a; no SASS check: " << c.why;
    for (const char* op : {"UTMALDG.2D", "UTMASTG.2D", "UTMACCTL.PF", "SYNCS.EXCH.64", "SYNCS.ARRIVE.TRANS64",
                           "SYNCS.PHASECHK.TRANS64.TRYWAIT"})
        EXPECT_GE(test::countOpcode(*c.sass, op), 1) << op;
}

Compiled expectWarpSpecializedGemm(const std::string& dtype, const std::string& hgmma,
                                   const std::string& cluster = "1") {
    Compiled c = compileKernel("gemm_tma_wgmma.cu", {{"DTYPE", dtype}, {"CLUSTER", cluster}});
    EXPECT_TRUE(c.result.ok) << c.result.log;
    if (!c.result.ok) {
        c.sass.reset();
        c.why = "it did not compile";
        return c;
    }
    // 384 threads with __launch_bounds__(384, 1): 168 registers at entry, setmaxnreg moves them.
    EXPECT_LE(c.result.registers, 168);
    EXPECT_EQ(c.result.spillStoreBytes, 0) << c.result.log;
    EXPECT_EQ(c.result.spillLoadBytes, 0);
    EXPECT_EQ(c.result.stackBytes, 0);
    EXPECT_EQ(test::ptxasWarnings(c.result.log), "") << "e.g. serialized wgmma or an ignored setmaxnreg";
    if (!c.sass)
        return c;
    const std::string& sass = *c.sass;
    EXPECT_GE(test::countOpcode(sass, hgmma), 4) << hgmma;
    EXPECT_EQ(test::countOpcode(sass, "HMMA"), 0) << "no mma.sync fallback";
    EXPECT_GE(test::countOpcode(sass, "UTMALDG.2D"), 1);
    EXPECT_EQ(test::countOpcode(sass, "USETMAXREG.DEALLOC.CTAPOOL"), 1);
    EXPECT_EQ(test::countOpcode(sass, "USETMAXREG.TRY_ALLOC.CTAPOOL"), 1);
    EXPECT_GE(test::countOpcode(sass, "SYNCS.PHASECHK.TRANS64.TRYWAIT"), 2) << "full and empty waits";
    EXPECT_GE(test::countOpcode(sass, "WARPGROUP.DEPBAR.LE"), 2);
    for (const char* local : {"LDL", "STL"})
        EXPECT_EQ(test::countOpcode(sass, local), 0) << local << ": local memory";
    return c;
}

TEST(ReferenceKernels, Fp16GemmIsWarpSpecializedWgmmaOnTma) {
    REQUIRE_NVRTC();
    Compiled c = expectWarpSpecializedGemm("f16", "HGMMA.64x256x16.F32");
    if (!c.sass)
        GTEST_SKIP() << "compiled for sm_90a; no SASS check: " << c.why;
    EXPECT_GE(test::countOpcode(*c.sass, "UTMALDG.2D"), 5) << "A and four B panels per stage";
    EXPECT_EQ(test::countOpcode(*c.sass, "MEMBAR.ALL.GPU"), 0);
}

TEST(ReferenceKernels, Bf16GemmIsWarpSpecializedWgmmaOnTma) {
    REQUIRE_NVRTC();
    Compiled c = expectWarpSpecializedGemm("bf16", "HGMMA.64x256x16.F32.BF16");
    if (!c.sass)
        GTEST_SKIP() << "compiled for sm_90a; no SASS check: " << c.why;
}

// CLUSTER=2: B halves multicast to both blocks of a cluster, stages released by remote arrives, cluster
// barriers only at the start and the end (a release at cluster scope per stage would fence the GPU each
// time).
TEST(ReferenceKernels, ClusterGemmMulticastsB) {
    REQUIRE_NVRTC();
    Compiled c = expectWarpSpecializedGemm("f16", "HGMMA.64x256x16.F32", "2");
    if (!c.sass)
        GTEST_SKIP() << "compiled for sm_90a; no SASS check: " << c.why;
    const std::string& sass = *c.sass;
    EXPECT_GE(test::countOpcode(sass, "UTMALDG.2D.MULTICAST"), 2) << "two B panels per block and stage";
    EXPECT_GE(test::countOpcode(sass, "SYNCS.ARRIVE.TRANS64.RED.A1T0"), 2) << "remote arrives";
    EXPECT_EQ(test::countOpcode(sass, "UCGABAR_ARV"), 2);
    EXPECT_EQ(test::countOpcode(sass, "UCGABAR_WAIT"), 2);
    EXPECT_LE(test::countOpcode(sass, "MEMBAR.ALL.GPU"), 2) << "only the two cluster barriers' releases";
}

} // namespace
} // namespace tb::hopper
