// The kernel schedule: shared arena and pipelines (see KernelSchedule.h).
#include "engine/passes/KernelSchedule.h"

#include "engine/check/SharedMemoryBudget.h"
#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"
#include "engine/passes/HopperSchedule.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tb::passes {

namespace {

using ir::MemoryScope;
using ir::Stmt;
using ir::StmtKind;
using BufferSet = std::set<const ir::Buffer*>;

constexpr int64_t kSlotAlignment = 128;
constexpr int64_t kSwizzleRepeat = 1024; // a 128B swizzle repeats every 8 rows of 128 bytes

int64_t alignUp(int64_t value, int64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

std::vector<const Stmt*> loopBody(const Stmt& loop) {
    std::vector<const Stmt*> body;
    if (loop.body && loop.body->kind == StmtKind::Seq)
        for (const ir::StmtPtr& c : loop.body->stmts)
            body.push_back(c.get());
    else if (loop.body)
        body.push_back(loop.body.get());
    return body;
}

const layout::CopyPlan* copyPlanOf(const layout::KernelPlan& kernel, const Stmt& copy) {
    for (const layout::CopyPlan& c : kernel.copies)
        if (c.copy == &copy)
            return &c;
    return nullptr;
}

// True when the region's corner reads no buffer: the copy's address is known before the loop body runs
// (TileLang would also have to pipeline the statements that compute it).
bool addressFromIndicesOnly(const ir::Region& region) {
    bool loads = false;
    for (const ir::ExprPtr& m : region.mins)
        ir::forEachExprNode(m,
                            [&](const ir::Expr& e) { loads = loads || e.kind == ir::ExprKind::BufferLoad; });
    return !loads;
}

// One slot per shared buffer in allocation order, each on a 128-byte boundary, then the reduction scratch.
void planArena(const Stmt& kernelStmt, layout::KernelPlan& kernel, DiagnosticEngine& diagnostics) {
    layout::SharedArena& arena = kernel.schedule.arena;
    arena = {};
    arena.alignment = kSlotAlignment;
    std::map<const ir::Buffer*, check::PipelineStages> stages = check::pipelineCopyStages(kernelStmt);
    int64_t offset = 0;
    for (const ir::Buffer* b : kernelStmt.allocations) {
        if (!b || (b->scope != MemoryScope::Shared && b->scope != MemoryScope::Barrier))
            continue;
        std::optional<std::vector<int64_t>> shape = ir::constantShape(*b);
        if (!shape) {
            diagnostics.error("schedule-dynamic-shared", b->range,
                              "shared buffer '" + b->name + "' has a symbolic shape",
                              "give shared buffers compile-time shapes");
            continue;
        }
        layout::SharedArenaSlot slot;
        slot.buffer = b;
        slot.stageElements = layout::shapeSize(*shape);
        // The chosen layout addresses the buffer's trailing dimensions (leading ones, such as a stage
        // dimension the program declared itself, pass through); a padded layout is larger than the shape.
        if (const layout::SharedBufferPlan* sp = kernel.sharedOf(b)) {
            const layout::Layout& l = sp->choice.layout;
            size_t r = l.inputShape().size();
            bool matches = r >= 1 && r <= shape->size();
            for (size_t d = 0; matches && d < r; ++d)
                matches = l.inputShape()[d] == (*shape)[shape->size() - r + d];
            if (matches) {
                slot.usesPlannedLayout = true;
                int64_t lead = 1;
                for (size_t d = 0; d + r < shape->size(); ++d)
                    lead *= (*shape)[d];
                slot.stageElements = lead * l.outputSize();
            }
        }
        slot.stageBytes = slot.stageElements * ir::dtypeBytes(b->dtype);
        if (auto it = stages.find(b); it != stages.end()) {
            slot.stages = it->second.stages;
            slot.pipelinedLoop = it->second.loop;
        }
        if (needsSwizzleAlignment(kernel, b)) {
            slot.alignment = kSwizzleRepeat;
            arena.baseAlignment = kSwizzleRepeat;
        }
        offset = alignUp(offset, std::max(arena.alignment, slot.alignment));
        slot.offset = offset;
        offset += slot.totalBytes();
        arena.slots.push_back(slot);
    }
    bool needsScratch = false;
    for (const layout::ReducePlan& rp : kernel.reduces)
        needsScratch = needsScratch || !rp.sharedOffsets.empty() || rp.throughSharedMemory;
    if (needsScratch) {
        offset = alignUp(offset, arena.alignment);
        arena.reduceScratchOffset = offset;
        arena.reduceScratchBytes = kernel.threads * 8;
        offset += arena.reduceScratchBytes;
    }
    arena.totalBytes = offset;
}

void checkArenaFits(const Stmt& kernelStmt, const layout::SharedArena& arena, const Target& target,
                    DiagnosticEngine& diagnostics) {
    if (target.maxSharedMemoryPerBlock > 0 && arena.launchBytes() > target.maxSharedMemoryPerBlock)
        diagnostics.error("schedule-shared-memory", kernelStmt.range,
                          "the kernel needs " + std::to_string(arena.launchBytes()) +
                              " bytes of shared memory, more than the " +
                              std::to_string(target.maxSharedMemoryPerBlock) + " a block may use on " +
                              target.name,
                          "use smaller tiles or fewer pipeline stages");
}

// num_stages = 1 in TileLang's order: a cp.async copy into a tile that no earlier statement reads and no
// other statement writes moves to right after the last statement that reads the tile, for the next chunk.
std::vector<layout::PipelineCopy> earlyIssueCopies(const layout::KernelPlan& kernel,
                                                   const std::vector<const Stmt*>& body) {
    std::vector<layout::PipelineCopy> out;
    std::vector<BufferSet> reads(body.size()), writes(body.size());
    for (size_t i = 0; i < body.size(); ++i)
        ir::sharedEffects(*body[i], reads[i], writes[i]);
    for (size_t i = 0; i < body.size(); ++i) {
        const Stmt& c = *body[i];
        if (!ir::isGlobalToSharedCopy(c))
            continue;
        const layout::CopyPlan* plan = copyPlanOf(kernel, c);
        if (!plan || plan->instruction != layout::CopyInstruction::CpAsync || !addressFromIndicesOnly(c.src))
            continue;
        std::optional<size_t> lastUse;
        bool alone = true;
        for (size_t j = 0; j < body.size(); ++j) {
            if (j != i && writes[j].count(c.dst.buffer))
                alone = false;
            if (j < i && reads[j].count(c.dst.buffer))
                alone = false;
            if (j > i && reads[j].count(c.dst.buffer))
                lastUse = j;
        }
        if (alone && lastUse)
            out.push_back({&c, *lastUse});
    }
    return out;
}

std::string copiedBuffers(const std::vector<layout::PipelineCopy>& copies) {
    std::string names;
    for (const layout::PipelineCopy& c : copies)
        names += (names.empty() ? "" : ", ") + c.copy->dst.buffer->name;
    return names;
}

// A loop whose copies the producer warpgroup loads by TMA: barrier rings at the arena's end.
layout::PipelineSchedule warpSpecializedPipeline(layout::KernelPlan& kernel, const Stmt& loop) {
    layout::PipelineSchedule p;
    p.loop = &loop;
    p.stages = loop.pipeline.numStages;
    p.shape = layout::PipelineShape::WarpSpecialized;
    layout::SharedArena& arena = kernel.schedule.arena;
    if (arena.barrierOffset < 0)
        arena.barrierOffset = alignUp(arena.totalBytes, 8);
    int64_t offset = arena.barrierOffset + arena.barrierBytes;
    int64_t bytes = planBarrierRings(kernel, p, offset);
    arena.barrierBytes += bytes;
    arena.totalBytes = arena.barrierOffset + arena.barrierBytes;
    std::string names;
    for (const layout::BarrierRing& r : p.rings)
        for (const Stmt* c : r.copies)
            names += (names.empty() ? "" : ", ") + c->dst.buffer->name;
    p.description = std::to_string(p.stages) + " stage(s) of " + names +
                    " loaded by TMA in the producer warpgroup, " + std::to_string(p.rings.size()) +
                    " full/empty mbarrier ring(s)" +
                    (p.wgmmaBatchInFlight ? "; one wgmma batch kept in flight" : "");
    return p;
}

layout::PipelineSchedule schedulePipeline(layout::KernelPlan& kernel, const Stmt& loop) {
    layout::PipelineSchedule p;
    p.loop = &loop;
    p.stages = loop.pipeline.numStages;
    std::vector<const Stmt*> body = loopBody(loop);
    for (const Stmt* c : body)
        if (kernel.schedule.tmaOf(c))
            return warpSpecializedPipeline(kernel, loop);
    if (loop.pipeline.numStages >= 2) {
        p.shape = layout::PipelineShape::MultiStage;
        p.waitGroupsInLoop = loop.pipeline.numStages - 2;
        for (const Stmt* c : body)
            if (ir::isGlobalToSharedCopy(*c) && kernel.schedule.arena.slotOf(c->dst.buffer) &&
                kernel.schedule.arena.slotOf(c->dst.buffer)->stages > 1)
                p.asyncCopies.push_back({c, 0});
        p.description = std::to_string(p.stages) + " stages: " + std::to_string(p.stages - 1) +
                        " tile(s) in flight through cp.async" +
                        (p.asyncCopies.empty() ? "" : " (" + copiedBuffers(p.asyncCopies) + ")");
        return p;
    }
    if (loop.pipeline.numStages == 1)
        p.asyncCopies = earlyIssueCopies(kernel, body);
    if (!p.asyncCopies.empty()) {
        p.shape = layout::PipelineShape::EarlyIssue;
        p.description = "1 stage, TileLang's order: the next chunk's " + copiedBuffers(p.asyncCopies) +
                        " issued as soon as this chunk has been read";
    } else {
        p.shape = layout::PipelineShape::ProgramOrder;
        p.description = "not software-pipelined: the body runs in program order";
    }
    return p;
}

} // namespace

void runKernelSchedule(const ir::Module&, layout::LayoutPlan& plan, const PassContext& context,
                       DiagnosticEngine& diagnostics) {
    for (layout::KernelPlan& kernel : plan.kernels) {
        if (!kernel.kernel)
            continue;
        scheduleWarpSpecialization(kernel, context);
        planArena(*kernel.kernel, kernel, diagnostics);
        kernel.schedule.pipelines.clear();
        ir::walkStmts(*kernel.kernel, [&](const Stmt& s, const std::vector<const Stmt*>&) {
            if (s.kind == StmtKind::For && s.loopKind == ir::LoopKind::Pipelined)
                kernel.schedule.pipelines.push_back(schedulePipeline(kernel, s));
        });
        checkArenaFits(*kernel.kernel, kernel.schedule.arena, context.target, diagnostics);
    }
}

} // namespace tb::passes
