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

// Before a sampled oracle run: the compared outputs hold NaN, so that the elements no sampled block writes
// stay NaN. After it: those elements of the GPU's tensor are set to NaN too (NaN matches NaN), and the count
// of elements that are compared is returned.
void markOutputsUnwritten(std::vector<HostTensor>& expected, const std::vector<bool>& compared);
int64_t maskUnsampled(HostTensor& gpu, const HostTensor& expected);

} // namespace tb::run
