// The CPU reference executor on hand-built Tile IR: a tiled GEMM checked against a naive triple loop,
// reductions, partial tiles at the edge of global memory, uninitialized fragments, integer semantics,
// and the runtime errors (out of bounds, division by zero, runaway loops, missing dynamic dims).
#include "engine/exec/Executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

namespace tb {
namespace {

using ir::BinaryOp;
using ir::Buffer;
using ir::DType;
using ir::ExprPtr;
using ir::LoopKind;
using ir::MemoryScope;
using ir::Region;
using ir::StmtKind;
using ir::StmtPtr;
using ir::Var;

// Small helpers that build IR the way the elaborator does.
struct Builder {
    ir::Module module;

    static ExprPtr c(int64_t v) { return ir::makeInt(v); }
    static ExprPtr ref(const Var* v) { return ir::makeVarRef(v); }
    static ExprPtr bin(BinaryOp op, ExprPtr a, ExprPtr b) {
        return ir::makeBinary(op, std::move(a), std::move(b));
    }

    Var* loopVar(const std::string& name) { return module.newVar(name, DType::Int32, ir::VarKind::LoopVar); }
    Var* blockVar(const std::string& name) {
        return module.newVar(name, DType::Int32, ir::VarKind::BlockIndex);
    }

    Buffer* buffer(const std::string& name, MemoryScope scope, DType type, std::vector<int64_t> shape) {
        std::vector<ExprPtr> dims;
        for (int64_t d : shape)
            dims.push_back(c(d));
        return module.newBuffer(name, scope, type, dims);
    }

    static Region region(const Buffer* b, std::vector<ExprPtr> mins, std::vector<ExprPtr> extents) {
        Region r;
        r.buffer = b;
        r.mins = std::move(mins);
        r.extents = std::move(extents);
        return r;
    }
    static Region whole(const Buffer* b) {
        std::vector<ExprPtr> mins;
        for (size_t i = 0; i < b->shape.size(); ++i)
            mins.push_back(c(0));
        return region(b, mins, b->shape);
    }

    static StmtPtr loop(const Var* v, int64_t extent, LoopKind kind, StmtPtr body) {
        auto s = ir::makeStmt(StmtKind::For);
        s->loopVar = v;
        s->min = c(0);
        s->extent = c(extent);
        s->loopKind = kind;
        s->body = std::move(body);
        return s;
    }
    static StmtPtr store(const Buffer* b, std::vector<ExprPtr> indices, ExprPtr value,
                         SourceRange range = {}) {
        auto s = ir::makeStmt(StmtKind::Store, range);
        s->buffer = b;
        s->indices = std::move(indices);
        s->value = std::move(value);
        return s;
    }
    static StmtPtr copy(Region src, Region dst) {
        auto s = ir::makeStmt(StmtKind::Copy);
        s->src = std::move(src);
        s->dst = std::move(dst);
        return s;
    }
    static StmtPtr fill(const Buffer* b, ExprPtr value) {
        auto s = ir::makeStmt(StmtKind::Fill);
        s->dst = whole(b);
        s->value = std::move(value);
        return s;
    }
    static StmtPtr reduce(ir::ReduceKind kind, const Buffer* src, const Buffer* dst, int dim, bool clear) {
        auto s = ir::makeStmt(StmtKind::Reduce);
        s->reduceKind = kind;
        s->srcBuffer = src;
        s->dstBuffer = dst;
        s->dim = dim;
        s->clear = clear;
        return s;
    }
    static StmtPtr kernel(std::vector<ExprPtr> grid, std::vector<const Var*> blockVars,
                          std::vector<const Buffer*> allocations, StmtPtr body) {
        auto s = ir::makeStmt(StmtKind::Kernel);
        s->grid = std::move(grid);
        s->blockVars = std::move(blockVars);
        s->threads = {128};
        s->allocations = std::move(allocations);
        s->body = std::move(body);
        return s;
    }

    ir::PrimFunc& func(std::vector<Buffer*> params, StmtPtr body) {
        ir::PrimFunc f;
        f.name = "main";
        for (size_t i = 0; i < params.size(); ++i) {
            params[i]->paramIndex = static_cast<int>(i);
            f.params.push_back(params[i]);
        }
        f.body = ir::makeSeq({std::move(body)});
        module.funcs.push_back(std::move(f));
        return module.funcs.back();
    }
};

bool hasCode(const DiagnosticEngine& diags, const std::string& code) {
    for (const Diagnostic& d : diags.diagnostics())
        if (d.code == code)
            return true;
    return false;
}

// C = relu(A @ B) in fp16 out of an fp32 accumulator, tiled BM x BN x BK with shared staging.
struct TiledGemm {
    Builder b;
    Buffer* A;
    Buffer* B;
    Buffer* C;
    ir::PrimFunc* f;

    TiledGemm(int64_t M, int64_t N, int64_t K, int64_t BM, int64_t BN, int64_t BK) {
        A = b.buffer("A", MemoryScope::Global, DType::Float16, {M, K});
        B = b.buffer("B", MemoryScope::Global, DType::Float16, {K, N});
        C = b.buffer("C", MemoryScope::Global, DType::Float16, {M, N});
        C->isOutput = true;
        Buffer* As = b.buffer("A_shared", MemoryScope::Shared, DType::Float16, {BM, BK});
        Buffer* Bs = b.buffer("B_shared", MemoryScope::Shared, DType::Float16, {BK, BN});
        Buffer* Cl = b.buffer("C_local", MemoryScope::Fragment, DType::Float32, {BM, BN});
        Var* bx = b.blockVar("bx");
        Var* by = b.blockVar("by");
        Var* k = b.loopVar("k");
        Var* i = b.loopVar("i");
        Var* j = b.loopVar("j");
        auto mul = [](ExprPtr x, int64_t y) {
            return Builder::bin(BinaryOp::Mul, std::move(x), Builder::c(y));
        };

        auto gemm = ir::makeStmt(StmtKind::Gemm);
        gemm->a = Builder::whole(As);
        gemm->b = Builder::whole(Bs);
        gemm->c = Builder::whole(Cl);
        gemm->clearAccum = ir::makeBool(false);

        auto pipelined = Builder::loop(
            k, (K + BK - 1) / BK, LoopKind::Pipelined,
            ir::makeSeq({Builder::copy(
                             Builder::region(A, {mul(b.ref(by), BM), mul(b.ref(k), BK)}, {b.c(BM), b.c(BK)}),
                             Builder::whole(As)),
                         Builder::copy(
                             Builder::region(B, {mul(b.ref(k), BK), mul(b.ref(bx), BN)}, {b.c(BK), b.c(BN)}),
                             Builder::whole(Bs)),
                         gemm}));
        ExprPtr cij = ir::makeLoad(Cl, {b.ref(i), b.ref(j)});
        auto relu =
            Builder::loop(i, BM, LoopKind::Parallel,
                          Builder::loop(j, BN, LoopKind::Parallel,
                                        Builder::store(Cl, {b.ref(i), b.ref(j)},
                                                       Builder::bin(BinaryOp::Max, cij,
                                                                    ir::makeFloat(0.0, DType::Float32)))));
        auto body = ir::makeSeq(
            {Builder::fill(Cl, ir::makeFloat(0.0, DType::Float32)), pipelined, relu,
             Builder::copy(Builder::whole(Cl), Builder::region(C, {mul(b.ref(by), BM), mul(b.ref(bx), BN)},
                                                               {b.c(BM), b.c(BN)}))});
        f = &b.func({A, B, C}, Builder::kernel({b.c((N + BN - 1) / BN), b.c((M + BM - 1) / BM)}, {bx, by},
                                               {As, Bs, Cl}, body));
    }
};

// The definition, written independently: float products and running sum in k order, relu, fp16.
HostTensor naiveGemmRelu(const HostTensor& A, const HostTensor& B) {
    int64_t M = A.shape[0], K = A.shape[1], N = B.shape[1];
    HostTensor C("C", DType::Float16, {M, N});
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            float acc = 0;
            for (int64_t k = 0; k < K; ++k) {
                float product = static_cast<float>(A.data[i * K + k]) * static_cast<float>(B.data[k * N + j]);
                acc = acc + product;
            }
            C.data[i * N + j] = roundToDType(std::max(acc, 0.0f), DType::Float16);
        }
    return C;
}

TEST(Executor, TiledGemmMatchesNaiveLoop) {
    TiledGemm g(128, 96, 64, 64, 32, 16);
    DiagnosticEngine diags;
    std::vector<HostTensor> params = allocateParams(*g.f, {}, 1, diags);
    ASSERT_EQ(params.size(), 3u);
    EXPECT_EQ(params[2].shape, (std::vector<int64_t>{128, 96}));
    for (double v : params[2].data)
        ASSERT_EQ(v, 0.0); // outputs start zeroed
    HostTensor expected = naiveGemmRelu(params[0], params[1]);
    ASSERT_TRUE(executePrimFunc(g.b.module, *g.f, params, {}, diags)) << diags.diagnostics()[0].message;
    ComparisonResult cmp = compareTensors(params[2], expected, 0, 0);
    EXPECT_TRUE(cmp.ok()) << cmp.mismatches << " mismatches, first at " << cmp.firstMismatch[0] << ","
                          << cmp.firstMismatch[1];
    int positives = 0;
    for (double v : params[2].data)
        positives += v > 0;
    EXPECT_GT(positives, 1000); // relu kept the positive half
}

// The executor steps through every multiply-add of a 256^3 GEMM and gets the naive result. (Its speed is
// bench_cpu's subject, against the JIT.)
TEST(Executor, Gemm256CountsEveryStep) {
    TiledGemm g(256, 256, 256, 128, 128, 32);
    DiagnosticEngine diags;
    std::vector<HostTensor> params = allocateParams(*g.f, {}, 2, diags);
    ExecutionLog log;
    ASSERT_TRUE(executePrimFunc(g.b.module, *g.f, params, {}, diags, {}, &log));
    EXPECT_GE(log.steps, 256 * 256 * 256);
    EXPECT_TRUE(compareTensors(params[2], naiveGemmRelu(params[0], params[1]), 0, 0).ok());
}

TEST(Executor, GemmTransposedAndInt8) {
    Builder b;
    Buffer* A = b.buffer("A", MemoryScope::Global, DType::Int8, {5, 3}); // transposed: K x M
    Buffer* B = b.buffer("B", MemoryScope::Global, DType::Int8, {4, 5}); // transposed: N x K
    Buffer* C = b.buffer("C", MemoryScope::Global, DType::Int32, {3, 4});
    C->isOutput = true;
    Buffer* Cf = b.buffer("C_frag", MemoryScope::Fragment, DType::Int32, {3, 4});
    auto gemm = ir::makeStmt(StmtKind::Gemm);
    gemm->a = Builder::whole(A);
    gemm->b = Builder::whole(B);
    gemm->c = Builder::whole(Cf);
    gemm->transposeA = true;
    gemm->transposeB = true;
    gemm->clearAccum = ir::makeBool(true); // the poisoned fragment must not leak into the result
    Var* bx = b.blockVar("bx");
    ir::PrimFunc& f =
        b.func({A, B, C},
               Builder::kernel({b.c(1)}, {bx}, {Cf},
                               ir::makeSeq({gemm, Builder::copy(Builder::whole(Cf), Builder::whole(C))})));
    DiagnosticEngine diags;
    auto params = allocateParams(f, {}, 9, diags);
    ASSERT_TRUE(executePrimFunc(b.module, f, params, {}, diags));
    for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j) {
            int64_t expected = 0;
            for (int64_t k = 0; k < 5; ++k)
                expected +=
                    static_cast<int64_t>(params[0].at({k, i})) * static_cast<int64_t>(params[1].at({j, k}));
            EXPECT_EQ(params[2].at({i, j}), static_cast<double>(expected)) << i << "," << j;
        }
}

TEST(Executor, ReduceWithoutClearCombinesWithDestination) {
    Builder b;
    Buffer* A = b.buffer("A", MemoryScope::Global, DType::Float32, {4, 8});
    Buffer* Max = b.buffer("RowMax", MemoryScope::Global, DType::Float32, {4});
    Buffer* Sum = b.buffer("RowSum", MemoryScope::Global, DType::Float32, {4});
    Buffer* ColSum = b.buffer("ColSum", MemoryScope::Global, DType::Float32, {1, 8});
    for (Buffer* out : {Max, Sum, ColSum})
        out->isOutput = true;
    Buffer* frag = b.buffer("acc", MemoryScope::Fragment, DType::Float32, {4, 8});
    Buffer* m = b.buffer("m", MemoryScope::Fragment, DType::Float32, {4});
    Buffer* s = b.buffer("s", MemoryScope::Fragment, DType::Float32, {4});
    Buffer* cs = b.buffer("cs", MemoryScope::Fragment, DType::Float32, {1, 8});
    Var* bx = b.blockVar("bx");
    auto body = ir::makeSeq({
        Builder::copy(Builder::whole(A), Builder::whole(frag)),
        Builder::fill(m, ir::makeFloat(0.25, DType::Float32)),
        Builder::fill(s, ir::makeFloat(10.0, DType::Float32)),
        Builder::reduce(ir::ReduceKind::Max, frag, m, 1, false),
        Builder::reduce(ir::ReduceKind::Sum, frag, s, 1, false),
        Builder::reduce(ir::ReduceKind::Sum, frag, cs, 0, true), // keeps the reduced dim as 1
        Builder::copy(Builder::whole(m), Builder::whole(Max)),
        Builder::copy(Builder::whole(s), Builder::whole(Sum)),
        Builder::copy(Builder::whole(cs), Builder::whole(ColSum)),
    });
    ir::PrimFunc& f = b.func({A, Max, Sum, ColSum}, Builder::kernel({b.c(1)}, {bx}, {frag, m, s, cs}, body));
    DiagnosticEngine diags;
    auto params = allocateParams(f, {}, 3, diags);
    ASSERT_TRUE(executePrimFunc(b.module, f, params, {}, diags));
    const HostTensor& a = params[0];
    for (int64_t i = 0; i < 4; ++i) {
        double rowMax = -INFINITY, rowSum = 0;
        for (int64_t j = 0; j < 8; ++j) {
            rowMax = std::max(rowMax, a.at({i, j}));
            rowSum += a.at({i, j});
        }
        EXPECT_EQ(params[1].at({i}), std::max(rowMax, 0.25));
        EXPECT_EQ(params[2].at({i}), roundToDType(10.0 + rowSum, DType::Float32));
    }
    for (int64_t j = 0; j < 8; ++j) {
        double colSum = 0;
        for (int64_t i = 0; i < 4; ++i)
            colSum += a.at({i, j});
        EXPECT_EQ(params[3].at({0, j}), roundToDType(colSum, DType::Float32));
    }
}

TEST(Executor, PartialTileIsGuardedAtGlobalEdges) {
    // M = 100 rows in tiles of 64: the second tile reads 28 rows past the end (zeros) and must not write
    // them.
    Builder b;
    Buffer* A = b.buffer("A", MemoryScope::Global, DType::Float32, {100, 8});
    Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Float16, {100, 8});
    Buffer* Padded = b.buffer("Padded", MemoryScope::Global, DType::Float32, {128, 8});
    Out->isOutput = Padded->isOutput = true;
    Buffer* S = b.buffer("S", MemoryScope::Shared, DType::Float32, {64, 8});
    Var* by = b.blockVar("by");
    Var* i = b.loopVar("i");
    Var* j = b.loopVar("j");
    ExprPtr row0 = Builder::bin(BinaryOp::Mul, b.ref(by), b.c(64));
    auto body = ir::makeSeq({
        Builder::copy(Builder::region(A, {row0, b.c(0)}, {b.c(64), b.c(8)}), Builder::whole(S)),
        Builder::copy(Builder::whole(S), Builder::region(Padded, {row0, b.c(0)}, {b.c(64), b.c(8)})),
        Builder::loop(
            i, 64, LoopKind::Parallel,
            Builder::loop(j, 8, LoopKind::Parallel,
                          Builder::store(S, {b.ref(i), b.ref(j)},
                                         Builder::bin(BinaryOp::Add, ir::makeLoad(S, {b.ref(i), b.ref(j)}),
                                                      ir::makeFloat(1.0, DType::Float32))))),
        Builder::copy(Builder::whole(S), Builder::region(Out, {row0, b.c(0)}, {b.c(64), b.c(8)})),
    });
    ir::PrimFunc& f = b.func({A, Out, Padded}, Builder::kernel({b.c(2)}, {by}, {S}, body));
    DiagnosticEngine diags;
    auto params = allocateParams(f, {}, 5, diags);
    ASSERT_TRUE(executePrimFunc(b.module, f, params, {}, diags));
    for (int64_t r = 0; r < 128; ++r)
        for (int64_t c = 0; c < 8; ++c) {
            if (r < 100) {
                EXPECT_EQ(params[1].at({r, c}), roundToDType(params[0].at({r, c}) + 1.0, DType::Float16));
                EXPECT_EQ(params[2].at({r, c}), params[0].at({r, c}));
            } else {
                EXPECT_EQ(params[2].at({r, c}), 0.0) << "row " << r;
            }
        }
}

TEST(Executor, FragmentReadBeforeWriteIsNaN) {
    Builder b;
    Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Float32, {4});
    Out->isOutput = true;
    Buffer* F = b.buffer("F", MemoryScope::Fragment, DType::Float32, {4});
    Buffer* V = b.buffer("v", MemoryScope::LocalVar, DType::Float32, {1});
    V->initValue = ir::makeFloat(2.5, DType::Float32);
    Var* bx = b.blockVar("bx");
    Var* i = b.loopVar("i");
    auto body = ir::makeSeq({
        Builder::loop(i, 4, LoopKind::Parallel, Builder::store(Out, {b.ref(i)}, ir::makeLoad(F, {b.ref(i)}))),
        Builder::store(F, {b.c(2)}, ir::makeLoad(V, {b.c(0)})),
        Builder::store(Out, {b.c(2)}, ir::makeLoad(F, {b.c(2)})),
    });
    ir::PrimFunc& f = b.func({Out}, Builder::kernel({b.c(1)}, {bx}, {F, V}, body));
    DiagnosticEngine diags;
    auto params = allocateParams(f, {}, 0, diags);
    ASSERT_TRUE(executePrimFunc(b.module, f, params, {}, diags));
    EXPECT_TRUE(std::isnan(params[0].data[0]));
    EXPECT_TRUE(std::isnan(params[0].data[1]));
    EXPECT_EQ(params[0].data[2], 2.5); // alloc_var init
    EXPECT_TRUE(std::isnan(params[0].data[3]));
}

TEST(Executor, IntegerAndFloatScalarSemantics) {
    Builder b;
    Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Int32, {8});
    Buffer* FOut = b.buffer("FOut", MemoryScope::Global, DType::Float16, {3});
    Out->isOutput = FOut->isOutput = true;
    Var* bx = b.blockVar("bx");
    ExprPtr minus7 = ir::makeUnary(ir::UnaryOp::Neg, b.c(7));
    ExprPtr half =
        ir::makeFloat(1.0 + std::ldexp(1.0, -11), DType::Float16); // rounds to 1.0 as an fp16 literal
    auto body = ir::makeSeq({
        Builder::store(Out, {b.c(0)}, Builder::bin(BinaryOp::FloorDiv, minus7, b.c(2))),
        Builder::store(Out, {b.c(1)}, Builder::bin(BinaryOp::Div, minus7, b.c(2))),
        Builder::store(Out, {b.c(2)}, Builder::bin(BinaryOp::FloorMod, minus7, b.c(2))),
        Builder::store(Out, {b.c(3)}, ir::makeCast(DType::Int32, ir::makeCast(DType::Int8, b.c(130)))),
        Builder::store(Out, {b.c(4)}, Builder::bin(BinaryOp::Add, b.c(2147483647), b.c(1))),
        Builder::store(Out, {b.c(5)}, ir::makeCast(DType::Int32, ir::makeFloat(-3.9, DType::Float32))),
        Builder::store(Out, {b.c(6)},
                       ir::makeSelect(Builder::bin(BinaryOp::Lt, minus7, b.c(0)), b.c(11), b.c(22))),
        Builder::store(Out, {b.c(7)}, Builder::bin(BinaryOp::Shr, minus7, b.c(1))),
        // fp16 arithmetic rounds after every operation: (2048 + 1) + 1 = 2048 in fp16, not 2050.
        Builder::store(FOut, {b.c(0)},
                       Builder::bin(BinaryOp::Add,
                                    Builder::bin(BinaryOp::Add, ir::makeFloat(2048, DType::Float16),
                                                 ir::makeFloat(1, DType::Float16)),
                                    ir::makeFloat(1, DType::Float16))),
        Builder::store(FOut, {b.c(1)}, half),
        Builder::store(FOut, {b.c(2)},
                       ir::makeCall(ir::Intrinsic::Exp2, DType::Float16, {ir::makeFloat(3, DType::Float16)})),
    });
    ir::PrimFunc& f = b.func({Out, FOut}, Builder::kernel({b.c(1)}, {bx}, {}, body));
    DiagnosticEngine diags;
    auto params = allocateParams(f, {}, 0, diags);
    ASSERT_TRUE(executePrimFunc(b.module, f, params, {}, diags));
    EXPECT_EQ(params[0].data, (std::vector<double>{-4, -3, 1, -126, -2147483648.0, -3, 11, -4}));
    EXPECT_EQ(params[1].data, (std::vector<double>{2048, 1, 8}));
}

TEST(Executor, SharedOutOfBoundsIsReportedWithIndexAndRange) {
    Builder b;
    Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Float32, {8});
    Out->isOutput = true;
    Buffer* S = b.buffer("S_shared", MemoryScope::Shared, DType::Float32, {8});
    Var* bx = b.blockVar("bx");
    Var* i = b.loopVar("i");
    SourceRange storeRange = SourceRange::make(0, 40, 52);
    auto body = Builder::loop(i, 9, LoopKind::Serial,
                              Builder::store(S, {b.ref(i)}, ir::makeFloat(1, DType::Float32), storeRange));
    ir::PrimFunc& f = b.func({Out}, Builder::kernel({b.c(2)}, {bx}, {S}, body));
    DiagnosticEngine diags;
    auto params = allocateParams(f, {}, 0, diags);
    EXPECT_FALSE(executePrimFunc(b.module, f, params, {}, diags));
    ASSERT_EQ(diags.errorCount(), 1u);
    const Diagnostic& d = diags.diagnostics()[0];
    EXPECT_EQ(d.code, "runtime-out-of-bounds");
    EXPECT_NE(d.message.find("S_shared[8]"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("[8]"), std::string::npos);
    EXPECT_EQ(d.range.begin, 40u);
    EXPECT_EQ(d.range.end, 52u);
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_EQ(d.notes[0].message, "in block (0, 0, 0)");
}

TEST(Executor, DivisionByZeroAndExecutionLimit) {
    {
        Builder b;
        Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Int32, {4});
        Out->isOutput = true;
        Var* bx = b.blockVar("bx");
        Var* i = b.loopVar("i");
        // 12 // (2 - i) divides by zero at i = 2.
        auto body =
            Builder::loop(i, 4, LoopKind::Serial,
                          Builder::store(Out, {b.ref(i)},
                                         Builder::bin(BinaryOp::FloorDiv, b.c(12),
                                                      Builder::bin(BinaryOp::Sub, b.c(2), b.ref(i)))));
        ir::PrimFunc& f = b.func({Out}, Builder::kernel({b.c(1)}, {bx}, {}, body));
        DiagnosticEngine diags;
        auto params = allocateParams(f, {}, 0, diags);
        EXPECT_FALSE(executePrimFunc(b.module, f, params, {}, diags));
        EXPECT_TRUE(hasCode(diags, "runtime-division-by-zero"));
        EXPECT_EQ(params[0].data[0], 6);
        EXPECT_EQ(params[0].data[1], 12); // iterations before the fault ran
    }
    {
        Builder b;
        Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Float32, {1});
        Out->isOutput = true;
        Var* bx = b.blockVar("bx");
        Var* i = b.loopVar("i");
        auto body = ir::makeStmt(StmtKind::For);
        body->loopVar = i;
        body->min = b.c(0);
        body->extent = ir::makeInt(int64_t(1) << 40, DType::Int64);
        body->body = Builder::store(Out, {b.c(0)}, ir::makeFloat(1, DType::Float32));
        ir::PrimFunc& f = b.func({Out}, Builder::kernel({b.c(1)}, {bx}, {}, body));
        DiagnosticEngine diags;
        auto params = allocateParams(f, {}, 0, diags);
        ExecutionLimits limits;
        limits.maxSteps = 100000;
        auto start = std::chrono::steady_clock::now();
        EXPECT_FALSE(executePrimFunc(b.module, f, params, {}, diags, limits));
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
        EXPECT_TRUE(hasCode(diags, "execution-limit"));
    }
}

TEST(Executor, DynamicDimsComeFromTheMap) {
    Builder b;
    Var* n = b.module.newVar("n", DType::Int32, ir::VarKind::DynamicDim);
    Buffer* A = b.module.newBuffer("A", MemoryScope::Global, DType::Float32, {Builder::ref(n)});
    Buffer* Out = b.module.newBuffer("Out", MemoryScope::Global, DType::Float32, {Builder::ref(n)});
    Out->isOutput = true;
    Var* bx = b.blockVar("bx");
    Var* i = b.loopVar("i");
    auto loop = ir::makeStmt(StmtKind::For);
    loop->loopVar = i;
    loop->min = b.c(0);
    loop->extent = Builder::ref(n);
    loop->loopKind = LoopKind::Parallel;
    loop->body = Builder::store(
        Out, {b.ref(i)},
        Builder::bin(BinaryOp::Mul, ir::makeLoad(A, {b.ref(i)}), ir::makeFloat(2, DType::Float32)));
    ir::PrimFunc& f = b.func({A, Out}, Builder::kernel({b.c(1)}, {bx}, {}, loop));
    f.dynamicDims = {n};

    DiagnosticEngine missing;
    EXPECT_TRUE(allocateParams(f, {}, 0, missing).empty());
    EXPECT_TRUE(hasCode(missing, "execution-missing-dynamic-dim"));

    DiagnosticEngine diags;
    auto params = allocateParams(f, {{"n", 37}}, 4, diags);
    ASSERT_EQ(params.size(), 2u);
    EXPECT_EQ(params[0].shape, (std::vector<int64_t>{37}));
    ASSERT_TRUE(executePrimFunc(b.module, f, params, {{"n", 37}}, diags));
    for (int64_t k = 0; k < 37; ++k)
        EXPECT_EQ(params[1].data[k], params[0].data[k] * 2);

    DiagnosticEngine mismatch;
    EXPECT_FALSE(executePrimFunc(b.module, f, params, {{"n", 38}}, mismatch));
    EXPECT_TRUE(hasCode(mismatch, "execution-param-mismatch"));
}

TEST(Executor, AViewAddressesItsBasesStorageWithItsOwnShape) {
    // Out (4, 6) = 2 * A (3, 8), element by element in row-major order, through two views: A as 24 values,
    // Out as 2 rows of 12 (the output is written only through its view).
    Builder b;
    Var* n = b.module.newVar("n", DType::Int32, ir::VarKind::DynamicDim);
    Buffer* A = b.buffer("A", MemoryScope::Global, DType::Float32, {3, 8});
    Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Float32, {4, 6});
    Out->isOutput = true;
    Buffer* aFlat = b.module.newBuffer("a_flat", MemoryScope::Global, DType::Float32, {Builder::ref(n)});
    aFlat->viewOf = A;
    Buffer* outRows = b.buffer("out_rows", MemoryScope::Global, DType::Float32, {2, 12});
    outRows->viewOf = Out;
    Var* bx = b.blockVar("bx");
    Var* i = b.loopVar("i");
    auto body = Builder::loop(i, 24, LoopKind::Parallel,
                              Builder::store(outRows,
                                             {Builder::bin(BinaryOp::FloorDiv, b.ref(i), b.c(12)),
                                              Builder::bin(BinaryOp::FloorMod, b.ref(i), b.c(12))},
                                             Builder::bin(BinaryOp::Mul, ir::makeLoad(aFlat, {b.ref(i)}),
                                                          ir::makeFloat(2, DType::Float32))));
    ir::PrimFunc& f = b.func({A, Out}, Builder::kernel({b.c(1)}, {bx}, {aFlat, outRows}, body));
    f.dynamicDims = {n};

    DiagnosticEngine diags;
    auto params = allocateParams(f, {{"n", 24}}, 3, diags);
    ASSERT_EQ(params.size(), 2u);
    ASSERT_TRUE(executePrimFunc(b.module, f, params, {{"n", 24}}, diags)) << diags.diagnostics()[0].message;
    for (size_t k = 0; k < 24; ++k)
        EXPECT_EQ(params[1].data[k], params[0].data[k] * 2) << k;

    // A view longer than its base, with a size known only at run time, is an error, not a wild read.
    DiagnosticEngine tooLong;
    auto again = allocateParams(f, {{"n", 25}}, 3, tooLong);
    EXPECT_FALSE(executePrimFunc(b.module, f, again, {{"n", 25}}, tooLong));
    EXPECT_TRUE(hasCode(tooLong, "view-exceeds-base"));
}

TEST(Executor, CopyPairsNonUnitDimsAndAtomicAddAccumulates) {
    // Each block copies row `bx` of A (a [1, 16] region) into a 1-D shared tile, then atomically adds it
    // into a [16] sum in fp16, and adds the scalar 1 to a counter.
    Builder b;
    Buffer* A = b.buffer("A", MemoryScope::Global, DType::Float32, {4, 16});
    Buffer* Sum = b.buffer("Sum", MemoryScope::Global, DType::Float16, {16});
    Buffer* Count = b.buffer("Count", MemoryScope::Global, DType::Int32, {1});
    Sum->isOutput = Count->isOutput = true;
    Buffer* S = b.buffer("S", MemoryScope::Shared, DType::Float32, {16});
    Var* bx = b.blockVar("bx");
    auto add = ir::makeStmt(StmtKind::AtomicAdd);
    add->src = Builder::whole(S);
    add->dst = Builder::whole(Sum);
    auto count = ir::makeStmt(StmtKind::AtomicAdd);
    count->dst = Builder::region(Count, {b.c(0)}, {b.c(1)});
    count->value = b.c(1);
    auto body = ir::makeSeq({
        Builder::copy(Builder::region(A, {b.ref(bx), b.c(0)}, {b.c(1), b.c(16)}), Builder::whole(S)),
        add,
        count,
    });
    ir::PrimFunc& f = b.func({A, Sum, Count}, Builder::kernel({b.c(4)}, {bx}, {S}, body));
    DiagnosticEngine diags;
    auto params = allocateParams(f, {}, 11, diags);
    ASSERT_TRUE(executePrimFunc(b.module, f, params, {}, diags));
    for (int64_t j = 0; j < 16; ++j) {
        // Blocks run in order; like tl::AtomicAdd the value is cast to the destination's dtype first,
        // and each add rounds to fp16.
        double expected = 0;
        for (int64_t r = 0; r < 4; ++r)
            expected =
                roundToDType(expected + roundToDType(params[0].at({r, j}), DType::Float16), DType::Float16);
        EXPECT_EQ(params[1].data[j], expected) << j;
    }
    EXPECT_EQ(params[2].data[0], 4);

    // A copy whose non-unit extents differ is an error, not a silent reshape.
    Builder bad;
    Buffer* X = bad.buffer("X", MemoryScope::Global, DType::Float32, {4, 16});
    Buffer* T = bad.buffer("T", MemoryScope::Shared, DType::Float32, {8});
    Var* by = bad.blockVar("by");
    ir::PrimFunc& g = bad.func(
        {X}, Builder::kernel({bad.c(1)}, {by}, {T},
                             Builder::copy(Builder::region(X, {bad.c(0), bad.c(0)}, {bad.c(1), bad.c(16)}),
                                           Builder::whole(T))));
    DiagnosticEngine badDiags;
    auto badParams = allocateParams(g, {}, 0, badDiags);
    EXPECT_FALSE(executePrimFunc(bad.module, g, badParams, {}, badDiags));
    EXPECT_TRUE(hasCode(badDiags, "runtime-copy-extent-mismatch"));
}

TEST(Executor, CpAsyncCopiesItsElementsOrZerosWhenItsPredicateIsFalse) {
    // Block bx copies elements [8 * bx, 8 * bx + 8) of row 0 of A into row bx of a shared tile with one
    // T.ptx_cp_async each, predicated on bx < 1; then the tile goes to Out. In program order the copy has
    // landed before the tile is read; a false predicate writes zeros, as cp.async with src-size 0 does.
    Builder b;
    Buffer* A = b.buffer("A", MemoryScope::Global, DType::Float16, {1, 16});
    Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Float16, {2, 8});
    Out->isOutput = true;
    Buffer* S = b.buffer("S", MemoryScope::Shared, DType::Float16, {1, 8});
    Var* bx = b.blockVar("bx");
    auto cp = ir::makeStmt(StmtKind::CpAsync);
    cp->src = Builder::region(A, {b.c(0), Builder::bin(BinaryOp::Mul, b.ref(bx), b.c(8))}, {b.c(1), b.c(8)});
    cp->dst = Builder::region(S, {b.c(0), b.c(0)}, {b.c(1), b.c(8)});
    cp->cond = Builder::bin(BinaryOp::Lt, b.ref(bx), b.c(1));
    auto body = ir::makeSeq({
        cp,
        Builder::copy(Builder::whole(S), Builder::region(Out, {b.ref(bx), b.c(0)}, {b.c(1), b.c(8)})),
    });
    ir::PrimFunc& f = b.func({A, Out}, Builder::kernel({b.c(2)}, {bx}, {S}, body));
    DiagnosticEngine diags;
    auto params = allocateParams(f, {}, 5, diags);
    ASSERT_TRUE(executePrimFunc(b.module, f, params, {}, diags));
    for (int64_t j = 0; j < 8; ++j) {
        EXPECT_EQ(params[1].at({0, j}), params[0].at({0, j})) << j;
        EXPECT_EQ(params[1].at({1, j}), 0.0) << j;
    }
}

TEST(Executor, ThreadIndexIsRejected) {
    Builder b;
    Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Int32, {1});
    Var* tx = b.module.newVar("tx", DType::Int32, ir::VarKind::ThreadIndex);
    Var* bx = b.blockVar("bx");
    ir::PrimFunc& f =
        b.func({Out}, Builder::kernel({b.c(1)}, {bx}, {}, Builder::store(Out, {b.c(0)}, Builder::ref(tx))));
    DiagnosticEngine diags;
    auto params = allocateParams(f, {}, 0, diags);
    EXPECT_FALSE(executePrimFunc(b.module, f, params, {}, diags));
    EXPECT_TRUE(hasCode(diags, "execution-thread-index-unsupported"));
}

TEST(Executor, PrintGoesToTheLog) {
    Builder b;
    Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Float32, {1});
    Buffer* F = b.buffer("F", MemoryScope::Fragment, DType::Int32, {3});
    Var* bx = b.blockVar("bx");
    auto printValue = ir::makeStmt(StmtKind::Print);
    printValue->value = Builder::bin(BinaryOp::Add, b.ref(bx), b.c(40));
    printValue->message = "answer";
    auto printBuffer = ir::makeStmt(StmtKind::Print);
    printBuffer->printBuffer = F;
    auto body = ir::makeSeq({Builder::fill(F, b.c(7)), printValue, printBuffer});
    ir::PrimFunc& f = b.func({Out}, Builder::kernel({b.c(2)}, {bx}, {F}, body));
    DiagnosticEngine diags;
    auto params = allocateParams(f, {}, 0, diags);
    ExecutionLog log;
    ASSERT_TRUE(executePrimFunc(b.module, f, params, {}, diags, {}, &log));
    EXPECT_EQ(log.prints, (std::vector<std::string>{
                              "block (0, 0, 0): answer: bx + 40 = 40", "block (0, 0, 0): F[3] = [7, 7, 7]",
                              "block (1, 0, 0): answer: bx + 40 = 41", "block (1, 0, 0): F[3] = [7, 7, 7]"}));
}

// A T.alloc_global workspace of the function: zero at the start of every run (the split kernel adds to what
// it holds), written by one kernel and read by the next, and never a parameter.
TEST(Executor, WorkspacesAreZeroedPerRunAndSharedByTheKernels) {
    Builder b;
    Buffer* A = b.buffer("A", MemoryScope::Global, DType::Float32, {4});
    Buffer* Out = b.buffer("Out", MemoryScope::Global, DType::Float32, {1});
    Buffer* W = b.buffer("W", MemoryScope::Global, DType::Float32, {4});
    Var* bx = b.blockVar("bx");
    Var* by = b.blockVar("by");
    Var* i = b.loopVar("i");
    auto split =
        Builder::kernel({b.c(4)}, {bx}, {},
                        Builder::store(W, {b.ref(bx)},
                                       Builder::bin(BinaryOp::Add, ir::makeLoad(W, {b.ref(bx)}),
                                                    Builder::bin(BinaryOp::Mul, ir::makeLoad(A, {b.ref(bx)}),
                                                                 ir::makeFloat(2.0)))));
    auto combine =
        Builder::kernel({b.c(1)}, {by}, {},
                        Builder::loop(i, 4, LoopKind::Serial,
                                      Builder::store(Out, {b.c(0)},
                                                     Builder::bin(BinaryOp::Add, ir::makeLoad(Out, {b.c(0)}),
                                                                  ir::makeLoad(W, {b.ref(i)})))));
    Out->isOutput = true;
    ir::PrimFunc& f = b.func({A, Out}, split);
    f.body = ir::makeSeq({split, combine});
    f.workspaces.push_back(W);
    for (int run = 0; run < 2; ++run) {
        DiagnosticEngine diags;
        auto params = allocateParams(f, {}, 5, diags);
        ASSERT_EQ(params.size(), 2u); // the workspace is not a parameter
        float expected = 0;           // the combine kernel's order, in float32
        for (double a : params[0].data)
            expected = expected + float(a) * 2.0f;
        ASSERT_TRUE(executePrimFunc(b.module, f, params, {}, diags)) << diags.diagnostics().size();
        EXPECT_EQ(params[1].data[0], double(expected)) << "run " << run;
    }
}

} // namespace
} // namespace tb
