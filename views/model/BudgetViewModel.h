// The shared-memory budget view's model: one bar per shared buffer (bytes per stage x stages), stacked to
// the kernel's total, against the target's per-block limit line, with the blocks per SM each limit allows.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/target/Target.h"
#include "views/model/Color.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tb::views {

struct BudgetBar {
    std::string buffer;
    std::string layout; // "swizzle-128B"
    int64_t bytesPerStage = 0;
    int stages = 1;
    int64_t totalBytes = 0;
    int64_t startBytes = 0; // where the bar starts in the stacked total
    Rgba color;
};

struct BudgetViewModel {
    std::string title;
    std::string targetName;
    std::vector<BudgetBar> bars;
    int64_t totalBytes = 0;
    int64_t limitBytes = 0;
    int64_t blocksPerSm = 0, blocksBySharedMemory = 0, blocksByThreads = 0;

    bool overLimit() const { return limitBytes > 0 && totalBytes > limitBytes; }
    // The scale of the drawing: the larger of the total and the limit.
    int64_t axisBytes() const { return std::max(totalBytes, limitBytes); }
    std::string summary() const; // "49152 of 232448 bytes (21%); 4 blocks/SM (limited by threads)"
};

BudgetViewModel buildBudgetView(const layout::KernelPlan& kernel, const Target& target);
std::string budgetViewToSvg(const BudgetViewModel& model);

} // namespace tb::views
