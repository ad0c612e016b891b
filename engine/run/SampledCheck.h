// Checking a result at the program's own size: when a kernel's grid is too large for the CPU oracle to run
// whole, the oracle runs an even sample of its blocks (ExecutionLimits::blockSample) and only the output
// elements those blocks write are compared. Each block computes its outputs from the inputs alone when the
// program has one kernel, no atomics, no grid barrier (T.sync_grid: blocks read what others wrote) and does
// not read its outputs, so a sampled block's elements are exactly what the whole run would give there.
#pragma once

#include "engine/exec/HostTensor.h"
#include "engine/ir/Module.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tb::run {

// Above this many blocks the oracle samples, kAutoSampledBlocks of them, unless the run asks otherwise.
constexpr int64_t kAutoSampleAboveBlocks = 1024;
constexpr int64_t kAutoSampledBlocks = 256;

struct OracleSample {
    int64_t blocks = 0;     // blocks the oracle runs; 0: all of them (no sampling)
    int64_t gridBlocks = 0; // the kernel's blocks (the first kernel's when there are several)
    std::string whyNot;     // why a large grid is checked whole (empty when sampled or small)
};

// `requested`: -1 chooses (sample above kAutoSampleAboveBlocks), 0 checks every block, N > 0 samples N.
OracleSample chooseOracleSample(const ir::Module& module, const ir::PrimFunc& func,
                                const std::map<std::string, int64_t>& dims, int64_t requested);

// Which elements a sampled oracle run writes, told by sentinels: before each run the compared outputs are
// filled with the run's sentinel, and an element that holds the sentinel of every run after them was not
// written. A float output needs one run (NaN); an integer or bool output two (0, then 1): a written element
// holds the same value in both runs (a sampled program does not read its outputs), so it cannot keep both.
int sentinelRuns(const std::vector<HostTensor>& params, const std::vector<bool>& compared);
void fillSentinels(std::vector<HostTensor>& params, const std::vector<bool>& compared, int run);
// One flag per element of an output, from its tensor after each run (in run order).
std::vector<bool> writtenElements(const std::vector<const HostTensor*>& runs);
// The GPU's elements that no sampled block wrote take the oracle's values (they then match); returns the
// count of elements that are compared.
int64_t maskUnsampled(HostTensor& gpu, const HostTensor& expected, const std::vector<bool>& written);

} // namespace tb::run
