// The text listing of hand-built modules: key lines, parallel nests, line comments, determinism.
#include "engine/ir/Printer.h"

#include "tests/engine/ir/TestIr.h"

#include <gtest/gtest.h>
#include <string>
#include <string_view>
#include <vector>

namespace tb::ir {
namespace {

using namespace tb::testir;

bool hasLine(const std::string& text, const std::string& line) {
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        std::string_view l(text.data() + pos, (end == std::string::npos ? text.size() : end) - pos);
        // Compare without the trailing "# line N" comment and surrounding blanks.
        size_t hash = l.find("  # line ");
        if (hash != std::string_view::npos)
            l = l.substr(0, hash);
        while (!l.empty() && l.back() == ' ')
            l.remove_suffix(1);
        while (!l.empty() && l.front() == ' ')
            l.remove_prefix(1);
        if (l == line)
            return true;
        if (end == std::string::npos)
            break;
        pos = end + 1;
    }
    return false;
}

TEST(Printer, GemmKeyLines) {
    GemmProgram p;
    std::string text = printModule(*p.module);
    EXPECT_TRUE(hasLine(text,
                        "# tile program: gemm_relu.py  (jit matmul: M=1024 [module-call], dtype='float16' "
                        "[default])"))
        << text;
    EXPECT_TRUE(hasLine(text, "prim_func main(A: global float16[1024, 1024], B: global float16[1024, 1024], "
                              "C: global float16[1024, 1024] /*output*/):"))
        << text;
    EXPECT_TRUE(hasLine(text, "kernel grid(8, 8) threads(128) as (bx, by):")) << text;
    EXPECT_TRUE(hasLine(text, "alloc A_shared: shared float16[128, 32]")) << text;
    EXPECT_TRUE(hasLine(text, "alloc C_local: fragment float32[128, 128]")) << text;
    EXPECT_TRUE(hasLine(text, "fill C_local[0:128, 0:128] = 0.0")) << text;
    EXPECT_TRUE(hasLine(text, "for k in pipelined(0, 32, num_stages=3):")) << text;
    EXPECT_TRUE(hasLine(text, "copy A[by * 128 : +128, k * 32 : +32] -> A_shared[0:128, 0:32]")) << text;
    EXPECT_TRUE(hasLine(text, "gemm A_shared[0:128, 0:32], B_shared[0:32, 0:128] -> C_local[0:128, 0:128] "
                              "(transpose_A=False, transpose_B=False, policy=Square, clear_accum=False)"))
        << text;
    EXPECT_TRUE(hasLine(text, "for i, j in parallel(128, 128):")) << text;
    EXPECT_TRUE(hasLine(text, "C_local[i, j] = max(C_local[i, j], 0.0)")) << text;
    // The nest prints as one line: no separate loop line for j.
    EXPECT_EQ(text.find("for j in"), std::string::npos) << text;
}

TEST(Printer, IndentationFollowsNesting) {
    GemmProgram p;
    std::string text = printModule(*p.module);
    EXPECT_NE(text.find("\n  kernel grid"), std::string::npos) << text;
    EXPECT_NE(text.find("\n    for k in pipelined"), std::string::npos) << text;
    EXPECT_NE(text.find("\n      copy A["), std::string::npos) << text;
    EXPECT_NE(text.find("\n      C_local[i, j] ="), std::string::npos) << text;
}

TEST(Printer, LineCommentsWithSources) {
    GemmProgram p;
    std::string plain = printModule(*p.module);
    EXPECT_EQ(plain.find("# line"), std::string::npos);
    std::string text = printModule(*p.module, &p.src.sources);
    EXPECT_NE(text.find("kernel grid(8, 8) threads(128) as (bx, by):"), std::string::npos);
    std::vector<PrintedLine> lines = printModuleLines(*p.module, &p.src.sources);
    bool sawKernel = false, sawGemm = false, sawAlloc = false;
    for (const PrintedLine& line : lines) {
        if (line.stmt == p.kernel.get()) {
            sawKernel = true;
            EXPECT_NE(line.text.find("# line 16"), std::string::npos) << line.text;
        }
        if (line.stmt == p.gemm.get()) {
            sawGemm = true;
            EXPECT_NE(line.text.find("# line 24"), std::string::npos) << line.text;
            EXPECT_EQ(line.indent, 3);
        }
        if (line.buffer == p.bShared) {
            sawAlloc = true;
            EXPECT_NE(line.text.find("# line 18"), std::string::npos) << line.text;
        }
    }
    EXPECT_TRUE(sawKernel && sawGemm && sawAlloc);
}

TEST(Printer, Deterministic) {
    GemmProgram p1, p2;
    EXPECT_EQ(printModule(*p1.module, &p1.src.sources), printModule(*p2.module, &p2.src.sources));
}

TEST(Printer, MlaDynamicDimsReduceAndTranspose) {
    MlaProgram p;
    std::string text = printModule(*p.module);
    EXPECT_TRUE(hasLine(text,
                        "prim_func main_split(Q: global bfloat16[128, 576], KV: global bfloat16[seqlen_kv, "
                        "576], Output: global bfloat16[128, 512] /*output*/, seqlen_kv: int32 /*dynamic*/):"))
        << text;
    EXPECT_TRUE(hasLine(text, "kernel grid(2) threads(256) as bx:")) << text;
    EXPECT_TRUE(hasLine(text, "for k in pipelined(0, seqlen_kv // 64, num_stages=2):")) << text;
    EXPECT_TRUE(hasLine(text, "reduce_max acc_s -> scores_max (dim=1, clear=False)")) << text;
    EXPECT_NE(text.find("-> acc_s[0:64, 0:64] (transpose_A=False, transpose_B=True, policy=Square, "
                        "clear_accum=True)"),
              std::string::npos)
        << text;
}

TEST(Printer, OtherStatements) {
    Module m;
    Buffer* g = m.newBuffer("G", MemoryScope::Global, DType::Float32, {c(16)});
    Buffer* s = m.newBuffer("S", MemoryScope::Shared, DType::Float32, {c(16), c(16)});
    Var* x = m.newVar("x", DType::Int32, VarKind::LoopVar);
    Var* ph0 = m.newVar("i", DType::Int32, VarKind::Placeholder);
    Var* ph1 = m.newVar("j", DType::Int32, VarKind::Placeholder);

    auto ifStmt = makeStmt(StmtKind::IfThenElse);
    ifStmt->cond = makeBinary(BinaryOp::Lt, v(x), c(8));
    auto atomic = makeStmt(StmtKind::AtomicAdd);
    atomic->dst = region(g, {v(x)}, {c(1)});
    atomic->value = makeFloat(1.5);
    ifStmt->body = atomic;
    auto printStmtNode = makeStmt(StmtKind::Print);
    printStmtNode->printBuffer = s;
    printStmtNode->message = "tile \"S\"";
    ifStmt->elseBody = printStmtNode;
    auto loop = makeFor(x, c(2), c(6), LoopKind::Unroll, ifStmt);

    auto annotate = makeStmt(StmtKind::AnnotateLayout);
    LayoutAnnotation swz;
    swz.buffer = s;
    swz.kind = LayoutAnnotationKind::Swizzled;
    LayoutAnnotation custom;
    custom.buffer = s;
    custom.kind = LayoutAnnotationKind::CustomLayout;
    custom.placeholders = {ph0, ph1};
    custom.forward = {v(ph1), v(ph0)};
    annotate->layouts = {swz, custom};
    auto swizzle = makeStmt(StmtKind::UseSwizzle);
    swizzle->panelSize = 4;
    swizzle->rowOrder = false;
    swizzle->value = makeBool(true);

    auto sync = makeStmt(StmtKind::GridSync);

    std::string text = printStmt(makeSeq({annotate, swizzle, loop, sync}));
    EXPECT_TRUE(hasLine(text, "annotate_layout S: swizzled(k_major=True, allow_pad=True)")) << text;
    EXPECT_TRUE(hasLine(text, "annotate_layout S: layout(lambda i, j: [j, i])")) << text;
    EXPECT_TRUE(hasLine(text, "use_swizzle(panel=4, order=col)")) << text;
    EXPECT_TRUE(hasLine(text, "for x in unroll(2, 8):")) << text;
    EXPECT_TRUE(hasLine(text, "if x < 8:")) << text;
    EXPECT_TRUE(hasLine(text, "atomic_add G[x : +1] += 1.5")) << text;
    EXPECT_TRUE(hasLine(text, "else:")) << text;
    EXPECT_TRUE(hasLine(text, "print(S, msg=\"tile \\\"S\\\"\")")) << text;
    EXPECT_TRUE(hasLine(text, "sync_grid")) << text;
}

TEST(Printer, NullAndDeepTreesDoNotCrash) {
    EXPECT_EQ(printStmt(nullptr), "pass\n");
    StmtPtr s = makeSeq({});
    for (int i = 0; i < 2000; ++i)
        s = makeSeq({s});
    std::string text = printStmt(s);
    EXPECT_NE(text.find("nested too deep"), std::string::npos);
    auto broken = makeStmt(StmtKind::Copy); // no buffers at all
    EXPECT_NE(printStmt(broken).find("copy <null>[] -> <null>[]"), std::string::npos);
}

} // namespace
} // namespace tb::ir
