// TileLang's compute vocabulary: T.gemm (shape, transpose and accumulator checks, warp policy, k_pack,
// wg_wait) and the reductions T.reduce_max / _min / _sum / _abssum / _absmax / _bitand / _bitor / _bitxor.
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

Value tileGemm(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.gemm(A, B, C, transpose_A=False, transpose_B=False, policy=Square, clear_accum=False, "
                 "k_pack=1, "
                 "wg_wait=0, mbar=None, annotations=None)",
                 args, b))
        return Value::poison();
    if (!in.requireKernel("T.gemm", range))
        return Value::poison();
    auto A = resolveOperand(in, b[0], b.at(0), "gemm operand A", false);
    auto B = resolveOperand(in, b[1], b.at(1), "gemm operand B", false);
    auto C = resolveOperand(in, b[2], b.at(2), "gemm accumulator C", false);
    if (!A || !B || !C)
        return Value::poison();
    bool transA = b.given[3] && in.truth(b[3]).value_or(false);
    bool transB = b.given[4] && in.truth(b[4]).value_or(false);
    std::string shapes = "A '" + A->buffer->name + "' is " + shapeText(A->extents) + ", B '" +
                         B->buffer->name + "' is " + shapeText(B->extents) + ", C '" + C->buffer->name +
                         "' is " + shapeText(C->extents);
    std::string layoutHint = std::string("with transpose_A=") + (transA ? "True" : "False") +
                             " and transpose_B=" + (transB ? "True" : "False") + ", A must be " +
                             (transA ? "[K, M]" : "[M, K]") + ", B " + (transB ? "[N, K]" : "[K, N]") +
                             " and C [M, N]";
    for (const Operand* o : {&*A, &*B, &*C}) {
        if (o->extents.size() < 2)
            return in.error("gemm-shape-mismatch", range, "gemm operands need 2 dimensions: " + shapes,
                            layoutHint);
        for (size_t d = 0; d + 2 < o->extents.size(); ++d)
            if (!isUnit(o->extents[d]))
                return in.error("gemm-shape-mismatch", range,
                                "gemm operand '" + o->buffer->name +
                                    "' has a leading extent other than 1: " + shapes,
                                "slice one stage, e.g. " + o->buffer->name + "[stage, :, :]");
    }
    auto last2 = [](const Operand& o, bool trans) {
        size_t n = o.extents.size();
        return trans ? std::make_pair(o.extents[n - 1], o.extents[n - 2])
                     : std::make_pair(o.extents[n - 2], o.extents[n - 1]);
    };
    auto [M, Ka] = last2(*A, transA);
    auto [Kb, N] = last2(*B, transB);
    auto [Mc, Nc] = last2(*C, false);
    std::string what;
    if (differ(Ka, Kb))
        what = "K is " + ir::printExpr(ir::simplify(Ka)) + " for A but " + ir::printExpr(ir::simplify(Kb)) +
               " for B";
    else if (differ(M, Mc))
        what = "M is " + ir::printExpr(ir::simplify(M)) + " for A but " + ir::printExpr(ir::simplify(Mc)) +
               " for C";
    else if (differ(N, Nc))
        what = "N is " + ir::printExpr(ir::simplify(N)) + " for B but " + ir::printExpr(ir::simplify(Nc)) +
               " for C";
    if (!what.empty())
        return in.error("gemm-shape-mismatch", range, "gemm shapes disagree (" + what + "): " + shapes,
                        layoutHint);
    if (C->buffer->scope != ir::MemoryScope::Fragment)
        return in.error("gemm-accumulator-scope", b.at(2),
                        "the gemm accumulator '" + C->buffer->name + "' must be a fragment, but it is " +
                            ir::scopeName(C->buffer->scope),
                        "allocate it with T.alloc_fragment");
    auto s = ir::makeStmt(ir::StmtKind::Gemm, range);
    s->a = A->region();
    s->b = B->region();
    s->c = C->region();
    s->transposeA = transA;
    s->transposeB = transB;
    if (b.given[5]) {
        const Value& p = b[5];
        if (p.kind == ValueKind::Enum || p.kind == ValueKind::Str) {
            std::string n = p.s.substr(p.s.rfind('.') + 1);
            s->policy = n == "FullRow"   ? ir::GemmWarpPolicy::FullRow
                        : n == "FullCol" ? ir::GemmWarpPolicy::FullCol
                                         : ir::GemmWarpPolicy::Square;
        } else if (p.isIntLike() && p.i >= 0 && p.i <= 2) {
            s->policy = static_cast<ir::GemmWarpPolicy>(p.i);
        } else if (p.kind != ValueKind::None) {
            return in.error("type-error", b.at(5), "policy must be a T.GemmWarpPolicy, not " + typeName(p));
        }
    }
    s->clearAccum = ir::makeBool(false, range);
    if (b.given[6]) {
        ir::ExprPtr ca = in.toExpr(b[6], b.at(6), "clear_accum");
        if (!ca)
            return Value::poison();
        s->clearAccum = in.castTo(ca, ir::DType::Bool);
    }
    if (b.given[7]) {
        auto k = in.constInt(b[7], b.at(7), "k_pack");
        if (!k)
            return Value::poison();
        s->kPack = static_cast<int>(*k);
    }
    if (b.given[8]) {
        auto w = in.constInt(b[8], b.at(8), "wg_wait");
        if (!w)
            return Value::poison();
        s->wgWait = static_cast<int>(*w);
    }
    in.emit(s);
    return Value::none();
}

Value tileReduce(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    BoundArgs b;
    static const std::pair<const char*, ir::ReduceKind> kinds[] = {
        {"reduce_max", ir::ReduceKind::Max},       {"reduce_min", ir::ReduceKind::Min},
        {"reduce_sum", ir::ReduceKind::Sum},       {"reduce_abssum", ir::ReduceKind::AbsSum},
        {"reduce_absmax", ir::ReduceKind::AbsMax}, {"reduce_bitand", ir::ReduceKind::BitAnd},
        {"reduce_bitor", ir::ReduceKind::BitOr},   {"reduce_bitxor", ir::ReduceKind::BitXor}};
    std::optional<ir::ReduceKind> kind;
    for (auto& [n, k] : kinds)
        if (op == n)
            kind = k;
    if (!kind)
        return in.error("unsupported-construct", range, call.name + " is not supported by TileBench");
    if (!in.bind(("T." + op + "(buffer, out, dim=-1, clear=True, batch=1, nan_propagate=False)").c_str(),
                 args, b))
        return Value::poison();
    if (!in.requireKernel("T." + op, range))
        return Value::poison();
    auto toBuffer = [&](size_t k, const char* role) -> ir::Buffer* {
        const Value& v = b[k];
        if (v.kind == ValueKind::Buffer)
            return v.buffer;
        if (v.kind == ValueKind::Region)
            return v.region->buffer;
        if (!v.isPoison())
            in.error("not-a-buffer", b.at(k),
                     std::string("the ") + role + " of T." + op + " must be a buffer, not " +
                         (v.kind == ValueKind::Expr ? "the scalar " + ir::printExpr(v.expr) : typeName(v)));
        return nullptr;
    };
    ir::Buffer* src = toBuffer(0, "source");
    ir::Buffer* dst = toBuffer(1, "output");
    if (!src || !dst)
        return Value::poison();
    int64_t dim = -1;
    if (b.given[2]) {
        auto d = in.constInt(b[2], b.at(2), "dim");
        if (!d)
            return Value::poison();
        dim = *d;
    }
    int64_t rank = static_cast<int64_t>(src->rank());
    int64_t normalized = dim < 0 ? dim + rank : dim;
    if (normalized < 0 || normalized >= rank)
        return in.error("reduce-dim", b.at(2),
                        "dim=" + std::to_string(dim) + " is out of range for '" + src->name + "' with " +
                            std::to_string(rank) + " dimension" + (rank == 1 ? "" : "s"),
                        "dim counts from 0 (or from the end when negative): use dim=" +
                            std::to_string(rank - 1) + " to reduce along the last dimension");
    std::vector<ir::ExprPtr> expected;
    for (int64_t d = 0; d < rank; ++d)
        if (d != normalized)
            expected.push_back(src->shape[static_cast<size_t>(d)]);
    std::vector<ir::ExprPtr> want = nonUnit(expected), got = nonUnit(dst->shape);
    bool mismatch = want.size() != got.size();
    for (size_t k = 0; !mismatch && k < want.size(); ++k)
        mismatch = differ(want[k], got[k]);
    if (mismatch)
        return in.error("reduce-shape-mismatch", range,
                        "T." + op + " of '" + src->name + "' " + shapeText(src->shape) + " along dim " +
                            std::to_string(normalized) + " gives shape " + shapeText(expected) + ", but '" +
                            dst->name + "' is " + shapeText(dst->shape),
                        "the output keeps every dimension except `dim`");
    auto s = ir::makeStmt(ir::StmtKind::Reduce, range);
    s->reduceKind = *kind;
    s->srcBuffer = src;
    s->dstBuffer = dst;
    s->dim = static_cast<int>(normalized);
    s->clear = true;
    if (b.given[3]) {
        auto t = in.truth(b[3]);
        if (!t)
            return in.error("not-compile-time", b.at(3), "clear must be known at compile time");
        s->clear = *t;
    }
    in.emit(s);
    return Value::none();
}

} // namespace

std::span<const PrimitiveRow> computePrimitives() {
    static const PrimitiveRow rows[] = {
        {"gemm", tileGemm},
        // The explicit async wgmma of Hopper programs: the same tile-level product (its wait, T.wait_wgmma,
        // is then already satisfied); the backend chooses the instruction and says so in the plan.
        {"wgmma_gemm", tileGemm},
        {"reduce_max", tileReduce},
        {"reduce_min", tileReduce},
        {"reduce_sum", tileReduce},
        {"reduce_abssum", tileReduce},
        {"reduce_absmax", tileReduce},
        {"reduce_bitand", tileReduce},
        {"reduce_bitor", tileReduce},
        {"reduce_bitxor", tileReduce},
    };
    return rows;
}

} // namespace tb::elab
