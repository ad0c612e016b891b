// `tilec run FILE --cpu`: executes the compiled program on the CPU reference executor with seeded random
// inputs and compares every output with the program's naive reference (its "# tilebench-reference:"
// directive), printing max abs/rel error per output.
#pragma once

#include "engine/pipeline/Pipeline.h"
#include "engine/tools/tilec/CommandLine.h"

namespace tb::tilec {

int runOnCpu(const CommandLine& cl, const CompileResult& result);

} // namespace tb::tilec
