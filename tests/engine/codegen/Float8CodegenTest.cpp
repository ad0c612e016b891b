// float8 in the CUDA backend: tensors, fragments and casts of e4m3fn and e5m2 go through the float8 part of
// the device header (software conversions, so sm_80 compiles them too), which only kernels that use float8
// get. (On the GPU, GpuRunTest checks the conversions against the CPU's rounding bit for bit.)
#include "engine/codegen/DeviceHeader.h"
#include "engine/gpu/Nvrtc.h"
#include "tests/engine/codegen/CodegenTestSupport.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::codegen::test {
namespace {

TEST(Float8Codegen, CastsLoadsAndStoresConvertAndCompileForSm80AndSm90a) {
    PlannedProgram p = planTestProgram("float8_rounding.py");
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const std::string& cuda = code.units.at(0).source;
    EXPECT_NE(cuda.find(cudaFloat8Header()), std::string::npos);
    EXPECT_NE(cuda.find("E4[0 * 8192 + i * 128 + j] = tb_f2e4m3("), std::string::npos) << cuda;
    EXPECT_NE(cuda.find("= tb_f2e5m2("), std::string::npos);
    EXPECT_NE(cuda.find("q[r] = tb_round_e4m3("), std::string::npos)
        << "a float8 fragment holds rounded floats";
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    for (const char* arch : {"sm_80", "sm_90a"})
        EXPECT_EQ(nvrtcFailures(code, arch), "");
}

TEST(Float8Codegen, KernelsWithoutFloat8DoNotCarryItsHeader) {
    PlannedProgram p = planSample("02_gemm_relu.py", {{"M", "256"}, {"N", "256"}, {"K", "256"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    EXPECT_EQ(code.units.at(0).source.find("tb_f2fp8"), std::string::npos);
}

} // namespace
} // namespace tb::codegen::test
