// Kernel-code elaboration in isolation: macros, dynamic dims, run-time and compile-time conditions,
// scalar substitution, local vars, loop forms, dtype promotion, layouts and the smaller tile ops.
#include "ElaborateTestSupport.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>

namespace tb::test {
namespace {

const char* kHeader = "import tilelang\nimport tilelang.language as T\n";

// A jit program whose prim_func has one 2-D fp32 tensor A (64, 64) and runs `body` inside
// `with T.Kernel(4, threads=128) as bx:` (body lines are indented by 12 spaces by the caller).
std::unique_ptr<Elaborated> kernelWith(const std::string& body, ElaborateOptions options = {}) {
    std::string text = std::string(kHeader) +
                       "@tilelang.jit\n"
                       "def f(n=64):\n"
                       "    @T.prim_func\n"
                       "    def main(A: T.Tensor((n, n), \"float32\"), B: T.Tensor((n, n), \"float16\")):\n"
                       "        with T.Kernel(4, threads=128) as bx:\n" +
                       body + "    return main\n";
    return elaborateText(text, options);
}

const ir::Stmt& kernelOf(const Elaborated& e) {
    return *collect(e.module->funcs[0].body, ir::StmtKind::Kernel)[0];
}

TEST(KernelCode, MacrosExpandInlineWithTheCallersBuffers) {
    auto e = elaborateText(std::string(kHeader) + R"(
@tilelang.jit(out_idx=-1)
def f(n=128, block=64):
    @T.macro
    def scale_rows(X, Y, factor):
        with T.Kernel(n // block, threads=128) as bx:
            tile = T.alloc_fragment((block, n), "float32")
            T.copy(X[bx * block, 0], tile)
            for i, j in T.Parallel(block, n):
                tile[i, j] = tile[i, j] * factor
            T.copy(tile, Y[bx * block, 0])

    @T.prim_func
    def main(A: T.Tensor((n, n), "float32"), B: T.Tensor((n, n), "float32"), C: T.Tensor((n, n), "float32")):
        scale_rows(A, B, 2.0)
        scale_rows(B, C, 0.5)
    return main

f()
)");
    ASSERT_TRUE(e->module) << e->report();
    const ir::PrimFunc& f = e->module->funcs[0];
    EXPECT_TRUE(f.params[2]->isOutput);
    EXPECT_FALSE(f.params[1]->isOutput);
    auto kernels = collect(f.body, ir::StmtKind::Kernel);
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels[0]->allocations[0]->name, "tile");
    EXPECT_EQ(kernels[1]->allocations[0]->name, "tile_1");
    auto copies0 = collect(kernels[0]->body, ir::StmtKind::Copy);
    auto copies1 = collect(kernels[1]->body, ir::StmtKind::Copy);
    EXPECT_EQ(regionOf(copies0[0]->src), "A[bx * 64 +64, 0 +128]");
    EXPECT_EQ(regionOf(copies1[0]->src), "B[bx_1 * 64 +64, 0 +128]");
    EXPECT_EQ(regionOf(copies1[1]->dst), "C[bx_1 * 64 +64, 0 +128]");
    auto stores = collect(kernels[1]->body, ir::StmtKind::Store);
    ASSERT_EQ(stores.size(), 1u);
    EXPECT_EQ(ir::printExpr(stores[0]->value), "tile_1[i_1, j_1] * 0.5");
}

TEST(KernelCode, DynamicDimsStaySymbolic) {
    auto e = elaborateText(std::string(kHeader) + R"(
@tilelang.jit
def f(block=64):
    M = T.dynamic("m")
    @T.prim_func
    def main(A: T.Tensor((M, 128), "float16")):
        with T.Kernel(T.ceildiv(M, block), threads=128) as bx:
            A_s = T.alloc_shared((block, 128), "float16")
            T.copy(A[bx * block, 0], A_s)
    return main
)");
    ASSERT_TRUE(e->module) << e->report();
    const ir::PrimFunc& f = e->module->funcs[0];
    ASSERT_EQ(f.dynamicDims.size(), 1u);
    EXPECT_EQ(f.dynamicDims[0]->name, "m");
    EXPECT_EQ(f.dynamicDims[0]->kind, ir::VarKind::DynamicDim);
    EXPECT_EQ(shapeOf(f.params[0]->shape), "[m, 128]");
    EXPECT_EQ(shapeOf(kernelOf(*e).grid), "[(m + 63) // 64]");
}

TEST(KernelCode, ConditionsScalarsAndLocalVars) {
    auto e = kernelWith(R"(            acc = T.alloc_var("float32", init=0)
            row = bx * 16 + 3
            if n > 32:
                acc = acc + A[row, 0]
            else:
                acc = acc + 1.0
            if bx == 0:
                A[row, 1] = acc
            else:
                A[row, 2] = -acc
            for k in range(4):
                acc += A[row, k]
            for k in T.serial(0, n, 16):
                B[k, 0] = A[k, 0]
)");
    ASSERT_TRUE(e->module) << e->report();
    const ir::Stmt& k = kernelOf(*e);
    const ir::Buffer* acc = e->buffer("acc");
    ASSERT_TRUE(acc);
    EXPECT_EQ(acc->scope, ir::MemoryScope::LocalVar);
    EXPECT_EQ(ir::printExpr(*acc->initValue), "0.0");
    const auto& body = k.body->stmts;
    ASSERT_EQ(body.size(), 4u);
    // `if n > 32` is compile-time: only the taken branch is emitted.
    ASSERT_EQ(body[0]->kind, ir::StmtKind::Store);
    EXPECT_EQ(ir::printExpr(body[0]->value), "acc[0] + A[(bx * 16) + 3, 0]");
    // `if bx == 0` is a run-time condition.
    ASSERT_EQ(body[1]->kind, ir::StmtKind::IfThenElse);
    EXPECT_EQ(ir::printExpr(body[1]->cond), "bx == 0");
    ASSERT_TRUE(body[1]->elseBody);
    EXPECT_EQ(ir::printExpr(body[1]->elseBody->stmts[0]->value), "-acc[0]");
    // range() in kernel code is a serial loop, not unrolled.
    ASSERT_EQ(body[2]->kind, ir::StmtKind::For);
    EXPECT_EQ(body[2]->loopKind, ir::LoopKind::Serial);
    EXPECT_EQ(ir::printExpr(body[2]->extent), "4");
    // T.serial with a step: 4 iterations over k = 16 * v; the store casts fp32 to fp16.
    ASSERT_EQ(body[3]->kind, ir::StmtKind::For);
    EXPECT_EQ(ir::printExpr(body[3]->extent), "4");
    const ir::Stmt& st = *body[3]->body->stmts[0];
    EXPECT_EQ(st.buffer, e->buffer("B"));
    // The second loop named k gets a unique var name within the PrimFunc.
    EXPECT_EQ(ir::printExpr(st.indices[0]), "0 + (k_1 * 16)");
    EXPECT_EQ(ir::printExpr(st.value), "float16(A[0 + (k_1 * 16), 0])");
}

TEST(KernelCode, DtypePromotionAndMath) {
    auto e = kernelWith(R"(            frag = T.alloc_fragment((64,), "float16")
            for i in T.Parallel(64):
                frag[i] = T.exp2(A[i, 0] * 1.5 - 2) + T.cast(i, "float16")
            for i in T.Parallel(64):
                A[i, 1] = T.if_then_else(i < 32, frag[i], T.max(A[i, 2], 0))
            for i in T.Parallel(64):
                A[i, 2] = i // 4 + i % 4 + i / 4
            for i in T.Parallel(64):
                A[i, 3] = -T.infinity("float32")
)");
    ASSERT_TRUE(e->module) << e->report();
    auto stores = collect(kernelOf(*e).body, ir::StmtKind::Store);
    ASSERT_EQ(stores.size(), 4u);
    // fp32 + fp16 is computed in fp32, then cast to the fp16 buffer.
    EXPECT_EQ(ir::printExpr(stores[0]->value), "float16(exp2((A[i, 0] * 1.5) - 2.0) + float32(float16(i)))");
    EXPECT_EQ(stores[0]->value->dtype, ir::DType::Float16);
    // fp16 with fp32 promotes to fp32.
    EXPECT_EQ(ir::printExpr(stores[1]->value), "select(i_1 < 32, float32(frag[i_1]), max(A[i_1, 2], 0.0))");
    EXPECT_EQ(ir::printExpr(stores[2]->value), "float32(((i_2 // 4) + (i_2 % 4)) + (i_2 / 4))");
    EXPECT_EQ(ir::printExpr(stores[3]->value), "-inf");
}

TEST(KernelCode, SmallTileOps) {
    auto e = kernelWith(R"(            tx = T.get_thread_binding()
            s = T.alloc_shared((64, 64), "float32")
            T.annotate_layout({s: T.Layout((64, 64), lambda i, j: (i, j ^ (i % 8)))})
            T.atomic_add(A[tx, 0], 1)
            T.atomic_add(A[0:64, 0:64], s)
            T.print(tx, msg="tid")
            T.print(s)
            r = T.alloc_fragment((64,), "float32")
            T.reduce_sum(s, r, dim=0)
)");
    ASSERT_TRUE(e->module) << e->report();
    const auto& body = kernelOf(*e).body->stmts;
    ASSERT_EQ(body.size(), 6u);
    const ir::LayoutAnnotation& l = body[0]->layouts[0];
    EXPECT_EQ(l.kind, ir::LayoutAnnotationKind::CustomLayout);
    ASSERT_EQ(l.forward.size(), 2u);
    EXPECT_EQ(ir::printExpr(l.forward[1]), "j ^ (i % 8)");
    EXPECT_EQ(l.placeholders[0]->kind, ir::VarKind::Placeholder);
    ASSERT_EQ(body[1]->kind, ir::StmtKind::AtomicAdd);
    EXPECT_EQ(regionOf(body[1]->dst), "A[tx +1, 0 +1]");
    EXPECT_EQ(ir::printExpr(body[1]->value), "1.0");
    EXPECT_EQ(regionOf(body[2]->src), "s[0 +64, 0 +64]");
    EXPECT_EQ(body[3]->message, "tid");
    EXPECT_EQ(ir::printExpr(body[3]->value), "tx");
    EXPECT_EQ(body[4]->printBuffer, e->buffer("s"));
    EXPECT_EQ(body[5]->dstBuffer, e->buffer("r"));
    EXPECT_EQ(body[5]->reduceKind, ir::ReduceKind::Sum);
    EXPECT_EQ(body[5]->dim, 0);
}

TEST(KernelCode, BarePrimFuncWithCompileOutIdx) {
    auto e = elaborateText(std::string(kHeader) + R"(
@T.prim_func
def add(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32"), C: T.Tensor((256,), "float32")):
    with T.Kernel(2, threads=128) as bx:
        for i in T.Parallel(128):
            C[bx * 128 + i] = A[bx * 128 + i] + B[bx * 128 + i]

kernel = tilelang.compile(add, out_idx=[2])
)");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(e->module->jitFunction, "");
    EXPECT_TRUE(e->module->specialization.empty());
    EXPECT_TRUE(e->module->funcs[0].params[2]->isOutput);
}

// out_idx counts every parameter of the kernel, scalars too, as TileLang's adapters do.
TEST(KernelCode, OutIdxCountsScalarParameters) {
    const std::string kernel = std::string(kHeader) + R"(
@T.prim_func
def scale(A: T.Tensor((256,), "float32"), n: T.int32, B: T.Tensor((256,), "float32")):
    with T.Kernel(2, threads=128) as bx:
        for i in T.Parallel(128):
            B[bx * 128 + i] = A[bx * 128 + i] * n
)";
    auto e = elaborateText(kernel + "kernel = tilelang.compile(scale, out_idx=[2])\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_FALSE(e->module->funcs[0].params[0]->isOutput);
    EXPECT_TRUE(e->module->funcs[0].params[1]->isOutput); // B, the second tensor
    auto scalar = elaborateText(kernel + "kernel = tilelang.compile(scale, out_idx=[1])\n");
    const Diagnostic* d = scalar->first("type-error");
    ASSERT_NE(d, nullptr) << scalar->report();
    EXPECT_EQ(d->message, "out_idx 1 names parameter 'n' of 'scale', which is a scalar, not a tensor");
}

TEST(KernelCode, EntryOptionPicksAmongSeveralKernels) {
    std::string text = std::string(kHeader) + R"(
@T.prim_func
def first(A: T.Tensor((32,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.clear(A)

@T.prim_func
def second(A: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=64) as bx:
        T.fill(A, 1)
)";
    ElaborateOptions options;
    options.entry = "second";
    auto e = elaborateText(text, options);
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(e->module->funcs[0].name, "second");
    auto none = elaborateText(text);
    ASSERT_TRUE(none->module);
    EXPECT_EQ(none->module->funcs[0].name, "first");
}

} // namespace
} // namespace tb::test
