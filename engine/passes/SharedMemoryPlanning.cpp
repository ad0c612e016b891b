// Shared-memory budget and occupancy by shared memory, threads and the block limit, and whether a
// cooperative launch fits (see the header).
#include "engine/passes/SharedMemoryPlanning.h"

#include "engine/ir/IrQueries.h"
#include "engine/target/Occupancy.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::passes {

namespace {

// A kernel with a grid barrier: every block of the grid must be resident at once.
void planCooperativeLaunch(layout::KernelPlan& kernel, const Target& target, DiagnosticEngine& diagnostics) {
    layout::CooperativeLaunchPlan& coop = kernel.cooperative;
    coop = {};
    ir::walkStmts(*kernel.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
        if (s.kind == ir::StmtKind::GridSync && !coop.required) {
            coop.required = true;
            coop.barrier = s.range;
        }
    });
    if (!coop.required)
        return;
    coop.residentBlocks = kernel.budget.blocksPerSm * target.smCount;
    int64_t blocks = 1;
    for (const ir::ExprPtr& extent : kernel.kernel->grid) {
        std::optional<int64_t> value = ir::constantInt(extent);
        if (!value)
            return; // known at launch: the runner checks it then
        blocks *= std::max<int64_t>(*value, 0);
    }
    coop.gridBlocks = blocks;
    // A block that does not fit at all is the shared-memory or thread check's error already.
    if (kernel.budget.blocksPerSm == 0 || blocks <= coop.residentBlocks)
        return;
    Occupancy o = computeOccupancy(target, std::max<int64_t>(kernel.threads, 1), kernel.budget.totalBytes);
    Diagnostic& d = diagnostics.error(
        "grid-not-co-resident", kernel.kernel->range,
        "the kernel waits at a grid barrier (T.sync_grid), so all " + std::to_string(blocks) +
            " blocks of its grid must be resident at once, but " + target.name + " holds at most " +
            std::to_string(coop.residentBlocks) + " (" + o.summary() + " x " +
            std::to_string(target.smCount) + " SMs): the cooperative launch would fail",
        "launch at most " + std::to_string(coop.residentBlocks) +
            " blocks and loop over the work in each (a persistent kernel; driver.get_num_sms() gives " +
            std::to_string(target.smCount) + " SMs), or use less shared memory or fewer threads per block");
    d.notes.push_back({coop.barrier, "the grid barrier"});
}

} // namespace

void runSharedMemoryPlanning(const ir::Module&, layout::LayoutPlan& plan, const PassContext& context,
                             DiagnosticEngine& diagnostics) {
    const Target& target = context.target;
    for (layout::KernelPlan& kernel : plan.kernels) {
        // The arena the kernel really allocates (kernel-schedule: stage copies, 128-byte slot alignment,
        // the reduction scratch), not just the sum of the buffers.
        layout::SharedMemoryBudgetPlan& bp = kernel.budget;
        bp.totalBytes = kernel.schedule.arena.launchBytes();
        bp.limitBytes = target.maxSharedMemoryPerBlock;
        // The one occupancy rule (engine/target/Occupancy.h): the SM's capacity, not the per-block opt-in
        // limit, and the 1 KB the runtime reserves per block. Registers are not known before ptxas.
        Occupancy o = computeOccupancy(target, std::max<int64_t>(kernel.threads, 1), bp.totalBytes);
        bp.blocksPerSmByThreads = o.byThreads;
        bp.blocksPerSmBySharedMemory = o.bySharedMemory;
        bp.blocksPerSm = o.blocks;
        if (kernel.kernel)
            planCooperativeLaunch(kernel, target, diagnostics);
    }
}

} // namespace tb::passes
