// Pass 3c, copy planning (reference §5.6): how each T.copy moves its tile, per thread. Global -> shared
// copies become cp.async.cg of 16 bytes on sm_80+ when the copied rows are 16-byte multiples and source
// and destination share a dtype, else vectorized ld/st with TileLang's default partition (consecutive
// vectors to consecutive threads). Copies with a fragment side follow the fragment's layout (each thread
// moves the elements it owns, vectorized over its contiguous register runs). Fragment <-> fragment copies
// (casts such as acc_s -> acc_s_cast) are thread-local. Needs the layout inference's fragments.
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/PassContext.h"
#include "engine/support/Diagnostics.h"

namespace tb::passes {

void runCopyPlanning(const ir::Module& module, layout::LayoutPlan& plan, const PassContext& context,
                     DiagnosticEngine& diagnostics);

} // namespace tb::passes
