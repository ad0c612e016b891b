// Timing statistics (see TimingStats.h).
#include "engine/profile/TimingStats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tb::profile {

TimingSummary summarizeTimings(const std::vector<double>& milliseconds) {
    std::vector<double> v;
    for (double ms : milliseconds)
        if (std::isfinite(ms) && ms >= 0)
            v.push_back(ms);
    TimingSummary t;
    if (v.empty())
        return t;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    t.count = static_cast<int>(n);
    t.medianMs = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    t.minMs = v.front();
    t.maxMs = v.back();
    double sum = 0;
    for (double x : v)
        sum += x;
    t.meanMs = sum / static_cast<double>(n);
    t.spreadPct = t.medianMs > 0 ? 100.0 * (t.maxMs - t.minMs) / t.medianMs : 0;
    return t;
}

DerivedRates deriveRates(const WorkCounts& work, double milliseconds, const Ceilings& ceilings) {
    DerivedRates r;
    if (!(milliseconds > 0))
        return r;
    double seconds = milliseconds * 1e-3;
    if (work.flops > 0)
        r.tflops = work.flops / seconds / 1e12;
    if (work.bytes > 0)
        r.gbps = work.bytes / seconds / 1e9;
    if (r.tflops > 0 && ceilings.gemmTflops > 0)
        r.fractionOfGemm = r.tflops / ceilings.gemmTflops;
    if (r.gbps > 0 && ceilings.copyGBps > 0)
        r.fractionOfCopy = r.gbps / ceilings.copyGBps;
    return r;
}

std::string timingCaution(const TimingSummary& t) {
    char buf[160];
    if (t.count == 0)
        return "no samples";
    if (t.count < 5) {
        std::snprintf(buf, sizeof buf, "only %d samples; use more repeats to rank kernels", t.count);
        return buf;
    }
    if (t.medianMs < 0.005) {
        std::snprintf(buf, sizeof buf, "the kernel runs %.2f us: too short to rank against launch noise",
                      t.medianMs * 1e3);
        return buf;
    }
    if (t.spreadPct > 20) {
        std::snprintf(buf, sizeof buf,
                      "samples spread %.0f%% around the median; the GPU may be busy or throttling",
                      t.spreadPct);
        return buf;
    }
    return {};
}

} // namespace tb::profile
