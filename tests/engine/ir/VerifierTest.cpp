// The verifier accepts the hand-built programs and catches each injected invariant break with an
// internal-error diagnostic that asks for a report.
#include "engine/ir/Verifier.h"

#include "tests/engine/ir/TestIr.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::ir {
namespace {

using namespace tb::testir;

// Verifies and returns the concatenated messages ("" when the module is valid).
std::string verify(const Module& m, bool expectValid) {
    DiagnosticEngine diags;
    bool ok = verifyModule(m, diags);
    EXPECT_EQ(ok, expectValid);
    EXPECT_EQ(ok, diags.diagnostics().empty());
    std::string messages;
    for (const Diagnostic& d : diags.diagnostics()) {
        EXPECT_EQ(d.code, "internal-error");
        EXPECT_EQ(d.severity, Severity::Error);
        EXPECT_NE(d.message.find("please report"), std::string::npos) << d.message;
        messages += d.message + "\n";
    }
    return messages;
}

TEST(Verifier, AcceptsWellFormedPrograms) {
    GemmProgram gemm;
    EXPECT_EQ(verify(*gemm.module, true), "");
    MlaProgram mla;
    EXPECT_EQ(verify(*mla.module, true), "");
}

TEST(Verifier, UnboundVar) {
    GemmProgram p;
    // `k` used after its pipelined loop ended.
    p.copyC->dst.mins[0] = mul(v(p.k), c(128));
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("loop_var 'k' is used outside the scope that binds it"), std::string::npos) << out;
}

TEST(Verifier, DynamicDimOfAnotherFunc) {
    GemmProgram p;
    Var* n = p.module->newVar("N", DType::Int32, VarKind::DynamicDim);
    p.store->value = makeBinary(BinaryOp::Max, makeLoad(p.cLocal, {v(p.i), v(n)}), makeFloat(0.0));
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("dynamic_dim 'N'"), std::string::npos) << out;
}

TEST(Verifier, ThreadIndexOutsideKernel) {
    GemmProgram p;
    Var* tx = p.module->newVar("tx", DType::Int32, VarKind::ThreadIndex);
    p.store->indices = {v(tx), v(p.j)}; // inside the kernel: fine
    EXPECT_EQ(verify(*p.module, true), "");
    auto host = makeStmt(StmtKind::Store);
    host->buffer = p.A;
    host->indices = {v(tx), c(0)};
    host->value = makeFloat(0.0, DType::Float16);
    p.module->funcs[0].body = makeSeq({p.kernel, host});
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("thread_index 'tx'"), std::string::npos) << out;
}

TEST(Verifier, GridBarrierOutsideKernel) {
    GemmProgram p;
    auto sync = makeStmt(StmtKind::GridSync, p.src.line(30));
    p.kernel->body = makeSeq({p.kernel->body, sync}); // inside the kernel: fine
    EXPECT_EQ(verify(*p.module, true), "");
    p.module->funcs[0].body = makeSeq({p.kernel, makeStmt(StmtKind::GridSync, p.src.line(31))});
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("a grid barrier outside every kernel"), std::string::npos) << out;
}

TEST(Verifier, RegionRank) {
    GemmProgram p;
    p.copyA->dst = region(p.aShared, {c(0)}, {c(128)});
    std::string out = verify(*p.module, false);
    EXPECT_NE(
        out.find(
            "the copy destination region of 'A_shared' has 1 mins and 1 extents but the buffer has rank 2"),
        std::string::npos)
        << out;
}

TEST(Verifier, StoreAndLoadIndexRank) {
    GemmProgram p;
    p.store->indices = {v(p.i)};
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("store to 'C_local' has 1 indices but the buffer has rank 2"), std::string::npos)
        << out;

    GemmProgram q;
    q.store->value = makeBinary(BinaryOp::Max, makeLoad(q.cLocal, {v(q.i), v(q.j), c(0)}), makeFloat(0.0));
    out = verify(*q.module, false);
    EXPECT_NE(out.find("load of 'C_local' has 3 indices but the buffer has rank 2"), std::string::npos)
        << out;
}

TEST(Verifier, BinaryDtypes) {
    GemmProgram p;
    p.store->value = makeBinary(BinaryOp::Max, makeLoad(p.cLocal, {v(p.i), v(p.j)}), c(0));
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("operands of 'max' have dtypes float32 and int32"), std::string::npos) << out;
}

TEST(Verifier, LoopVarRebound) {
    GemmProgram p;
    p.parallelJ->loopVar = p.i; // for i in ...: for i in ...
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("var 'i' is bound again while already in scope"), std::string::npos) << out;
}

TEST(Verifier, SiblingLoopsMayShareAVar) {
    GemmProgram p;
    // The same var bound by two loops one after the other is fine.
    auto again = makeFor(p.i, c(0), c(4), LoopKind::Serial, makeSeq({}));
    std::static_pointer_cast<Stmt>(std::const_pointer_cast<Stmt>(p.kernel->body))->stmts.push_back(again);
    EXPECT_EQ(verify(*p.module, true), "");
}

TEST(Verifier, MissingAllocation) {
    GemmProgram p;
    p.kernel->allocations = {p.aShared, p.cLocal};
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("shared buffer 'B_shared' is used in a kernel that does not allocate it"),
              std::string::npos)
        << out;
}

TEST(Verifier, ViewsAreGlobalOverAGlobalBaseAndDeclaredWhereUsed) {
    GemmProgram p;
    Buffer* flat = p.module->newBuffer("C_flat", MemoryScope::Global, DType::Float16, {c(1024 * 1024)});
    flat->viewOf = p.C;
    p.kernel->allocations.push_back(flat);
    p.copyC->dst = region(flat, {mul(v(p.by), c(128))}, {c(128)});
    EXPECT_EQ(verify(*p.module, true), "");

    // A view of a view, a view of shared memory, a view used by a kernel that does not declare it.
    Buffer* again = p.module->newBuffer("again", MemoryScope::Global, DType::Float16, {c(16)});
    again->viewOf = flat;
    Buffer* onShared = p.module->newBuffer("on_shared", MemoryScope::Global, DType::Float16, {c(16)});
    onShared->viewOf = p.aShared;
    p.kernel->allocations.push_back(again);
    p.kernel->allocations.push_back(onShared);
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("view 'again' has view 'C_flat' as its base"), std::string::npos) << out;
    EXPECT_NE(
        out.find("view 'on_shared' (global) of 'A_shared' (shared) is not a global view of a global buffer"),
        std::string::npos)
        << out;

    GemmProgram q;
    Buffer* undeclared = q.module->newBuffer("C_flat", MemoryScope::Global, DType::Float16, {c(1024 * 1024)});
    undeclared->viewOf = q.C;
    q.copyC->dst = region(undeclared, {mul(v(q.by), c(128))}, {c(128)});
    out = verify(*q.module, false);
    EXPECT_NE(out.find("view 'C_flat' is used outside the kernel that declares it"), std::string::npos)
        << out;
}

TEST(Verifier, DuplicateAllocationAndBadParams) {
    GemmProgram p;
    p.kernel->allocations.push_back(p.aShared);
    p.B->paramIndex = 5;
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("buffer 'A_shared' is allocated twice in one kernel"), std::string::npos) << out;
    EXPECT_NE(out.find("parameter 'B' is at position 1 but has paramIndex 5"), std::string::npos) << out;
}

TEST(Verifier, NullFieldsAreReportedNotCrashed) {
    GemmProgram p;
    p.gemm->b.buffer = nullptr;
    p.loop->extent = nullptr;
    p.store->value = nullptr;
    p.kernel->blockVars = {p.bx};
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("the gemm B region has no buffer"), std::string::npos) << out;
    EXPECT_NE(out.find("a loop has no min or extent"), std::string::npos) << out;
    EXPECT_NE(out.find("a store has no value"), std::string::npos) << out;
    EXPECT_NE(out.find("2 grid extents and 1 block vars"), std::string::npos) << out;
}

TEST(Verifier, LayoutPlaceholdersAreScoped) {
    GemmProgram p;
    Var* ph0 = p.module->newVar("i0", DType::Int32, VarKind::Placeholder);
    Var* ph1 = p.module->newVar("j0", DType::Int32, VarKind::Placeholder);
    auto annotate = makeStmt(StmtKind::AnnotateLayout);
    LayoutAnnotation layout;
    layout.buffer = p.aShared;
    layout.kind = LayoutAnnotationKind::CustomLayout;
    layout.placeholders = {ph0, ph1};
    layout.forward = {v(ph0), makeBinary(BinaryOp::BitXor, v(ph1), v(ph0))};
    annotate->layouts = {layout};
    auto body = std::const_pointer_cast<Stmt>(p.kernel->body);
    body->stmts.insert(body->stmts.begin(), annotate);
    EXPECT_EQ(verify(*p.module, true), "");
    // A placeholder leaking into a statement is unbound there.
    p.store->indices = {v(ph0), v(p.j)};
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("placeholder 'i0' is used outside the scope"), std::string::npos) << out;
}

TEST(Verifier, DeepTreeIsReportedNotOverflowed) {
    GemmProgram p;
    StmtPtr s = p.kernel;
    for (int i = 0; i < 5000; ++i)
        s = makeSeq({s});
    p.module->funcs[0].body = s;
    std::string out = verify(*p.module, false);
    EXPECT_NE(out.find("nesting exceeds"), std::string::npos) << out;
}

} // namespace
} // namespace tb::ir
