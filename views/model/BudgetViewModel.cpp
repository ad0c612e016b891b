// Budget bars from the kernel schedule's shared arena (or, before there is one, SharedBufferPlan), and
// SharedMemoryBudgetPlan.
#include "views/model/BudgetViewModel.h"

#include "views/model/SvgWriter.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace tb::views {

std::string kibibytes(int64_t bytes) {
    if (bytes < 1024 && bytes > -1024)
        return std::to_string(bytes) + " B";
    if (bytes % 1024 == 0)
        return std::to_string(bytes / 1024) + " KiB";
    const int64_t tenths = (bytes * 10 + (bytes < 0 ? -512 : 512)) / 1024;
    const int64_t whole = tenths / 10, fraction = (tenths < 0 ? -tenths : tenths) % 10;
    return std::to_string(whole) + "." + std::to_string(fraction) + " KiB";
}

std::string BudgetViewModel::summary() const {
    // KiB to read, the exact bytes to compare with the compiler's numbers.
    std::string s = kibibytes(totalBytes) + " of " + kibibytes(limitBytes) + " (" +
                    std::to_string(totalBytes) + " of " + std::to_string(limitBytes) + " bytes";
    if (limitBytes > 0)
        s += ", " + std::to_string(totalBytes * 100 / limitBytes) + "%";
    s += "); " + occupancy.summary();
    if (overLimit())
        s += "; OVER THE LIMIT by " + kibibytes(totalBytes - limitBytes) + " (" +
             std::to_string(totalBytes - limitBytes) + " bytes)";
    return s;
}

std::string BudgetViewModel::limitLabel() const {
    return targetName + " limit " + kibibytes(limitBytes) + " (" + std::to_string(limitBytes) + " B)";
}

std::vector<std::string> BudgetViewModel::occupancyLines() const {
    auto mark = [&](OccupancyLimiter l) {
        return occupancy.limiter == l && occupancy.blocks > 0 ? "  <- the limit" : "";
    };
    std::vector<std::string> lines;
    lines.push_back(occupancy.registersKnown()
                        ? "registers: " + std::to_string(occupancy.byRegisters) + " blocks (" +
                              std::to_string(occupancy.registersPerThread) + " per thread x " +
                              std::to_string(threads) + " threads, " + registersSource + ")" +
                              mark(OccupancyLimiter::Registers)
                        : std::string("registers: not known before ptxas (open the PTX view, or Run)"));
    lines.push_back("shared memory: " + std::to_string(occupancy.bySharedMemory) + " blocks (" +
                    std::to_string(occupancy.sharedBytesPerBlock) +
                    " B per block with the 1 KB reservation, " + std::to_string(target.sharedMemoryPerSm) +
                    " B per SM)" + mark(OccupancyLimiter::SharedMemory));
    lines.push_back("threads: " + std::to_string(occupancy.byThreads) + " blocks (" +
                    std::to_string(threads) + " per block, " + std::to_string(target.maxThreadsPerSm) +
                    " per SM)" + mark(OccupancyLimiter::Threads));
    lines.push_back("block limit: " + std::to_string(occupancy.byBlockLimit) + " blocks per SM" +
                    mark(OccupancyLimiter::BlockLimit));
    return lines;
}

void setBudgetRegisters(BudgetViewModel& model, int registersPerThread, std::string source) {
    model.registersSource = std::move(source);
    model.occupancy = computeOccupancy(model.target, model.threads, model.totalBytes, registersPerThread);
}

namespace {

// The arena the kernel is launched with (the kernel-schedule pass's offsets, alignment gaps included), then
// the all-reduce scratch and the pipelines' mbarriers, each where the kernel addresses it.
void addArenaBars(BudgetViewModel& model, const layout::KernelPlan& kernel,
                  const layout::SharedArena& arena) {
    const int64_t colors = int64_t(arena.slots.size()) + 2;
    int index = 0;
    for (const layout::SharedArenaSlot& slot : arena.slots) {
        BudgetBar bar;
        bar.buffer = slot.buffer ? slot.buffer->name : "?";
        const layout::SharedBufferPlan* plan = kernel.sharedOf(slot.buffer);
        bar.layout =
            plan && slot.usesPlannedLayout ? layout::sharedLayoutKindName(plan->choice.kind) : "row-major";
        bar.bytesPerStage = slot.stageBytes;
        bar.stages = std::max(1, slot.stages);
        bar.totalBytes = slot.totalBytes();
        bar.startBytes = slot.offset;
        bar.color = categoricalColor(index++, colors);
        model.bars.push_back(std::move(bar));
    }
    auto addRegion = [&](const char* name, const char* what, int64_t offset, int64_t bytes) {
        if (offset < 0 || bytes <= 0)
            return;
        BudgetBar bar;
        bar.buffer = name;
        bar.layout = what;
        bar.bytesPerStage = bytes;
        bar.totalBytes = bytes;
        bar.startBytes = offset;
        bar.color = categoricalColor(index++, colors);
        model.bars.push_back(std::move(bar));
    };
    addRegion("reduce scratch", "cross-warp all-reduce scratch", arena.reduceScratchOffset,
              arena.reduceScratchBytes);
    addRegion("mbarriers", "8 bytes per pipeline stage barrier", arena.barrierOffset, arena.barrierBytes);
    model.totalBytes = arena.totalBytes;
}

// Before a kernel schedule exists (a plan stopped by an error): the buffers' bytes x stages, stacked.
void addStackedBars(BudgetViewModel& model, const layout::KernelPlan& kernel) {
    int64_t start = 0;
    int index = 0;
    for (const layout::SharedBufferPlan& b : kernel.sharedBuffers) {
        BudgetBar bar;
        bar.buffer = b.buffer ? b.buffer->name : "?";
        bar.layout = layout::sharedLayoutKindName(b.choice.kind);
        bar.bytesPerStage = b.bytes;
        bar.stages = std::max(1, b.stages);
        bar.totalBytes = b.bytes * bar.stages;
        bar.startBytes = start;
        bar.color = categoricalColor(index++, std::max<int64_t>(int64_t(kernel.sharedBuffers.size()), 1));
        start += bar.totalBytes;
        model.bars.push_back(std::move(bar));
    }
    model.totalBytes = kernel.budget.totalBytes > 0 ? kernel.budget.totalBytes : start;
}

} // namespace

BudgetViewModel buildBudgetView(const layout::KernelPlan& kernel, const Target& target) {
    BudgetViewModel model;
    model.targetName = target.name;
    model.title =
        "shared memory of " + std::string(kernel.func ? kernel.func->name : "kernel") + " on " + target.name;
    model.limitBytes =
        kernel.budget.limitBytes > 0 ? kernel.budget.limitBytes : target.maxSharedMemoryPerBlock;
    model.threads = std::max<int64_t>(kernel.threads, 1);
    model.target = target;
    const layout::SharedArena& arena = kernel.schedule.arena;
    if (!arena.slots.empty())
        addArenaBars(model, kernel, arena);
    else
        addStackedBars(model, kernel);
    model.occupancy = computeOccupancy(target, model.threads, model.totalBytes);
    return model;
}

BudgetViewModel buildRejectedBudgetView(const check::KernelSharedMemory& rejected, const Target& target) {
    BudgetViewModel model;
    model.targetName = target.name;
    model.title = "shared memory on " + target.name + ": rejected by the shared-memory check";
    model.source = "the shared-memory check's bytes (no layout plan: the program has errors)";
    model.limitBytes = target.maxSharedMemoryPerBlock;
    model.threads = 1;
    if (rejected.kernel)
        for (int64_t t : rejected.kernel->threads)
            model.threads *= std::max<int64_t>(t, 1);
    model.target = target;
    int64_t start = 0;
    int index = 0;
    const int64_t count = std::max<int64_t>(int64_t(rejected.buffers.size()), 1);
    for (const check::SharedBufferBudget& b : rejected.buffers) {
        BudgetBar bar;
        bar.buffer = b.buffer ? b.buffer->name : "?";
        bar.layout = "layout not planned";
        bar.bytesPerStage = b.bytes;
        bar.stages = std::max(1, b.stages);
        bar.totalBytes = b.totalBytes();
        bar.startBytes = start;
        bar.color = categoricalColor(index++, count);
        start += bar.totalBytes;
        model.bars.push_back(std::move(bar));
    }
    model.totalBytes = rejected.totalBytes;
    model.occupancy = computeOccupancy(target, model.threads, model.totalBytes);
    return model;
}

std::string budgetViewToSvg(const BudgetViewModel& model) {
    const double left = 150, width = 560, rowH = 22, top = 54;
    const std::vector<std::string> occupancy = model.occupancyLines();
    double height = top + rowH * double(model.bars.size() + 1) + 44 + 14 * double(occupancy.size());
    SvgWriter svg(left + width + 40, height);
    Rgba black{0, 0, 0, 255};
    svg.text(10, 20, model.title, 14, black, "start", true);
    svg.text(10, 38, model.summary() + (model.source.empty() ? "" : "  [" + model.source + "]"), 10,
             model.overLimit() ? kConflictRed : black);
    double scale = model.axisBytes() > 0 ? width / double(model.axisBytes()) : 0;
    for (size_t i = 0; i < model.bars.size(); ++i) {
        const BudgetBar& bar = model.bars[i];
        double y = top + rowH * double(i);
        svg.text(10, y + 15, bar.buffer + " x" + std::to_string(bar.stages), 10);
        svg.rect(left + double(bar.startBytes) * scale, y + 3, double(bar.totalBytes) * scale, rowH - 6,
                 bar.color);
        svg.title(bar.buffer + ": " + std::to_string(bar.bytesPerStage) + " bytes x " +
                  std::to_string(bar.stages) + " stages = " + std::to_string(bar.totalBytes) + " bytes, " +
                  bar.layout);
    }
    double y = top + rowH * double(model.bars.size());
    svg.text(10, y + 15, "total", 10, black, "start", true);
    for (const BudgetBar& bar : model.bars)
        svg.rect(left + double(bar.startBytes) * scale, y + 3, double(bar.totalBytes) * scale, rowH - 6,
                 bar.color);
    double limitX = left + double(model.limitBytes) * scale;
    svg.line(limitX, top - 6, limitX, y + rowH + 4, kLimitLine, 2, true);
    svg.text(limitX, y + rowH + 18, model.limitLabel(), 10, kLimitLine, "end");
    for (size_t i = 0; i < occupancy.size(); ++i)
        svg.text(10, y + rowH + 36 + 14 * double(i), occupancy[i], 10);
    return svg.str();
}

} // namespace tb::views
