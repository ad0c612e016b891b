// Hand-built Tile IR for the ir and check tests: a source file whose lines the nodes point at, region
// helpers, and builders for a pipelined GEMM (+ReLU epilogue) kernel and an MLA-decode-like kernel. The
// builders keep mutable handles on the nodes so that a test can break one thing and check what fires.
#pragma once

#include "engine/ir/Module.h"
#include "engine/support/SourceManager.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tb::testir {

using namespace tb::ir;

// A fake tile program of 80 numbered lines; node ranges are whole lines of it.
struct TestSource {
    SourceManager sources;
    FileId file = 0;

    TestSource() {
        std::string text;
        for (int i = 1; i <= 80; ++i)
            text += "    statement_on_line_" + std::to_string(i) + "()\n";
        file = sources.addFile("test_kernel.py", text);
    }
    // Line n, from its first non-blank byte to its end.
    SourceRange line(int n) const {
        uint32_t begin = 0;
        const std::string& text = sources.file(file).text();
        for (int i = 1; i < n; ++i)
            begin = static_cast<uint32_t>(text.find('\n', begin) + 1);
        uint32_t end = static_cast<uint32_t>(text.find('\n', begin));
        return SourceRange::make(file, begin + 4, end);
    }
};

inline ExprPtr c(int64_t v) {
    return makeInt(v);
}
inline ExprPtr v(const Var* var) {
    return makeVarRef(var);
}
inline ExprPtr add(ExprPtr a, ExprPtr b) {
    return makeBinary(BinaryOp::Add, std::move(a), std::move(b));
}
inline ExprPtr mul(ExprPtr a, ExprPtr b) {
    return makeBinary(BinaryOp::Mul, std::move(a), std::move(b));
}

inline Region region(const Buffer* b, std::vector<ExprPtr> mins, std::vector<ExprPtr> extents,
                     SourceRange r = {}) {
    Region out;
    out.buffer = b;
    out.mins = std::move(mins);
    out.extents = std::move(extents);
    out.range = r;
    return out;
}

inline Region whole(const Buffer* b, SourceRange r = {}) {
    Region out;
    out.buffer = b;
    out.range = r;
    for (const ExprPtr& dim : b->shape) {
        out.mins.push_back(c(0));
        out.extents.push_back(dim);
    }
    return out;
}

inline std::shared_ptr<Stmt> makeFor(const Var* var, ExprPtr min, ExprPtr extent, LoopKind kind, StmtPtr body,
                                     SourceRange r = {}) {
    auto s = makeStmt(StmtKind::For, r);
    s->loopVar = var;
    s->min = std::move(min);
    s->extent = std::move(extent);
    s->loopKind = kind;
    s->body = std::move(body);
    return s;
}

inline std::shared_ptr<Stmt> makeCopy(Region src, Region dst, SourceRange r = {}) {
    auto s = makeStmt(StmtKind::Copy, r);
    s->src = std::move(src);
    s->dst = std::move(dst);
    return s;
}

inline std::shared_ptr<Stmt> makeGemm(Region a, Region b, Region cc, bool transposeB = false,
                                      SourceRange r = {}) {
    auto s = makeStmt(StmtKind::Gemm, r);
    s->a = std::move(a);
    s->b = std::move(b);
    s->c = std::move(cc);
    s->transposeB = transposeB;
    s->clearAccum = makeBool(false);
    return s;
}

inline Buffer* param(Module& m, PrimFunc& f, std::string name, DType t, std::vector<ExprPtr> shape,
                     SourceRange r) {
    Buffer* b = m.newBuffer(std::move(name), MemoryScope::Global, t, std::move(shape), r);
    b->paramIndex = static_cast<int>(f.params.size());
    f.params.push_back(b);
    return b;
}

// gemm_relu.py: C = relu(A @ B), A [M, K], B [K, N] float16, blocks bM x bN x bK, T.Pipelined(num_stages).
struct GemmProgram {
    TestSource src;
    std::unique_ptr<Module> module = std::make_unique<Module>();
    Buffer *A = nullptr, *B = nullptr, *C = nullptr;
    Buffer *aShared = nullptr, *bShared = nullptr, *cLocal = nullptr;
    Var *bx = nullptr, *by = nullptr, *k = nullptr, *i = nullptr, *j = nullptr;
    std::shared_ptr<Stmt> kernel, fill, loop, copyA, copyB, gemm, parallelI, parallelJ, store, copyC;

    explicit GemmProgram(int64_t M = 1024, int64_t N = 1024, int64_t K = 1024, int64_t bM = 128,
                         int64_t bN = 128, int64_t bK = 32, int stages = 3, int64_t threads = 128) {
        Module& m = *module;
        m.sourceName = "gemm_relu.py";
        m.jitFunction = "matmul";
        SpecializationParam pm;
        pm.name = "M";
        pm.value = M;
        pm.text = std::to_string(M);
        pm.origin = ParamOrigin::ModuleCall;
        pm.range = src.line(1);
        m.specialization.push_back(pm);
        SpecializationParam pd;
        pd.name = "dtype";
        pd.value = std::string("float16");
        pd.text = "'float16'";
        pd.origin = ParamOrigin::Default;
        m.specialization.push_back(pd);

        PrimFunc f;
        f.name = "main";
        f.range = src.line(10);
        A = param(m, f, "A", DType::Float16, {c(M), c(K)}, src.line(11));
        B = param(m, f, "B", DType::Float16, {c(K), c(N)}, src.line(12));
        C = param(m, f, "C", DType::Float16, {c(M), c(N)}, src.line(13));
        C->isOutput = true;

        bx = m.newVar("bx", DType::Int32, VarKind::BlockIndex, src.line(16));
        by = m.newVar("by", DType::Int32, VarKind::BlockIndex, src.line(16));
        k = m.newVar("k", DType::Int32, VarKind::LoopVar, src.line(21));
        i = m.newVar("i", DType::Int32, VarKind::LoopVar, src.line(25));
        j = m.newVar("j", DType::Int32, VarKind::LoopVar, src.line(25));
        aShared = m.newBuffer("A_shared", MemoryScope::Shared, DType::Float16, {c(bM), c(bK)}, src.line(17));
        bShared = m.newBuffer("B_shared", MemoryScope::Shared, DType::Float16, {c(bK), c(bN)}, src.line(18));
        cLocal = m.newBuffer("C_local", MemoryScope::Fragment, DType::Float32, {c(bM), c(bN)}, src.line(19));

        fill = makeStmt(StmtKind::Fill, src.line(20));
        fill->dst = whole(cLocal);
        fill->value = makeFloat(0.0);
        copyA = makeCopy(region(A, {mul(v(by), c(bM)), mul(v(k), c(bK))}, {c(bM), c(bK)}), whole(aShared),
                         src.line(22));
        copyB = makeCopy(region(B, {mul(v(k), c(bK)), mul(v(bx), c(bN))}, {c(bK), c(bN)}), whole(bShared),
                         src.line(23));
        gemm = makeGemm(whole(aShared), whole(bShared), whole(cLocal), false, src.line(24));
        loop = makeFor(k, c(0), c(K / bK), LoopKind::Pipelined, makeSeq({copyA, copyB, gemm}), src.line(21));
        loop->pipeline.numStages = stages;
        store = makeStmt(StmtKind::Store, src.line(26));
        store->buffer = cLocal;
        store->indices = {v(i), v(j)};
        store->value = makeBinary(BinaryOp::Max, makeLoad(cLocal, {v(i), v(j)}), makeFloat(0.0));
        parallelJ = makeFor(j, c(0), c(bN), LoopKind::Parallel, store, src.line(25));
        parallelI = makeFor(i, c(0), c(bM), LoopKind::Parallel, parallelJ, src.line(25));
        copyC = makeCopy(whole(cLocal), region(C, {mul(v(by), c(bM)), mul(v(bx), c(bN))}, {c(bM), c(bN)}),
                         src.line(27));

        kernel = makeStmt(StmtKind::Kernel, src.line(16));
        kernel->grid = {c(N / bN), c(M / bM)};
        kernel->blockVars = {bx, by};
        kernel->threads = {threads};
        kernel->allocations = {aShared, bShared, cLocal};
        kernel->body = makeSeq({fill, loop, parallelI, copyC});
        f.body = makeSeq({kernel});
        m.funcs.push_back(std::move(f));
    }
};

// An MLA-decode-like kernel (bfloat16, heads block 64, dim 512 + rope 64, block_N 64): Q and Q_pe stay in
// shared memory; KV and K_pe tiles are copied in T.Pipelined(num_stages) over a dynamic seqlen_kv.
// Shared bytes: Q 65536 + Q_pe 8192 + S 8192 + stages * (KV 65536 + K_pe 8192).
struct MlaProgram {
    TestSource src;
    std::unique_ptr<Module> module = std::make_unique<Module>();
    Var *seqlen = nullptr, *bx = nullptr, *k = nullptr;
    Buffer *Q = nullptr, *KV = nullptr, *Output = nullptr;
    Buffer *qShared = nullptr, *qPeShared = nullptr, *kvShared = nullptr, *kPeShared = nullptr,
           *sShared = nullptr;
    Buffer *accS = nullptr, *accO = nullptr, *scoresMax = nullptr;
    std::shared_ptr<Stmt> kernel, loop, copyKv, copyKpe, gemmQk, gemmPe, reduceMax, copyS, gemmPv;

    explicit MlaProgram(int stages = 2) {
        Module& m = *module;
        m.sourceName = "mla_decode.py";
        m.jitFunction = "flashmla";
        PrimFunc f;
        f.name = "main_split";
        f.range = src.line(30);
        seqlen = m.newVar("seqlen_kv", DType::Int32, VarKind::DynamicDim, src.line(31));
        f.dynamicDims.push_back(seqlen);
        Q = param(m, f, "Q", DType::BFloat16, {c(128), c(576)}, src.line(32));
        KV = param(m, f, "KV", DType::BFloat16, {v(seqlen), c(576)}, src.line(33));
        Output = param(m, f, "Output", DType::BFloat16, {c(128), c(512)}, src.line(34));
        Output->isOutput = true;
        bx = m.newVar("bx", DType::Int32, VarKind::BlockIndex, src.line(36));
        k = m.newVar("k", DType::Int32, VarKind::LoopVar, src.line(46));
        auto shared = [&](const char* name, int64_t r, int64_t cols, int line) {
            return m.newBuffer(name, MemoryScope::Shared, DType::BFloat16, {c(r), c(cols)}, src.line(line));
        };
        qShared = shared("Q_shared", 64, 512, 37);
        qPeShared = shared("Q_pe_shared", 64, 64, 38);
        kvShared = shared("KV_shared", 64, 512, 39);
        kPeShared = shared("K_pe_shared", 64, 64, 40);
        sShared = shared("S_shared", 64, 64, 41);
        accS = m.newBuffer("acc_s", MemoryScope::Fragment, DType::Float32, {c(64), c(64)}, src.line(42));
        accO = m.newBuffer("acc_o", MemoryScope::Fragment, DType::Float32, {c(64), c(512)}, src.line(43));
        scoresMax = m.newBuffer("scores_max", MemoryScope::Fragment, DType::Float32, {c(64)}, src.line(44));

        auto copyQ =
            makeCopy(region(Q, {mul(v(bx), c(64)), c(0)}, {c(64), c(512)}), whole(qShared), src.line(45));
        auto copyQpe =
            makeCopy(region(Q, {mul(v(bx), c(64)), c(512)}, {c(64), c(64)}), whole(qPeShared), src.line(45));
        copyKv =
            makeCopy(region(KV, {mul(v(k), c(64)), c(0)}, {c(64), c(512)}), whole(kvShared), src.line(47));
        copyKpe =
            makeCopy(region(KV, {mul(v(k), c(64)), c(512)}, {c(64), c(64)}), whole(kPeShared), src.line(48));
        gemmQk = makeGemm(whole(qShared), whole(kvShared), whole(accS), true, src.line(49));
        gemmQk->clearAccum = makeBool(true);
        gemmPe = makeGemm(whole(qPeShared), whole(kPeShared), whole(accS), true, src.line(50));
        reduceMax = makeStmt(StmtKind::Reduce, src.line(51));
        reduceMax->reduceKind = ReduceKind::Max;
        reduceMax->srcBuffer = accS;
        reduceMax->dstBuffer = scoresMax;
        reduceMax->dim = 1;
        reduceMax->clear = false;
        copyS = makeCopy(whole(accS), whole(sShared), src.line(52));
        gemmPv = makeGemm(whole(sShared), whole(kvShared), whole(accO), false, src.line(53));
        loop = makeFor(k, c(0), makeBinary(BinaryOp::FloorDiv, v(seqlen), c(64)), LoopKind::Pipelined,
                       makeSeq({copyKv, copyKpe, gemmQk, gemmPe, reduceMax, copyS, gemmPv}), src.line(46));
        loop->pipeline.numStages = stages;
        auto copyOut =
            makeCopy(whole(accO), region(Output, {mul(v(bx), c(64)), c(0)}, {c(64), c(512)}), src.line(54));

        kernel = makeStmt(StmtKind::Kernel, src.line(36));
        kernel->grid = {c(2)};
        kernel->blockVars = {bx};
        kernel->threads = {256};
        kernel->allocations = {qShared, qPeShared, kvShared, kPeShared, sShared, accS, accO, scoresMax};
        kernel->body = makeSeq({copyQ, copyQpe, loop, copyOut});
        f.body = makeSeq({kernel});
        m.funcs.push_back(std::move(f));
    }
};

} // namespace tb::testir
