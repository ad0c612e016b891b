// The shared-memory budget view's model: the kernel's shared arena as the kernel-schedule pass laid it out,
// one bar per buffer (bytes per stage x stages) at the offset the generated kernel addresses it at, and bars
// for the cross-warp reduction scratch and the pipelines' mbarriers (before a schedule exists, the buffers
// stacked), against the target's per-block limit line, with the blocks per SM each limit allows
// (engine/target/Occupancy.h: registers once ptxas has reported them, shared memory with the 1 KB per-block
// reservation against the SM's capacity, threads, the block limit) and the limit that binds.
#pragma once

#include "engine/check/SharedMemoryBudget.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/target/Occupancy.h"
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
    int64_t threads = 0;
    Target target;
    Occupancy occupancy;
    std::string registersSource; // where the register count came from ("ptxas, PTX view"); empty: unknown
    // Set when the bars are the shared-memory check's (the check failed, so there is no plan): says so.
    std::string source;

    bool overLimit() const { return limitBytes > 0 && totalBytes > limitBytes; }
    // The scale of the drawing: the larger of the total and the limit.
    int64_t axisBytes() const { return std::max(totalBytes, limitBytes); }
    // "48 KiB of 227 KiB (49152 of 232448 bytes, 21%); 4 blocks/SM (limited by shared memory)"
    std::string summary() const;
    // The limit line's label, on the canvas and in the SVG: "sm_90a limit 227 KiB (232448 B)".
    std::string limitLabel() const;
    // One line per limit: "registers: 5 blocks (96 per thread, ptxas)", ..., the binding one marked.
    std::vector<std::string> occupancyLines() const;
};

// Bytes in the unit people read shared memory in: "48 KiB", "25.4 KiB", "512 B".
std::string kibibytes(int64_t bytes);

BudgetViewModel buildBudgetView(const layout::KernelPlan& kernel, const Target& target);
// The budget the shared-memory check rejected (ProgramAnalysis::rejectedSharedMemory): its buffers, stages
// and total against `target`'s per-block limit, the numbers of the check's diagnostic.
BudgetViewModel buildRejectedBudgetView(const check::KernelSharedMemory& rejected, const Target& target);
// ptxas's registers per thread for the kernel: occupancy is recomputed with them.
void setBudgetRegisters(BudgetViewModel& model, int registersPerThread, std::string source);
std::string budgetViewToSvg(const BudgetViewModel& model);

} // namespace tb::views
