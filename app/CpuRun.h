// One correctness run on the CPU reference executor, checked against the sample's naive reference:
// what the Run panel shows when there is no GPU (and what it compares GPU runs against). Qt-free.
#pragma once

#include "views/model/ProgramAnalysis.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb::app {

struct OutputCheck {
    std::string name;
    bool ok = false;
    double maxAbsError = 0, maxRelError = 0;
    int64_t mismatches = 0;
    std::string firstMismatch; // "[3, 7]: got 1.5, expected 1.25"
};

struct CpuRunReport {
    bool executed = false;
    bool checked = false; // a naive reference was found and compared
    bool ok = false;      // executed, and every checked output within tolerance
    double seconds = 0;
    std::string reference;
    std::string error; // why it did not run or could not be checked
    std::vector<OutputCheck> outputs;
    std::string summary() const; // one line for the history
};

// Pre: analysis.ok(). Dynamic dims default to 256. Never throws.
CpuRunReport runOnCpuReference(const views::ProgramAnalysis& analysis, uint64_t seed = 1);

} // namespace tb::app
