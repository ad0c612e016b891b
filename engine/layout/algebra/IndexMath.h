// Integer helpers shared by the layout algebra: Python-style floor division and modulo, checked
// arithmetic that reports overflow instead of wrapping, and saturating arithmetic for interval bounds.
#pragma once

#include "engine/layout/algebra/IndexExpr.h"

#include <cstdint>
#include <numeric>
#include <optional>

namespace tb::layout {

// Precondition: b != 0 and not (a == INT64_MIN && b == -1).
inline int64_t pyFloorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

inline int64_t pyFloorMod(int64_t a, int64_t b) {
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

inline int64_t saturate(int64_t v) {
    if (v > kUnboundedIndex)
        return kUnboundedIndex;
    if (v < -kUnboundedIndex)
        return -kUnboundedIndex;
    return v;
}

inline int64_t saturatingAdd(int64_t a, int64_t b) {
    return saturate(a + b);
} // |a|,|b| <= 2^60

inline int64_t saturatingMul(int64_t a, int64_t b) {
    __int128 p = __int128(a) * __int128(b);
    if (p > kUnboundedIndex)
        return kUnboundedIndex;
    if (p < -kUnboundedIndex)
        return -kUnboundedIndex;
    return int64_t(p);
}

inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

// One binary operation on concrete values, or nullopt on division by zero / overflow.
inline std::optional<int64_t> applyBinary(IndexExprKind kind, int64_t a, int64_t b) {
    switch (kind) {
    case IndexExprKind::Add:
        return checkedAdd(a, b);
    case IndexExprKind::Mul:
        return checkedMul(a, b);
    case IndexExprKind::FloorDiv:
        if (b == 0 || (a == INT64_MIN && b == -1))
            return std::nullopt;
        return pyFloorDiv(a, b);
    case IndexExprKind::FloorMod:
        if (b == 0)
            return std::nullopt;
        if (b == -1)
            return 0;
        return pyFloorMod(a, b);
    case IndexExprKind::Xor:
        return a ^ b;
    case IndexExprKind::And:
        return a & b;
    case IndexExprKind::Or:
        return a | b;
    case IndexExprKind::Min:
        return a < b ? a : b;
    case IndexExprKind::Max:
        return a > b ? a : b;
    case IndexExprKind::Constant:
    case IndexExprKind::Var:
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace tb::layout
