// Shared-memory budget and occupancy by shared memory, threads and the block limit (see the header).
#include "engine/passes/SharedMemoryPlanning.h"

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
        bp.totalBytes = kernel.schedule.arena.totalBytes;
        bp.limitBytes = target.maxSharedMemoryPerBlock;
        const int64_t threads = std::max<int64_t>(kernel.threads, 1);
        bp.blocksPerSmByThreads = threads > target.maxThreadsPerBlock ? 0 : target.maxThreadsPerSm / threads;
        if (bp.totalBytes > bp.limitBytes)
            bp.blocksPerSmBySharedMemory = 0;
        else if (bp.totalBytes == 0)
            bp.blocksPerSmBySharedMemory = target.maxBlocksPerSm;
        else
            bp.blocksPerSmBySharedMemory = target.sharedMemoryPerSm / bp.totalBytes;
        bp.blocksPerSm = std::min<int64_t>(
            {bp.blocksPerSmBySharedMemory, bp.blocksPerSmByThreads, int64_t(target.maxBlocksPerSm)});
    }
}

} // namespace tb::passes
