// Each semantic check fires on a program with that one mistake, with the expected message, range and
// notes, and stays silent on the well-formed GEMM and MLA programs.
#include "engine/check/Checks.h"

#include "engine/ir/Verifier.h"
#include "tests/engine/ir/TestIr.h"

#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

namespace tb::check {
namespace {

using namespace tb::testir;

std::vector<Diagnostic> runChecks(const Module& m, const Target& target = targetSm90a()) {
    DiagnosticEngine diags;
    checkModule(m, target, diags);
    return diags.diagnostics();
}

// The single diagnostic with this code (fails the test when there is not exactly one).
Diagnostic only(const std::vector<Diagnostic>& diags, const std::string& code) {
    std::vector<Diagnostic> hits;
    std::string all;
    for (const Diagnostic& d : diags) {
        all += d.code + ": " + d.message + "\n";
        if (d.code == code)
            hits.push_back(d);
    }
    EXPECT_EQ(hits.size(), 1u) << all;
    EXPECT_EQ(diags.size(), hits.size()) << "unexpected other diagnostics:\n" << all;
    return hits.empty() ? Diagnostic{} : hits[0];
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(Checks, SilentOnGoodPrograms) {
    GemmProgram gemm;
    EXPECT_TRUE(runChecks(*gemm.module).empty());
    EXPECT_TRUE(runChecks(*gemm.module, targetSm80()).empty());
    MlaProgram mla;
    EXPECT_TRUE(runChecks(*mla.module).empty());
    // The test programs are well-formed IR, which the checks assume.
    DiagnosticEngine diags;
    EXPECT_TRUE(verifyModule(*gemm.module, diags) && verifyModule(*mla.module, diags));
}

TEST(Checks, CopyExtentMismatch) {
    GemmProgram p;
    p.copyA->src.extents[1] = c(64); // A[.., k*32 : +64] -> A_shared[128, 32]
    Diagnostic d = only(runChecks(*p.module), "copy-extent-mismatch");
    EXPECT_EQ(d.message,
              "copy extents do not match: source A has extents [128, 64] but destination A_shared has "
              "[128, 32]");
    EXPECT_EQ(d.range.begin, p.src.line(22).begin);
    ASSERT_EQ(d.notes.size(), 2u);
    EXPECT_EQ(d.notes[1].range.begin, p.src.line(17).begin);
    EXPECT_TRUE(contains(d.notes[1].message, "'A_shared' is allocated here as shared float16[128, 32]"));
    EXPECT_TRUE(contains(d.notes[0].message, "'A' is parameter 0"));
    EXPECT_FALSE(d.hint.empty());
}

TEST(Checks, CopyUnitDimsAreIgnored) {
    GemmProgram p;
    // A[by*128 : +128, k*32 : +32] -> A_shared viewed as [1, 128, 32] is fine.
    Buffer* staged =
        p.module->newBuffer("A_staged", MemoryScope::Shared, DType::Float16, {c(1), c(128), c(32)});
    p.kernel->allocations.push_back(staged);
    p.copyA->dst = whole(staged);
    EXPECT_TRUE(runChecks(*p.module).empty());
}

TEST(Checks, CopyFragmentShape) {
    MlaProgram p;
    Buffer* half = p.module->newBuffer("acc_half", MemoryScope::Fragment, DType::Float32, {c(64), c(32)},
                                       p.src.line(60));
    p.kernel->allocations.push_back(half);
    // acc_s[0:64, 0:32] -> acc_half: the extents agree but the fragments differ.
    p.copyS->src = region(p.accS, {c(0), c(0)}, {c(64), c(32)});
    p.copyS->dst = whole(half);
    Diagnostic d = only(runChecks(*p.module), "copy-fragment-shape");
    EXPECT_EQ(d.message,
              "copy between fragments of different shapes: acc_s is [64, 64] but acc_half is [64, 32]");
    EXPECT_EQ(d.notes.size(), 2u);
}

TEST(Checks, GemmShapeMismatch) {
    GemmProgram p;
    p.gemm->transposeB = true; // B_shared [32, 128] taken as [N, K]: K=128 vs 32, N=32 vs 128
    Diagnostic d = only(runChecks(*p.module), "gemm-shape-mismatch");
    EXPECT_TRUE(contains(d.message, "A A_shared[128, 32], B B_shared[32, 128], C C_local[128, 128]"))
        << d.message;
    EXPECT_TRUE(contains(d.message, "N is 32 in B but 128 in C")) << d.message;
    EXPECT_TRUE(contains(d.message, "K is 32 in A but 128 in B")) << d.message;
    EXPECT_EQ(d.notes.size(), 3u);

    GemmProgram q;
    q.gemm->transposeA = true; // A_shared [128, 32] as [K, M]: M=32
    d = only(runChecks(*q.module), "gemm-shape-mismatch");
    EXPECT_TRUE(contains(d.message, "M is 32 in A but 128 in C")) << d.message;
}

TEST(Checks, GemmLeadingUnitDims) {
    GemmProgram p;
    Buffer* staged =
        p.module->newBuffer("A_stages", MemoryScope::Shared, DType::Float16, {c(2), c(128), c(32)});
    p.kernel->allocations = {staged, p.bShared, p.cLocal};
    p.copyA->dst = region(staged, {c(1), c(0), c(0)}, {c(1), c(128), c(32)});
    p.gemm->a = region(staged, {c(1), c(0), c(0)}, {c(1), c(128), c(32)});
    EXPECT_TRUE(runChecks(*p.module).empty());
    p.gemm->a = region(staged, {c(0), c(0), c(0)}, {c(2), c(128), c(32)});
    Diagnostic d = only(runChecks(*p.module), "gemm-shape-mismatch");
    EXPECT_TRUE(contains(d.message, "must be 2-D")) << d.message;
}

TEST(Checks, GemmScopes) {
    GemmProgram p;
    p.cLocal->scope = MemoryScope::Shared;
    p.kernel->allocations = {p.aShared, p.bShared, p.cLocal};
    auto diags = runChecks(*p.module);
    // Shared C costs shared memory too, but 128x128 fp32 + 48 KiB still fits.
    Diagnostic d = only(diags, "gemm-accumulator-scope");
    EXPECT_EQ(d.message, "gemm accumulator C (C_local) is a shared buffer; it must be a fragment");

    GemmProgram q;
    q.gemm->a = region(q.A, {c(0), c(0)}, {c(128), c(32)});
    d = only(runChecks(*q.module), "gemm-operand-scope");
    EXPECT_EQ(d.message, "gemm operand A (A) is a global buffer; it must be in shared memory or a fragment");
}

TEST(Checks, GemmDtypes) {
    GemmProgram p;
    p.bShared->dtype = DType::BFloat16;
    Diagnostic d = only(runChecks(*p.module), "gemm-dtype");
    EXPECT_EQ(d.message,
              "gemm operands have different dtypes: A (A_shared) is float16 but B (B_shared) is bfloat16");

    GemmProgram q;
    q.aShared->dtype = q.bShared->dtype = DType::BFloat16;
    q.cLocal->dtype = DType::Float16;
    d = only(runChecks(*q.module), "gemm-dtype");
    EXPECT_EQ(d.message,
              "gemm accumulator C (C_local) is float16 but bfloat16 operands accumulate in float32");

    GemmProgram r;
    r.aShared->dtype = r.bShared->dtype = DType::Int8;
    d = only(runChecks(*r.module), "gemm-dtype");
    EXPECT_TRUE(contains(d.message, "int8 operands accumulate in int32")) << d.message;
    r.cLocal->dtype = DType::Int32;
    EXPECT_TRUE(runChecks(*r.module).empty());

    GemmProgram s;
    s.aShared->dtype = s.bShared->dtype = DType::Int32;
    d = only(runChecks(*s.module), "gemm-dtype");
    EXPECT_TRUE(contains(d.message, "is int32, which the tensor cores do not multiply")) << d.message;

    // fp8 e4m3 x e5m2, tf32 and fp16 accumulation are all accepted.
    GemmProgram t;
    t.aShared->dtype = DType::Float8E4M3;
    t.bShared->dtype = DType::Float8E5M2;
    EXPECT_TRUE(runChecks(*t.module).empty());
    t.aShared->dtype = t.bShared->dtype = DType::Float32;
    EXPECT_TRUE(runChecks(*t.module).empty());
    t.aShared->dtype = t.bShared->dtype = DType::Float16;
    t.cLocal->dtype = DType::Float16;
    EXPECT_TRUE(runChecks(*t.module).empty());
}

TEST(Checks, ReduceShapeAndDim) {
    MlaProgram p;
    // The reduced dim may be kept as 1.
    p.scoresMax->shape = {c(64), c(1)};
    EXPECT_TRUE(runChecks(*p.module).empty());
    p.scoresMax->shape = {c(32)};
    Diagnostic d = only(runChecks(*p.module), "reduce-shape-mismatch");
    EXPECT_EQ(d.message,
              "reduce_max of acc_s[64, 64] along dim 1 needs a destination of shape [64] (or [64, 1]), "
              "but scores_max is [32]");
    EXPECT_EQ(d.range.begin, p.src.line(51).begin);
    EXPECT_EQ(d.notes.size(), 2u);

    MlaProgram q;
    q.reduceMax->dim = 2;
    d = only(runChecks(*q.module), "reduce-dim");
    EXPECT_EQ(d.message, "reduce_max dim 2 is out of range for acc_s, which has rank 2");
}

TEST(Checks, FillAndReduceOfGlobalAreAllowed) {
    GemmProgram p;
    auto fillGlobal = makeStmt(StmtKind::Fill);
    fillGlobal->dst = region(p.C, {mul(v(p.by), c(128)), c(0)}, {c(128), c(1024)});
    fillGlobal->value = makeFloat(0.0, DType::Float16);
    std::const_pointer_cast<Stmt>(p.kernel->body)->stmts.push_back(fillGlobal);
    EXPECT_TRUE(runChecks(*p.module).empty());
}

TEST(Checks, ConstantIndexOutOfRange) {
    GemmProgram p;
    p.store->indices = {v(p.i), c(128)};
    Diagnostic d = only(runChecks(*p.module), "index-out-of-range");
    EXPECT_EQ(d.message, "index 128 is out of range for dimension 1 of C_local, which has extent 128");

    GemmProgram q;
    q.store->value = makeBinary(BinaryOp::Max, makeLoad(q.cLocal, {c(-1), v(q.j)}), makeFloat(0.0));
    d = only(runChecks(*q.module), "index-out-of-range");
    EXPECT_TRUE(contains(d.message, "index -1 is out of range for dimension 0 of C_local")) << d.message;

    GemmProgram r;
    r.copyA->dst = region(r.aShared, {c(0), c(16)}, {c(128), c(32)});
    d = only(runChecks(*r.module), "index-out-of-range");
    EXPECT_EQ(d.message, "region [16, 48) of dimension 1 of A_shared exceeds its extent 32");
    EXPECT_EQ(d.notes.size(), 1u);
}

TEST(Checks, AGlobalCopyTilePastTheTensorIsAWarning) {
    // The copy guards its global side, so a tile wider than the tensor reads zeros there: legal, wasteful.
    GemmProgram p;
    p.C->shape = {c(1024), c(96)};
    Diagnostic d = only(runChecks(*p.module), "copy-past-extent");
    EXPECT_EQ(d.severity, Severity::Warning);
    EXPECT_TRUE(contains(d.message, "region extent 128 of dimension 1 of C exceeds its extent 96"))
        << d.message;
    // A shared tile has no guard: past its end is an error, as before.
    GemmProgram q;
    q.copyA->dst = region(q.aShared, {c(0), c(16)}, {c(128), c(32)});
    EXPECT_EQ(only(runChecks(*q.module), "index-out-of-range").severity, Severity::Error);
}

// A view of C, flattened to rows of 64, declared in the kernel.
Buffer* viewOfC(GemmProgram& p, std::vector<ExprPtr> shape, DType dtype = DType::Float16) {
    Buffer* view =
        p.module->newBuffer("C_flat", MemoryScope::Global, dtype, std::move(shape), p.src.line(18));
    view->viewOf = p.C;
    p.kernel->allocations.push_back(view);
    return view;
}

TEST(Checks, AViewFitsItsBaseAndSharesItsDtype) {
    GemmProgram ok;
    viewOfC(ok, {c(1024 * 1024 / 64), c(64)});
    EXPECT_TRUE(runChecks(*ok.module).empty());

    GemmProgram larger;
    viewOfC(larger, {c(1024 * 1024 / 64 + 1), c(64)});
    Diagnostic d = only(runChecks(*larger.module), "view-exceeds-base");
    EXPECT_EQ(d.message,
              "view 'C_flat' [16385, 64] has 1048640 elements but its base 'C' [1024, 1024] has only "
              "1048576");
    ASSERT_EQ(d.notes.size(), 2u);
    EXPECT_TRUE(contains(d.notes[0].message, "'C_flat' is declared here as a view of 'C'"))
        << d.notes[0].message;

    GemmProgram retyped;
    viewOfC(retyped, {c(1024 * 1024 / 64), c(64)}, DType::BFloat16);
    d = only(runChecks(*retyped.module), "view-dtype-mismatch");
    EXPECT_TRUE(contains(d.message, "view 'C_flat' is bfloat16 but its base 'C' is float16")) << d.message;
}

TEST(Checks, Threads) {
    GemmProgram p(1024, 1024, 1024, 128, 128, 32, 3, /*threads=*/100);
    Diagnostic d = only(runChecks(*p.module), "threads-not-multiple-of-32");
    EXPECT_EQ(d.severity, Severity::Error);
    EXPECT_EQ(d.message, "kernel uses 100 threads, which is not a multiple of the warp size 32");

    GemmProgram q;
    q.kernel->threads = {128, 16};
    d = only(runChecks(*q.module), "too-many-threads");
    EXPECT_EQ(d.message, "kernel uses 2048 threads per block; sm_90a allows at most 1024");
}

TEST(Checks, SharedMemoryOverLimit) {
    // 128x256x64 fp16 blocks: (128*64 + 64*256) * 2 = 49152 bytes a stage; 5 stages = 245760.
    GemmProgram p(1024, 1024, 1024, 128, 256, 64, /*stages=*/5);
    Diagnostic d = only(runChecks(*p.module), "shared-memory-over-limit");
    EXPECT_EQ(d.message, "shared memory needs 245760 bytes with num_stages=5; sm_90a allows at most 232448");
    EXPECT_EQ(d.hint, "reduce num_stages or block sizes");
    EXPECT_EQ(d.range.begin, p.src.line(16).begin);
    ASSERT_EQ(d.notes.size(), 2u);
    // Largest buffer first.
    EXPECT_EQ(d.notes[0].message,
              "'B_shared' shared float16[64, 256] = 32768 bytes x 5 stages = 163840 bytes");
    EXPECT_EQ(d.notes[0].range.begin, p.src.line(18).begin);
    // Four stages fit on sm_90a but not on sm_80.
    GemmProgram q(1024, 1024, 1024, 128, 256, 64, 4);
    EXPECT_TRUE(runChecks(*q.module).empty());
    d = only(runChecks(*q.module, targetSm80()), "shared-memory-over-limit");
    EXPECT_EQ(d.message, "shared memory needs 196608 bytes with num_stages=4; sm_80 allows at most 166912");
}

TEST(Checks, MlaFitsHopperOnly) {
    MlaProgram two(2);
    EXPECT_TRUE(runChecks(*two.module).empty());
    Diagnostic d = only(runChecks(*two.module, targetSm80()), "shared-memory-over-limit");
    EXPECT_TRUE(contains(d.message, "229376 bytes with num_stages=2")) << d.message;
    EXPECT_EQ(d.notes.size(), 5u);
    MlaProgram three(3);
    d = only(runChecks(*three.module), "shared-memory-over-limit");
    EXPECT_TRUE(contains(d.message, "303104 bytes with num_stages=3; sm_90a allows at most 232448"))
        << d.message;
}

TEST(Checks, TileOpOutsideKernelAndNestedKernel) {
    GemmProgram p;
    auto hostFill = makeStmt(StmtKind::Fill, p.src.line(70));
    hostFill->dst = whole(p.C);
    hostFill->value = makeFloat(0.0, DType::Float16);
    p.module->funcs[0].body = makeSeq({hostFill, p.kernel});
    Diagnostic d = only(runChecks(*p.module), "tile-op-outside-kernel");
    EXPECT_EQ(d.message, "T.fill is used outside a T.Kernel block");
    EXPECT_EQ(d.range.begin, p.src.line(70).begin);

    GemmProgram q, inner;
    std::const_pointer_cast<Stmt>(q.kernel->body)->stmts.push_back(inner.kernel);
    d = only(runChecks(*q.module), "kernel-inside-kernel");
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_EQ(d.notes[0].range.begin, q.src.line(16).begin);
}

TEST(Checks, AtomicAddScope) {
    GemmProgram p;
    auto atomic = makeStmt(StmtKind::AtomicAdd, p.src.line(28));
    atomic->dst = whole(p.cLocal);
    atomic->src = whole(p.cLocal);
    std::const_pointer_cast<Stmt>(p.kernel->body)->stmts.push_back(atomic);
    Diagnostic d = only(runChecks(*p.module), "atomic-add-scope");
    EXPECT_EQ(d.message,
              "atomic_add destination C_local is a fragment buffer; it must be in global or shared memory");
    atomic->dst = region(p.C, {c(0), c(0)}, {c(128), c(128)});
    EXPECT_TRUE(runChecks(*p.module).empty());
}

TEST(Checks, BrokenIrDoesNotCrash) {
    GemmProgram p;
    p.gemm->a.buffer = nullptr;
    p.copyA->dst = Region{};
    p.store->buffer = nullptr;
    p.loop->body = nullptr;
    runChecks(*p.module); // must simply return
    SUCCEED();
}

} // namespace
} // namespace tb::check
