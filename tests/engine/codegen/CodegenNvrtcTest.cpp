// Every sample's generated CUDA compiles with NVRTC for sm_80 and sm_90a: no errors, registers reported,
// and no spills for the GEMM at its default sizes. Skipped when the build has no NVRTC.
#include "CodegenTestSupport.h"
#include "engine/gpu/Nvrtc.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

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

// Operands at run-time offsets (k slices chosen by a loop variable) keep the per-load lane formula of every
// ldmatrix instead of solved addresses; the code compiles in all four operand layouts.
TEST(CodegenNvrtc, GemmOnRunTimeSlicesKeepsPerLoadLaneFormulas) {
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    for (const char* transA : {"False", "True"})
        for (const char* transB : {"False", "True"}) {
            PlannedProgram p =
                planTestProgram("gemm_k_slices.py", {{"trans_A", transA}, {"trans_B", transB}});
            ASSERT_TRUE(p.ok()) << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
            std::string errors;
            CudaKernelSource code = generateFor(p, errors);
            ASSERT_TRUE(code.ok) << errors;
            const std::string& source = code.units[0].source;
            // Every ldmatrix of both operands computes its lane's address from `lane` and the loop's `kk`.
            size_t loads = 0, perLane = 0;
            for (size_t at = source.find("tb_ldmatrix_x"); at != std::string::npos;
                 at = source.find("tb_ldmatrix_x", at + 1)) {
                std::string line = source.substr(at, source.find('\n', at) - at);
                if (line.find("a_frag") == std::string::npos && line.find("b_frag") == std::string::npos)
                    continue;
                ++loads;
                perLane += line.find("lane % ") != std::string::npos && line.find("kk") != std::string::npos;
            }
            EXPECT_GT(loads, 0u) << transA << transB;
            EXPECT_EQ(perLane, loads) << transA << transB << "\n" << source;
            for (const char* arch : {"sm_80", "sm_90a"}) {
                gpu::CudaCompileOptions options;
                options.arch = arch;
                gpu::CudaCompileResult r = gpu::compileCuda(source, code.units[0].kernels[0].name, options);
                EXPECT_TRUE(r.ok) << arch << " trans_A=" << transA << " trans_B=" << transB << ":\n" << r.log;
            }
        }
}

// Programs the GPU fuzzer found generating CUDA that NVRTC rejects (each file says how): both backends,
// every architecture the backend emits for.
class FuzzReproducerNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzReproducerNvrtc, CompilesOnBothBackends) {
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    for (Backend backend : {Backend::Portable, Backend::Hopper}) {
        PlannedProgram p = planTestProgram(GetParam(), {}, backend);
        ASSERT_TRUE(p.ok()) << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
        std::string errors;
        CudaKernelSource code = generateFor(p, errors);
        ASSERT_TRUE(code.ok) << errors;
        for (const GeneratedUnit& unit : code.units)
            for (const GeneratedKernel& k : unit.kernels)
                for (const char* arch : backend == Backend::Hopper
                                            ? std::vector<const char*>{"sm_90a"}
                                            : std::vector<const char*>{"sm_80", "sm_90a"}) {
                    gpu::CudaCompileOptions options;
                    options.arch = arch;
                    gpu::CudaCompileResult r = gpu::compileCuda(unit.source, k.name, options);
                    EXPECT_TRUE(r.ok) << backendName(backend) << " " << arch << " " << k.name << ":\n"
                                      << r.log << "\n"
                                      << unit.source;
                }
    }
}

INSTANTIATE_TEST_SUITE_P(Fuzz, FuzzReproducerNvrtc,
                         ::testing::Values("fuzz_one_index_var.py", "fuzz_replicated_copy.py",
                                           "fuzz_bfloat16_fragment.py", "fuzz_float16_literal.py",
                                           "fuzz_wgmma_mn_major_panel.py"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param.substr(0, info.param.size() - 3);
                             name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
                             return name;
                         });

// Programs with T.alloc_global workspaces (a split kernel writing them, a combine kernel reading them): the
// test program and TileLang's flash decoding at its own shape, on both backends, for every architecture the
// backend emits for.
TEST(CodegenNvrtc, WorkspaceProgramsCompileOnBothBackends) {
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    for (Backend backend : {Backend::Portable, Backend::Hopper})
        for (bool corpus : {false, true}) {
            PlannedProgram p = corpus
                                   ? planCorpusProgram("flash_decoding/example_mha_inference.py", {}, backend)
                                   : planTestProgram("split_combine_workspace.py", {}, backend);
            ASSERT_TRUE(p.ok()) << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
            std::string errors;
            CudaKernelSource code = generateFor(p, errors);
            ASSERT_TRUE(code.ok) << errors;
            ASSERT_EQ(code.units[0].kernels.size(), 2u);
            for (const char* arch : backend == Backend::Hopper ? std::vector<const char*>{"sm_90a"}
                                                               : std::vector<const char*>{"sm_80", "sm_90a"})
                EXPECT_EQ(nvrtcFailures(code, arch), "") << backendName(backend) << " " << arch;
        }
}
