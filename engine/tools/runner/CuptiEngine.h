// What tilebench-runner's profiling requests need from CUPTI and cuBLAS, as an interface with two
// implementations: the real one (CuptiProfiler.cpp: libcupti and libcublas loaded with dlopen on first use,
// so the runner still starts where they are missing) and a simulated one for `--fake` (CuptiFake.cpp),
// which can also pretend that counters are not permitted or libnvperf is missing, so the "unavailable and
// why" paths are tested without a GPU. The protocol half is CuptiRequests.
#pragma once

#include "RunnerBackend.h"
#include "engine/profile/MetricCatalog.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tb::runner {

class CudaBackend;

struct CuptiCapabilities {
    bool cupti = false;    // libcupti loaded
    bool activity = false; // kernel records can time launches
    profile::CounterAvailability counters = profile::CounterAvailability::NoCupti;
    profile::CounterAvailability sass = profile::CounterAvailability::NoCupti;
    std::string cuptiReason, countersReason, sassReason;
    std::string chip;
    int version = 0;
};

struct KernelTiming {
    std::vector<double> milliseconds; // one sample per launch
    std::string clock;                // cupti-activity, cuda-events or simulated
    std::string clockNote;            // why CUPTI was not used when asked for
};

struct RangeMetric {
    std::string name;
    bool available = false;
    double value = 0;
    std::string note;
};

struct RangeOutcome {
    profile::CounterAvailability availability = profile::CounterAvailability::Failed;
    std::string reason;
    int passes = 0;
    std::vector<RangeMetric> metrics;
};

struct SassInstruction {
    std::string function;
    uint32_t pc = 0;
    uint64_t instExecuted = 0, wavefronts = 0, ideal = 0;
};

struct SassOutcome {
    profile::CounterAvailability availability = profile::CounterAvailability::Failed;
    std::string reason;
    std::vector<SassInstruction> instructions;
    size_t dropped = 0;
};

struct MeasuredCeilings {
    double copyGBps = 0;
    uint64_t copyBytes = 0;
    double gemmTflops = 0;
    int gemmM = 0, gemmN = 0, gemmK = 0;
    std::string gemmNote; // why there is no GEMM ceiling (no cuBLAS, ...)
    bool cached = false;
};

class CuptiEngine {
public:
    virtual ~CuptiEngine() = default;
    // Launches the kernel once, asynchronously (the engine synchronizes).
    using Launch = std::function<BackendStatus()>;

    virtual bool simulated() const = 0;
    virtual CuptiCapabilities capabilities() = 0;
    // `warmup` untimed launches, then `repeat` timed ones; with flushL2, a memset of a buffer larger than
    // L2 runs before every timed launch. useCupti: durations from CUPTI kernel records of `kernelName`
    // (else CUDA events around each launch).
    virtual BackendStatus timeKernel(const std::string& kernelName, const Launch& launch, int warmup,
                                     int repeat, bool flushL2, bool useCupti, KernelTiming& out) = 0;
    // Range Profiler (auto range, kernel replay) over one launch. An empty list means the default set.
    virtual BackendStatus rangeMetrics(const Launch& launch, const std::vector<std::string>& names,
                                       RangeOutcome& out) = 0;
    // SASS metrics (instructions executed, shared wavefronts and their ideal) per PC over one launch of
    // `kernelName` (CUPTI names each record's function itself; the fake engine uses this name).
    virtual BackendStatus sassMetrics(const std::string& kernelName, const Launch& launch,
                                      SassOutcome& out) = 0;
    // Device copy bandwidth and cuBLAS fp16 GEMM rate, measured once and cached.
    virtual BackendStatus ceilings(bool refresh, MeasuredCeilings& out) = 0;
    // cuBLAS fp16 GEMM, row-major C[m,n] = A[m,k] B[k,n] with fp32 accumulation, timed like timeKernel
    // (each sample is the sum of the kernels one cublasGemmEx call launched).
    virtual BackendStatus cublasGemm(int m, int n, int k, int warmup, int repeat, bool flushL2, bool useCupti,
                                     KernelTiming& out, std::string& library) = 0;
};

// `mode` simulates availability: "available", "no-cupti", "no-nvperf", "permission", "another-profiler".
std::unique_ptr<CuptiEngine> makeFakeCuptiEngine(const std::string& mode);
std::unique_ptr<CuptiEngine> makeCudaCuptiEngine(CudaBackend& backend);

} // namespace tb::runner
