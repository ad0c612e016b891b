// The one integer evaluator of Tile IR expressions: index arithmetic, grid extents, loop bounds, with
// Python's floor division and modulo, comparisons and logic as 0/1, and every way it can fail (an unknown
// variable, a float, a buffer load, division by zero, overflow, nesting past kMaxIrDepth) as nullopt.
// Codegen evaluates launch extents with it, the bank analysis every shared index of a warp's lanes.
#pragma once

#include "engine/ir/Expr.h"

#include <cstdint>
#include <functional>
#include <optional>

namespace tb::ir {

// The value of a variable, or nullopt when it has none here.
using VarValue = std::function<std::optional<int64_t>(const Var&)>;

std::optional<int64_t> evaluateInt(const ExprPtr& expr, const VarValue& valueOf);

} // namespace tb::ir
