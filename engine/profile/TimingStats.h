// Timing statistics and the rates derived from them. A timing is a list of per-launch samples (one kernel
// each, from CUPTI kernel records or CUDA events); it is summarized by median, min, max, mean and spread
// (max - min) / median, and the median gives TFLOP/s and GB/s from work the caller counts (the engine knows
// the FLOPs and bytes of a tile program; the GPU does not). Rates are also given as fractions of the
// ceilings measured once per runner session (device copy bandwidth, cuBLAS fp16 GEMM rate).
#pragma once

#include <string>
#include <vector>

namespace tb::profile {

struct TimingSummary {
    int count = 0;
    double medianMs = 0, minMs = 0, maxMs = 0, meanMs = 0;
    double spreadPct = 0; // (max - min) / median * 100
};

// Non-finite and negative samples are dropped; an empty list gives count 0.
TimingSummary summarizeTimings(const std::vector<double>& milliseconds);

// Work done by one launch, counted by the caller. Zero means "not counted".
struct WorkCounts {
    double flops = 0;
    double bytes = 0; // bytes that must move between DRAM and the SMs (reads + writes)
};

struct Ceilings {
    double copyGBps = 0;   // device-to-device copy, read + write counted; 0 when not measured
    double gemmTflops = 0; // cuBLAS fp16 GEMM (fp32 accumulate); 0 when not measured
    int gemmM = 0, gemmN = 0, gemmK = 0;
    std::string gemmNote; // why the GEMM ceiling is missing, if it is
    bool simulated = false;
};

struct DerivedRates {
    double tflops = 0; // 0 when flops were not counted
    double gbps = 0;   // 0 when bytes were not counted
    // Fractions (0..1+) of the ceilings; negative when the ceiling or the work is unknown.
    double fractionOfGemm = -1;
    double fractionOfCopy = -1;
};

DerivedRates deriveRates(const WorkCounts& work, double milliseconds, const Ceilings& ceilings);

// A caution when a timing cannot rank kernels: too few samples, a large spread, or a kernel so short that
// launch noise dominates. Empty when the timing looks trustworthy.
std::string timingCaution(const TimingSummary& t);

} // namespace tb::profile
