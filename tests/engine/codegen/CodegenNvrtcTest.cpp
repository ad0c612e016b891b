// Every sample's generated CUDA compiles with NVRTC for sm_80 and sm_90a: no errors, registers reported,
// and no spills for the GEMM at its default sizes. Skipped when the build has no NVRTC.
#include "CodegenTestSupport.h"
#include "engine/gpu/Nvrtc.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>

using namespace tb;
using namespace tb::codegen;
using namespace tb::codegen::test;

class SampleNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleNvrtc, CompilesForSm80AndSm90a) {
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    PlannedProgram p = planSample(GetParam());
    ASSERT_TRUE(p.ok()) << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    // TILEBENCH_DUMP_CUDA=DIR keeps the generated sources for reading.
    if (const char* dir = std::getenv("TILEBENCH_DUMP_CUDA"); dir && *dir)
        std::ofstream(std::string(dir) + "/" + GetParam() + ".cu") << code.units[0].source;
    for (const GeneratedUnit& unit : code.units)
        for (const GeneratedKernel& k : unit.kernels)
            for (const char* arch : {"sm_80", "sm_90a"}) {
                gpu::CudaCompileOptions options;
                options.arch = arch;
                gpu::CudaCompileResult r = gpu::compileCuda(unit.source, k.name, options);
                ASSERT_TRUE(r.ok) << arch << " " << k.name << ":\n" << r.log;
                EXPECT_GT(r.registers, 0) << arch << " " << k.name;
                if (GetParam() == "02_gemm_relu.py") {
                    EXPECT_EQ(r.spillStoreBytes, 0) << arch << "\n" << r.log;
                    EXPECT_EQ(r.spillLoadBytes, 0) << arch;
                }
            }
}

INSTANTIATE_TEST_SUITE_P(Samples, SampleNvrtc, ::testing::ValuesIn(sampleFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return "s" + info.param.substr(0, 2);
                         });
