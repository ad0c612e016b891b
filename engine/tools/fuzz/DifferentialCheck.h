// One differential check of a tile program's text: the interpreter against the JIT on the CPU, or a GPU
// backend (portable mma.sync or Hopper wgmma, CompileOptions::backend) against the CPU oracle through
// run::runOnGpu. Programs the
// engine rejects (elaboration or check errors) are not mismatches: a generator that produces many of
// them is the thing to fix.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tb::fuzz {

enum class OutcomeKind {
    Agree,          // same outputs (bit for bit on the CPU, within tolerance on the GPU)
    BothFailed,     // both sides reported the same runtime error
    Rejected,       // the program does not compile (or does not fit the target)
    JitUnsupported, // the JIT does not lower it (the interpreter would run it)
    Mismatch,       // a bug somewhere: different outputs, or one side failed
};

const char* outcomeName(OutcomeKind kind);

struct Outcome {
    OutcomeKind kind = OutcomeKind::Agree;
    std::string detail; // what differed, or why rejected
};

Outcome checkOnCpu(const std::string& text, uint64_t inputSeed);
// The same check for many programs, their JIT code compiled together (one LLVM module and JIT session for
// the batch: most of a small program's compile time is the fixed cost of the pipeline).
std::vector<Outcome> checkBatchOnCpu(const std::vector<std::string>& texts,
                                     const std::vector<uint64_t>& inputSeeds);

enum class GpuBackend { Portable, Hopper };
// `available` false (and the outcome Rejected) where no GPU can be used.
Outcome checkOnGpu(const std::string& text, GpuBackend backend, uint64_t inputSeed);
bool gpuUsable(std::string& why);

} // namespace tb::fuzz
