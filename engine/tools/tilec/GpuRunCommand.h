// `tilec run FILE --gpu [-p NAME=VALUE ...] [--dim NAME=VALUE] [--seed S] [--json]`: runs the program on the
// GPU through tilebench-runner and checks every output against the CPU reference executor, printing the
// same kind of summary as `--cpu`.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/pipeline/Pipeline.h"
#include "engine/tools/tilec/CommandLine.h"

namespace tb::tilec {

// Returns ExitOk, ExitWrongResult when the outputs differ, ExitRuntimeError on faults/timeouts/no GPU,
// ExitCompileError when code generation fails.
int runOnGpu(const CommandLine& cl, const CompileResult& result);

} // namespace tb::tilec
