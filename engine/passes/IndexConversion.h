// The conversion of Tile IR index expressions into the layout algebra's IndexExpr, so that a T.Parallel
// body's `acc_s[i, j]` becomes an access map over the loop's placeholders.
#pragma once

#include "engine/ir/Expr.h"
#include "engine/layout/algebra/IndexExpr.h"

#include <map>
#include <optional>

namespace tb::passes {

// ir::Expr -> IndexExpr. Vars found in `vars` become the mapped expressions; integer constants, + - * //
// % (and C division, treated as floor division: indices are non-negative), & | ^, min, max and casts
// convert. Anything else (a buffer load, an unmapped var, a float) gives nullopt.
std::optional<layout::IndexExpr> toIndexExpr(const ir::ExprPtr& expr,
                                             const std::map<const ir::Var*, layout::IndexExpr>& vars);

} // namespace tb::passes
