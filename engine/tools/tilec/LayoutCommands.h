// `tilec layouts FILE` and `tilec plan FILE`: print the layout plan of a compiled tile program, as text or
// as JSON (docs/layout-json.md). The caller compiles (compileTileProgram, which runs the layout passes);
// these only print, to stdout.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/pipeline/Pipeline.h"

namespace tb::tilec {

// Per kernel, per fragment/shared buffer: scope, shape, dtype, the layout formula and its origin.
// `tables` adds the element -> (thread, register) table of fragments of at most 64K elements (JSON only).
// Returns the process exit code: 0, or 1 when the compilation had errors (the plan is printed anyway).
int printLayouts(const CompileResult& result, const layout::LayoutPlan& plan, bool json, bool tables = false);

// Warp partitions, loop plans, reduce plans, copy plans and the shared-memory budget, plus the layouts.
int printPlan(const CompileResult& result, const layout::LayoutPlan& plan, bool json, bool tables = false);

} // namespace tb::tilec
