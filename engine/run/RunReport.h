// The one description of a run, for every front end: a headline ("correct against 'gemm_relu' (CPU JIT,
// 0.41 s)") and detail lines (each output's errors and tolerance, the first mismatch, kernels, notes).
// `tilec run` prints the lines and the headline; the app's Run panel shows the same text and keeps the
// headline in its history. Qt-free.
#pragma once

#include "engine/run/CpuRun.h"
#include "engine/run/GpuRun.h"

#include <string>
#include <vector>

namespace tb::run {

struct RunReport {
    std::string headline;
    std::vector<std::string> lines;
    bool ok = false;                         // ran, and every compared output within tolerance
    bool checked = false;                    // outputs were compared (with a reference or the CPU oracle)
    double maxAbsError = 0, maxRelError = 0; // over the compared outputs
    std::string text() const;                // the lines, then the headline, one per line
};

// "  C                ok        max abs err 0.0012  max rel err 0.003  (atol 0.01, rtol 0.01: C (float16))",
// then, for a mismatch, where the first one is. `toleranceSetBy` may be empty.
std::vector<std::string> outputCheckLines(const std::string& name, const ComparisonResult& comparison,
                                          double atol, double rtol, const std::string& toleranceSetBy = {});

RunReport describeCpuRun(const CpuRunResult& result);
RunReport describeGpuRun(const GpuRunResult& result);

// {"executed", "backend", "seconds", "compileSeconds", "fallback", "reference", "checked", "ok", "outputs":
// [{"name", "ok", "maxAbsError", "maxRelError", "mismatches"}], "error"}
std::string cpuRunJson(const CpuRunResult& result);
// {"ok", "stage", "message", "arch", "device", "fault", "timeout", "oracleBackend", "oracleNote", "kernels":
// [{"name", "registers", "spillStoreBytes", "sharedBytes", "wallMs"}], "outputs": [the same as the CPU's,
// with "atol", "rtol", "toleranceSetBy"]}
std::string gpuRunJson(const GpuRunResult& result);

} // namespace tb::run
