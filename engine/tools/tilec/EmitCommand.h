// `tilec emit cuda|ptx|sass FILE`: the CUDA the backend generates for a compiled program (the portable
// mma.sync path), the PTX NVRTC makes of it, or the SASS of the cubin (when the toolkit has a disassembler).
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/pipeline/Pipeline.h"
#include "engine/tools/tilec/CommandLine.h"

#include <string_view>

namespace tb::tilec {

// `kind` is "cuda", "ptx" or "sass". Prints to stdout, errors to stderr; returns an ExitCode. A plan made
// for wgmma (sm_90a) is re-planned for sm_80 first. PTX/SASS are compiled for cl.arch.
int emitCode(const CommandLine& cl, const CompileResult& result, const layout::LayoutPlan& plan,
             std::string_view kind);
// The same with kind "cuda".
int emitCode(const CommandLine& cl, const CompileResult& result, const layout::LayoutPlan& plan);

} // namespace tb::tilec

namespace tb::tilec {

// `tilec passes FILE`: every pass's snapshot (engine/pipeline/PassSnapshots.h), headed "==== NAME: SUMMARY".
// Returns ExitCompileError when the program has errors (the snapshots up to the failing pass still print).
int printPassSnapshots(const CompileResult& result);

} // namespace tb::tilec
