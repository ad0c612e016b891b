// The engine's side of the runner's profiling requests (docs/runner-protocol.md, "Profiling"): capability
// query, kernel timing with CUPTI kernel records (optionally flushing L2 between launches), Range Profiler
// metrics, per-instruction SASS metrics, the session's measured ceilings and a cuBLAS fp16 GEMM peer. Each
// call sends one request through a RunnerClient and turns the reply into a struct; nothing here needs a
// GPU or CUPTI in this process (the runner has them, or says why not).
#pragma once

#include "engine/gpu/RunnerClient.h"
#include "engine/profile/MetricCatalog.h"
#include "engine/profile/SourceAttribution.h"
#include "engine/profile/TimingStats.h"

#include <string>
#include <vector>

namespace tb::profile {

struct ProfilerStatus {
    bool ok = false;    // the runner answered the `profiler` request
    std::string error;  // why not (an old runner, no runner)
    bool cupti = false; // libcupti loaded
    bool activity = false;
    CounterAvailability counters = CounterAvailability::NoCupti;
    CounterAvailability sass = CounterAvailability::NoCupti;
    std::string cuptiReason, countersReason, sassReason;
    std::string chip;
    int cuptiVersion = 0;
    bool simulated = false;
};

struct TimingRequest {
    int warmup = 5;
    int repeat = 20;
    bool flushL2 = false;
    bool cupti = true; // kernel durations from CUPTI activity records (else CUDA events)
};

struct TimingOutcome {
    bool ok = false;
    std::string error;
    TimingSummary summary;
    std::vector<double> samplesMs;
    std::string clock;     // cupti-activity, cuda-events or simulated
    std::string clockNote; // why CUPTI was not used when it was asked for
    bool flushL2 = false;
    bool simulated = false;
    std::string library; // cuBLAS peer: which library ran
};

struct MetricValue {
    std::string name;
    double value = 0;
    bool available = false;
    std::string note; // why a single metric is missing
};

struct MetricsOutcome {
    bool ok = false; // the request itself worked (counters may still be unavailable)
    std::string error;
    CounterAvailability availability = CounterAvailability::Failed;
    std::string reason;
    int passes = 0;
    std::vector<MetricValue> values;
    bool simulated = false;
};

struct SassOutcome {
    bool ok = false;
    std::string error;
    CounterAvailability availability = CounterAvailability::Failed;
    std::string reason;
    std::vector<SassRecord> records;
    int dropped = 0;
    bool simulated = false;
};

ProfilerStatus queryProfiler(gpu::RunnerClient& client);

// `launchFields`: "grid=.. block=.. [smem=..] [args=..]" or empty to repeat the module's last launch.
TimingOutcome timeKernel(gpu::RunnerClient& client, const std::string& module,
                         const std::string& launchFields, const TimingRequest& request);
// `names` empty: the runner's default set (defaultRangeMetrics()).
MetricsOutcome collectMetrics(gpu::RunnerClient& client, const std::string& module,
                              const std::string& launchFields, const std::vector<std::string>& names = {});
SassOutcome collectSass(gpu::RunnerClient& client, const std::string& module,
                        const std::string& launchFields);
// Measured once per runner session and cached there; `refresh` measures again.
bool measureCeilings(gpu::RunnerClient& client, Ceilings& ceilings, std::string& error, bool refresh = false);
// cuBLAS fp16 GEMM (row-major C[m,n] = A[m,k] B[k,n], fp32 accumulate), timed like timeKernel.
TimingOutcome timeCublasGemm(gpu::RunnerClient& client, int m, int n, int k, const TimingRequest& request);

// Reply parsers, exposed for tests.
TimingOutcome parseTimingReply(const gpu::RunnerReply& reply);
MetricsOutcome parseMetricsReply(const gpu::RunnerReply& reply);
SassOutcome parseSassReply(const gpu::RunnerReply& reply);

} // namespace tb::profile
