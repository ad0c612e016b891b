// A program's hand-written asynchronous copies: T.access_ptr (a pointer to a buffer element with its
// read/write intent and extent, as TileLang's tl.access_ptr) and T.ptx_cp_async (one thread's cp.async of a
// few elements from a global element to a shared one, 4, 8 or 16 bytes, optionally predicated). The copy is a
// CpAsync statement over the elements [c, c + n) of the last dimension on both sides; what makes it complete
// is the program's T.cp_async_barrier_noinc (TileSynchronization.cpp).
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace tb::elab {

namespace {

constexpr const char* kAccessPtrType = "AccessPtr";

// The rw mask of access_type: "r" 1, "w" 2, "rw" 3, or the integer itself.
std::optional<int64_t> accessMask(Interpreter& in, const BoundArgs& b) {
    if (!b.given[1])
        return 1;
    const Value& v = b[1];
    if (v.kind == ValueKind::Str) {
        if (v.s == "r")
            return 1;
        if (v.s == "w")
            return 2;
        if (v.s == "rw")
            return 3;
    } else if (v.isIntLike() && v.i >= 1 && v.i <= 3) {
        return v.i;
    }
    in.error("value-error", b.at(1), "invalid access_type " + typeName(v) + " for T.access_ptr",
             "pass \"r\" (read), \"w\" (write) or \"rw\", or the mask 1, 2 or 3");
    return std::nullopt;
}

// The 1-D extent in elements when it is a compile-time constant: extent=, else the product of the extents
// given (padded with leading 1s), else TileLang's default (1 for an element, the region's or the buffer's
// size otherwise). kSymbolicExtent when it is not a constant; false after an error.
constexpr int64_t kSymbolicExtent = -1;
bool accessExtent(Interpreter& in, const BoundArgs& b, const Operand& base, bool element, int64_t& out) {
    std::vector<Value> given = b.varargs;
    if (given.size() == 1 && (given[0].kind == ValueKind::List || given[0].kind == ValueKind::Tuple))
        given = *given[0].items;
    if (given.size() > base.buffer->rank()) {
        in.error("value-error", b.range,
                 "T.access_ptr got " + std::to_string(given.size()) + " extents for '" + base.buffer->name +
                     "', which has " + std::to_string(base.buffer->rank()) + " dimensions",
                 "give at most one extent per dimension (or extent= for the 1-D element count)");
        return false;
    }
    std::vector<ir::ExprPtr> extents;
    if (b.given[3] && b[3].kind != ValueKind::None) {
        extents.push_back(in.toExpr(b[3], b.at(3), "extent"));
    } else if (!given.empty()) {
        for (size_t k = 0; k < given.size(); ++k) // a list of extents is one vararg: its range for each
            extents.push_back(
                in.toExpr(given[k], b.varargRanges[std::min(k, b.varargRanges.size() - 1)], "an extent"));
    } else if (!element) {
        extents = base.extents;
    }
    out = 1;
    for (const ir::ExprPtr& e : extents) {
        if (!e)
            return false;
        std::optional<int64_t> c = ir::constantInt(e);
        if (!c) {
            out = kSymbolicExtent;
            return true;
        }
        out *= *c;
    }
    return true;
}

// T.access_ptr(base, access_type="r", *extents, offset=0, extent=None, ignore_last_ndim=0): the address of
// base's first element, as an AccessPtr object that T.ptx_cp_async reads.
Value accessPtr(Interpreter& in, PrimitiveCall& call) {
    // Slots: base 0, access_type 1, offset 2, extent 3, ignore_last_ndim 4 (*extents is b.varargs).
    BoundArgs b;
    if (!in.bind("T.access_ptr(base, access_type='r', *extents, offset=0, extent=None, ignore_last_ndim=0)",
                 call.args, b) ||
        !in.requireKernel("T.access_ptr", call.range))
        return Value::poison();
    const bool element =
        b[0].kind == ValueKind::Expr && b[0].expr && b[0].expr->kind == ir::ExprKind::BufferLoad;
    auto base = resolveOperand(in, b[0], b.at(0), "the base of T.access_ptr", /*allowCorner=*/true);
    if (!base)
        return Value::poison();
    std::optional<int64_t> mask = accessMask(in, b);
    if (!mask)
        return Value::poison();
    std::vector<ir::ExprPtr> mins;
    for (const ir::ExprPtr& m : base->mins)
        mins.push_back(asInt32(m));
    std::optional<int64_t> ignore = 0;
    if (b.given[4] && b[4].kind != ValueKind::None)
        ignore = in.constInt(b[4], b.at(4), "ignore_last_ndim");
    if (!ignore)
        return Value::poison();
    for (size_t d = mins.size() - std::min<size_t>(size_t(std::max<int64_t>(*ignore, 0)), mins.size());
         d < mins.size(); ++d)
        mins[d] = ir::makeInt(0, ir::DType::Int32, b.at(4));
    if (b.given[2] && b[2].kind != ValueKind::None) {
        ir::ExprPtr offset = in.toExpr(b[2], b.at(2), "offset");
        if (!offset)
            return Value::poison();
        if (ir::constantInt(offset) != 0) {
            if (mins.size() != 1)
                return in.error("value-error", b.at(2),
                                "T.access_ptr(offset!=0) is only supported for 1-D buffers; '" +
                                    base->buffer->name + "' has " + std::to_string(mins.size()) +
                                    " dimensions",
                                "index the element instead: T.access_ptr(A[i, j + off], ...)");
            mins[0] = asInt32(ir::makeBinary(ir::BinaryOp::Add, mins[0], asInt32(offset), b.at(2)));
        }
    }
    int64_t extent = kSymbolicExtent;
    if (!accessExtent(in, b, *base, element, extent))
        return Value::poison();
    Value v = Value::hostObject(kAccessPtrType);
    v.object->attrs["base"] = Value::symbolic(ir::makeLoad(base->buffer, mins, b.at(0)));
    v.object->attrs["mask"] = Value::integer(*mask);
    v.object->attrs["extent"] = extent == kSymbolicExtent ? Value::none() : Value::integer(extent);
    return v;
}

struct AccessPointer {
    const ir::Buffer* buffer = nullptr;
    std::vector<ir::ExprPtr> mins;
    int64_t mask = 1;
    std::optional<int64_t> extent;
};

std::optional<AccessPointer> accessPointerOf(Interpreter& in, const Value& v, SourceRange range,
                                             const std::string& what) {
    if (v.kind == ValueKind::Poison)
        return std::nullopt;
    if (v.kind != ValueKind::Object || !v.object || v.object->type != kAccessPtrType) {
        in.error("type-error", range, what + " of T.ptx_cp_async must be a T.access_ptr, not " + typeName(v),
                 "wrap the element: T.access_ptr(A_shared[i, j], \"w\", 8) for the destination, "
                 "T.access_ptr(A[i, j], \"r\", 8) for the source");
        return std::nullopt;
    }
    AccessPointer p;
    const ir::ExprPtr& load = v.object->attrs.at("base").expr;
    p.buffer = load->buffer;
    p.mins = load->operands;
    p.mask = v.object->attrs.at("mask").i;
    if (const Value& e = v.object->attrs.at("extent"); e.isIntLike())
        p.extent = e.i;
    return p;
}

// Scope, read/write intent and dtype of one side of a copy; false after an error.
bool checkSide(Interpreter& in, const AccessPointer& p, SourceRange range, bool destination) {
    const ir::MemoryScope want = destination ? ir::MemoryScope::Shared : ir::MemoryScope::Global;
    const std::string side = destination ? "destination" : "source";
    if (p.buffer->scope != want) {
        in.error("cp-async-scope", range,
                 "the " + side + " of T.ptx_cp_async must be in " + ir::scopeName(want) + " memory, but '" +
                     p.buffer->name + "' is " + ir::scopeName(p.buffer->scope),
                 "cp.async copies global memory (a T.Tensor) into shared memory (a T.alloc_shared buffer)");
        return false;
    }
    const int64_t needed = destination ? 2 : 1;
    if ((p.mask & needed) == 0) {
        in.error("value-error", range,
                 std::string("the ") + side + " pointer of T.ptx_cp_async is " +
                     (destination ? "read-only (\"r\")" : "write-only (\"w\")") + ", but the copy " +
                     (destination ? "writes" : "reads") + " it",
                 std::string("give it access_type=\"") + (destination ? "w" : "r") + "\"");
        return false;
    }
    return true;
}

// T.ptx_cp_async(dst_access_ptr, src_access_ptr, num_elems, predicate=None).
Value ptxCpAsync(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    if (!in.bind("T.ptx_cp_async(dst_access_ptr, src_access_ptr, num_elems, predicate=None)", call.args, b) ||
        !in.requireKernel("T.ptx_cp_async", call.range))
        return Value::poison();
    auto dst = accessPointerOf(in, b[0], b.at(0), "the destination");
    auto src = accessPointerOf(in, b[1], b.at(1), "the source");
    if (!dst || !src || !checkSide(in, *dst, b.at(0), true) || !checkSide(in, *src, b.at(1), false))
        return Value::poison();
    if (src->buffer->dtype != dst->buffer->dtype)
        return in.error("cp-async-dtype", call.range,
                        std::string("T.ptx_cp_async copies bytes: '") + src->buffer->name + "' is " +
                            ir::dtypeName(src->buffer->dtype) + " but '" + dst->buffer->name + "' is " +
                            ir::dtypeName(dst->buffer->dtype),
                        "copy between buffers of one dtype; convert afterwards with T.copy or T.Parallel");
    auto n = in.constInt(b[2], b.at(2), "num_elems");
    if (!n)
        return Value::poison();
    const int64_t bytes = *n * ir::dtypeBytes(dst->buffer->dtype);
    if (*n < 1 || (bytes != 4 && bytes != 8 && bytes != 16))
        return in.error(
            "cp-async-width", b.at(2),
            "T.ptx_cp_async of " + std::to_string(*n) + " " + ir::dtypeName(dst->buffer->dtype) +
                " elements moves " + std::to_string(bytes) + " bytes; cp.async moves 4, 8 or 16 bytes",
            "copy " + std::to_string(std::max<int64_t>(16 / ir::dtypeBytes(dst->buffer->dtype), 1)) +
                " elements (16 bytes) per thread");
    for (const AccessPointer* p : {&*dst, &*src}) {
        const SourceRange at = p == &*dst ? b.at(0) : b.at(1);
        if (p->extent && *p->extent < *n)
            return in.error("value-error", at,
                            "T.ptx_cp_async copies " + std::to_string(*n) +
                                " elements, but the pointer into '" + p->buffer->name + "' covers only " +
                                std::to_string(*p->extent),
                            "give T.access_ptr the extent of the copy: T.access_ptr(X[...], mode, " +
                                std::to_string(*n) + ")");
        std::optional<int64_t> row =
            p->buffer->rank() ? p->buffer->constantExtent(p->buffer->rank() - 1) : std::nullopt;
        if (row && *row % *n != 0)
            return in.error("cp-async-width", at,
                            "the last dimension of '" + p->buffer->name + "' (" + std::to_string(*row) +
                                ") is not a multiple of the " + std::to_string(*n) +
                                " elements of T.ptx_cp_async, so a copy would run into the next row",
                            "copy along a last dimension that the element count divides");
    }
    Operand dstOp, srcOp;
    for (auto [p, op, at] : {std::tuple{&*dst, &dstOp, b.at(0)}, std::tuple{&*src, &srcOp, b.at(1)}}) {
        op->buffer = const_cast<ir::Buffer*>(p->buffer);
        op->mins = p->mins;
        op->extents.assign(p->mins.size(), ir::makeInt(1, ir::DType::Int32, at));
        if (!op->extents.empty())
            op->extents.back() = ir::makeInt(*n, ir::DType::Int32, at);
        op->range = at;
        if (!regionInBounds(in, *op, p == &*dst ? "the destination of T.ptx_cp_async" : "its source"))
            return Value::poison();
    }
    auto s = ir::makeStmt(ir::StmtKind::CpAsync, call.range);
    s->dst = dstOp.region();
    s->src = srcOp.region();
    if (b.given[3] && b[3].kind != ValueKind::None) {
        ir::ExprPtr predicate = in.toExpr(b[3], b.at(3), "the predicate");
        if (!predicate)
            return Value::poison();
        s->cond = in.castTo(predicate, ir::DType::Bool);
    }
    in.emit(s);
    return Value::none();
}

} // namespace

std::span<const PrimitiveRow> asyncCopyPrimitives() {
    static const PrimitiveRow rows[] = {
        {"access_ptr", accessPtr},
        {"ptx_cp_async", ptxCpAsync},
    };
    return rows;
}

} // namespace tb::elab
