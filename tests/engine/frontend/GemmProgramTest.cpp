// The GEMM + ReLU program from the TileLang article (shared/seeds/tilelang-gemm-to-mla.zh-Hant.txt),
// copied here as a fixture: it must parse without diagnostics, and the parts the elaborator relies on
// (the jit factory, the prim_func signature, the kernel launch, the pipelined and parallel loops) must
// come out with the right shape.
#include "GemmProgram.h"

#include "FrontendTestSupport.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::test {
namespace {

using ast::ExprKind;
using ast::StmtKind;

std::string dump(const ast::ExprPtr& e) {
    return e ? ast::dumpExpr(*e) : "_";
}

TEST(GemmProgram, ParsesWithoutDiagnostics) {
    auto p = parse(kGemmReluProgram);
    ASSERT_TRUE(p->diagnostics.diagnostics().empty()) << p->report();
    const auto& body = p->module.body;
    // 3 imports, def matmul, 5 module-level assignments, the call, the assert_close call, print.
    ASSERT_EQ(body.size(), 12u) << ast::dumpModule(p->module);
    EXPECT_EQ(body[0]->kind, StmtKind::Import);
    EXPECT_EQ(body[1]->aliases[0].name, "tilelang.language");
    EXPECT_EQ(body[1]->aliases[0].asName, "T");
    EXPECT_EQ(body[3]->kind, StmtKind::FunctionDef);
    EXPECT_EQ(body[11]->kind, StmtKind::Expr);
    EXPECT_EQ(dump(body[11]->value), "(call print \"gemm ok\")");
}

TEST(GemmProgram, JitFactorySignature) {
    auto p = parse(kGemmReluProgram);
    const ast::Stmt& matmul = *p->module.body[3];
    EXPECT_EQ(matmul.name, "matmul");
    ASSERT_EQ(matmul.decorators.size(), 1u);
    EXPECT_EQ(dump(matmul.decorators[0]), "(. tilelang jit)");
    ASSERT_EQ(matmul.params.size(), 8u);
    EXPECT_EQ(matmul.params[0].name, "M");
    EXPECT_EQ(matmul.params[6].name, "dtype");
    EXPECT_EQ(dump(matmul.params[6].defaultValue), "\"float16\"");
    EXPECT_EQ(dump(matmul.params[7].defaultValue), "\"float\"");
    // The inner prim_func, then `return matmul_relu_kernel`.
    ASSERT_EQ(matmul.body.size(), 2u);
    EXPECT_EQ(matmul.body[1]->kind, StmtKind::Return);
    EXPECT_EQ(dump(matmul.body[1]->value), "matmul_relu_kernel");
}

TEST(GemmProgram, KernelBody) {
    auto p = parse(kGemmReluProgram);
    const ast::Stmt& kernel = *p->module.body[3]->body[0];
    EXPECT_EQ(kernel.name, "matmul_relu_kernel");
    EXPECT_EQ(dump(kernel.decorators[0]), "(. T prim_func)");
    ASSERT_EQ(kernel.params.size(), 3u); // the trailing comma adds nothing
    EXPECT_EQ(kernel.params[0].name, "A");
    EXPECT_EQ(dump(kernel.params[0].annotation), "(call (. T Tensor) (tuple M K) dtype)");
    EXPECT_EQ(dump(kernel.params[2].annotation), "(call (. T Tensor) (tuple M N) dtype)");

    ASSERT_EQ(kernel.body.size(), 1u);
    const ast::Stmt& with = *kernel.body[0];
    ASSERT_EQ(with.kind, StmtKind::With);
    ASSERT_EQ(with.items.size(), 1u);
    EXPECT_EQ(
        dump(with.items[0].context),
        "(call (. T Kernel) (call (. T ceildiv) N block_N) (call (. T ceildiv) M block_M) (kw threads 128))");
    EXPECT_EQ(dump(with.items[0].target), "(tuple bx by)");
    EXPECT_EQ(p->sources.describe(with.items[0].context->range), "test.py:16:14");

    // A_shared, B_shared, C_local, use_swizzle, clear, the pipelined loop, the parallel loop, the copy out.
    ASSERT_EQ(with.body.size(), 8u);
    EXPECT_EQ(dump(with.body[0]->value), "(call (. T alloc_shared) (tuple block_M block_K) dtype)");
    EXPECT_EQ(dump(with.body[3]->value), "(call (. T use_swizzle) (kw panel_size 4) (kw order \"col\"))");

    const ast::Stmt& pipelined = *with.body[5];
    ASSERT_EQ(pipelined.kind, StmtKind::For);
    EXPECT_EQ(dump(pipelined.target), "ko");
    EXPECT_EQ(dump(pipelined.iter),
              "(call (. T Pipelined) (call (. T ceildiv) K block_K) (kw num_stages 3))");
    ASSERT_EQ(pipelined.body.size(), 3u);
    EXPECT_EQ(dump(pipelined.body[0]->value),
              "(call (. T copy) (subscript A (tuple (* by block_M) (* ko block_K))) A_shared)");
    EXPECT_EQ(dump(pipelined.body[2]->value), "(call (. T gemm) A_shared B_shared C_local)");

    const ast::Stmt& parallel = *with.body[6];
    EXPECT_EQ(dump(parallel.target), "(tuple i j)");
    ASSERT_EQ(parallel.body.size(), 1u);
    ASSERT_EQ(parallel.body[0]->kind, StmtKind::Assign);
    EXPECT_EQ(dump(parallel.body[0]->targets[0]), "(subscript C_local (tuple i j))");
    EXPECT_EQ(dump(parallel.body[0]->value), "(call (. T max) (subscript C_local (tuple i j)) 0)");
}

TEST(GemmProgram, HostCode) {
    auto p = parse(kGemmReluProgram);
    const auto& body = p->module.body;
    ASSERT_EQ(body[4]->kind, StmtKind::Assign);
    ASSERT_EQ(body[4]->targets.size(), 3u); // M = N = K = 1024
    EXPECT_EQ(dump(body[4]->value), "1024");
    EXPECT_EQ(dump(body[5]->value), "(call matmul M N K (kw block_M 128) (kw block_N 128) (kw block_K 64))");
    EXPECT_EQ(dump(body[10]->value), "(call (. (. torch testing) assert_close) c (call (. torch relu) (@ a "
                                     "b)) (kw rtol 0.01) (kw atol 0.01))");
}

} // namespace
} // namespace tb::test
