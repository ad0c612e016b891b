// `tilec bench`, `tilec profile` and `tilec sweep`: compile a kernel, run it on the GPU through
// tilebench-runner and report its time (CUPTI kernel records), derived TFLOP/s and GB/s against the
// session's measured ceilings, Range Profiler counters, per-line SASS shared-memory wavefronts, a cuBLAS or
// previous-run comparison, or a parameter sweep table. Subjects are hand-written CUDA files with
// `// tilebench-*` directives (engine/profile/CudaBenchSpec.h) or .py tile programs (bench/profile through
// engine/profile/ProgramProfiler.h, sweep through ProgramSweep.h: compiled with the -p overrides for the
// portable CUDA path; FLOPs from the jit parameters M, N, K of a program with a T.gemm). See
// docs/profiling.md.
//
//   tilec bench FILE [-p NAME=VALUE]... [--vs cublas|previous] [--json] [common options]
//   tilec profile FILE [-p NAME=VALUE]... [--json] [common options]
//   tilec sweep FILE -p NAME=VALUES... [--json] [common options]
//   common: --repeat N --warmup N --flush-l2 --events --no-ceilings --fake --fake-cupti=MODE --runner PATH
//           --history PATH
#pragma once

#include <string>

namespace tb::tilec {

// argv[1] is "bench", "profile" or "sweep". Returns an ExitCode (CommandLine.h).
int runProfileCommand(int argc, char** argv);

// The usage text of the three commands.
std::string profileUsageText();

} // namespace tb::tilec
