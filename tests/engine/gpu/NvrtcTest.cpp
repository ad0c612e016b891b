// NVRTC through compileCuda: tensor-core inline PTX for sm_80 and sm_90a with ptxas resource figures,
// wgmma rejected on sm_80, compile errors with line numbers, the empty-cubin trap of compute_XX, spills,
// and SASS disassembly where the toolkit has nvdisasm.
#include "engine/gpu/Nvrtc.h"

#include "TestKernels.h"

#include <cstring>
#include <gtest/gtest.h>
#include <optional>
#include <string>

namespace tb::gpu {
namespace {

CudaCompileOptions uncached(const std::string& arch) {
    CudaCompileOptions options;
    options.arch = arch;
    options.useCache = false;
    return options;
}

#if TILEBENCH_HAS_NVRTC

TEST(Nvrtc, CompilesTensorCoreInlinePtxForSm80AndSm90a) {
    for (const char* arch : {"sm_80", "sm_90a"}) {
        CudaCompileResult r = compileCuda(test::kMmaSource, "mma_tile", uncached(arch));
        ASSERT_TRUE(r.ok) << arch << ":\n" << r.log;
        ASSERT_GT(r.cubin.size(), 0u);
        EXPECT_EQ(std::memcmp(r.cubin.data(),
                              "\x7f"
                              "ELF",
                              4),
                  0);
        EXPECT_NE(r.ptx.find(std::string(".target ") + arch), std::string::npos) << arch;
        EXPECT_NE(r.ptx.find("mma.sync.aligned.m16n8k16"), std::string::npos);
        EXPECT_GE(r.registers, 1) << arch << ":\n" << r.log;
        EXPECT_EQ(r.sharedBytes, 16 * 16 * 2 + 16 * 8 * 2) << r.log;
        EXPECT_EQ(r.spillStoreBytes, 0);
        EXPECT_EQ(r.spillLoadBytes, 0);
        EXPECT_EQ(r.stackBytes, 0);
        EXPECT_FALSE(r.cacheHit);
        EXPECT_EQ(r.kernelName, "mma_tile");
        EXPECT_GT(r.milliseconds, 0.0);
    }
}

TEST(Nvrtc, WgmmaCompilesForSm90aOnly) {
    CudaCompileResult hopper = compileCuda(test::kWgmmaSource, "wgmma_fence", uncached("sm_90a"));
    ASSERT_TRUE(hopper.ok) << hopper.log;
    EXPECT_GE(hopper.registers, 1);

    CudaCompileResult ampere = compileCuda(test::kWgmmaSource, "wgmma_fence", uncached("sm_80"));
    EXPECT_FALSE(ampere.ok);
    EXPECT_TRUE(ampere.cubin.empty());
    EXPECT_NE(ampere.log.find("ptxas"), std::string::npos) << ampere.log;
    EXPECT_NE(ampere.log.find("wgmma.fence"), std::string::npos) << ampere.log;
    EXPECT_NE(ampere.log.find("not supported on .target 'sm_80'"), std::string::npos) << ampere.log;
}

TEST(Nvrtc, CompileErrorNamesTheLine) {
    const char* source = "extern \"C\" __global__ void broken(float* p) {\n"
                         "    int i = threadIdx.x;\n"
                         "    p[i] = 1.0f;\n"
                         "    p[i] += undefined_name;\n"
                         "}\n";
    CudaCompileResult r = compileCuda(source, "broken", uncached("sm_90a"));
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.cubin.empty());
    EXPECT_NE(r.log.find("broken.cu(4): error"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("undefined_name"), std::string::npos) << r.log;
}

TEST(Nvrtc, VirtualArchitectureIsRejectedBecauseItGivesNoCubin) {
    CudaCompileResult r = compileCuda(test::kMmaSource, "mma_tile", uncached("compute_90a"));
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.cubin.empty());
    EXPECT_NE(r.log.find("compute_XX"), std::string::npos) << r.log;
}

TEST(Nvrtc, MissingKernelIsReported) {
    CudaCompileResult r = compileCuda(test::kMmaSource, "no_such_kernel", uncached("sm_90a"));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.log.find("kernel 'no_such_kernel' is not in the compiled module"), std::string::npos)
        << r.log;
}

TEST(Nvrtc, ReportsSpillsUnderARegisterCap) {
    // 64 live accumulators in a loop that cannot be unrolled away, under a 24-register cap: ptxas spills.
    CudaCompileOptions options = uncached("sm_90a");
    options.extraOptions = {"--maxrregcount=24"};
    CudaCompileResult r = compileCuda(test::kPressureSource, "pressure", options);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_LE(r.registers, 24) << r.log;
    EXPECT_GT(r.spillStoreBytes + r.stackBytes, 0) << r.log;
}

TEST(Nvrtc, SassDisassemblyWhereTheToolkitHasIt) {
    CudaCompileResult r = compileCuda(test::kMmaSource, "mma_tile", uncached("sm_90a"));
    ASSERT_TRUE(r.ok) << r.log;
    std::string reason;
    std::optional<std::string> sass = disassembleSass(r.cubin, &reason);
    if (!sass) {
        // The dev machines' toolkit has neither tool; the H200 test machine has both.
        EXPECT_NE(reason.find("nvdisasm"), std::string::npos) << reason;
        GTEST_SKIP() << "no SASS disassembler: " << reason;
    }
    EXPECT_NE(sass->find("mma_tile"), std::string::npos);
    EXPECT_NE(sass->find("HMMA"), std::string::npos) << sass->substr(0, 2000);
    EXPECT_NE(sass->find("EXIT"), std::string::npos);
}

#else

TEST(Nvrtc, ReportsThatNvrtcIsMissing) {
    CudaCompileResult r = compileCuda(test::kMmaSource, "mma_tile", uncached("sm_90a"));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.log.find("NVRTC not available in this build"), std::string::npos);
}

#endif

TEST(Nvrtc, ParsesPtxasVerboseReport) {
    // NVRTC 13's wording, with a callee's properties between the kernel's header and its "Used" line.
    const char* log =
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function 'other' for 'sm_90a'\n"
        "ptxas info    : Function properties for other\n"
        "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem\n"
        "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
        "ptxas info    : Function properties for helper\n"
        "ptxas         .     96 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Function properties for k\n"
        "ptxas         .     256 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\n"
        "ptxas info    : Used 32 registers, used 1 barriers, 256 bytes cumulative stack size, "
        "1024 bytes smem\n"
        "ptxas info    : Compile time = 132.087 ms\n";
    PtxasKernelInfo k = parsePtxasInfo(log, "k");
    EXPECT_TRUE(k.found);
    EXPECT_EQ(k.registers, 32);
    EXPECT_EQ(k.sharedBytes, 1024);
    EXPECT_EQ(k.stackBytes, 256);
    EXPECT_EQ(k.spillStoreBytes, 12);
    EXPECT_EQ(k.spillLoadBytes, 16);
    PtxasKernelInfo other = parsePtxasInfo(log, "other");
    EXPECT_EQ(other.registers, 40);
    EXPECT_EQ(other.sharedBytes, 2048);
    EXPECT_EQ(other.spillStoreBytes, 4);
    PtxasKernelInfo missing = parsePtxasInfo(log, "nope");
    EXPECT_FALSE(missing.found);
    EXPECT_EQ(missing.registers, -1);
    // A kernel without shared memory has no "bytes smem" field: that means 0, not unknown.
    PtxasKernelInfo noSmem =
        parsePtxasInfo("ptxas info    : Compiling entry function 'z' for 'sm_80'\n"
                       "ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]\n",
                       "z");
    EXPECT_EQ(noSmem.registers, 8);
    EXPECT_EQ(noSmem.sharedBytes, 0);
}

} // namespace
} // namespace tb::gpu
