// Pass 3a, loop planning (reference §5.4, §5.5): every T.Parallel nest gets its thread map (the layout
// inference chose it for loops that touch fragments; loops over shared/global memory only get TileLang's
// PlanLoopPartition with the vector size that minimises padding) and the vector width of its accesses, up
// to 128-bit, with the reason it was limited: the loop extent, a fragment's contiguous register run, a
// strided or misaligned global/shared index, or the element width.
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/PassContext.h"
#include "engine/support/Diagnostics.h"

namespace tb::passes {

void runLoopPlanning(const ir::Module& module, layout::LayoutPlan& plan, const PassContext& context,
                     DiagnosticEngine& diagnostics);

} // namespace tb::passes
