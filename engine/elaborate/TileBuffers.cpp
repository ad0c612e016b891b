// Buffers in kernel code: shapes (compile-time or symbolic extents), allocations, tensor parameters from
// T.Tensor annotations, and element access (A[i, j] loads, stores and slices into regions), each with its
// bounds checks against constant extents.
#include "engine/elaborate/Interpreter.h"
#include "engine/elaborate/TileOperands.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

// ---------------------------------------------------------------------------------------------------
// Shapes, allocations, parameters

std::optional<std::vector<ir::ExprPtr>> Interpreter::shapeOf(const Value& shape, SourceRange range,
                                                             bool allowSymbolic) {
    std::vector<Value> dims;
    if (shape.isPoison())
        return std::nullopt;
    if (shape.isSequence())
        dims = *shape.items;
    else if (shape.isIntLike() || shape.kind == ValueKind::Expr)
        dims = {shape};
    else {
        error("type-error", range, "a shape must be an int or a tuple of ints, not " + typeName(shape));
        return std::nullopt;
    }
    std::vector<ir::ExprPtr> out;
    for (size_t k = 0; k < dims.size(); ++k) {
        const Value& d = dims[k];
        if (d.isPoison())
            return std::nullopt;
        std::optional<int64_t> c;
        if (d.isIntLike())
            c = d.i;
        else if (d.kind == ValueKind::Expr)
            c = ir::constantInt(d.expr);
        if (c) {
            if (*c <= 0) {
                error("invalid-shape", range,
                      "dimension " + std::to_string(k) + " of the shape is " + std::to_string(*c) +
                          "; extents must be positive");
                return std::nullopt;
            }
            out.push_back(ir::makeInt(*c, ir::DType::Int32, range));
            continue;
        }
        if (d.kind == ValueKind::Expr && allowSymbolic && ir::isInteger(d.expr->dtype)) {
            out.push_back(d.expr);
            continue;
        }
        if (d.kind == ValueKind::Expr || d.isOpaque()) {
            error("not-compile-time", range,
                  "shape must be known at compile time, but dimension " + std::to_string(k) + " is " +
                      (d.kind == ValueKind::Expr ? ir::printExpr(d.expr) : "a host value"),
                  allowSymbolic ? "use a jit parameter, a constant or T.dynamic"
                                : "use a jit parameter or a constant");
            return std::nullopt;
        }
        error("type-error", range,
              "dimension " + std::to_string(k) + " of the shape must be an int, not " + typeName(d));
        return std::nullopt;
    }
    if (out.empty()) {
        error("invalid-shape", range, "a shape needs at least one dimension");
        return std::nullopt;
    }
    return out;
}

Value Interpreter::allocate(ir::MemoryScope scope, const Value& shape, const Value& dtype, SourceRange range,
                            SourceRange shapeRange) {
    std::string name = m_pendingName.empty() ? "buf" : m_pendingName;
    m_pendingName.clear();
    auto dims = shapeOf(shape, shapeRange, false);
    auto t = toDType(dtype, range);
    if (!dims || !t)
        return Value::poison();
    ir::Buffer* b = m_out.newBuffer(uniqueName(name), scope, *t, *dims, range);
    // Global memory outlives the kernel that allocates it: a workspace of the whole prim_func.
    if (scope == ir::MemoryScope::Global)
        m_trace->workspaces.push_back(b);
    else
        m_trace->kernels.back().allocations.push_back(b);
    return Value::bufferOf(b);
}

Value Interpreter::makeTensorParam(const Value& type, const std::string& name, SourceRange range) {
    auto dims = shapeOf(Value::tuple(*type.items), range, true);
    if (!dims)
        return Value::poison();
    ir::Buffer* b = m_out.newBuffer(uniqueName(name), ir::MemoryScope::Global, type.dtype, *dims, range);
    return Value::bufferOf(b);
}

// ---------------------------------------------------------------------------------------------------
// Element access

bool Interpreter::checkIndex(const ir::Buffer* buffer, size_t dim, const ir::ExprPtr& index,
                             SourceRange range) {
    auto v = ir::constantInt(index);
    auto extent = buffer->constantExtent(dim);
    if (v && extent && (*v < 0 || *v >= *extent)) {
        error("index-out-of-range", range,
              "index " + std::to_string(*v) + " is out of range for dimension " + std::to_string(dim) +
                  " of '" + buffer->name + "' with extent " + std::to_string(*extent),
              "valid indices are 0 to " + std::to_string(*extent - 1));
        return false;
    }
    return true;
}

namespace {

std::vector<Value> indexList(const Value& index) {
    if (index.kind == ValueKind::Tuple)
        return *index.items;
    return {index};
}

} // namespace

Value Interpreter::loadElement(ir::Buffer* buffer, const std::vector<Value>& indices, SourceRange range) {
    if (!requireKernel("reading buffer '" + buffer->name + "'", range))
        return Value::poison();
    std::vector<ir::ExprPtr> exprs;
    bool ok = true;
    for (size_t d = 0; d < indices.size(); ++d) {
        ir::ExprPtr e = toExpr(indices[d], range, "a buffer index");
        if (!e)
            return Value::poison();
        if (ir::isFloat(e->dtype))
            return error("type-error", range,
                         "buffer indices must be integers, but index " + std::to_string(d) + " of '" +
                             buffer->name + "' is " + ir::dtypeName(e->dtype));
        ok = checkIndex(buffer, d, e, range) && ok;
        exprs.push_back(e);
    }
    if (!ok)
        return Value::poison();
    return Value::symbolic(ir::makeLoad(buffer, std::move(exprs), range));
}

Value Interpreter::bufferSubscript(ir::Buffer* buffer, const Value& index, SourceRange range) {
    std::vector<Value> idx = indexList(index);
    for (const Value& v : idx)
        if (v.isPoison())
            return v;
    if (idx.size() > buffer->rank())
        return error("index-out-of-range", range,
                     "buffer '" + buffer->name + "' has " + std::to_string(buffer->rank()) + " dimension" +
                         (buffer->rank() == 1 ? "" : "s") + " but " + std::to_string(idx.size()) +
                         " indices were given");
    bool anySlice =
        std::any_of(idx.begin(), idx.end(), [](const Value& v) { return v.kind == ValueKind::Slice; });
    if (!anySlice && idx.size() == buffer->rank())
        return loadElement(buffer, idx, range);
    auto region = std::make_shared<RegionData>();
    region->buffer = buffer;
    for (size_t d = 0; d < buffer->rank(); ++d) {
        if (d >= idx.size()) {
            region->mins.push_back(ir::makeInt(0, ir::DType::Int32, range));
            region->extents.push_back(buffer->shape[d]);
            continue;
        }
        const Value& v = idx[d];
        if (v.kind == ValueKind::Slice) {
            const std::vector<Value>& parts = *v.items;
            if (parts[2].kind != ValueKind::None && !(parts[2].isIntLike() && parts[2].i == 1))
                return error("unsupported-construct", range, "buffer slices with a step are not supported");
            ir::ExprPtr lo = parts[0].kind == ValueKind::None ? ir::makeInt(0, ir::DType::Int32, range)
                                                              : toExpr(parts[0], range, "a slice bound");
            ir::ExprPtr hi = parts[1].kind == ValueKind::None ? buffer->shape[d]
                                                              : toExpr(parts[1], range, "a slice bound");
            if (!lo || !hi)
                return Value::poison();
            ir::ExprPtr extent = sub(hi, lo, range);
            auto c = ir::constantInt(extent);
            if (c && *c <= 0)
                return error("index-out-of-range", range,
                             "the slice of dimension " + std::to_string(d) + " of '" + buffer->name +
                                 "' is empty (" + ir::printExpr(lo) + ":" + ir::printExpr(hi) + ")");
            auto loC = ir::constantInt(lo);
            auto hiC = ir::constantInt(hi);
            auto dimC = buffer->constantExtent(d);
            if (dimC && ((loC && *loC < 0) || (hiC && *hiC > *dimC)))
                return error("index-out-of-range", range,
                             "slice " + ir::printExpr(lo) + ":" + ir::printExpr(hi) +
                                 " is out of range for dimension " + std::to_string(d) + " of '" +
                                 buffer->name + "' with extent " + std::to_string(*dimC));
            region->mins.push_back(asInt32(ir::simplify(lo)));
            region->extents.push_back(asInt32(extent));
            continue;
        }
        ir::ExprPtr e = toExpr(v, range, "a buffer index");
        if (!e)
            return Value::poison();
        if (!checkIndex(buffer, d, e, range))
            return Value::poison();
        region->mins.push_back(e);
        region->extents.push_back(ir::makeInt(1, ir::DType::Int32, range));
    }
    Value r;
    r.kind = ValueKind::Region;
    r.region = region;
    return r;
}

void Interpreter::storeElement(const Value& base, const Value& index, const Value& value, SourceRange range) {
    ir::Buffer* buffer = base.buffer;
    if (value.isPoison())
        return;
    if (!requireKernel("storing to buffer '" + buffer->name + "'", range))
        return;
    std::vector<Value> idx = indexList(index);
    for (const Value& v : idx) {
        if (v.isPoison())
            return;
        if (v.kind == ValueKind::Slice) {
            error("unsupported-construct", range, "assigning to a buffer slice is not supported",
                  "use T.fill for a constant, or a T.Parallel loop over the elements");
            return;
        }
    }
    if (idx.size() != buffer->rank()) {
        error("index-out-of-range", range,
              "buffer '" + buffer->name + "' has " + std::to_string(buffer->rank()) + " dimension" +
                  (buffer->rank() == 1 ? "" : "s") + " but the store gives " + std::to_string(idx.size()) +
                  " ind" + (idx.size() == 1 ? "ex" : "ices"));
        return;
    }
    std::vector<ir::ExprPtr> exprs;
    bool ok = true;
    for (size_t d = 0; d < idx.size(); ++d) {
        ir::ExprPtr e = toExpr(idx[d], range, "a buffer index");
        if (!e)
            return;
        ok = checkIndex(buffer, d, e, range) && ok;
        exprs.push_back(e);
    }
    if (!ok)
        return;
    ir::ExprPtr v = toExpr(value, range, "the stored value");
    if (!v)
        return;
    auto s = ir::makeStmt(ir::StmtKind::Store, range);
    s->buffer = buffer;
    s->indices = std::move(exprs);
    s->value = castTo(v, buffer->dtype);
    emit(s);
}

} // namespace tb::elab
