// Pass shared-memory-planning: the kernel's shared-memory budget, the arena the kernel-schedule pass laid
// out (bytes per buffer x the stages the software pipeline keeps, each slot aligned to 128 bytes, plus the
// all-reduce scratch of cross-warp reductions), against the target's per-block limit, and how many blocks fit
// on one SM by shared memory, by threads and by the target's block limit. A kernel with a grid barrier
// (T.sync_grid) launches cooperatively: its grid must fit on the device at once (blocks per SM x SMs), or
// the error grid-not-co-resident.
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/PassContext.h"
#include "engine/support/Diagnostics.h"

namespace tb::passes {

void runSharedMemoryPlanning(const ir::Module& module, layout::LayoutPlan& plan, const PassContext& context,
                             DiagnosticEngine& diagnostics);

} // namespace tb::passes
