// Shared-memory budget and occupancy by shared memory, threads and the block limit (see the header).
#include "engine/passes/SharedMemoryPlanning.h"

#include "engine/target/Occupancy.h"

#include <algorithm>
#include <cstdint>

namespace tb::passes {

void runSharedMemoryPlanning(const ir::Module&, layout::LayoutPlan& plan, const PassContext& context,
                             DiagnosticEngine&) {
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
    }
}

} // namespace tb::passes
