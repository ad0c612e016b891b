// The hopper backend without a GPU: what the plan says (wgmma, TMA copies, warp specialization, barrier
// rings) is what the generated CUDA does, every sample's code compiles with NVRTC for sm_90a with no spills,
// and a copy TMA cannot make keeps cp.async with the reason in the plan.
#include "engine/gpu/Nvrtc.h"
#include "tests/engine/codegen/CodegenTestSupport.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::codegen::test {
namespace {

const layout::KernelPlan& firstKernel(const PlannedProgram& p) {
    return p.plan().kernels.at(0);
}

TEST(HopperCodegen, GemmIsWarpSpecializedWgmmaOnTma) {
    PlannedProgram p = planSample("02_gemm_relu.py", {}, Backend::Hopper);
    ASSERT_TRUE(p.ok()) << p.planErrors;
    const layout::KernelPlan& k = firstKernel(p);
    ASSERT_TRUE(k.schedule.warpSpecialization.enabled) << k.schedule.warpSpecialization.reason;
    EXPECT_EQ(k.schedule.warpSpecialization.launchThreads(), 256);
    ASSERT_EQ(k.schedule.tmaCopies.size(), 2u);
    ASSERT_EQ(k.schedule.pipelines.size(), 1u);
    const layout::PipelineSchedule& pipe = k.schedule.pipelines[0];
    EXPECT_EQ(pipe.shape, layout::PipelineShape::WarpSpecialized);
    ASSERT_EQ(pipe.rings.size(), 1u); // A and B are read by the one gemm: one ring
    EXPECT_EQ(pipe.rings[0].bytes, 2 * 128 * 64 * 2);
    EXPECT_TRUE(pipe.wgmmaBatchInFlight);
    for (const layout::CopyPlan& c : k.copies) {
        if (c.copy->src.buffer->scope == ir::MemoryScope::Global) {
            EXPECT_EQ(c.instruction, layout::CopyInstruction::Tma) << c.reason;
        }
    }
    // The TMA tiles start on the 128B swizzle repeat; the arena holds the barriers.
    for (const layout::SharedArenaSlot& s : k.schedule.arena.slots)
        EXPECT_EQ(s.offset % 1024, 0) << s.buffer->name;
    EXPECT_GE(k.schedule.arena.barrierOffset, 0);
    EXPECT_EQ(k.schedule.arena.barrierBytes, 2 * 3 * 8);

    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const std::string& src = code.units[0].source;
    const GeneratedKernel& gk = code.units[0].kernels[0];
    EXPECT_EQ(gk.launch.block[0], 256);
    EXPECT_EQ(gk.launch.dynamicSharedBytes, k.schedule.arena.totalBytes);
    // The instruction the warp grid names, issued by the consumers; the producer loads by TMA.
    const layout::GemmPlan& g = k.gemms[0];
    ASSERT_EQ(g.instruction.kind, layout::GemmInstructionKind::Wgmma);
    EXPECT_NE(src.find("tb_wgmma_m64n" + std::to_string(g.grid.atomN) + "k16_f32_f16_ss<1, 1, 0, 1>("),
              std::string::npos);
    EXPECT_EQ(countOf(src, "tb_tma_load_2d(tb_smem_s"), 3u); // A: one box; B: two 64-column panels
    EXPECT_NE(src.find("tb_mbarrier_arrive_expect_tx("), std::string::npos);
    EXPECT_NE(src.find("tb_wgmma_wait<1>();"), std::string::npos);
    const std::string body = src.substr(src.find("extern \"C\""));
    EXPECT_EQ(body.find("tb_mma_f16("), std::string::npos);
    EXPECT_EQ(body.find("__syncthreads(); // shared"), std::string::npos); // consumers use a named barrier
    // Each operand's descriptors start at its own tile in the arena (B_shared is not at offset 0).
    for (const layout::SharedArenaSlot& slot : k.schedule.arena.slots) {
        const std::string name = slot.buffer->name == "A_shared" ? "desc_a" : "desc_b";
        EXPECT_NE(
            body.find("const unsigned " + name + " = tb_smem_s + " + std::to_string(slot.offset) + " + "),
            std::string::npos)
            << slot.buffer->name << " at " << slot.offset;
    }
    int tensorMaps = 0;
    for (const KernelParam& param : gk.params)
        tensorMaps += param.kind == KernelParamKind::TensorMap && param.tma != nullptr;
    EXPECT_EQ(tensorMaps, 2);
}

// With one stage there is no other stage to give back while a wgmma batch still reads this one: the consumer
// waits for its batch and releases the stage in the same iteration (fuzz_diff found the deadlock).
TEST(HopperCodegen, ASingleStagePipelineReleasesItsStageEveryIteration) {
    PlannedProgram p = planTestProgram("fuzz_single_stage_wgmma.py", {}, Backend::Hopper);
    ASSERT_TRUE(p.ok()) << p.planErrors << (p.result ? p.result->formattedDiagnostics() : "");
    const layout::KernelPlan& k = firstKernel(p);
    ASSERT_TRUE(k.schedule.warpSpecialization.enabled) << k.schedule.warpSpecialization.reason;
    ASSERT_EQ(k.schedule.pipelines.size(), 1u);
    const layout::PipelineSchedule& pipe = k.schedule.pipelines[0];
    EXPECT_EQ(pipe.stages, 1);
    EXPECT_FALSE(pipe.wgmmaBatchInFlight);
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const std::string& src = code.units[0].source;
    EXPECT_EQ(src.find("tb_wgmma_wait<1>();"), std::string::npos) << src;
    EXPECT_EQ(src.find("the previous stage is free"), std::string::npos);
    // Released after the wait for the batch, in the loop.
    const size_t wait = src.find("tb_wgmma_wait<0>();", src.find("tb_wgmma_commit();"));
    const size_t release = src.find("); // this stage is free");
    ASSERT_NE(wait, std::string::npos);
    ASSERT_NE(release, std::string::npos);
    EXPECT_LT(wait, release);
    gpu::CudaCompileOptions options;
    options.arch = "sm_90a";
    if (!gpu::nvrtcVersionString().empty()) {
        gpu::CudaCompileResult r = gpu::compileCuda(src, code.units[0].kernels[0].name, options);
        EXPECT_TRUE(r.ok) << r.log;
    }
}

TEST(HopperCodegen, MlaDecodeSplitsItsWarpgroupsAndMovesRegisters) {
    PlannedProgram p = planSample("07_mla_decode.py", {}, Backend::Hopper);
    ASSERT_TRUE(p.ok()) << p.planErrors;
    const layout::KernelPlan& k = firstKernel(p);
    const layout::WarpSpecializationPlan& ws = k.schedule.warpSpecialization;
    ASSERT_TRUE(ws.enabled) << ws.reason;
    EXPECT_EQ(ws.consumerThreads, 256);
    EXPECT_EQ(ws.producerRegisters, 40);
    EXPECT_EQ(ws.consumerRegisters, 232);
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const std::string& src = code.units[0].source;
    EXPECT_NE(src.find("__launch_bounds__(384, 1)"), std::string::npos);
    EXPECT_NE(src.find("tb_setmaxnreg_dec<40>();"), std::string::npos);
    EXPECT_NE(src.find("tb_setmaxnreg_inc<232>();"), std::string::npos);
    // P goes through S_shared, written by ordinary stores and read by wgmma: fenced for the async proxy.
    EXPECT_NE(src.find("tb_fence_proxy_async();"), std::string::npos);
    EXPECT_NE(src.find("tb_named_barrier_sync(1, 256);"), std::string::npos);
    // The producer warp never reaches a block-wide barrier: the consumers' cross-warp reductions sync on
    // the named barrier too (a __syncthreads there waits for the producer forever).
    const std::string consumers = src.substr(src.find("tb_setmaxnreg_inc<232>();"));
    EXPECT_EQ(consumers.find("__syncthreads()"), std::string::npos);
}

TEST(HopperCodegen, FlashAttentionUsesRegisterAOperandsAndOneRingPerTile) {
    PlannedProgram p = planSample("06_flash_attention.py", {}, Backend::Hopper);
    ASSERT_TRUE(p.ok()) << p.planErrors;
    const layout::KernelPlan& k = firstKernel(p);
    ASSERT_EQ(k.schedule.pipelines.size(), 1u);
    // K is read by the first gemm, V by the second: two rings, so K's next tile loads during softmax.
    EXPECT_EQ(k.schedule.pipelines[0].rings.size(), 2u);
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    EXPECT_NE(code.units[0].source.find("_f32_f16_rs<1, 1, 1>("), std::string::npos);
}

TEST(HopperCodegen, EverySampleCompilesForSm90aWithoutSpills) {
    if (gpu::nvrtcVersionString().empty())
        GTEST_SKIP() << "NVRTC not available in this build";
    for (const std::string& file : sampleFiles()) {
        SCOPED_TRACE(file);
        PlannedProgram p = planSample(file, {}, Backend::Hopper);
        ASSERT_TRUE(p.ok()) << p.planErrors;
        std::string errors;
        CudaKernelSource code = generateFor(p, errors);
        ASSERT_TRUE(code.ok) << errors;
        for (const GeneratedKernel& k : code.units[0].kernels) {
            gpu::CudaCompileOptions o;
            o.arch = "sm_90a";
            o.useCache = false;
            gpu::CudaCompileResult r = gpu::compileCuda(code.units[0].source, k.name, o);
            ASSERT_TRUE(r.ok) << r.log;
            EXPECT_EQ(r.spillStoreBytes, 0) << k.name;
            EXPECT_EQ(r.spillLoadBytes, 0) << k.name;
        }
    }
}

TEST(HopperCodegen, ACopyTmaCannotMakeKeepsCpAsyncAndSaysWhy) {
    // K = 36: the rows of A are 72 bytes, not a multiple of 16, so A cannot have a tensor map; B can.
    PlannedProgram p = planSample("02_gemm_relu.py", {{"K", "36"}, {"block_K", "32"}}, Backend::Hopper);
    ASSERT_TRUE(p.ok()) << p.planErrors;
    const layout::KernelPlan& k = firstKernel(p);
    for (const layout::CopyPlan& c : k.copies) {
        if (c.copy->dst.buffer->name == "A_shared") {
            EXPECT_EQ(c.instruction, layout::CopyInstruction::CpAsync) << c.reason;
        }
    }
    EXPECT_NE(k.schedule.warpSpecialization.reason.find("not a multiple of 16"), std::string::npos)
        << k.schedule.warpSpecialization.reason;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    EXPECT_TRUE(code.ok) << errors;
}

} // namespace
} // namespace tb::codegen::test
