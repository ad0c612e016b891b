// `tilec banks FILE [--json]`: the bank analysis of every shared-memory access of the compiled program (per
// access, per tile-program line and per kernel, with and without the chosen swizzles), as a text table or
// as the JSON document of docs/bank-analysis.md.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/pipeline/Pipeline.h"

namespace tb::tilec {

// Prints to stdout. `plan` must already hold the bank analysis (passes::analyzeSharedAccesses). Returns 0,
// or 1 when the compilation failed (nothing is printed then; the caller prints the diagnostics).
int printBanks(const CompileResult& result, const layout::LayoutPlan& plan, bool json);

} // namespace tb::tilec
