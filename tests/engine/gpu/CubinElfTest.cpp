// The cubin's own record of a kernel's resources (engine/gpu/CubinElf.h): for kernels of different register
// pressure, with and without a stack frame, the registers and frame in `.nv.info` equal what ptxas printed;
// damaged or foreign bytes give nothing, never a crash.
#include "engine/gpu/CubinElf.h"

#include "TestKernels.h"
#include "engine/gpu/Nvrtc.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

namespace tb::gpu {
namespace {

#if TILEBENCH_HAS_NVRTC

// Our cache off, and a source NVRTC has never seen: NVRTC 13 keeps its own disk cache of ptxas results keyed
// by the PTX, and a hit there prints no ptxas report to compare with. A distinct __device__ variable reaches
// the PTX.
CudaCompileResult compileUncached(const char* source, const std::string& kernel,
                                  std::vector<std::string> extra = {}) {
    static int compiles = 0;
    CudaCompileOptions options;
    options.arch = "sm_90a";
    options.useCache = false;
    options.extraOptions = std::move(extra);
    std::string unseen = std::string(source) + "\n__device__ int tb_unseen_" +
                         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "_" +
                         std::to_string(compiles++) + ";\n";
    return compileCuda(unseen, kernel, options);
}

const char* kPressure = test::kPressureSource;

TEST(CubinElf, RegistersAndFrameMatchThePtxasReport) {
    for (const std::vector<std::string>& cap : {std::vector<std::string>{}, {"--maxrregcount=24"}}) {
        CudaCompileResult r = compileUncached(kPressure, "pressure", cap);
        ASSERT_TRUE(r.ok) << r.log;
        ASSERT_NE(r.log.find("Used "), std::string::npos) << "no ptxas report to compare with: " << r.log;
        auto resources = cubinFunctionResources(r.cubin, "pressure");
        ASSERT_TRUE(resources.has_value());
        EXPECT_EQ(resources->registers, r.registers) << r.log;
        EXPECT_EQ(resources->frameBytes, r.stackBytes) << r.log;
        // Both kernels of the module are described, each with its own figures.
        auto smallKernel = cubinFunctionResources(r.cubin, "small");
        ASSERT_TRUE(smallKernel.has_value());
        EXPECT_GT(smallKernel->registers, 0);
        EXPECT_LT(smallKernel->registers, resources->registers);
    }
    CudaCompileResult capped = compileUncached(kPressure, "pressure", {"--maxrregcount=24"});
    ASSERT_TRUE(capped.ok);
    EXPECT_LE(cubinFunctionResources(capped.cubin, "pressure")->registers, 24);
    EXPECT_GT(cubinFunctionResources(capped.cubin, "pressure")->frameBytes, 0); // the spills live there
}

TEST(CubinElf, UnknownFunctionsAndDamagedBytesGiveNothing) {
    CudaCompileResult r = compileUncached(kPressure, "pressure");
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(cubinFunctionResources(r.cubin, "no_such_kernel").has_value());
    // Cut inside the header, and inside the section header table (its offset is at 0x28).
    uint64_t tableOffset = 0;
    std::memcpy(&tableOffset, r.cubin.data() + 0x28, sizeof tableOffset);
    ASSERT_LT(tableOffset + 10, r.cubin.size());
    for (size_t keep : {size_t(0), size_t(16), size_t(64), size_t(tableOffset + 10)}) {
        std::vector<char> cut(r.cubin.begin(), r.cubin.begin() + long(keep));
        EXPECT_FALSE(cubinFunctionResources(cut, "pressure").has_value()) << keep;
    }
    // Bytes all over the file flipped, one at a time: no crash, and either nothing or figures.
    std::vector<char> bytes = r.cubin;
    std::vector<ElfSection> sections;
    std::string error;
    ASSERT_TRUE(readElfSections(bytes, sections, error)) << error;
    EXPECT_FALSE(sections.empty());
    for (size_t i = 0; i < bytes.size(); i += 7) {
        std::vector<char> damaged = bytes;
        damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
        (void)cubinFunctionResources(damaged, "pressure");
    }
    std::vector<char> text = {'n', 'o', 't', ' ', 'a', 'n', ' ', 'e', 'l', 'f'};
    EXPECT_FALSE(readElfSections(text, sections, error));
    EXPECT_NE(error.find("ELF64"), std::string::npos);
}

#else

TEST(CubinElf, SkippedWithoutNvrtc) {
    GTEST_SKIP() << "NVRTC is not available in this build (the CUDA toolkit was not found at configure time)";
}

#endif

} // namespace
} // namespace tb::gpu
