// Names of the plan's enums and the per-kernel lookups.
#include "engine/layout/plan/LayoutPlan.h"

#include "engine/ir/IrQueries.h"

#include <set>

namespace tb::layout {

const char* inferenceLevelName(InferenceLevel level) {
    switch (level) {
    case InferenceLevel::Strict:
        return "strict";
    case InferenceLevel::Common:
        return "common";
    case InferenceLevel::Free:
        return "free";
    }
    return "free";
}

const char* copyInstructionName(CopyInstruction kind) {
    switch (kind) {
    case CopyInstruction::CpAsync:
        return "cp.async";
    case CopyInstruction::VectorLoadStore:
        return "ld/st";
    case CopyInstruction::FragmentToShared:
        return "fragment->shared";
    case CopyInstruction::SharedToFragment:
        return "shared->fragment";
    case CopyInstruction::FragmentToGlobal:
        return "fragment->global";
    case CopyInstruction::GlobalToFragment:
        return "global->fragment";
    case CopyInstruction::Tma:
        return "tma";
    }
    return "ld/st";
}

const char* pipelineShapeName(PipelineShape shape) {
    switch (shape) {
    case PipelineShape::MultiStage:
        return "multi-stage";
    case PipelineShape::EarlyIssue:
        return "early-issue";
    case PipelineShape::ProgramOrder:
        return "program-order";
    case PipelineShape::WarpSpecialized:
        return "warp-specialized";
    }
    return "program-order";
}

const SharedArenaSlot* SharedArena::slotOf(const ir::Buffer* buffer) const {
    for (const SharedArenaSlot& slot : slots)
        if (slot.buffer == buffer)
            return &slot;
    return nullptr;
}

const PipelineSchedule* KernelSchedule::pipelineOf(const ir::Stmt* loop) const {
    for (const PipelineSchedule& p : pipelines)
        if (p.loop == loop)
            return &p;
    return nullptr;
}

const TmaCopyPlan* KernelSchedule::tmaOf(const ir::Stmt* copy) const {
    for (const TmaCopyPlan& t : tmaCopies)
        if (t.copy == copy)
            return &t;
    return nullptr;
}

void KernelPlan::findWarpGroupScopes() {
    warpGroupOf = ir::warpGroupScopes(*kernel);
    if (warpGroupOf.empty())
        return;
    std::set<const ir::Buffer*> mixed;
    ir::walkStmts(*kernel->body, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
        auto it = warpGroupOf.find(&s);
        const ir::Stmt* scope = it == warpGroupOf.end() ? nullptr : it->second;
        ir::forEachBufferOf(s, [&](const ir::Buffer* b) {
            if (b->scope != ir::MemoryScope::Fragment && b->scope != ir::MemoryScope::Local &&
                b->scope != ir::MemoryScope::LocalVar)
                return;
            auto [known, fresh] = registerScopeOf.emplace(b, scope);
            const ir::Stmt* other = known->second;
            const bool sameThreads =
                other == scope || (other && scope && other->firstThread == scope->firstThread &&
                                   other->threadCount == scope->threadCount);
            // A per-thread array or scalar has no layout over the threads: every thread has its own, so
            // one set by the whole block (a count read from global memory) serves any scope. It belongs to
            // the block then.
            const bool perThread = b->scope != ir::MemoryScope::Fragment;
            if (!sameThreads && perThread) {
                known->second = nullptr;
                return;
            }
            if (!sameThreads && mixed.insert(b).second)
                mixedScopeBuffers.push_back(b);
        });
    });
}

int64_t KernelPlan::threadsOf(const ir::Stmt* s) const {
    auto it = warpGroupOf.find(s);
    return it == warpGroupOf.end() ? threads : it->second->threadCount;
}

int64_t KernelPlan::threadsOf(const ir::Buffer* b) const {
    auto it = registerScopeOf.find(b);
    return it == registerScopeOf.end() || !it->second ? threads : it->second->threadCount;
}

const FragmentPlan* KernelPlan::fragmentOf(const ir::Buffer* buffer) const {
    for (const FragmentPlan& plan : fragments)
        if (plan.buffer == buffer)
            return &plan;
    return nullptr;
}

const SharedBufferPlan* KernelPlan::sharedOf(const ir::Buffer* buffer) const {
    for (const SharedBufferPlan& plan : sharedBuffers)
        if (plan.buffer == buffer)
            return &plan;
    return nullptr;
}

} // namespace tb::layout
