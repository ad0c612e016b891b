// T.sync_grid in CUDA: the device header's grid barrier (only in translation units that use it), called
// where the program calls T.sync_grid, a launch marked cooperative, no producer warpgroup on the hopper
// backend; the code compiles with NVRTC for sm_80 and sm_90a (portable) and sm_90a (hopper), the test
// program's and the persistent MLA decode's of the TileLang corpus at its own default shape.
#include "CodegenTestSupport.h"
#include "engine/gpu/Nvrtc.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace tb;
using namespace tb::codegen;
using namespace tb::codegen::test;

namespace {

PlannedProgram planGridBarrier(Backend backend) {
    return planTestProgram("grid_barrier.py", {}, backend);
}

const char* const kPersistentMla = "deepseek_mla/example_mla_decode_persistent.py";

std::vector<const char*> archsOf(Backend backend) {
    return backend == Backend::Hopper ? std::vector<const char*>{"sm_90a"}
                                      : std::vector<const char*>{"sm_80", "sm_90a"};
}

} // namespace

TEST(GridSyncCodegen, TheBarrierIsTheHeadersGridSyncAndTheLaunchIsCooperative) {
    PlannedProgram p = planGridBarrier(Backend::Portable);
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const std::string& source = code.units[0].source;
    EXPECT_EQ(countOf(source, "static __device__ unsigned tb_grid_arrivals = 0;"), 1u) << source;
    EXPECT_EQ(countOf(source, "static __device__ __forceinline__ void tb_grid_sync()"), 1u);
    // One call, after the store of Partial and before the loop that reads it, on the program's line.
    const size_t call = source.find("    tb_grid_sync(); // T.sync_grid");
    ASSERT_NE(call, std::string::npos) << source;
    EXPECT_EQ(source.substr(call, source.find('\n', call) - call),
              "    tb_grid_sync(); // T.sync_grid: every block of the grid has run what precedes (line 24)");
    EXPECT_LT(source.find("Partial["), call) << source;
    EXPECT_GT(source.rfind("Partial["), call) << source;
    ASSERT_EQ(code.units[0].kernels.size(), 1u);
    EXPECT_TRUE(code.units[0].kernels[0].launch.cooperative);
    // The line map ties the call to T.sync_grid's line.
    int generated = 1 + int(std::count(source.begin(), source.begin() + long(call), '\n'));
    EXPECT_EQ(code.units[0].lineMap.sourceLineOf(generated), 24);
}

TEST(GridSyncCodegen, ProgramsWithoutGridBarrierAreUnchanged) {
    PlannedProgram p = planSample("02_gemm_relu.py");
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    EXPECT_EQ(code.units[0].source.find("tb_grid"), std::string::npos);
    EXPECT_FALSE(code.units[0].kernels[0].launch.cooperative);
}

TEST(GridSyncCodegen, TheHopperBackendKeepsEveryThreadOfTheBlockForTheBarrier) {
    PlannedProgram p = planCorpusProgram(kPersistentMla, {}, Backend::Hopper);
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    const layout::WarpSpecializationPlan& ws = p.plan().kernels.at(0).schedule.warpSpecialization;
    EXPECT_FALSE(ws.enabled);
    EXPECT_NE(ws.reason.find("grid barrier (T.sync_grid)"), std::string::npos) << ws.reason;
    EXPECT_TRUE(p.plan().kernels.at(0).cooperative.required);
}

class GridSyncNvrtc : public ::testing::TestWithParam<Backend> {};

TEST_P(GridSyncNvrtc, TheTestProgramAndThePersistentMlaDecodeCompile) {
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    const Backend backend = GetParam();
    std::vector<PlannedProgram> programs;
    programs.push_back(planGridBarrier(backend));
    programs.push_back(planCorpusProgram(kPersistentMla, {}, backend));
    for (const PlannedProgram& p : programs) {
        ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
        std::string errors;
        CudaKernelSource code = generateFor(p, errors);
        ASSERT_TRUE(code.ok) << errors;
        ASSERT_NE(code.units[0].source.find("tb_grid_sync();"), std::string::npos);
        for (const char* arch : archsOf(backend))
            EXPECT_EQ(nvrtcFailures(code, arch), "") << backendName(backend) << " " << arch;
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, GridSyncNvrtc, ::testing::Values(Backend::Portable, Backend::Hopper),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                             return std::string(backendName(info.param));
                         });
