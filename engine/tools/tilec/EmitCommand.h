// `tilec emit cuda|ptx|sass FILE`: the CUDA the codegen pass generated from the program's plan, the PTX
// NVRTC makes of it, or the SASS of the cubin (when the toolkit has a disassembler).
#pragma once

#include "engine/pipeline/Pipeline.h"
#include "engine/tools/tilec/CommandLine.h"

#include <string>
#include <string_view>

namespace tb::tilec {

// `kind` is "cuda", "ptx" or "sass". Prints to stdout, errors to stderr; returns an ExitCode. PTX/SASS are
// compiled for cl.arch.
int emitCode(const CommandLine& cl, const CompileResult& result, std::string_view kind = "cuda");

// `tilec emit cuda FILE --against NAME=VALUE`: the unified diff of the CUDA of `result` (the program with
// `options`) against the same program with cl.against applied as a sweep applies it
// (engine/profile/CodeDiff.h).
// --json: {"ok", "a", "b", "removed", "added", "diff"}. ExitOk with an empty diff when nothing changes.
int emitCudaDiff(const CommandLine& cl, const CompileResult& result, const std::string& fileName,
                 const std::string& text, const CompileOptions& options);

} // namespace tb::tilec

namespace tb::tilec {

// `tilec passes FILE`: every pass's snapshot (engine/pipeline/PassSnapshots.h), headed "==== NAME: SUMMARY".
// Returns ExitCompileError when the program has errors (the snapshots up to the failing pass still print).
int printPassSnapshots(const CompileResult& result);

} // namespace tb::tilec
