// Structure of the generated CUDA (not whole-file snapshots): which instructions each lowering emits and how
// many, the kernel signature, launch configuration and shared-memory size.
#include "CodegenTestSupport.h"

#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <utility>

using namespace tb;
using namespace tb::codegen;
using namespace tb::codegen::test;

TEST(CodegenStructure, GemmUsesCpAsyncPipelineLdmatrixAndMma) {
    PlannedProgram p = planSample("02_gemm_relu.py");
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    ASSERT_EQ(code.units.size(), 1u);
    const std::string& src = code.units[0].source;
    ASSERT_EQ(code.units[0].kernels.size(), 1u);
    const GeneratedKernel& k = code.units[0].kernels[0];
    EXPECT_EQ(k.name, "matmul_relu_kernel_kernel");
    EXPECT_NE(
        src.find("extern \"C\" __global__ void __launch_bounds__(128) matmul_relu_kernel_kernel(half_t* "
                 "__restrict__ A, half_t* __restrict__ B, half_t* __restrict__ C)"),
        std::string::npos);
    // 128x128x64 tile, 2x2 warps of 64x64: per k step 4 ldmatrix.x4 for A, 4 ldmatrix.x4.trans for B and
    // 4 x 8 mma.sync m16n8k16 as an unrolled loop nest, one per k step (4). The gemm is woven with the
    // pipeline: the first tile's step 0 loads before the loop, every step loads the next step's operands
    // (the last step the next tile's, predicated off in the last tile), so 5 load sets in all.
    EXPECT_EQ(countOf(src, "for (int mi = 0; mi < 4; ++mi) {"), 4u);
    EXPECT_EQ(countOf(src, "for (int nj = 0; nj < 8; ++nj) {"), 4u);
    EXPECT_EQ(countOf(src, "const int c = mi * 32 + nj * 4;"), 4u);
    EXPECT_EQ(countOf(src, "tb_mma_f16(C_local[c], C_local[c + 1], C_local[c + 2], C_local[c + 3], "), 4u);
    EXPECT_EQ(countOf(src, "tb_ldmatrix_x4(a_frag["), 4u * 4u);
    EXPECT_EQ(countOf(src, "tb_ldmatrix_x4_trans(b_frag["), 4u * 4u);
    EXPECT_EQ(countOf(src, "tb_ldmatrix_x4_if(a_frag[0]["), 4u);
    EXPECT_EQ(countOf(src, "tb_ldmatrix_x4_trans_if(b_frag[0]["), 4u);
    EXPECT_NE(src.find(", ko + 1 < 8);"), std::string::npos);
    // Steps 0 and 2 read operand slot 0, steps 1 and 3 slot 1.
    EXPECT_EQ(
        countOf(src, "a_frag[0][mi], b_frag[0][nj / 2][nj % 2 * 2], b_frag[0][nj / 2][nj % 2 * 2 + 1]);"),
        2u);
    EXPECT_EQ(
        countOf(src, "a_frag[1][mi], b_frag[1][nj / 2][nj % 2 * 2], b_frag[1][nj / 2][nj % 2 * 2 + 1]);"),
        2u);
    // Strength-reduced addresses: one lane offset per operand, k steps as XORs of it (swizzle-128B flips
    // the 16-byte chunk bits), atoms and stages as adds.
    EXPECT_EQ(countOf(src, "const unsigned A_shared_row = "), 1u);
    EXPECT_EQ(countOf(src, "const unsigned A_shared_row_x32 = A_shared_row ^ 32u;"), 1u);
    EXPECT_EQ(countOf(src, "const unsigned B_shared_row = "), 1u);
    EXPECT_NE(src.find("tb_ldmatrix_x4(a_frag[1][0], tb_smem_s + 0 + read_slot * 16384 + A_shared_row_x32);"),
              std::string::npos);
    // Two operand copies, each issued in the prologue and in the steady state, at 32-bit shared addresses.
    EXPECT_EQ(countOf(src, "tb_cp_async_16(tb_smem_s + "), 4u);
    EXPECT_EQ(countOf(src, "tb_cp_async_commit();"), 2u);
    // Their global sources: each thread's first element once per copy, then a constant per vector.
    EXPECT_EQ(countOf(src, "A_lane = &A[((by * 128) + ti) * 512 + "), 1u);
    EXPECT_EQ(countOf(src, "A_lane_ = &A[((by * 128) + ti) * 512 + "), 1u);
    EXPECT_EQ(countOf(src, "const half_t* src_ptr = A_lane + (16 * (r >> 3)) * 512 + (r & 7);"), 1u);
    EXPECT_EQ(countOf(src, "const half_t* src_ptr = B_lane_ + (8 * (r >> 3)) * 512 + (r & 7);"), 1u);
    EXPECT_EQ(countOf(src, "src_ptr = &"), 0u);
    // num_stages=3: wait_group(num_stages - 2), for the first tile and once per tile in the last k step.
    EXPECT_EQ(countOf(src, "tb_cp_async_wait<1>();"), 2u);
    EXPECT_NE(src.find("read_slot = read_slot + 1 == 3 ? 0 : read_slot + 1;"), std::string::npos);
    EXPECT_GE(countOf(src, "__syncthreads();"), 1u);
    EXPECT_NE(src.find("tb_rasterize_col(4, bx, by);"), std::string::npos);
    // 3 stages x (128x64 + 64x128) halves.
    EXPECT_EQ(k.launch.dynamicSharedBytes, 3 * (128 * 64 + 64 * 128) * 2);
    EXPECT_EQ(k.launch.block[0], 128);
    EXPECT_EQ(evaluateLaunchExpr(k.launch.grid[0], {}), 4);
    EXPECT_EQ(evaluateLaunchExpr(k.launch.grid[1], {}), 4);
    // The accumulator stays in 128 registers per thread.
    EXPECT_NE(src.find("float C_local[128];"), std::string::npos);
    // No device-library includes: the source is self-contained.
    EXPECT_EQ(src.find("#include"), std::string::npos);
}

TEST(CodegenStructure, FlashAttentionUsesShufflesRegisterOperandAndLaneOffsets) {
    PlannedProgram p = planSample("06_flash_attention.py");
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const std::string& src = code.units[0].source;
    // The loop also runs softmax between its two gemms, so it is not woven; its gemms still address shared
    // operands through one lane offset each: Q and K (transposed B) of the first gemm, V of the second (whose
    // A comes from registers).
    for (const char* operand : {"Q_shared", "K_shared", "V_shared"})
        EXPECT_EQ(countOf(src, std::string("const unsigned ") + operand + "_row = "), 1u) << operand;
    EXPECT_EQ(countOf(src, "ldmatrix operands woven with the pipeline"), 0u);
    EXPECT_EQ(countOf(src, "_if(b_frag"), 0u); // predicated loads belong to woven loops only
    // reduce_max and reduce_sum over rows held by a quad of lanes: xor 2 and xor 1 per output register.
    EXPECT_GE(countOf(src, "__shfl_xor_sync(0xffffffffu, acc, 2)"), 2u);
    EXPECT_GE(countOf(src, "__shfl_xor_sync(0xffffffffu, acc, 1)"), 2u);
    // P @ V takes A from the acc_s_cast registers (RS gemm): packed f16x2, no ldmatrix for A there.
    EXPECT_GE(countOf(src, "tb_pack_f16(acc_s_cast["), 1u);
    EXPECT_GE(countOf(src, "tb_mma_f16(acc_o["), 1u);
    EXPECT_GE(countOf(src, "tb_mma_f16(acc_s["), 1u);
    EXPECT_NE(src.find("tb_exp2("), std::string::npos);
    // Fragment accesses in T.Parallel loops are constant register indices (no runtime formula).
    EXPECT_EQ(src.find("irregular thread map"), std::string::npos);
}

TEST(CodegenStructure, SoftmaxReducesAcrossWarpsThroughSharedMemory) {
    PlannedProgram p = planSample("04_softmax.py", {{"M", "64"}, {"N", "700"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const std::string& src = code.units[0].source;
    EXPECT_NE(src.find("red_buf"), std::string::npos);
    EXPECT_NE(src.find("__shfl_xor_sync"), std::string::npos);
    // N = 700 is not a multiple of block_N = 512: the copies guard the partial tile.
    EXPECT_NE(src.find("partial tile"), std::string::npos);
}

// A half-precision fragment whose only reader is a T.copy into fp16 memory is rounded once, by that copy;
// one that an mma reads (flash attention's acc_s_cast) is rounded where it is written.
TEST(CodegenStructure, HalfFragmentsAreRoundedOnceOnTheirWayToMemory) {
    // Softmax's y is written element by element, RMSNorm's (one pass) four elements at a time.
    for (const auto& [sample, write] :
         {std::pair{"04_softmax.py", "            y[r] = (float)(("},
          std::pair{"05_rmsnorm_silu.py", "            y[(r + e)] = (float)(("}}) {
        PlannedProgram p = planSample(sample);
        ASSERT_TRUE(p.ok()) << p.planErrors;
        std::string errors;
        CudaKernelSource code = generateFor(p, errors);
        ASSERT_TRUE(code.ok) << errors;
        const std::string& src = code.units[0].source;
        EXPECT_NE(src.find(write), std::string::npos) << sample;
        EXPECT_EQ(src.find("y[r] = tb_round_f16("), std::string::npos) << sample;
        EXPECT_NE(src.find("tb_f2h(y["), std::string::npos) << sample; // the copy to Y rounds
    }
    PlannedProgram p = planSample("06_flash_attention.py");
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    EXPECT_NE(code.units[0].source.find("acc_s_cast[r] = tb_round_f16((float)(acc_s[r]));"),
              std::string::npos);
}

TEST(CodegenStructure, NarrowFloatLiteralsAreTheirDtypesValues) {
    // `0.1 > B_f[i, j]` with a float16 B_f compares with float16's 0.1, `> 0.1` with bfloat16 A_s with
    // bfloat16's (TileLang's literal takes the other operand's dtype); a float32 literal stays 0.1f.
    PlannedProgram p = planTestProgram("fuzz_float16_literal.py");
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const std::string& src = code.units[0].source;
    EXPECT_NE(src.find("(0.0999755859f > B_f[r])"), std::string::npos);
    EXPECT_EQ(src.find("0.1f"), std::string::npos);
    PlannedProgram b = planProgram("bf16.py", R"(import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((16, 32), "bfloat16"), C: T.Tensor((16, 32), "float32")):
    with T.Kernel(1, threads=64) as bx:
        A_s = T.alloc_shared((16, 32), "bfloat16")
        C_f = T.alloc_fragment((16, 32), "float32")
        T.copy(A[0, 0], A_s)
        for i, j in T.Parallel(16, 32):
            C_f[i, j] = T.if_then_else(A_s[i, j] > 0.1, T.cast(A_s[i, j], "float32") * 0.1, 0.0)
        T.copy(C_f, C[0, 0])
)");
    ASSERT_TRUE(b.ok()) << b.planErrors << b.result->formattedDiagnostics();
    CudaKernelSource bCode = generateFor(b, errors);
    ASSERT_TRUE(bCode.ok) << errors;
    EXPECT_NE(bCode.units[0].source.find("> 0.100097656f)"), std::string::npos) << bCode.units[0].source;
    EXPECT_NE(bCode.units[0].source.find("* 0.100000001f)"), std::string::npos) << bCode.units[0].source;
}

TEST(CodegenStructure, ElementwiseAddSignatureAndVectorCopies) {
    PlannedProgram p = planSample("01_elementwise_add.py", {{"M", "100"}, {"N", "70"}});
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const GeneratedKernel& k = code.units[0].kernels[0];
    ASSERT_EQ(k.params.size(), 3u);
    EXPECT_EQ(k.params[0].name, "A");
    EXPECT_EQ(k.params[2].cType, "float*");
    EXPECT_EQ(evaluateLaunchExpr(k.launch.grid[0], {}), 3); // ceildiv(70, 32)
    EXPECT_EQ(evaluateLaunchExpr(k.launch.grid[1], {}), 4); // ceildiv(100, 32)
}

TEST(CodegenStructure, ThePortableBackendOnSm90aEmitsMmaSync) {
    CompileOptions options; // sm_90a: the device could issue wgmma; the portable backend does not
    options.backend = Backend::Portable;
    auto result = compileTileProgram(
        "02_gemm_relu.py", readFile(std::string(TILEBENCH_SAMPLES_DIR) + "/02_gemm_relu.py"), options);
    ASSERT_TRUE(result->ok()) << result->formattedDiagnostics();
    const std::string& source = result->cuda->units.at(0).source;
    const std::string body = source.substr(source.find("extern \"C\""));
    EXPECT_NE(body.find("tb_mma_f16("), std::string::npos);
    EXPECT_EQ(body.find("tb_wgmma"), std::string::npos);
    EXPECT_EQ(source.find("sm_90a helpers"), std::string::npos); // no hopper part in the device header
}

TEST(CodegenStructure, LaunchExpressionsOfDynamicDims) {
    ir::Module m;
    ir::Var* n = m.newVar("N", ir::DType::Int32, ir::VarKind::DynamicDim);
    ir::ExprPtr e = ir::makeBinary(ir::BinaryOp::FloorDiv,
                                   ir::makeBinary(ir::BinaryOp::Add, ir::makeVarRef(n), ir::makeInt(63)),
                                   ir::makeInt(64));
    EXPECT_EQ(evaluateLaunchExpr(e, {{"N", 1000}}), 16);
    EXPECT_EQ(evaluateLaunchExpr(e, {}), std::nullopt);
}

// T.alloc_global workspaces are parameters of every kernel, after the tensors (the run allocates them once
// and passes the same arguments to each launch), on both backends.
TEST(CodegenStructure, WorkspacesAreKernelParametersAfterTheTensors) {
    for (Backend backend : {Backend::Portable, Backend::Hopper}) {
        PlannedProgram p = planTestProgram("split_combine_workspace.py", {}, backend);
        ASSERT_TRUE(p.ok()) << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
        std::string errors;
        CudaKernelSource code = generateFor(p, errors);
        ASSERT_TRUE(code.ok) << errors;
        const GeneratedUnit& unit = code.units[0];
        ASSERT_EQ(unit.kernels.size(), 2u);
        for (const GeneratedKernel& k : unit.kernels) {
            ASSERT_EQ(k.params.size(), 3u) << k.name;
            EXPECT_EQ(k.params[2].kind, KernelParamKind::Tensor);
            EXPECT_EQ(k.params[2].name, "part_max");
            ASSERT_NE(k.params[2].buffer, nullptr);
            EXPECT_EQ(k.params[2].buffer->paramIndex, -1);
            EXPECT_NE(unit.source.find(k.name + "(float* __restrict__ A, float* __restrict__ Out, half_t* "
                                                "__restrict__ part_max) {"),
                      std::string::npos)
                << backendName(backend) << "\n"
                << unit.source;
        }
    }
}
