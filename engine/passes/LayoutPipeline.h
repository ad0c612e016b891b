// The layout passes in order, as one call: list the kernels, then warp partition -> layout inference ->
// loop / reduce / copy planning -> shared layouts -> shared-memory budget. The bank analysis (another
// engineer's pass, filling KernelPlan::sharedAccesses) runs after this on the returned plan. A pass that
// finds errors does not stop the later ones: they plan what they can, so `tilec plan` can still show the
// rest of a kernel whose layouts conflict.
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/PassContext.h"
#include "engine/support/Diagnostics.h"

namespace tb::passes {

// One KernelPlan per Kernel statement (kernel, func, threads), in program order.
void initKernelPlans(const ir::Module& module, layout::LayoutPlan& plan, const PassContext& context);

// Every pass; the plan refers into `module`, which must outlive it.
layout::LayoutPlan planLayouts(const ir::Module& module, const PassContext& context,
                               DiagnosticEngine& diagnostics);

} // namespace tb::passes
