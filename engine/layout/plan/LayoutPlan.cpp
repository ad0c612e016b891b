// Names of the plan's enums and the per-kernel lookups.
#include "engine/layout/plan/LayoutPlan.h"

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
