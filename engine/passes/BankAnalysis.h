// The bank-analysis pass: for every shared-memory access the generated kernel makes, enumerate its warp
// instructions (SharedAccessEnumeration.h), cost each with the bank model (hardware rule, SASS-metric
// model, and the hardware rule over the plain row-major layout) and fill KernelPlan::sharedAccesses with
// per-block totals and one representative instruction. The per-line and per-kernel totals that `tilec banks`
// prints are formed by engine/layout/plan/BankTotals.h.
// docs/bank-analysis.md defines every number.
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/Diagnostics.h"
#include "engine/support/SourceManager.h"
#include "engine/target/Target.h"

#include <cstdint>
#include <vector>

namespace tb::passes {

// Fills sharedAccesses of every kernel of `plan` (replacing what was there). Runs after the passes that
// fill gemms, copies, loops, reduces and sharedBuffers; missing parts get the documented defaults.
void analyzeSharedAccesses(const ir::Module& module, layout::LayoutPlan& plan, const Target& target,
                           DiagnosticEngine& diagnostics);
// The same for one kernel.
void analyzeKernelSharedAccesses(layout::KernelPlan& kernel, const Target& target,
                                 DiagnosticEngine& diagnostics);

} // namespace tb::passes
