// The runner's profiling requests (docs/runner-protocol.md, "Profiling"): `profiler` (what CUPTI can do
// here and why not), `time ... clock=cupti|events flush_l2=0|1` (kernel durations from CUPTI kernel
// records, with samples), `metrics` (Range Profiler), `sass` (per-instruction SASS metrics), `ceilings`
// (copy bandwidth and cuBLAS GEMM rate, cached per session) and `cublas` (the GEMM peer). Protocol version
// 1 is unchanged: these are new verbs and new optional fields, and data lines use the `info` verb that
// every v1 client already accepts.
#pragma once

#include "CuptiEngine.h"
#include "RunnerSession.h"

#include <memory>
#include <string>

namespace tb::runner {

class CuptiRequests {
public:
    explicit CuptiRequests(std::unique_ptr<CuptiEngine> engine);

    bool handles(const std::string& verb) const;
    // Same contract as RunnerSession::handle: false when the runner must exit (after a fault).
    bool handle(const gpu::ProtocolLine& r, RunnerSession& session);
    // `time` with clock= or flush_l2=, after the session resolved the launch and the counts.
    bool time(const gpu::ProtocolLine& r, RunnerSession& session, RunnerSession::PreparedLaunch& launch,
              int warmup, int repeat);

private:
    bool profiler(RunnerSession& session);
    bool metrics(const gpu::ProtocolLine& r, RunnerSession& session);
    bool sass(const gpu::ProtocolLine& r, RunnerSession& session);
    bool ceilings(const gpu::ProtocolLine& r, RunnerSession& session);
    bool cublas(const gpu::ProtocolLine& r, RunnerSession& session);
    // Writes `ok <verb> ... median_ms= ... samples_ms=...` for a timing.
    void writeTiming(RunnerSession& session, const std::string& head, const KernelTiming& timing,
                     bool flushL2, const std::string& extra);

    std::unique_ptr<CuptiEngine> m_engine;
};

} // namespace tb::runner
