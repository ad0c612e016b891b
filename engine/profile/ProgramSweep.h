// A parameter sweep of a tile program: every combination of the sweep axes (`-p num_stages=1..4 -p
// block_M=64,128`, engine/profile/SweepSpec.h) is compiled as its own variant through compileTileProgram
// with those values as jit parameter overrides (or, for a name that is an integer literal in the program
// rather than a jit parameter, with the literal edited: engine/profile/SweepVariants.h), set up in the
// runner and timed (each kernel; a variant's
// time is the sum of its kernels' medians). A variant that does not compile (a stage count whose buffers do
// not fit shared memory, say) is a row with its diagnostics, never a failed sweep. Progress is reported
// before each variant; the callback can cancel. `tilec sweep FILE.py` and the app's sweep plot use it.
#pragma once

#include "engine/gpu/RunnerClient.h"
#include "engine/profile/ProgramProfiler.h"
#include "engine/profile/SweepSpec.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::profile {

enum class VariantStatus { Ran, CompileError, RunFailed, TimingFailed, Skipped };
// "ran", "compile error", "run failed", "timing failed", "skipped".
const char* variantStatusName(VariantStatus status);

struct SweepVariant {
    std::vector<std::pair<std::string, std::string>> params; // the swept values, in axis order
    std::string paramsText;                                  // "num_stages=2 block_M=64"
    VariantStatus status = VariantStatus::Skipped;
    std::string message;                 // why it did not run (first diagnostic, stage failure)
    std::vector<Diagnostic> diagnostics; // of its compilation and setup
    std::string formattedDiagnostics;    // with source excerpts
    double medianMs = 0, spreadPct = 0;  // sum of kernel medians; the largest kernel spread
    std::string clock;
    DerivedRates rates;
    int64_t sharedBytes = -1; // the largest dynamic shared memory of its kernels; -1 when unknown
    int registers = -1;       // the most of its kernels
    int kernels = 0;

    bool ran() const { return status == VariantStatus::Ran; }
};

struct ProgramSweepOptions {
    ProgramProfileOptions timing;                                   // warmup, repeat, flushL2, events, arch
    std::vector<std::pair<std::string, std::string>> baseOverrides; // applied before the swept values
    std::optional<Backend> backend;                                 // every variant's; default: the target's
};

struct ProgramSweepReport {
    bool ok = false; // the axes were valid and the runner had a device (variants may still have failed)
    bool cancelled = false;
    std::string error; // why the sweep did not start
    std::vector<Diagnostic> axisDiagnostics;
    std::string file, device;
    std::string clock; // of the first variant that ran
    bool simulated = false;
    std::vector<SweepVariant> variants;
    std::vector<std::string> notes; // how the axes were applied (a literal edited: SweepVariants.h)
    std::vector<std::string> warnings;

    size_t ranCount() const;
};

// Called before variant `index` (0-based) of `total`; return false to stop the sweep.
using SweepProgress = std::function<bool(size_t index, size_t total, const std::string& paramsText)>;

ProgramSweepReport sweepProgram(const std::string& fileName, const std::string& text,
                                const std::vector<SweepAxis>& axes, gpu::RunnerClient& client,
                                const ProgramSweepOptions& options, const SweepProgress& progress = {});

// The table `tilec sweep FILE.py` prints, and its JSON form.
std::string formatSweepText(const ProgramSweepReport& report, const ProgramSweepOptions& options);
std::string formatSweepJson(const ProgramSweepReport& report);

} // namespace tb::profile
