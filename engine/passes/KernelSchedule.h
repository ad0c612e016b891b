// Pass kernel-schedule: what the generated kernel does besides following the layouts, decided once and kept
// in the plan (KernelPlan::schedule) so that codegen only prints it and `tilec plan` and the views show it:
//   - the shared arena: every shared buffer's byte offset in the one dynamic shared-memory allocation, its
//     stage copies (check::pipelineCopyStages, the one multi-buffering rule), the 128-byte alignment of
//     each slot, and the all-reduce scratch of cross-warp reductions; checked against the target's limit;
//   - the pipelines: for each T.Pipelined loop, which copies are cp.async groups issued ahead and how
//     (num_stages >= 2: num_stages - 1 tiles in flight; num_stages = 1: TileLang's order, each copy issued
//     for the next iteration after the last statement that reads its tile; otherwise program order).
// Runs after copy planning (which copies are cp.async) and shared layouts (a slot's size is its layout's).
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/PassContext.h"
#include "engine/support/Diagnostics.h"

namespace tb::passes {

// Errors: "schedule-dynamic-shared" (a shared buffer without a constant shape), "schedule-shared-memory"
// (the arena exceeds the target's per-block limit).
void runKernelSchedule(const ir::Module& module, layout::LayoutPlan& plan, const PassContext& context,
                       DiagnosticEngine& diagnostics);

} // namespace tb::passes
