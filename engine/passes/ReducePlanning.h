// Pass 3b, reduce planning (reference §5.8): each T.reduce_* folds its source elements thread-locally,
// then all-reduces over the threads that hold parts of one output: a recursive XOR butterfly whose
// offsets below the warp size are __shfl_xor_sync and whose offsets of a warp or more are rounds through
// a shared scratch buffer of `threads` elements (TileLang's AllReduce). Needs the fragments of the layout
// inference.
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/PassContext.h"
#include "engine/support/Diagnostics.h"

namespace tb::passes {

// Warning "reduce-threads-not-power-of-two" when the threads of an output do not form an XOR group
// (TileLang requires a power-of-two butterfly).
void runReducePlanning(const ir::Module& module, layout::LayoutPlan& plan, const PassContext& context,
                       DiagnosticEngine& diagnostics);

} // namespace tb::passes
