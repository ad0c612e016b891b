// How the layout passes read the Tile IR: the kernels of a module, their thread counts, a preorder walk
// that knows the enclosing loops, the constant shape of a region, and the conversion of IR index
// expressions into the layout algebra's IndexExpr (so a T.Parallel body's `acc_s[i, j]` becomes an access
// map over the loop's placeholders).
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/algebra/IndexExpr.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace tb::passes {

struct KernelRef {
    const ir::PrimFunc* func = nullptr;
    const ir::Stmt* kernel = nullptr;
};

// Every Kernel statement of every PrimFunc, in program order.
std::vector<KernelRef> kernelsOf(const ir::Module& module);

// Product of the kernel's thread extents (1 when none are given).
int64_t blockThreads(const ir::Stmt& kernel);

// Preorder walk of `root` (included); `enclosing` holds the For statements around the visited one,
// outermost first. Stops at ir::kMaxIrDepth.
void walkStmts(const ir::Stmt& root,
               const std::function<void(const ir::Stmt&, const std::vector<const ir::Stmt*>& enclosing)>& fn);

// The buffers `root` writes (stores, copy and fill destinations, atomics, reduction and gemm results).
std::set<const ir::Buffer*> writtenBuffers(const ir::Stmt& root);

// Constant extents of a region (nullopt when one is symbolic).
std::optional<std::vector<int64_t>> constantExtents(const ir::Region& region);
std::optional<std::vector<int64_t>> constantShape(const ir::Buffer& buffer);

// The region's extents without its unit dimensions ({1, 64, 512} -> {64, 512}); positions of the kept ones.
std::vector<size_t> nonUnitDims(const std::vector<int64_t>& extents);

// ir::Expr -> IndexExpr. Vars found in `vars` become the mapped expressions; integer constants, + - * //
// % (and C division, treated as floor division: indices are non-negative), & | ^, min, max and casts
// convert. Anything else (a buffer load, an unmapped var, a float) gives nullopt.
std::optional<layout::IndexExpr> toIndexExpr(const ir::ExprPtr& expr,
                                             const std::map<const ir::Var*, layout::IndexExpr>& vars);

} // namespace tb::passes
