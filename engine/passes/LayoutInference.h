// Pass 2, layout inference (reference §5.1-§5.3, §5.8): a Fragment for every fragment buffer of each
// kernel, and the loop layout of every T.Parallel nest, decided as TileLang decides them:
//  * strict: gemm accumulators and register operands (from the GemmPlans of the warp-partition pass),
//    T.annotate_layout fragments (T.Fragment / make_fully_replicated_layout_fragment), fragments indexed
//    only by constants (fully replicated);
//  * common: a fix-point over a work list — a T.Parallel loop that writes (or reads, unreplicated) a
//    fragment with a known layout adopts it and completes the other fragments it touches (identical index
//    -> the same layout; a row vector m[i] in a loop over (i, j) -> the loop layout projected on i,
//    replicated over the threads that share the row); reductions derive the destination from the source
//    (the reduced dimension becomes replication); fragment <-> fragment copies (casts) share one layout;
//  * free: the loops and copies still undecided take TileLang's default loop partition (§5.4), or follow
//    a replicated fragment they read, and the fix-point runs again; fragments that no op constrains get
//    the default partition of their shape.
// Two ops that need layouts of one buffer that do not contain each other give the diagnostic
// "layout-conflict" naming the buffer(s) and both ops, with both layouts as formulas in notes, the first
// element whose owners differ, and a hint.
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/PassContext.h"
#include "engine/support/Diagnostics.h"

namespace tb::passes {

// Fills KernelPlan::fragments (one per fragment buffer the kernel allocates, in allocation order) and
// KernelPlan::loops (loop layout and origin; vector widths are the loop-planning pass's). Needs the gemms
// of runWarpPartition.
void runLayoutInference(const ir::Module& module, layout::LayoutPlan& plan, const PassContext& context,
                        DiagnosticEngine& diagnostics);

} // namespace tb::passes
