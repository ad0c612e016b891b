// Interval arithmetic over the integer subset of the Tile IR's expressions, in 128-bit intermediates so
// that products of 64-bit bounds cannot overflow before the dtype-range check.
#include "engine/jit/IndexRanges.h"

#include "engine/ir/DType.h"

#include <algorithm>

namespace tb::jit {

namespace {

using Wide = __int128;

struct WideRange {
    Wide lo, hi;
};

std::optional<WideRange> dtypeLimits(ir::DType type) {
    switch (type) {
    case ir::DType::Int8:
        return WideRange{-128, 127};
    case ir::DType::Int16:
        return WideRange{-32768, 32767};
    case ir::DType::Int32:
        return WideRange{INT32_MIN, INT32_MAX};
    case ir::DType::Int64:
        return WideRange{INT64_MIN, INT64_MAX};
    case ir::DType::UInt8:
        return WideRange{0, 255};
    case ir::DType::UInt16:
        return WideRange{0, 65535};
    case ir::DType::UInt32:
        return WideRange{0, UINT32_MAX};
    default:
        return std::nullopt; // bool, uint64 and floats are not index arithmetic we reason about
    }
}

std::optional<IndexRange> fitted(WideRange r, ir::DType type) {
    auto limits = dtypeLimits(type);
    if (!limits || r.lo < limits->lo || r.hi > limits->hi || r.lo > r.hi)
        return std::nullopt;
    return IndexRange{static_cast<int64_t>(r.lo), static_cast<int64_t>(r.hi)};
}

Wide floorDiv(Wide a, Wide b) {
    Wide q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

std::optional<IndexRange> binaryRange(const ir::Expr& e, IndexRange a, IndexRange b) {
    WideRange r{0, 0};
    switch (e.binaryOp) {
    case ir::BinaryOp::Add:
        r = {Wide(a.lo) + b.lo, Wide(a.hi) + b.hi};
        break;
    case ir::BinaryOp::Sub:
        r = {Wide(a.lo) - b.hi, Wide(a.hi) - b.lo};
        break;
    case ir::BinaryOp::Mul: {
        Wide c[4] = {Wide(a.lo) * b.lo, Wide(a.lo) * b.hi, Wide(a.hi) * b.lo, Wide(a.hi) * b.hi};
        r = {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
        break;
    }
    case ir::BinaryOp::FloorDiv:
    case ir::BinaryOp::Div:
        if (b.lo != b.hi || b.lo <= 0)
            return std::nullopt;
        if (e.binaryOp == ir::BinaryOp::Div && a.lo < 0)
            return std::nullopt; // truncation toward zero: keep it simple
        r = {floorDiv(a.lo, b.lo), floorDiv(a.hi, b.lo)};
        break;
    case ir::BinaryOp::FloorMod:
        if (b.lo != b.hi || b.lo <= 0)
            return std::nullopt;
        if (a.lo >= 0 && a.hi < b.lo)
            r = {a.lo, a.hi};
        else
            r = {0, Wide(b.lo) - 1};
        break;
    case ir::BinaryOp::Min:
        r = {std::min<Wide>(a.lo, b.lo), std::min<Wide>(a.hi, b.hi)};
        break;
    case ir::BinaryOp::Max:
        r = {std::max<Wide>(a.lo, b.lo), std::max<Wide>(a.hi, b.hi)};
        break;
    default:
        return std::nullopt;
    }
    return fitted(r, e.dtype);
}

} // namespace

void RangeScope::set(const ir::Var* var, std::optional<IndexRange> range) {
    size_t id = static_cast<size_t>(var->id);
    if (id >= m_ranges.size())
        m_ranges.resize(id + 1);
    m_ranges[id] = range;
}

std::optional<IndexRange> RangeScope::get(const ir::Var* var) const {
    size_t id = static_cast<size_t>(var->id);
    return id < m_ranges.size() ? m_ranges[id] : std::nullopt;
}

std::optional<IndexRange> rangeOf(const ir::ExprPtr& expr, const RangeScope& scope) {
    if (!expr)
        return std::nullopt;
    const ir::Expr& e = *expr;
    switch (e.kind) {
    case ir::ExprKind::IntImm:
        return fitted({e.intValue, e.intValue}, e.dtype);
    case ir::ExprKind::VarRef: {
        auto r = scope.get(e.var);
        return r ? fitted({r->lo, r->hi}, e.dtype) : std::nullopt;
    }
    case ir::ExprKind::Cast: {
        if (e.operands.size() != 1 || !ir::isInteger(e.operands[0]->dtype))
            return std::nullopt;
        auto r = rangeOf(e.operands[0], scope);
        return r ? fitted({r->lo, r->hi}, e.dtype) : std::nullopt;
    }
    case ir::ExprKind::Binary: {
        if (e.operands.size() != 2 || !ir::isInteger(e.operands[0]->dtype) ||
            !ir::isInteger(e.operands[1]->dtype) || e.operands[0]->dtype == ir::DType::UInt64 ||
            e.operands[1]->dtype == ir::DType::UInt64)
            return std::nullopt;
        auto a = rangeOf(e.operands[0], scope);
        auto b = rangeOf(e.operands[1], scope);
        if (!a || !b)
            return std::nullopt;
        return binaryRange(e, *a, *b);
    }
    case ir::ExprKind::Select: {
        if (e.operands.size() != 3)
            return std::nullopt;
        auto a = rangeOf(e.operands[1], scope);
        auto b = rangeOf(e.operands[2], scope);
        if (!a || !b || e.operands[1]->dtype != e.dtype || e.operands[2]->dtype != e.dtype)
            return std::nullopt;
        return fitted({std::min(a->lo, b->lo), std::max(a->hi, b->hi)}, e.dtype);
    }
    default:
        return std::nullopt;
    }
}

} // namespace tb::jit
