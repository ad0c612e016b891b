// The one entry point that runs a tile program on the CPU: through the LLVM JIT (engine/jit) when it can
// lower the program, otherwise through the tree-walking interpreter (engine/exec/Executor.h), which stays
// the oracle of the oracle. Every caller that used to call executePrimFunc (tilec run --cpu, the GPU-run
// check, the app's no-GPU Run, the benchmarks) calls executeProgram, and says which backend it wants.
//
// Both backends give bit-identical outputs (same rounding after every operation, same NaN poison in
// fresh on-chip buffers, same guarded copies). They differ in what they refuse: the interpreter stops at
// ExecutionLimits::maxSteps, the JIT does not count steps (it exists to run what the interpreter cannot);
// a runtime error (out-of-bounds, division by zero) is reported by both at the same statement, the
// interpreter's message naming the element index, the JIT's the buffer.
#pragma once

#include "engine/exec/Executor.h"
#include "engine/exec/HostTensor.h"
#include "engine/ir/Module.h"
#include "engine/support/Diagnostics.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tb {

enum class CpuBackend {
    Auto,        // the JIT, falling back to the interpreter (with a note) when it cannot lower the program
    Jit,         // the JIT only: a program it cannot lower is an error ("jit-unsupported")
    Interpreter, // the tree-walking interpreter
};

const char* cpuBackendName(CpuBackend backend); // "auto", "jit", "interpreter"

struct ProgramExecutionOptions {
    CpuBackend backend = CpuBackend::Auto;
    ExecutionLimits limits;
    int threads = 0; // worker threads for the JIT's blocks; 0 = one per hardware thread
};

struct ProgramExecutionReport {
    CpuBackend used = CpuBackend::Interpreter; // Jit or Interpreter: what actually ran
    std::string fallbackNote;                  // why the interpreter ran when the JIT was asked for
    double compileSeconds = 0;                 // JIT: IR -> LLVM IR -> machine code
    double runSeconds = 0;                     // executing the blocks
    int threads = 1;                           // threads that ran blocks
    bool sequentialKernels = false;            // JIT: some kernel ran its blocks in order (atomics)
};

// Whether this build has the JIT (LLVM 16 was found at configure time).
bool cpuJitAvailable();

// Runs `func` on `params` like executePrimFunc (same contract: one tensor per parameter, outputs written
// in place, false after an error diagnostic). `report` (optional) says which backend ran and why.
bool executeProgram(const ir::Module& module, const ir::PrimFunc& func, std::vector<HostTensor>& params,
                    const std::map<std::string, int64_t>& dynamicDims, DiagnosticEngine& diags,
                    const ProgramExecutionOptions& options = {}, ExecutionLog* log = nullptr,
                    ProgramExecutionReport* report = nullptr);

} // namespace tb
