// T.cumsum: the inclusive prefix sum along one dimension (reverse: the suffix sum), in place or into `dst`.
// It elaborates to what it means, as TileLang's own macro does for fragments: in a shared tile, one
// T.Parallel iteration per line along the other dimensions, each adding its line in order (a serial loop),
// so every layer below (layouts, the CPU executor, the JIT, the CUDA backend) sees ordinary loops. A
// fragment goes through a shared scratch tile (copy in, scan, copy out), as TileLang's cumsum_fragment does.
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tb::elab {

namespace {

// A whole-buffer operand, or null after a diagnostic (regions of a buffer are not scanned yet).
ir::Buffer* wholeBuffer(Interpreter& in, const Value& v, SourceRange range, const char* role) {
    auto op = resolveOperand(in, v, range, std::string("the ") + role + " of T.cumsum", false);
    if (!op)
        return nullptr;
    bool whole = op->mins.size() == op->buffer->rank();
    for (size_t d = 0; whole && d < op->mins.size(); ++d)
        whole = ir::constantInt(op->mins[d]) == 0 && !differ(op->extents[d], op->buffer->shape[d]) &&
                ir::constantInt(op->extents[d]) == op->buffer->constantExtent(d);
    if (!whole) {
        in.error("unsupported-construct", range,
                 "T.cumsum of a region of '" + op->buffer->name + "' is not supported",
                 "scan a whole shared or fragment buffer (copy the region into a tile of its own first)");
        return nullptr;
    }
    if (op->buffer->scope != ir::MemoryScope::Shared && op->buffer->scope != ir::MemoryScope::Fragment) {
        in.error("unsupported-construct", range,
                 std::string("T.cumsum scans shared or fragment buffers, not ") +
                     ir::scopeName(op->buffer->scope) + " '" + op->buffer->name + "'",
                 "copy the data into a shared tile first");
        return nullptr;
    }
    return op->buffer;
}

ir::Region wholeRegion(const ir::Buffer* b, SourceRange range) {
    ir::Region r{b, {}, {}, range};
    for (const ir::ExprPtr& e : b->shape) {
        r.mins.push_back(ir::makeInt(0, ir::DType::Int32, range));
        r.extents.push_back(e);
    }
    return r;
}

void emitCopy(Interpreter& in, const ir::Buffer* from, const ir::Buffer* to, SourceRange range) {
    auto s = ir::makeStmt(ir::StmtKind::Copy, range);
    s->src = wholeRegion(from, range);
    s->dst = wholeRegion(to, range);
    in.emit(s);
}

// The scan of shared tile `t` along `dim`, in place: T.Parallel over the other dimensions (one iteration when
// there are none), a serial loop along `dim`.
void emitSharedScan(Interpreter& in, const ir::Buffer* t, size_t dim, bool reverse, SourceRange range) {
    const int64_t n = *t->constantExtent(dim);
    std::vector<const ir::Var*> lineVars;
    std::vector<int64_t> lineExtents;
    for (size_t d = 0; d < t->rank(); ++d)
        if (d != dim) {
            lineVars.push_back(in.m_out.newVar(in.uniqueName("i" + std::to_string(d)), ir::DType::Int32,
                                               ir::VarKind::LoopVar, range));
            lineExtents.push_back(*t->constantExtent(d));
        }
    if (lineVars.empty()) {
        lineVars.push_back(
            in.m_out.newVar(in.uniqueName("line"), ir::DType::Int32, ir::VarKind::LoopVar, range));
        lineExtents.push_back(1);
    }
    const ir::Var* step = in.m_out.newVar(in.uniqueName("k"), ir::DType::Int32, ir::VarKind::LoopVar, range);
    // Forward: t[.., k + 1] += t[.., k]; reverse: t[.., n - 2 - k] += t[.., n - 1 - k].
    auto at = [&](int64_t offset, bool fromEnd) {
        ir::ExprPtr k = ir::makeVarRef(step, range);
        ir::ExprPtr index =
            fromEnd
                ? ir::makeBinary(ir::BinaryOp::Sub, ir::makeInt(n - 1 - offset, ir::DType::Int32, range), k,
                                 range)
                : ir::makeBinary(ir::BinaryOp::Add, k, ir::makeInt(offset, ir::DType::Int32, range), range);
        std::vector<ir::ExprPtr> indices;
        size_t next = 0;
        for (size_t d = 0; d < t->rank(); ++d)
            indices.push_back(d == dim ? index : ir::makeVarRef(lineVars[next++], range));
        return indices;
    };
    std::vector<ir::ExprPtr> target = reverse ? at(1, true) : at(1, false);
    std::vector<ir::ExprPtr> previous = reverse ? at(0, true) : at(0, false);
    auto store = ir::makeStmt(ir::StmtKind::Store, range);
    store->buffer = t;
    store->indices = target;
    store->value = ir::makeBinary(ir::BinaryOp::Add, ir::makeLoad(t, target, range),
                                  ir::makeLoad(t, previous, range), range);
    auto serial = ir::makeStmt(ir::StmtKind::For, range);
    serial->loopVar = step;
    serial->min = ir::makeInt(0, ir::DType::Int32, range);
    serial->extent = ir::makeInt(n - 1, ir::DType::Int32, range);
    serial->loopKind = ir::LoopKind::Serial;
    serial->body = ir::makeSeq({store}, range);
    ir::StmtPtr inner = serial;
    for (size_t d = lineVars.size(); d-- > 0;) {
        auto loop = ir::makeStmt(ir::StmtKind::For, range);
        loop->loopVar = lineVars[d];
        loop->min = ir::makeInt(0, ir::DType::Int32, range);
        loop->extent = ir::makeInt(lineExtents[d], ir::DType::Int32, range);
        loop->loopKind = ir::LoopKind::Parallel;
        loop->body = ir::makeSeq({inner}, range);
        inner = loop;
    }
    in.emit(inner);
}

Value tileCumsum(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    if (!in.bind("T.cumsum(src, dst=None, dim=0, reverse=False, annotations=None)", call.args, b) ||
        !in.requireKernel("T.cumsum", call.range))
        return Value::poison();
    ir::Buffer* src = wholeBuffer(in, b[0], b.at(0), "source");
    if (!src)
        return Value::poison();
    ir::Buffer* dst = src;
    if (b.given[1] && b[1].kind != ValueKind::None && !(dst = wholeBuffer(in, b[1], b.at(1), "destination")))
        return Value::poison();
    int64_t dim = 0;
    if (b.given[2]) {
        auto d = in.constInt(b[2], b.at(2), "dim");
        if (!d)
            return Value::poison();
        dim = *d;
    }
    const int64_t rank = int64_t(src->rank());
    if (dim < 0)
        dim += rank;
    if (dim < 0 || dim >= rank)
        return in.error("index-out-of-range", b.at(2),
                        "dim is out of range for '" + src->name + "' with " + std::to_string(rank) +
                            " dimension" + (rank == 1 ? "" : "s"),
                        "dim counts from 0, or from the end when negative");
    std::optional<bool> reverse = b.given[3] ? in.truth(b[3]) : std::optional<bool>(false);
    if (!reverse)
        return in.error("not-compile-time", b.at(3), "reverse must be known at compile time");
    for (size_t d = 0; d < src->rank(); ++d)
        if (!src->constantExtent(d))
            return in.error("unsupported-construct", b.at(0), "T.cumsum needs a buffer of constant shape",
                            "give the scanned tile a compile-time shape");
    if (dst->rank() != src->rank() || dst->dtype != src->dtype || [&] {
            for (size_t d = 0; d < src->rank(); ++d)
                if (dst->constantExtent(d) != src->constantExtent(d))
                    return true;
            return false;
        }())
        return in.error("copy-extent-mismatch", b.at(1),
                        "the T.cumsum destination '" + dst->name + "' must have the shape and dtype of '" +
                            src->name + "' " + shapeText(src->shape),
                        "allocate the destination like the source");
    const bool viaScratch =
        src->scope == ir::MemoryScope::Fragment || dst->scope == ir::MemoryScope::Fragment;
    const ir::Buffer* tile = dst;
    if (viaScratch) {
        std::vector<Value> shape;
        for (size_t d = 0; d < src->rank(); ++d)
            shape.push_back(Value::integer(*src->constantExtent(d)));
        in.m_pendingName = src->name + "_scan";
        Value scratch = in.allocate(ir::MemoryScope::Shared, Value::tuple(shape), Value::dtypeOf(src->dtype),
                                    call.range, b.at(0));
        if (scratch.kind != ValueKind::Buffer)
            return Value::poison();
        tile = scratch.buffer;
    }
    if (tile != src)
        emitCopy(in, src, tile, call.range);
    emitSharedScan(in, tile, size_t(dim), *reverse, call.range);
    if (tile != dst)
        emitCopy(in, tile, dst, call.range);
    return Value::none();
}

} // namespace

std::span<const PrimitiveRow> scanPrimitives() {
    static const PrimitiveRow rows[] = {
        {"cumsum", tileCumsum},
    };
    return rows;
}

} // namespace tb::elab
