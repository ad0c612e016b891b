// One run of a program on the CPU (the JIT, or the interpreter where the JIT cannot lower it), checked
// against its naive reference (`# tilebench-reference: NAME`): what `tilec run --cpu`, the app's Run
// without a GPU and the lessons' exercises do, in one place. RunReport.h describes the result.
#pragma once

#include "engine/exec/HostTensor.h"
#include "engine/exec/InputFill.h"
#include "engine/jit/ProgramExecution.h"
#include "engine/pipeline/Pipeline.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tb::run {

struct CpuRunOptions {
    uint64_t seed = 0x7113BE7C;          // the inputs' seed (allocateParams)
    std::map<std::string, int64_t> dims; // T.dynamic sizes by name; missing ones are 256
    CpuBackend backend = CpuBackend::Auto;
    InputFills fills; // inputs filled otherwise than with random values (index tensors)
};

struct CpuOutputCheck {
    std::string name;
    ComparisonResult comparison;
    double atol = 0, rtol = 0; // the reference's
};

// min / max / mean / NaN count of an output, shown when there is no reference to check it against.
struct OutputStatistics {
    std::string name;
    double min = 0, max = 0, mean = 0;
    int64_t nans = 0;
};

struct CpuRunResult {
    bool executed = false;
    std::string error; // why it did not run (diagnostics, formatted) or could not be checked
    std::string funcName;
    double seconds = 0; // execution, JIT compile included
    ProgramExecutionReport execution;
    std::vector<std::string> prints; // T.print output, in order
    std::string reference;           // the naive reference's name; empty when there is none
    bool checked = false;            // compared with the reference
    bool ok = false;                 // executed, checked, every output within tolerance
    std::vector<CpuOutputCheck> outputs;
    std::vector<OutputStatistics> statistics; // when not checked: what came out
};

// Runs the program's first PrimFunc. Never throws; everything that goes wrong is in `error`.
CpuRunResult runOnCpu(const CompileResult& result, const CpuRunOptions& options = {});

} // namespace tb::run
