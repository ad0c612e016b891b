// Data movement from the kernel's plan: the tile ops in program order with their regions' bytes, the
// trip counts of the loops around them, and the instruction the plan chose for each.
#include "views/model/DataMovementViewModel.h"

#include "engine/ir/IrQueries.h"
#include "views/model/Color.h"
#include "views/model/SvgWriter.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::views {

namespace {

MemoryLevel levelOf(const ir::Buffer* buffer) {
    if (!buffer)
        return MemoryLevel::Global;
    switch (buffer->scope) {
    case ir::MemoryScope::Global:
        return MemoryLevel::Global;
    case ir::MemoryScope::Shared:
        return MemoryLevel::Shared;
    default:
        return MemoryLevel::Registers;
    }
}

int64_t regionBytes(const ir::Region& region) {
    if (!region.buffer)
        return -1;
    auto extents = ir::constantExtents(region);
    if (!extents)
        return -1;
    int64_t n = ir::dtypeBytes(region.buffer->dtype);
    for (int64_t e : *extents)
        n *= e;
    return n;
}

int64_t bufferBytes(const ir::Buffer& b) {
    auto count = b.constantElementCount();
    return count ? *count * ir::dtypeBytes(b.dtype) : -1;
}

std::string shapeText(const ir::Buffer& b) {
    std::string s = "[";
    for (size_t i = 0; i < b.rank(); ++i) {
        auto e = b.constantExtent(i);
        s += (i ? ", " : "") + (e ? std::to_string(*e) : std::string("?"));
    }
    return s + "]";
}

// Trip counts of the For statements around an op; -1 when one is symbolic.
int64_t executionsOf(const std::vector<const ir::Stmt*>& enclosing) {
    int64_t n = 1;
    for (const ir::Stmt* loop : enclosing) {
        auto extent = ir::constantInt(loop->extent);
        if (!extent)
            return -1;
        n *= std::max<int64_t>(*extent, 0);
    }
    return n;
}

std::string copyInstruction(const layout::KernelPlan& kernel, const ir::Stmt& copy) {
    if (const layout::TmaCopyPlan* tma = kernel.schedule.tmaOf(&copy))
        return "TMA" +
               std::string(tma->swizzleBytes ? ", " + std::to_string(tma->swizzleBytes) + "B swizzle" : "");
    for (const layout::CopyPlan& c : kernel.copies)
        if (c.copy == &copy) {
            std::string name = layout::copyInstructionName(c.instruction);
            if (c.vectorWidth > 1 && copy.src.buffer)
                name += " " + std::to_string(c.vectorWidth * ir::dtypeBytes(copy.src.buffer->dtype)) + " B";
            return name;
        }
    return "";
}

std::string gemmInstruction(const layout::KernelPlan& kernel, const ir::Stmt& gemm) {
    for (const layout::GemmPlan& g : kernel.gemms)
        if (g.gemm == &gemm)
            return g.instruction.name;
    return "";
}

std::string reduceInstruction(const layout::KernelPlan& kernel, const ir::Stmt& reduce) {
    for (const layout::ReducePlan& r : kernel.reduces)
        if (r.reduce == &reduce) {
            std::string s = r.shuffleOffsets.empty()
                                ? "in registers"
                                : std::to_string(r.shuffleOffsets.size()) + " warp shuffles";
            if (!r.sharedOffsets.empty())
                s += " + " + std::to_string(r.sharedOffsets.size()) + " round(s) through shared scratch";
            return s;
        }
    return "";
}

// The move one tile op makes, or nothing for statements that move no data between buffers.
std::optional<DataMove> moveOf(const layout::KernelPlan& kernel, const ir::Stmt& s) {
    DataMove m;
    switch (s.kind) {
    case ir::StmtKind::Copy:
    case ir::StmtKind::AtomicAdd:
        if (!s.src.buffer || !s.dst.buffer)
            return std::nullopt;
        m.op = s.kind == ir::StmtKind::Copy ? "copy" : "atomic_add";
        m.from = {s.src.buffer->name};
        m.fromLevel = levelOf(s.src.buffer);
        m.to = s.dst.buffer->name;
        m.toLevel = levelOf(s.dst.buffer);
        // What crosses to or from global memory is that side's bytes (a float32 accumulator stored as float16
        // writes half its bytes); elsewhere the source's.
        m.bytesPerExecution = regionBytes(m.toLevel == MemoryLevel::Global ? s.dst : s.src);
        m.instruction = s.kind == ir::StmtKind::Copy ? copyInstruction(kernel, s) : "atomics";
        return m;
    case ir::StmtKind::Gemm: {
        if (!s.a.buffer || !s.b.buffer || !s.c.buffer)
            return std::nullopt;
        m.op = "gemm";
        m.from = {s.a.buffer->name, s.b.buffer->name};
        // The operands' level: a register A operand (wgmma RS, or mma.sync's A from a fragment) reads the
        // B tile from shared memory only; the view draws the arrow from the farther level.
        m.fromLevel = levelOf(s.b.buffer) == MemoryLevel::Shared || levelOf(s.a.buffer) == MemoryLevel::Shared
                          ? MemoryLevel::Shared
                          : MemoryLevel::Registers;
        m.to = s.c.buffer->name;
        m.toLevel = levelOf(s.c.buffer);
        int64_t a = regionBytes(s.a), b = regionBytes(s.b);
        m.bytesPerExecution = a < 0 || b < 0 ? -1 : a + b;
        m.instruction = gemmInstruction(kernel, s);
        return m;
    }
    case ir::StmtKind::Reduce:
        if (!s.srcBuffer || !s.dstBuffer)
            return std::nullopt;
        m.op = std::string("reduce_") + ir::reduceKindName(s.reduceKind);
        m.from = {s.srcBuffer->name};
        m.fromLevel = levelOf(s.srcBuffer);
        m.to = s.dstBuffer->name;
        m.toLevel = levelOf(s.dstBuffer);
        m.bytesPerExecution = bufferBytes(*s.srcBuffer);
        m.instruction = reduceInstruction(kernel, s);
        return m;
    default:
        return std::nullopt;
    }
}

void addBuffers(DataMovementViewModel& model, const layout::KernelPlan& kernel) {
    std::vector<const ir::Buffer*> all;
    if (kernel.func) {
        all = kernel.func->params;
        all.insert(all.end(), kernel.func->workspaces.begin(), kernel.func->workspaces.end());
    }
    if (kernel.kernel)
        all.insert(all.end(), kernel.kernel->allocations.begin(), kernel.kernel->allocations.end());
    for (MemoryLevel level : {MemoryLevel::Global, MemoryLevel::Shared, MemoryLevel::Registers})
        for (const ir::Buffer* b : all) {
            if (!b || levelOf(b) != level)
                continue;
            MovedBuffer m;
            m.name = b->name;
            m.level = level;
            m.shape = shapeText(*b);
            m.dtype = ir::dtypeName(b->dtype);
            m.bytes = bufferBytes(*b);
            if (const layout::SharedArenaSlot* slot = kernel.schedule.arena.slotOf(b))
                m.stages = std::max(1, slot->stages);
            model.buffers.push_back(std::move(m));
        }
}

void addGlobalTotals(DataMovementViewModel& model) {
    for (const DataMove& m : model.moves) {
        int64_t bytes = m.bytesPerBlock();
        int64_t* total = m.fromLevel == MemoryLevel::Global ? &model.globalBytesReadPerBlock
                         : m.toLevel == MemoryLevel::Global ? &model.globalBytesWrittenPerBlock
                                                            : nullptr;
        if (!total || *total < 0)
            continue;
        *total = bytes < 0 ? -1 : *total + bytes;
    }
}

} // namespace

const char* memoryLevelName(MemoryLevel level) {
    switch (level) {
    case MemoryLevel::Global:
        return "global memory";
    case MemoryLevel::Shared:
        return "shared memory";
    case MemoryLevel::Registers:
        return "registers";
    }
    return "?";
}

std::string formatBytes(int64_t bytes) {
    if (bytes < 0)
        return "?";
    auto scaled = [&](double unit, const char* name) {
        std::string s = SvgWriter::number(double(bytes) / unit);
        return s + " " + name;
    };
    if (bytes >= (int64_t(1) << 30))
        return scaled(double(int64_t(1) << 30), "GiB");
    if (bytes >= (int64_t(1) << 20))
        return scaled(double(int64_t(1) << 20), "MiB");
    if (bytes >= 1024)
        return scaled(1024.0, "KiB");
    return std::to_string(bytes) + " B";
}

int64_t DataMove::bytesPerBlock() const {
    return bytesPerExecution < 0 || executionsPerBlock < 0 ? -1 : bytesPerExecution * executionsPerBlock;
}

std::string DataMove::summary() const {
    std::string sources;
    for (const std::string& f : from)
        sources += (sources.empty() ? "" : ", ") + f;
    std::string s = "line " + std::to_string(line) + " " + op + " " + sources + " -> " + to + ": " +
                    formatBytes(bytesPerExecution);
    if (executionsPerBlock != 1)
        s += " x " + (executionsPerBlock < 0 ? std::string("?") : std::to_string(executionsPerBlock)) +
             " = " + formatBytes(bytesPerBlock());
    s += " per block";
    if (!instruction.empty())
        s += " (" + instruction + ")";
    return s;
}

const MovedBuffer* DataMovementViewModel::buffer(const std::string& name) const {
    for (const MovedBuffer& b : buffers)
        if (b.name == name)
            return &b;
    return nullptr;
}

DataMovementViewModel buildDataMovementView(const layout::KernelPlan& kernel, const SourceManager& sources) {
    DataMovementViewModel model;
    model.title = "data movement of " + std::string(kernel.func ? kernel.func->name : "kernel");
    addBuffers(model, kernel);
    if (!kernel.kernel)
        return model;
    std::map<const ir::Stmt*, int> pipelineIndex;
    ir::walkStmts(*kernel.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>& enclosing) {
        if (s.kind == ir::StmtKind::For && s.loopKind == ir::LoopKind::Pipelined) {
            PipelineStages p;
            p.line = sources.lineOf(s.range);
            p.iterations = ir::constantInt(s.extent).value_or(-1);
            if (const layout::PipelineSchedule* schedule = kernel.schedule.pipelineOf(&s)) {
                p.stages = schedule->stages;
                p.shape = layout::pipelineShapeName(schedule->shape);
                p.description = schedule->description;
            } else {
                p.stages = std::max(1, s.pipeline.numStages);
            }
            pipelineIndex[&s] = int(model.pipelines.size());
            model.pipelines.push_back(std::move(p));
            return;
        }
        std::optional<DataMove> move = moveOf(kernel, s);
        if (!move)
            return;
        move->line = sources.lineOf(s.range);
        move->executionsPerBlock = executionsOf(enclosing);
        for (auto it = enclosing.rbegin(); it != enclosing.rend() && move->pipeline < 0; ++it)
            if (auto found = pipelineIndex.find(*it); found != pipelineIndex.end())
                move->pipeline = found->second;
        model.moves.push_back(std::move(*move));
    });
    addGlobalTotals(model);
    return model;
}

std::string dataMovementViewToSvg(const DataMovementViewModel& model) {
    // Three columns, one per memory level; each buffer a box in its level's column; each move an arrow
    // from each of its sources' boxes to its destination's box, and a row with its bytes.
    const double column = 230, left = 20, top = 60, boxH = 34, rowH = 18;
    const MemoryLevel levels[] = {MemoryLevel::Global, MemoryLevel::Shared, MemoryLevel::Registers};
    std::map<std::string, std::pair<double, double>> anchor; // buffer -> box centre
    double bottom = top;
    for (int l = 0; l < 3; ++l) {
        double y = top + 10;
        for (const MovedBuffer& b : model.buffers)
            if (b.level == levels[l]) {
                anchor[b.name] = {left + column * l + column / 2, y + boxH / 2};
                y += boxH + 8;
            }
        bottom = std::max(bottom, y);
    }
    const double arrowsTop = bottom + 20;
    const double height = arrowsTop + rowH * double(model.moves.size() + model.pipelines.size() + 2) + 30;
    SvgWriter svg(left * 2 + column * 3, height);
    const Rgba black{0, 0, 0, 255}, box{235, 240, 250, 255}, edge{90, 100, 120, 255};
    svg.text(left, 22, model.title, 14, black, "start", true);
    svg.text(left, 40,
             "global bytes per block: read " + formatBytes(model.globalBytesReadPerBlock) + ", written " +
                 formatBytes(model.globalBytesWrittenPerBlock),
             10);
    for (int l = 0; l < 3; ++l)
        svg.text(left + column * l + column / 2, top, memoryLevelName(levels[l]), 11, black, "middle", true);
    for (const MovedBuffer& b : model.buffers) {
        auto [cx, cy] = anchor[b.name];
        svg.rect(cx - column / 2 + 10, cy - boxH / 2, column - 20, boxH, box, &edge);
        svg.text(cx, cy - 3,
                 b.name + " " + b.shape + (b.stages > 1 ? " x" + std::to_string(b.stages) + " stages" : ""),
                 10, black, "middle", true);
        svg.text(cx, cy + 11, b.dtype + ", " + formatBytes(b.bytes), 9, black, "middle");
    }
    for (size_t i = 0; i < model.moves.size(); ++i) {
        const DataMove& m = model.moves[i];
        const Rgba color = categoricalColor(int(i), int64_t(std::max<size_t>(model.moves.size(), 1)));
        auto to = anchor.find(m.to);
        for (const std::string& source : m.from) {
            auto from = anchor.find(source);
            if (from == anchor.end() || to == anchor.end())
                continue;
            svg.line(from->second.first, from->second.second, to->second.first, to->second.second, color, 2);
            svg.circle(to->second.first, to->second.second, 4, color);
            svg.title(m.summary());
        }
        svg.rect(left, arrowsTop + rowH * double(i) - 9, 10, 10, color);
        svg.text(left + 16, arrowsTop + rowH * double(i), m.summary(), 10);
    }
    double y = arrowsTop + rowH * double(model.moves.size()) + 8;
    for (const PipelineStages& p : model.pipelines) {
        y += rowH;
        svg.text(left, y,
                 "T.Pipelined at line " + std::to_string(p.line) + ": " + std::to_string(p.stages) +
                     " stage(s), " + (p.iterations < 0 ? std::string("?") : std::to_string(p.iterations)) +
                     " iterations" + (p.description.empty() ? "" : " - " + p.shape + ": " + p.description),
                 10);
    }
    return svg.str();
}

} // namespace tb::views
