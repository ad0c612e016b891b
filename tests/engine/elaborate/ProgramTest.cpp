// Whole TileLang programs, loaded unmodified: the GEMM+ReLU seed program, the MLA decode example (split
// and non-split), and the eager style. Each test checks the IR the elaborator builds and where every
// specialization parameter came from.
#include "ElaborateTestSupport.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::test {
namespace {

TEST(GemmRelu, BuildsTheKernel) {
    std::string text = loadProgram("gemm_relu.py");
    ASSERT_FALSE(text.empty());
    auto e = elaborateText(text);
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_TRUE(e->diagnostics.diagnostics().empty()) << e->report();
    const ir::Module& m = *e->module;
    EXPECT_EQ(m.jitFunction, "matmul");
    ASSERT_EQ(m.funcs.size(), 1u);
    const ir::PrimFunc& f = m.funcs[0];
    EXPECT_EQ(f.name, "matmul_relu_kernel");

    // Parameters: A, B, C in order, global fp16 1024x1024, none an output (no out_idx).
    ASSERT_EQ(f.params.size(), 3u);
    const char* names[] = {"A", "B", "C"};
    for (size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(f.params[k]->name, names[k]);
        EXPECT_EQ(f.params[k]->scope, ir::MemoryScope::Global);
        EXPECT_EQ(f.params[k]->dtype, ir::DType::Float16);
        EXPECT_EQ(f.params[k]->paramIndex, static_cast<int>(k));
        EXPECT_EQ(shapeOf(f.params[k]->shape), "[1024, 1024]");
        EXPECT_FALSE(f.params[k]->isOutput);
    }

    // One kernel: grid (N/128, M/128), 128 threads, the three allocations.
    ASSERT_EQ(f.body->stmts.size(), 1u);
    const ir::Stmt& kernel = *f.body->stmts[0];
    ASSERT_EQ(kernel.kind, ir::StmtKind::Kernel);
    EXPECT_EQ(shapeOf(kernel.grid), "[8, 8]");
    EXPECT_EQ(kernel.threads, std::vector<int64_t>{128});
    ASSERT_EQ(kernel.blockVars.size(), 2u);
    EXPECT_EQ(kernel.blockVars[0]->name, "bx");
    EXPECT_EQ(kernel.blockVars[1]->name, "by");
    EXPECT_EQ(kernel.blockVars[0]->kind, ir::VarKind::BlockIndex);
    ASSERT_EQ(kernel.allocations.size(), 3u);
    const ir::Buffer* aShared = e->buffer("A_shared");
    const ir::Buffer* bShared = e->buffer("B_shared");
    const ir::Buffer* cLocal = e->buffer("C_local");
    ASSERT_TRUE(aShared && bShared && cLocal);
    EXPECT_EQ(kernel.allocations[0], aShared);
    EXPECT_EQ(aShared->scope, ir::MemoryScope::Shared);
    EXPECT_EQ(shapeOf(aShared->shape), "[128, 64]");
    EXPECT_EQ(aShared->dtype, ir::DType::Float16);
    EXPECT_EQ(shapeOf(bShared->shape), "[64, 128]");
    EXPECT_EQ(cLocal->scope, ir::MemoryScope::Fragment);
    EXPECT_EQ(cLocal->dtype, ir::DType::Float32);
    EXPECT_EQ(shapeOf(cLocal->shape), "[128, 128]");

    // Kernel body: swizzle, clear, pipelined loop, parallel ReLU, copy out.
    const auto& body = kernel.body->stmts;
    ASSERT_EQ(body.size(), 5u);
    EXPECT_EQ(body[0]->kind, ir::StmtKind::UseSwizzle);
    EXPECT_EQ(body[0]->panelSize, 4);
    EXPECT_FALSE(body[0]->rowOrder);
    EXPECT_EQ(body[1]->kind, ir::StmtKind::Fill);
    EXPECT_EQ(body[1]->dst.buffer, cLocal);
    EXPECT_EQ(ir::printExpr(body[1]->value), "0.0");

    const ir::Stmt& loop = *body[2];
    ASSERT_EQ(loop.kind, ir::StmtKind::For);
    EXPECT_EQ(loop.loopKind, ir::LoopKind::Pipelined);
    EXPECT_EQ(loop.pipeline.numStages, 3);
    EXPECT_EQ(ir::printExpr(loop.extent), "16");
    EXPECT_EQ(loop.loopVar->name, "ko");
    const auto& inner = loop.body->stmts;
    ASSERT_EQ(inner.size(), 3u);
    ASSERT_EQ(inner[0]->kind, ir::StmtKind::Copy);
    EXPECT_EQ(regionOf(inner[0]->src), "A[by * 128 +128, ko * 64 +64]");
    EXPECT_EQ(regionOf(inner[0]->dst), "A_shared[0 +128, 0 +64]");
    EXPECT_EQ(regionOf(inner[1]->src), "B[ko * 64 +64, bx * 128 +128]");
    ASSERT_EQ(inner[2]->kind, ir::StmtKind::Gemm);
    EXPECT_EQ(inner[2]->a.buffer, aShared);
    EXPECT_EQ(inner[2]->b.buffer, bShared);
    EXPECT_EQ(inner[2]->c.buffer, cLocal);
    EXPECT_FALSE(inner[2]->transposeA);
    EXPECT_FALSE(inner[2]->transposeB);
    EXPECT_EQ(inner[2]->policy, ir::GemmWarpPolicy::Square);
    EXPECT_EQ(ir::printExpr(inner[2]->clearAccum), "False");

    const ir::Stmt& par = *body[3];
    ASSERT_EQ(par.kind, ir::StmtKind::For);
    EXPECT_EQ(par.loopKind, ir::LoopKind::Parallel);
    EXPECT_EQ(ir::printExpr(par.extent), "128");
    // Nested T.Parallel loops: the outer loop's body is the inner loop.
    const ir::Stmt& par2 = *par.body;
    ASSERT_EQ(par2.kind, ir::StmtKind::For);
    EXPECT_EQ(par2.loopKind, ir::LoopKind::Parallel);
    ASSERT_EQ(par2.body->stmts.size(), 1u);
    const ir::Stmt& store = *par2.body->stmts[0];
    ASSERT_EQ(store.kind, ir::StmtKind::Store);
    EXPECT_EQ(store.buffer, cLocal);
    EXPECT_EQ(ir::printExpr(store.value), "max(C_local[i, j], 0.0)");

    ASSERT_EQ(body[4]->kind, ir::StmtKind::Copy);
    EXPECT_EQ(regionOf(body[4]->src), "C_local[0 +128, 0 +128]");
    EXPECT_EQ(regionOf(body[4]->dst), "C[by * 128 +128, bx * 128 +128]");

    // Specialization: sizes from the module call, dtypes from the defaults.
    ASSERT_EQ(m.specialization.size(), 8u);
    const ir::SpecializationParam* M = e->param("M");
    ASSERT_TRUE(M);
    EXPECT_EQ(std::get<int64_t>(M->value), 1024);
    EXPECT_EQ(M->origin, ir::ParamOrigin::ModuleCall);
    EXPECT_EQ(e->param("block_K")->text, "64");
    EXPECT_EQ(e->param("block_K")->origin, ir::ParamOrigin::ModuleCall);
    EXPECT_EQ(e->param("dtype")->text, "'float16'");
    EXPECT_EQ(e->param("dtype")->origin, ir::ParamOrigin::Default);
    EXPECT_EQ(e->param("accum_dtype")->text, "'float'");
}

TEST(GemmRelu, OverridesWinOverTheModuleCall) {
    ElaborateOptions options;
    options.overrides = {{"block_K", "32"}, {"dtype", "'bfloat16'"}, {"M", "2 * 256"}};
    auto e = elaborateText(loadProgram("gemm_relu.py"), options);
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(shapeOf(e->buffer("A_shared")->shape), "[128, 32]");
    EXPECT_EQ(e->buffer("A_shared")->dtype, ir::DType::BFloat16);
    EXPECT_EQ(shapeOf(e->buffer("A")->shape), "[512, 1024]");
    EXPECT_EQ(e->param("block_K")->origin, ir::ParamOrigin::Override);
    EXPECT_EQ(e->param("M")->text, "512");
    EXPECT_EQ(e->param("N")->origin, ir::ParamOrigin::ModuleCall);
    const ir::Stmt& kernel = *e->module->funcs[0].body->stmts[0];
    EXPECT_EQ(shapeOf(kernel.grid), "[8, 4]");
}

TEST(GemmRelu, AnOverrideThatNamesNoParameterIsAWarning) {
    ElaborateOptions options;
    options.overrides = {{"blockK", "32"}};
    auto e = elaborateText(loadProgram("gemm_relu.py"), options);
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(e->codes(), std::vector<std::string>{"unused-override@1:1"});
}

TEST(MlaDecode, NoSplitFromMain) {
    std::string text = loadProgram("mla_decode.py");
    ASSERT_FALSE(text.empty());
    auto e = elaborateText(text);
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_TRUE(e->diagnostics.diagnostics().empty()) << e->report();
    const ir::Module& m = *e->module;
    EXPECT_EQ(m.jitFunction, "flashattn");
    // argparse defaults flow through main() into the first call.
    EXPECT_EQ(e->param("batch")->text, "132");
    EXPECT_EQ(e->param("batch")->origin, ir::ParamOrigin::ModuleCall);
    EXPECT_EQ(e->param("seqlen_kv")->text, "8192");
    EXPECT_EQ(e->param("num_split")->text, "1");
    ASSERT_EQ(m.funcs.size(), 1u);
    const ir::PrimFunc& f = m.funcs[0];
    EXPECT_EQ(f.name, "main_no_split");
    ASSERT_EQ(f.params.size(), 7u);
    EXPECT_TRUE(f.params[6]->isOutput);
    EXPECT_FALSE(f.params[0]->isOutput);
    EXPECT_EQ(shapeOf(f.params[2]->shape), "[132, 8192, 1, 512]");

    auto kernels = collect(f.body, ir::StmtKind::Kernel);
    ASSERT_EQ(kernels.size(), 1u);
    const ir::Stmt& k = *kernels[0];
    EXPECT_EQ(shapeOf(k.grid), "[2, 132]");
    EXPECT_EQ(k.threads, std::vector<int64_t>{256});
    EXPECT_EQ(k.blockVars[0]->name, "hid");
    EXPECT_EQ(k.allocations.size(), 13u);

    auto copies = collect(k.body, ir::StmtKind::Copy);
    ASSERT_GE(copies.size(), 2u);
    EXPECT_EQ(regionOf(copies[0]->src), "Q[bid +1, hid * 64 +64, 0 +512]");
    auto loops = collect(k.body, ir::StmtKind::For);
    ASSERT_FALSE(loops.empty());
    EXPECT_EQ(loops[0]->loopKind, ir::LoopKind::Pipelined);
    EXPECT_EQ(loops[0]->pipeline.numStages, 2);
    EXPECT_EQ(ir::printExpr(loops[0]->extent), "128");
    EXPECT_EQ(regionOf(copies[2]->src), "KV[bid +1, k * 64 +64, hid // 2 +1, 0 +512]");

    auto gemms = collect(k.body, ir::StmtKind::Gemm);
    ASSERT_EQ(gemms.size(), 3u);
    EXPECT_TRUE(gemms[0]->transposeB);
    EXPECT_EQ(gemms[0]->policy, ir::GemmWarpPolicy::FullCol);
    EXPECT_EQ(ir::printExpr(gemms[0]->clearAccum), "True");
    EXPECT_EQ(ir::printExpr(gemms[1]->clearAccum), "False");

    auto reduces = collect(k.body, ir::StmtKind::Reduce);
    ASSERT_EQ(reduces.size(), 2u);
    EXPECT_EQ(reduces[0]->reduceKind, ir::ReduceKind::Max);
    EXPECT_EQ(reduces[0]->dim, 1);
    EXPECT_FALSE(reduces[0]->clear);
    EXPECT_TRUE(reduces[1]->clear);

    auto layouts = collect(k.body, ir::StmtKind::AnnotateLayout);
    ASSERT_EQ(layouts.size(), 1u);
    ASSERT_EQ(layouts[0]->layouts.size(), 1u);
    EXPECT_EQ(layouts[0]->layouts[0].buffer, e->buffer("O_shared"));
    EXPECT_EQ(layouts[0]->layouts[0].kind, ir::LayoutAnnotationKind::Swizzled);

    // acc_o[i, j] *= scores_scale[i] is a store of a load times a load.
    bool foundScale = false;
    for (const ir::Stmt* s : collect(k.body, ir::StmtKind::Store))
        foundScale = foundScale || ir::printExpr(s->value) == "acc_o[i_3, j_1] * scores_scale[i_3]";
    EXPECT_TRUE(foundScale);
}

TEST(MlaDecode, SplitOverrideGivesTwoKernels) {
    ElaborateOptions options;
    options.overrides = {{"num_split", "4"}};
    auto e = elaborateText(loadProgram("mla_decode.py"), options);
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(e->param("num_split")->origin, ir::ParamOrigin::Override);
    const ir::PrimFunc& f = e->module->funcs[0];
    EXPECT_EQ(f.name, "main_split");
    auto kernels = collect(f.body, ir::StmtKind::Kernel);
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(shapeOf(kernels[0]->grid), "[132, 2, 4]");
    EXPECT_EQ(kernels[0]->threads, std::vector<int64_t>{256});
    EXPECT_EQ(shapeOf(kernels[1]->grid), "[128, 132]");
    EXPECT_EQ(kernels[1]->threads, std::vector<int64_t>{128});
    // The second kernel's names do not clash with the first one's.
    EXPECT_EQ(kernels[1]->blockVars[0]->name, "hid_1");
    // kv_start:kv_end is a 64-row slice starting at 2048 * bz + k * 64.
    auto copies = collect(kernels[0]->body, ir::StmtKind::Copy);
    ASSERT_GE(copies.size(), 3u);
    EXPECT_EQ(regionOf(copies[2]->src), "KV[bid +1, (bz * 2048) + (k * 64) +64, hid // 2 +1, 0 +512]");
    // T.copy(logsum, glse[bid, hid*64:(hid+1)*64, bz]) matches [64] against [1, 64, 1].
    bool foundLse = false;
    for (const ir::Stmt* c : copies)
        foundLse = foundLse || regionOf(c->dst) == "glse[bid +1, hid * 64 +64, bz +1]";
    EXPECT_TRUE(foundLse);
    auto swizzles = collect(kernels[0]->body, ir::StmtKind::UseSwizzle);
    ASSERT_EQ(swizzles.size(), 1u);
    EXPECT_EQ(swizzles[0]->panelSize, 10);
    // The combine kernel's custom fragments: thread = i, and forward_fn = (thread j, index i).
    auto layouts = collect(kernels[1]->body, ir::StmtKind::AnnotateLayout);
    ASSERT_EQ(layouts.size(), 1u);
    ASSERT_EQ(layouts[0]->layouts.size(), 3u);
    const ir::LayoutAnnotation& lse = layouts[0]->layouts[2];
    EXPECT_EQ(lse.kind, ir::LayoutAnnotationKind::CustomFragment);
    EXPECT_EQ(lse.buffer, e->buffer("lse_local"));
    ASSERT_EQ(lse.placeholders.size(), 2u);
    EXPECT_EQ(ir::printExpr(lse.thread), "j");
    ASSERT_EQ(lse.forward.size(), 1u);
    EXPECT_EQ(ir::printExpr(lse.forward[0]), "i");
    auto reduces = collect(kernels[1]->body, ir::StmtKind::Reduce);
    ASSERT_EQ(reduces.size(), 1u);
    EXPECT_EQ(reduces[0]->dim, 0);
}

TEST(MhaForward, MacrosInsideAPipelinedLoop) {
    std::string text = loadProgram("mha_fwd_bshd.py");
    ASSERT_FALSE(text.empty());
    auto e = elaborateText(text);
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_TRUE(e->diagnostics.diagnostics().empty()) << e->report();
    EXPECT_EQ(e->param("seq_len")->text, "4096");
    EXPECT_EQ(e->param("is_causal")->text, "False");
    EXPECT_EQ(e->param("block_M")->text, "128");
    EXPECT_EQ(e->param("block_M")->origin, ir::ParamOrigin::ModuleCall);
    const ir::PrimFunc& f = e->module->funcs[0];
    EXPECT_TRUE(f.params[3]->isOutput);
    EXPECT_EQ(shapeOf(f.params[0]->shape), "[8, 4096, 32, 128]");
    auto kernels = collect(f.body, ir::StmtKind::Kernel);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(shapeOf(kernels[0]->grid), "[32, 32, 8]");
    auto loops = collect(kernels[0]->body, ir::StmtKind::For);
    const ir::Stmt* pipelined = nullptr;
    for (const ir::Stmt* l : loops)
        if (l->loopKind == ir::LoopKind::Pipelined)
            pipelined = l;
    ASSERT_TRUE(pipelined);
    EXPECT_EQ(ir::printExpr(pipelined->extent), "32");
    EXPECT_EQ(pipelined->pipeline.numStages, 1);
    // The four macros expand in order inside the loop body.
    std::vector<ir::StmtKind> kinds;
    for (const ir::StmtPtr& s : pipelined->body->stmts)
        kinds.push_back(s->kind);
    ASSERT_GE(kinds.size(), 4u);
    EXPECT_EQ(kinds[0], ir::StmtKind::Copy);
    EXPECT_EQ(kinds[1], ir::StmtKind::Fill);
    EXPECT_EQ(kinds[2], ir::StmtKind::Gemm);
    EXPECT_EQ(kinds.back(), ir::StmtKind::Gemm);
}

TEST(MhaForward, CausalOverrideTakesTheOtherBranches) {
    ElaborateOptions options;
    options.overrides = {{"is_causal", "True"}};
    auto e = elaborateText(loadProgram("mha_fwd_bshd.py"), options);
    ASSERT_TRUE(e->module) << e->report();
    const ir::Stmt& k = *collect(e->module->funcs[0].body, ir::StmtKind::Kernel)[0];
    const ir::Stmt* pipelined = nullptr;
    for (const ir::Stmt* l : collect(k.body, ir::StmtKind::For))
        if (l->loopKind == ir::LoopKind::Pipelined)
            pipelined = l;
    ASSERT_TRUE(pipelined);
    EXPECT_EQ(ir::printExpr(pipelined->extent), "min(32, ((bx * 128) + 255) // 128)");
    auto stores = collect(pipelined->body, ir::StmtKind::Store);
    ASSERT_FALSE(stores.empty());
    EXPECT_EQ(ir::printExpr(stores[0]->value), "select(((bx * 128) + i) >= ((k * 128) + j), 0.0, -inf)");
}

TEST(Eager, ConstDimsComeFromTheCallsTensors) {
    std::string text = loadProgram("eager_gemm.py");
    ASSERT_FALSE(text.empty());
    auto e = elaborateText(text);
    ASSERT_TRUE(e->module) << e->report();
    const ir::PrimFunc& f = e->module->funcs[0];
    EXPECT_EQ(f.name, "matmul_relu");
    ASSERT_EQ(f.params.size(), 3u);
    EXPECT_EQ(f.params[0]->name, "A");
    EXPECT_EQ(shapeOf(f.params[0]->shape), "[512, 128]");
    EXPECT_EQ(f.params[1]->name, "B");
    EXPECT_EQ(shapeOf(f.params[1]->shape), "[128, 256]");
    EXPECT_EQ(f.params[2]->name, "C");
    EXPECT_TRUE(f.params[2]->isOutput);
    EXPECT_EQ(f.params[2]->paramIndex, 2);
    EXPECT_EQ(shapeOf(f.params[2]->shape), "[512, 256]");
    EXPECT_EQ(e->param("M")->text, "512");
    EXPECT_EQ(e->param("M")->origin, ir::ParamOrigin::ModuleCall);
    EXPECT_EQ(e->param("block_M")->text, "128");
    EXPECT_EQ(e->param("block_M")->origin, ir::ParamOrigin::ModuleCall);
    EXPECT_EQ(e->param("block_N")->origin, ir::ParamOrigin::Default);
    EXPECT_EQ(e->param("dtype")->text, "T.float16");
    EXPECT_EQ(e->param("A"), nullptr); // tensors are not compile-time parameters
    auto kernels = collect(f.body, ir::StmtKind::Kernel);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(shapeOf(kernels[0]->grid), "[4, 4]");
    EXPECT_EQ(shapeOf(e->buffer("A_shared")->shape), "[128, 32]");
}

TEST(Eager, CompileKeywordsAndOverridesBindConstDims) {
    std::string text = loadProgram("eager_gemm.py");
    std::string marker = "c = matmul_relu(a, b, block_M=128)";
    size_t at = text.find(marker);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, marker.size(), "kernel = matmul_relu.compile(M=1024, N=1024, K=1024, block_N=128)");
    ElaborateOptions options;
    options.overrides = {{"K", "256"}};
    auto e = elaborateText(text, options);
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(e->param("N")->text, "1024");
    EXPECT_EQ(e->param("N")->origin, ir::ParamOrigin::ModuleCall);
    EXPECT_EQ(e->param("K")->origin, ir::ParamOrigin::Override);
    EXPECT_EQ(e->param("block_N")->text, "128");
    EXPECT_EQ(shapeOf(e->module->funcs[0].params[0]->shape), "[1024, 256]");
    EXPECT_TRUE(e->diagnostics.diagnostics().empty()) << e->report();
}

} // namespace
} // namespace tb::test
