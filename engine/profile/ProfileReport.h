// One kernel's profile as a value, and its two renderings: a text report for the terminal and a JSON
// document (the app and scripts read it). The report always says how the time was measured (clock,
// warm-up, repeats, L2 flush) and, when counters or SASS metrics are missing, exactly which and why, with
// what to do about it; timings never depend on counters.
#pragma once

#include "engine/profile/ProfileClient.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tb::profile {

struct PeerComparison {
    std::string name; // "cuBLAS fp16 GEMM 4096x4096x4096" or "previous run (2026-11-29T12:00:00Z)"
    double peerMedianMs = 0;
    double ratio = 0;    // peer time / our time: > 1 means we are faster
    std::string verdict; // "faster", "slower", "same" (previous) or empty
    std::string note;    // why the peer is missing
    // Timed alternately with our kernel: each round's ratio of medians (the spread says how steady it was).
    std::vector<double> roundRatios;
};

struct ProfileReport {
    std::string subject; // file and parameters
    std::string kernel;
    std::string device;
    int registers = -1, sharedBytes = -1;
    bool dynamicShared =
        false;          // sharedBytes is the launch's dynamic shared memory, not ptxas's static figure
    int64_t blocks = 0; // the grid the kernel ran with (the dims of this run); 0 when not known

    TimingOutcome timing;
    int warmup = 0;
    WorkCounts work;
    Ceilings ceilings;
    DerivedRates rates;

    bool countersRequested = false;
    MetricsOutcome counters;
    bool sassRequested = false;
    SassOutcome sass;
    std::vector<LineTotals> cudaLines; // from the SASS records, when line info was available
    std::vector<LineTotals> tileLines;
    std::string lineInfoNote; // why SASS could not be placed on lines

    std::vector<PeerComparison> peers;
};

// Fills `rates` from timing, work and ceilings.
void finishReport(ProfileReport& report);

std::string formatReportText(const ProfileReport& report);
std::string formatReportJson(const ProfileReport& report);

// "1.234 ms", "56.7 us", "890 ns"; "12.3 TFLOP/s"; a count with thousands separators.
std::string formatDuration(double milliseconds);
std::string formatCount(double value);

} // namespace tb::profile
