// Suggested fixes for bank conflicts that have a known remedy, each one computed, not canned: an access
// with a conflict on a buffer that is not swizzled gets the kernel's bank analysis re-run with that buffer
// 128B-swizzled, and the fix says what the swizzle would make of the same access ("a 128B swizzle makes this
// 1-way: 64 wavefronts per block instead of 512").
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/target/Target.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb::views {

struct BankFix {
    const ir::Stmt* op = nullptr; // the access it fixes: op, buffer and role as in SharedAccessPlan
    const ir::Buffer* buffer = nullptr;
    std::string role;
    int conflictWays = 0; // with the fix
    int64_t wavefrontsPerBlock = 0;
    std::string remedy;
};

// The fixes for `kernel` (a complete plan) on `target`, the instruction target it was planned for. Only
// accesses the re-run analysis makes strictly cheaper get one.
std::vector<BankFix> findSwizzleFixes(const layout::KernelPlan& kernel, const Target& target);

} // namespace tb::views
