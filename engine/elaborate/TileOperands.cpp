// Operands of tile operations and the extent helpers shared by the tile handlers.
#include "engine/elaborate/TileOperands.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

std::string shapeText(const std::vector<ir::ExprPtr>& dims) {
    std::string out = "[";
    for (size_t k = 0; k < dims.size(); ++k)
        out += (k ? ", " : "") + ir::printExpr(ir::simplify(dims[k]));
    return out + "]";
}

bool isUnit(const ir::ExprPtr& e) {
    auto c = ir::constantInt(e);
    return c && *c == 1;
}

std::vector<ir::ExprPtr> nonUnit(const std::vector<ir::ExprPtr>& extents) {
    std::vector<ir::ExprPtr> out;
    for (const ir::ExprPtr& e : extents)
        if (!isUnit(e))
            out.push_back(e);
    return out;
}

bool differ(const ir::ExprPtr& a, const ir::ExprPtr& b) {
    auto x = ir::constantInt(a);
    auto y = ir::constantInt(b);
    return x && y && *x != *y;
}

ir::ExprPtr asInt32(ir::ExprPtr e) {
    if (!e || e->dtype == ir::DType::Int32)
        return e;
    if (e->kind == ir::ExprKind::IntImm)
        return ir::makeInt(e->intValue, ir::DType::Int32, e->range);
    return ir::makeCast(ir::DType::Int32, e, e->range);
}

ir::ExprPtr sub(const ir::ExprPtr& a, const ir::ExprPtr& b, SourceRange range) {
    return ir::simplify(ir::makeBinary(ir::BinaryOp::Sub, asInt32(a), asInt32(b), range));
}

std::optional<Operand> resolveOperand(Interpreter& in, const Value& v, SourceRange range,
                                      const std::string& what, bool allowCorner) {
    Operand op;
    op.range = range;
    switch (v.kind) {
    case ValueKind::Buffer:
        op.buffer = v.buffer;
        for (size_t d = 0; d < v.buffer->rank(); ++d) {
            op.mins.push_back(ir::makeInt(0, ir::DType::Int32, range));
            op.extents.push_back(v.buffer->shape[d]);
        }
        return op;
    case ValueKind::Region:
        op.buffer = v.region->buffer;
        op.mins = v.region->mins;
        op.extents = v.region->extents;
        return op;
    case ValueKind::Expr:
        if (v.expr->kind == ir::ExprKind::BufferLoad && allowCorner) {
            op.buffer = const_cast<ir::Buffer*>(v.expr->buffer);
            op.mins = v.expr->operands;
            op.corner = true;
            return op;
        }
        in.error(
            "not-a-buffer", range,
            what + " must be a buffer or a buffer region, but it is the scalar " + ir::printExpr(v.expr),
            "pass the buffer, a slice such as A[i, 0:64], or a start corner such as A[by * 128, k * 32]");
        return std::nullopt;
    case ValueKind::Poison:
        return std::nullopt;
    case ValueKind::None:
    case ValueKind::Bool:
    case ValueKind::Int:
    case ValueKind::Float:
    case ValueKind::Str:
    case ValueKind::Tuple:
    case ValueKind::List:
    case ValueKind::Dict:
    case ValueKind::Range:
    case ValueKind::Slice:
    case ValueKind::Ellipsis:
    case ValueKind::Function:
    case ValueKind::Builtin:
    case ValueKind::Namespace:
    case ValueKind::DType:
    case ValueKind::Enum:
    case ValueKind::TensorType:
    case ValueKind::LoopSpec:
    case ValueKind::KernelSpec:
    case ValueKind::Layout:
    case ValueKind::Object:
    case ValueKind::Opaque:
        break;
    }
    in.error("not-a-buffer", range, what + " must be a buffer or a buffer region, not " + typeName(v),
             "pass a tensor parameter or a buffer from T.alloc_shared / T.alloc_fragment");
    return std::nullopt;
}

bool regionInBounds(Interpreter& in, const Operand& op, const std::string& what) {
    for (size_t d = 0; d < op.mins.size() && d < op.buffer->rank(); ++d) {
        auto lo = ir::constantInt(op.mins[d]);
        auto ext = ir::constantInt(op.extents[d]);
        auto dim = op.buffer->constantExtent(d);
        if (lo && ext && dim && (*lo < 0 || *lo + *ext > *dim)) {
            in.error("index-out-of-range", op.range,
                     what + " reads [" + std::to_string(*lo) + ", " + std::to_string(*lo + *ext) +
                         ") of dimension " + std::to_string(d) + " of '" + op.buffer->name +
                         "', which has extent " + std::to_string(*dim));
            return false;
        }
    }
    return true;
}

bool fillCorner(Interpreter& in, Operand& corner, const Operand& other, SourceRange range) {
    std::vector<ir::ExprPtr> shape = nonUnit(other.extents);
    size_t rank = corner.buffer->rank();
    if (shape.size() > rank) {
        in.error("copy-extent-mismatch", range,
                 "T.copy cannot place a tile of shape " + shapeText(other.extents) + " at a corner of '" +
                     corner.buffer->name + "', which has only " + std::to_string(rank) + " dimensions",
                 "slice the destination explicitly, e.g. " + corner.buffer->name + "[i, 0:64]");
        return false;
    }
    corner.extents.assign(rank - shape.size(), ir::makeInt(1, ir::DType::Int32, range));
    corner.extents.insert(corner.extents.end(), shape.begin(), shape.end());
    return true;
}

} // namespace tb::elab
