// Budget bars from SharedBufferPlan and SharedMemoryBudgetPlan.
#include "views/model/BudgetViewModel.h"

#include "views/model/SvgWriter.h"

#include <algorithm>
#include <utility>

namespace tb::views {

std::string BudgetViewModel::summary() const {
    std::string s = std::to_string(totalBytes) + " of " + std::to_string(limitBytes) + " bytes";
    if (limitBytes > 0)
        s += " (" + std::to_string(totalBytes * 100 / limitBytes) + "%)";
    s += "; " + std::to_string(blocksPerSm) + " blocks/SM";
    if (blocksPerSm > 0)
        s +=
            blocksBySharedMemory <= blocksByThreads ? " (limited by shared memory)" : " (limited by threads)";
    if (overLimit())
        s += "; OVER THE LIMIT by " + std::to_string(totalBytes - limitBytes) + " bytes";
    return s;
}

BudgetViewModel buildBudgetView(const layout::KernelPlan& kernel, const Target& target) {
    BudgetViewModel model;
    model.targetName = target.name;
    model.title =
        "shared memory of " + std::string(kernel.func ? kernel.func->name : "kernel") + " on " + target.name;
    model.limitBytes =
        kernel.budget.limitBytes > 0 ? kernel.budget.limitBytes : target.maxSharedMemoryPerBlock;
    model.blocksPerSm = kernel.budget.blocksPerSm;
    model.blocksBySharedMemory = kernel.budget.blocksPerSmBySharedMemory;
    model.blocksByThreads = kernel.budget.blocksPerSmByThreads;
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
    return model;
}

std::string budgetViewToSvg(const BudgetViewModel& model) {
    const double left = 150, width = 560, rowH = 22, top = 54;
    double height = top + rowH * double(model.bars.size() + 1) + 40;
    SvgWriter svg(left + width + 40, height);
    Rgba black{0, 0, 0, 255};
    svg.text(10, 20, model.title, 14, black, "start", true);
    svg.text(10, 38, model.summary(), 10, model.overLimit() ? kConflictRed : black);
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
    svg.text(limitX, y + rowH + 18, model.targetName + " limit " + std::to_string(model.limitBytes), 10,
             kLimitLine, "end");
    return svg.str();
}

} // namespace tb::views
