// float8 in the CUDA backend: tensors, fragments and casts of e4m3fn and e5m2 go through the float8 part of
// the device header (software conversions, so sm_80 compiles them too), which only kernels that use float8
// get; float8 T.gemm is mma.sync m16n8k32 (sm_89 and up) or wgmma m64nNk32. (On the GPU, GpuRunTest checks
// the conversions against the CPU's rounding bit for bit, and the float8 GEMMs against the CPU executor.)
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

// TileLang's float8 GEMM example (A [M][K], B [N][K], transpose_B=True) on the portable backend: mma.sync
// m16n8k32 .e4m3.e4m3 fed by ldmatrix (the 8-bit tiles read as 16-bit pairs of k), helper emitted once.
TEST(Float8Codegen, CorpusGemmIsMmaM16n8k32FedByLdmatrix) {
    for (const char* dtype : {"T.float8_e4m3fn", "T.float8_e5m2"}) {
        SCOPED_TRACE(dtype);
        PlannedProgram p =
            planCorpusProgram("gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py", {{"dtype", dtype}});
        ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
        const layout::GemmPlan& gemm = p.plan().kernels.at(0).gemms.at(0);
        EXPECT_EQ(gemm.instruction.name, "mma.sync.m16n8k32");
        EXPECT_EQ(gemm.fragmentA.registersPerThread(), 4 * 2 * 16) << "4 m atoms x 2 k atoms x 16 bytes";
        // The bank analysis models the ldmatrix of 8-bit operands: nothing skipped.
        EXPECT_EQ(p.result->formattedDiagnostics().find("ldmatrix moves 16-bit"), std::string::npos)
            << p.result->formattedDiagnostics();
        std::string errors;
        CudaKernelSource code = generateFor(p, errors);
        ASSERT_TRUE(code.ok) << errors;
        const std::string& cuda = code.units.at(0).source;
        const std::string t = std::string(dtype).find("e5m2") != std::string::npos ? "e5m2" : "e4m3";
        const std::string helper = "tb_mma_" + t + "_" + t;
        EXPECT_EQ(countOf(cuda, "mma.sync.aligned.m16n8k32.row.col.f32." + t + "." + t + ".f32"), 1u);
        EXPECT_EQ(countOf(cuda, helper + "(C_local[c], "), 2u) << "one mma loop nest per k step of 32";
        // 4 A atoms and 4 x4 loads of B per k step, 2 k steps of 32 in block_K = 64.
        EXPECT_EQ(countOf(cuda, "tb_ldmatrix_x4(a_frag["), 8u);
        EXPECT_EQ(countOf(cuda, "tb_ldmatrix_x4(b_frag["), 8u);
        EXPECT_EQ(countOf(cuda, "_trans(a_frag") + countOf(cuda, "_trans(b_frag"), 0u)
            << "K-major operands need no transposing load";
        // k step 1 is 32 bytes on within the 64B swizzle: an XOR of the lane's row offset.
        EXPECT_NE(cuda.find("A_shared_row_x32 = A_shared_row ^ 32u;"), std::string::npos);
        if (gpu::nvrtcVersionString().empty())
            GTEST_SKIP() << "NVRTC not available in this build";
        EXPECT_EQ(nvrtcFailures(code, "sm_90a"), "");
    }
}

// The same program on the hopper backend: wgmma m64n128k32 .e4m3 with 64B-swizzle descriptors, k steps 32
// bytes apart, no transpose immediates (float8 operands are K-major).
TEST(Float8Codegen, CorpusGemmIsWgmmaK32OnTheHopperBackend) {
    PlannedProgram p = planCorpusProgram("gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py", {}, Backend::Hopper);
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    EXPECT_EQ(p.plan().kernels.at(0).gemms.at(0).instruction.name, "wgmma.m64nNk32");
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const std::string& cuda = code.units.at(0).source;
    EXPECT_NE(cuda.find("\"wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 \""), std::string::npos);
    EXPECT_EQ(countOf(cuda, "tb_wgmma_m64n128k32_f32_e4m3_ss<1, 1>("), 4u) << "2 M atoms x 2 k steps";
    EXPECT_NE(cuda.find("tb_wgmma_desc(desc_a + 32, 16, 512, TB_WGMMA_SWIZZLE_64B)"), std::string::npos)
        << cuda;
    EXPECT_NE(cuda.find("tb_wgmma_desc(desc_b + 32, 16, 512, TB_WGMMA_SWIZZLE_64B)"), std::string::npos);
    EXPECT_EQ(cuda.find("tb_mma_e4m3"), std::string::npos) << "no mma.sync helper where none is issued";
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    EXPECT_EQ(nvrtcFailures(code, "sm_90a"), "");
}

// Mixed formats (e4m3fn x e5m2): the woven pipeline and the per-load formulas of k slices, on both backends
// (k slices keep mma.sync on the hopper one: wgmma reads whole tiles).
TEST(Float8Codegen, MixedFormatsOnBothBackendsCompileForSm90a) {
    for (Backend backend : {Backend::Portable, Backend::Hopper})
        for (const char* slices : {"False", "True"}) {
            SCOPED_TRACE(std::string(backendName(backend)) + " k_slices=" + slices);
            PlannedProgram p = planTestProgram("gemm_float8_mixed.py", {{"k_slices", slices}}, backend);
            ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
            std::string errors;
            CudaKernelSource code = generateFor(p, errors);
            ASSERT_TRUE(code.ok) << errors;
            const std::string& cuda = code.units.at(0).source;
            if (backend == Backend::Hopper && std::string(slices) == "False") {
                EXPECT_NE(cuda.find("tb_wgmma_m64n64k32_f32_e4m3e5m2_ss<1, 1>("), std::string::npos);
                EXPECT_NE(cuda.find(".m64n64k32.f32.e4m3.e5m2 "), std::string::npos);
            } else {
                EXPECT_NE(cuda.find("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"),
                          std::string::npos);
                EXPECT_NE(cuda.find("tb_mma_e4m3_e5m2(C_local["), std::string::npos);
            }
            if (backend == Backend::Portable && std::string(slices) == "False") {
                EXPECT_NE(cuda.find("woven with the pipeline"), std::string::npos);
            }
            if (std::string(slices) == "True") { // per-load formulas: k slices 32 wide, matrix rows 16 wide
                EXPECT_NE(cuda.find("((kk * 32) + 0 + (lane / 16) * 16)"), std::string::npos);
            }
            if (gpu::nvrtcVersionString().empty())
                GTEST_SKIP() << "NVRTC not available in this build";
            EXPECT_EQ(nvrtcFailures(code, "sm_90a"), "");
        }
}

// A ragged float8 GEMM: the partial tiles' guarded copies fill with a zero of the one-byte storage type
// (`unsigned char()` is no C++: NVRTC rejected it on the H200 at 200 x 136 x 200).
TEST(Float8Codegen, RaggedTilesCompileOnBothBackends) {
    for (Backend backend : {Backend::Portable, Backend::Hopper}) {
        SCOPED_TRACE(backendName(backend));
        PlannedProgram p = planCorpusProgram("gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py",
                                             {{"M", "200"}, {"N", "136"}, {"K", "200"}}, backend);
        ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
        std::string errors;
        CudaKernelSource code = generateFor(p, errors);
        ASSERT_TRUE(code.ok) << errors;
        EXPECT_NE(code.units.at(0).source.find(": static_cast<unsigned char>(0);"), std::string::npos);
        if (gpu::nvrtcVersionString().empty())
            GTEST_SKIP() << "NVRTC not available in this build";
        EXPECT_EQ(nvrtcFailures(code, "sm_90a"), "");
    }
}

// sm_80 has no float8 tensor cores, and float8 operands must be K-major: diagnostics at the T.gemm, not code.
TEST(Float8Codegen, Sm80AndMnMajorFloat8GemmsAreDiagnosed) {
    const std::string text =
        readFile(std::string(TILEBENCH_TESTS_DIR) + "/engine/codegen/programs/gemm_float8_mixed.py");
    CompileOptions sm80;
    sm80.target = targetSm80();
    auto r = compileTileProgram("gemm_float8_mixed.py", text, sm80);
    EXPECT_FALSE(r->ok());
    std::string out = r->formattedDiagnostics();
    EXPECT_NE(
        out.find("gemm_float8_mixed.py:31:21: error: a float8_e4m3 x float8_e5m2 gemm needs float8 tensor "
                 "cores"),
        std::string::npos)
        << out;
    EXPECT_NE(out.find("[gemm-float8-target]"), std::string::npos) << out;
    EXPECT_NE(out.find("hint: compile for sm_90a"), std::string::npos) << out;
    std::string nn = text;
    nn.replace(nn.find("T.gemm(A_shared, B_shared, C_local, transpose_B=True)"),
               std::string("T.gemm(A_shared, B_shared, C_local, transpose_B=True)").size(),
               "T.gemm(A_shared, B_shared, C_local, transpose_B=False)");
    PlannedProgram p = planProgram("gemm_float8_mixed.py", nn);
    ASSERT_TRUE(p.result);
    out = p.result->formattedDiagnostics();
    EXPECT_NE(out.find("[gemm-operand-major]"), std::string::npos) << out;
    EXPECT_NE(out.find("transpose_B=False"), std::string::npos) << out;
}

TEST(Float8Codegen, KernelsWithoutFloat8DoNotCarryItsHeader) {
    PlannedProgram p = planSample("02_gemm_relu.py", {{"M", "256"}, {"N", "256"}, {"K", "256"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    EXPECT_EQ(code.units.at(0).source.find("tb_f2fp8"), std::string::npos);
    EXPECT_EQ(code.units.at(0).source.find("m16n8k32"), std::string::npos);
}

} // namespace
} // namespace tb::codegen::test
