// Interval analysis of integer index expressions, so that the JIT can drop the bounds checks it can prove
// unnecessary (a checked load has an early exit, which stops LLVM's loop vectorizer). A range is what an
// expression can evaluate to given the ranges of the vars in scope: block indices [0, grid - 1], loop
// vars [min, min + extent - 1], dynamic dims their value. Anything not understood has no range, and its
// accesses keep their checks. Ranges never claim more than is true: arithmetic that could wrap in the
// expression's dtype has no range.
#pragma once

#include "engine/ir/Expr.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tb::jit {

struct IndexRange {
    int64_t lo = 0;
    int64_t hi = 0; // inclusive
};

class RangeScope {
public:
    void set(const ir::Var* var, std::optional<IndexRange> range);
    std::optional<IndexRange> get(const ir::Var* var) const;

private:
    std::vector<std::optional<IndexRange>> m_ranges; // by Var::id
};

std::optional<IndexRange> rangeOf(const ir::ExprPtr& expr, const RangeScope& scope);

} // namespace tb::jit
