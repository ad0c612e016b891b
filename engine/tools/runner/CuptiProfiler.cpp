// The real CuptiEngine (see CuptiEngine.h): CUPTI Activity kernel records for timing, the CUDA 13 Range
// Profiler (auto range + kernel replay) for counters, SASS metrics for per-instruction shared-memory
// wavefronts, and cuBLAS (dlopen'ed) for the GEMM ceiling and peer. The call sequences are the ones
// measured to work on the H200 (docs/reference/gpu-machine.md): the Activity API is flushed and disabled
// before any profiler work, cuptiProfilerInitialize is called once and kept for the SASS metrics, and it
// is de-initialized only when the runner exits.
#include "CudaBackend.h"
#include "CuptiEngine.h"
#include "CuptiLibrary.h"
#include "engine/profile/TimingStats.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

// CUPTI's documented idiom is `Params p = {Params_STRUCT_SIZE};` with the other members zeroed.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace tb::runner {

#if !TILEBENCH_HAS_CUPTI_HEADERS || !TILEBENCH_HAS_CUDA_HEADERS

std::unique_ptr<CuptiEngine> makeCudaCuptiEngine(CudaBackend&) {
    // Built without the CUPTI headers: no profiling requests (they answer unknown-command, as in a runner
    // that predates them); `time` without clock= still works with CUDA events.
    return nullptr;
}

#else

namespace {

using profile::CounterAvailability;

// ---------------------------------------------------------------- Activity records (C callbacks)

struct KernelRecord {
    std::string name;
    uint64_t start = 0, end = 0;
};

std::mutex gRecordsMutex;
std::vector<KernelRecord> gRecords;
size_t gDropped = 0;
const CuptiApi* gApi = nullptr;

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *size = size_t(1) << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t* buffer, size_t, size_t validSize) {
    std::lock_guard<std::mutex> lock(gRecordsMutex);
    CUpti_Activity* record = nullptr;
    while (gApi && gApi->activityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
            gRecords.push_back({k->name ? k->name : "", k->start, k->end});
        }
    }
    size_t dropped = 0;
    if (gApi)
        gApi->activityGetNumDroppedRecords(ctx, streamId, &dropped);
    gDropped += dropped;
    std::free(buffer);
}

// ---------------------------------------------------------------- cuBLAS through dlopen

// The few cuBLAS declarations used, so that no cuBLAS header is needed (values from cublas_api.h and
// library_types.h, stable since CUDA 11).
using CublasHandle = void*;
using CublasCreate = int (*)(CublasHandle*);
using CublasDestroy = int (*)(CublasHandle);
using CublasGemmEx = int (*)(CublasHandle, int, int, int, int, int, const void*, const void*, int, int,
                             const void*, int, int, const void*, void*, int, int, int, int);
constexpr int kCublasOpN = 0, kCudaR16F = 2, kCublasCompute32F = 68, kCublasGemmDefault = -1;

struct Cublas {
    CublasCreate create = nullptr;
    CublasDestroy destroy = nullptr;
    CublasGemmEx gemmEx = nullptr;
    std::string library;
};

class CudaCuptiEngine : public CuptiEngine {
public:
    explicit CudaCuptiEngine(CudaBackend& backend) : m_backend(backend) {}

    ~CudaCuptiEngine() override {
        if (m_cublasHandle && m_cublas.destroy)
            m_cublas.destroy(m_cublasHandle);
        const gpu::CudaDriverApi* d = m_backend.api();
        if (d && m_backend.context()) {
            for (CUdeviceptr p : {m_flush, m_gemmA, m_gemmB, m_gemmC})
                if (p)
                    d->memFree(p);
        }
        if (m_sassConfigured && m_api)
            unsetSass();
        if (m_profilerInitialized && m_api) {
            CUpti_Profiler_DeInitialize_Params p = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
            m_api->profilerDeInitialize(&p);
        }
    }

    bool simulated() const override { return false; }

    CuptiCapabilities capabilities() override {
        CuptiCapabilities c;
        if (!loadApi()) {
            c.cuptiReason = m_cuptiReason;
            c.countersReason = c.sassReason = m_cuptiReason;
            return c;
        }
        c.cupti = true;
        uint32_t version = 0;
        m_api->getVersion(&version);
        c.version = static_cast<int>(version);
        c.activity = registerActivity(c.cuptiReason);
        BackendStatus s = m_backend.ensureContext();
        if (!s.ok()) {
            c.counters = c.sass = CounterAvailability::NoDevice;
            c.countersReason = c.sassReason = s.message;
            return c;
        }
        std::string reason;
        CounterAvailability a = profilerReady(reason);
        c.chip = m_chip;
        c.counters = a;
        c.countersReason = reason;
        c.sass = a;
        c.sassReason = reason;
        if (a == CounterAvailability::Available) {
            c.counters = deviceSupport(CUPTI_PROFILER_RANGE_PROFILING, c.countersReason);
            c.sass = deviceSupport(CUPTI_PROFILER_SASS_METRICS, c.sassReason);
        }
        return c;
    }

    BackendStatus timeKernel(const std::string& kernelName, const Launch& launch, int warmup, int repeat,
                             bool flushL2, bool useCupti, KernelTiming& out) override {
        BackendStatus s = m_backend.ensureContext();
        if (!s.ok())
            return s;
        for (int i = 0; i < warmup; ++i)
            if (s = launch(); !s.ok())
                return s;
        if (s = sync("warm-up"); !s.ok())
            return s;
        if (flushL2) {
            if (s = ensureFlushBuffer(); !s.ok())
                return s;
        }
        std::string why;
        if (useCupti && loadApi() && registerActivity(why)) {
            clearRecords();
            CUptiResult r = m_api->activityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
            if (r == CUPTI_SUCCESS) {
                for (int i = 0; i < repeat && s.ok(); ++i) {
                    if (flushL2)
                        s = flush(i);
                    if (s.ok())
                        s = launch();
                    // Waiting after each launch keeps launches from overlapping, as with events.
                    if (s.ok())
                        s = sync("kernel execution");
                }
                m_api->activityFlushAll(1);
                m_api->activityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
                if (!s.ok())
                    return s;
                std::vector<KernelRecord> records = takeRecords();
                std::vector<KernelRecord> mine;
                for (const KernelRecord& k : records)
                    if (k.name == kernelName)
                        mine.push_back(k);
                if (mine.size() == size_t(repeat)) {
                    std::sort(mine.begin(), mine.end(),
                              [](const KernelRecord& a, const KernelRecord& b) { return a.start < b.start; });
                    for (const KernelRecord& k : mine)
                        out.milliseconds.push_back(double(k.end - k.start) * 1e-6);
                    out.clock = "cupti-activity";
                    return BackendStatus::success();
                }
                why = std::to_string(mine.size()) + " kernel records of " + kernelName + " for " +
                      std::to_string(repeat) + " launches (" + std::to_string(records.size()) +
                      " records in all)";
            } else {
                why = "cuptiActivityEnable: " + cuptiResultText(*m_api, r);
            }
        } else if (useCupti && why.empty()) {
            why = m_cuptiReason;
        }
        if (useCupti)
            out.clockNote = "CUPTI kernel records unavailable (" + why + "); timed with CUDA events";
        out.clock = "cuda-events";
        return timeWithEvents(launch, repeat, flushL2, out.milliseconds);
    }

    BackendStatus rangeMetrics(const Launch& launch, const std::vector<std::string>& requested,
                               RangeOutcome& out) override {
        BackendStatus s = m_backend.ensureContext();
        if (!s.ok())
            return s;
        std::vector<std::string> names = requested;
        if (names.empty())
            for (const profile::MetricInfo& m : profile::defaultRangeMetrics())
                names.push_back(m.name);
        if (!loadApi()) {
            out.availability = CounterAvailability::NoCupti;
            out.reason = m_cuptiReason;
            return launchAndSync(launch);
        }
        out.availability = profilerReady(out.reason);
        if (out.availability == CounterAvailability::Available)
            out.availability = deviceSupport(CUPTI_PROFILER_RANGE_PROFILING, out.reason);
        if (out.availability != CounterAvailability::Available)
            return launchAndSync(launch);

        // Which names this chip accepts: all at once, else one by one (a rejected name is reported, the
        // others are still collected).
        std::vector<std::string> accepted;
        std::map<std::string, std::string> rejected;
        std::vector<uint8_t> config;
        std::string error;
        if (!buildConfig(names, config, out.passes, error)) {
            for (const std::string& n : names) {
                std::vector<uint8_t> single;
                int passes = 0;
                std::string e;
                if (buildConfig({n}, single, passes, e))
                    accepted.push_back(n);
                else
                    rejected[n] = e;
            }
            if (accepted.empty() || !buildConfig(accepted, config, out.passes, error)) {
                out.availability = CounterAvailability::Failed;
                out.reason = accepted.empty() ? "no requested metric is known on " + m_chip : error;
                for (const std::string& n : names)
                    out.metrics.push_back({n, false, 0, rejected.count(n) ? rejected[n] : error});
                return launchAndSync(launch);
            }
        } else {
            accepted = names;
        }

        std::vector<double> values;
        CounterAvailability a = CounterAvailability::Available;
        s = profileOnce(launch, accepted, config, values, a, error);
        if (!s.ok())
            return s;
        out.availability = a;
        out.reason = error;
        for (const std::string& n : names) {
            auto it = std::find(accepted.begin(), accepted.end(), n);
            RangeMetric m;
            m.name = n;
            if (it == accepted.end()) {
                m.note = rejected[n];
            } else if (a == CounterAvailability::Available) {
                m.available = true;
                m.value = values[size_t(it - accepted.begin())];
            } else {
                m.note = error;
            }
            out.metrics.push_back(m);
        }
        return BackendStatus::success();
    }

    BackendStatus sassMetrics(const std::string&, const Launch& launch, SassOutcome& out) override {
        BackendStatus s = m_backend.ensureContext();
        if (!s.ok())
            return s;
        if (!loadApi()) {
            out.availability = CounterAvailability::NoCupti;
            out.reason = m_cuptiReason;
            return launchAndSync(launch);
        }
        out.availability = profilerReady(out.reason);
        if (out.availability == CounterAvailability::Available)
            out.availability = deviceSupport(CUPTI_PROFILER_SASS_METRICS, out.reason);
        if (out.availability != CounterAvailability::Available)
            return launchAndSync(launch);

        CUpti_SassMetrics_GetNumOfMetrics_Params nm = {CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
        nm.pChipName = m_chip.c_str();
        CUptiResult r = m_api->sassGetNumOfMetrics(&nm);
        std::vector<CUpti_SassMetrics_MetricDetails> list(r == CUPTI_SUCCESS ? nm.numOfMetrics : 0);
        CUpti_SassMetrics_GetMetrics_Params gm = {CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
        gm.pChipName = m_chip.c_str();
        gm.numOfMetrics = list.size();
        gm.pMetricsList = list.data();
        if (r == CUPTI_SUCCESS)
            r = m_api->sassGetMetrics(&gm);
        if (r != CUPTI_SUCCESS)
            return unavailable(out.availability, out.reason, "cuptiSassMetricsGetMetrics", r, launch);
        std::vector<CUpti_SassMetrics_Config> configs;
        std::map<uint64_t, int> column; // metric id -> 0 inst, 1 wavefronts, 2 ideal
        const char* wanted[] = {profile::kSassInstExecuted, profile::kSassSharedWavefronts,
                                profile::kSassSharedWavefrontsIdeal};
        for (int i = 0; i < 3; ++i)
            for (const auto& m : list)
                if (m.pMetricName && std::strcmp(m.pMetricName, wanted[i]) == 0) {
                    configs.push_back({m.metricId, uint8_t(CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU)});
                    column[m.metricId] = i;
                }
        if (configs.size() != 3) {
            out.availability = CounterAvailability::Unsupported;
            out.reason = "chip " + m_chip + " lacks the SASS metrics " + std::string(wanted[1]) + " / _ideal";
            return launchAndSync(launch);
        }
        // The configuration is set once per runner and kept: on the H200 a second SetConfig after
        // UnsetConfig (the next `sass` request) failed with CUPTI_ERROR_OUT_OF_MEMORY.
        if (!m_sassConfigured) {
            CUpti_SassMetricsSetConfig_Params sc = {CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
            sc.deviceIndex = static_cast<uint32_t>(m_backend.selectedDevice());
            sc.numOfMetricConfig = configs.size();
            sc.pConfigs = configs.data();
            if ((r = m_api->sassSetConfig(&sc)) != CUPTI_SUCCESS)
                return unavailable(out.availability, out.reason, "cuptiSassMetricsSetConfig", r, launch);
            m_sassConfigured = true;
        }
        CUpti_SassMetricsEnable_Params en = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
        en.ctx = m_backend.context();
        en.enableLazyPatching = 1;
        if ((r = m_api->sassEnable(&en)) != CUPTI_SUCCESS) {
            return unavailable(out.availability, out.reason, "cuptiSassMetricsEnable", r, launch);
        }
        s = launchAndSync(launch);
        CUpti_SassMetricsGetDataProperties_Params dp = {
            CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
        dp.ctx = m_backend.context();
        if (s.ok() && (r = m_api->sassGetDataProperties(&dp)) == CUPTI_SUCCESS &&
            dp.numOfPatchedInstructionRecords && dp.numOfInstances) {
            size_t records = dp.numOfPatchedInstructionRecords, instances = dp.numOfInstances;
            std::vector<CUpti_SassMetrics_Data> data(records);
            std::vector<CUpti_SassMetrics_InstanceValue> values(records * instances);
            for (size_t i = 0; i < records; ++i) {
                data[i].structSize = sizeof(CUpti_SassMetrics_Data);
                data[i].pInstanceValues = &values[i * instances];
            }
            CUpti_SassMetricsFlushData_Params fd = {CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
            fd.ctx = m_backend.context();
            fd.numOfPatchedInstructionRecords = records;
            fd.numOfInstances = instances;
            fd.pMetricsData = data.data();
            if ((r = m_api->sassFlushData(&fd)) == CUPTI_SUCCESS) {
                std::map<std::pair<std::string, uint32_t>, SassInstruction> byPc;
                for (size_t i = 0; i < records; ++i) {
                    std::string fn = data[i].functionName ? data[i].functionName : "?";
                    SassInstruction& ins = byPc[{fn, data[i].pcOffset}];
                    ins.function = fn;
                    ins.pc = static_cast<uint32_t>(data[i].pcOffset);
                    for (size_t j = 0; j < instances; ++j) {
                        const auto& v = data[i].pInstanceValues[j];
                        auto c = column.find(v.metricId);
                        if (c == column.end())
                            continue;
                        uint64_t& slot = c->second == 0   ? ins.instExecuted
                                         : c->second == 1 ? ins.wavefronts
                                                          : ins.ideal;
                        slot += v.value;
                    }
                }
                for (auto& [key, ins] : byPc)
                    out.instructions.push_back(ins);
            }
        }
        CUpti_SassMetricsDisable_Params dis = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
        dis.ctx = m_backend.context();
        if (m_api->sassDisable(&dis) == CUPTI_SUCCESS)
            out.dropped = dis.numOfDroppedRecords;
        if (!s.ok())
            return s;
        if (r != CUPTI_SUCCESS) {
            out.availability = classifyCuptiResult(r);
            out.reason = "SASS metrics collection: " + cuptiResultText(*m_api, r);
        }
        return BackendStatus::success();
    }

    BackendStatus ceilings(bool refresh, MeasuredCeilings& out) override {
        if (m_ceilingsMeasured && !refresh) {
            out = m_ceilings;
            out.cached = true;
            return BackendStatus::success();
        }
        BackendStatus s = m_backend.ensureContext();
        if (!s.ok())
            return s;
        MeasuredCeilings c;
        s = measureCopy(c);
        if (!s.ok())
            return s;
        KernelTiming gemm;
        std::string library;
        c.gemmM = c.gemmN = c.gemmK = 8192;
        s = cublasGemm(8192, 8192, 8192, 3, 10, false, true, gemm, library);
        if (!s.ok() && s.kind == BackendStatus::Kind::Fault)
            return s;
        profile::TimingSummary t = profile::summarizeTimings(gemm.milliseconds);
        if (s.ok() && t.medianMs > 0)
            c.gemmTflops = 2.0 * 8192.0 * 8192.0 * 8192.0 / (t.medianMs * 1e-3) / 1e12;
        else
            c.gemmNote = s.ok() ? "no GEMM samples" : s.message;
        m_ceilings = c;
        m_ceilingsMeasured = true;
        out = c;
        return BackendStatus::success();
    }

    BackendStatus cublasGemm(int m, int n, int k, int warmup, int repeat, bool flushL2, bool useCupti,
                             KernelTiming& out, std::string& library) override {
        BackendStatus s = m_backend.ensureContext();
        if (!s.ok())
            return s;
        if (!loadCublas())
            return BackendStatus::error("no-cublas", m_cublasReason);
        library = m_cublas.library;
        const gpu::CudaDriverApi* d = m_backend.api();
        size_t bytesA = size_t(m) * k * 2, bytesB = size_t(k) * n * 2, bytesC = size_t(m) * n * 2;
        if (bytesA > m_gemmBytesA || bytesB > m_gemmBytesB || bytesC > m_gemmBytesC) {
            for (CUdeviceptr* p : {&m_gemmA, &m_gemmB, &m_gemmC})
                if (*p) {
                    d->memFree(*p);
                    *p = 0;
                }
            m_gemmBytesA = m_gemmBytesB = m_gemmBytesC = 0;
            if ((s = m_backend.check(d->memAlloc(&m_gemmA, bytesA), "cuMemAlloc(A)", "out-of-memory")).ok() &&
                (s = m_backend.check(d->memAlloc(&m_gemmB, bytesB), "cuMemAlloc(B)", "out-of-memory")).ok() &&
                (s = m_backend.check(d->memAlloc(&m_gemmC, bytesC), "cuMemAlloc(C)", "out-of-memory")).ok()) {
                // Random fp16 operands in [-1, 1): cuBLAS runs measurably faster on zeros (gpu notes).
                for (auto [ptr, bytes] : {std::pair{m_gemmA, bytesA}, std::pair{m_gemmB, bytesB}}) {
                    std::vector<uint16_t> host(bytes / 2);
                    uint64_t state = 0x9e3779b97f4a7c15ull ^ bytes;
                    for (uint16_t& h : host) {
                        state = state * 6364136223846793005ull + 1442695040888963407ull;
                        uint32_t bits = uint32_t(state >> 33);
                        // sign, exponent 2^-8..2^-1, random mantissa
                        h = uint16_t(((bits & 1) << 15) | ((0x7 + (bits >> 1) % 7) << 10) |
                                     ((bits >> 4) & 0x3ff));
                    }
                    if (!(s = m_backend.check(d->memcpyHtoD(ptr, host.data(), bytes), "cuMemcpyHtoD",
                                              "copy-failed"))
                             .ok())
                        return s;
                }
                m_gemmBytesA = bytesA;
                m_gemmBytesB = bytesB;
                m_gemmBytesC = bytesC;
            } else {
                return s;
            }
        }
        if (!m_cublasHandle && m_cublas.create(&m_cublasHandle) != 0) {
            m_cublasHandle = nullptr;
            return BackendStatus::error("no-cublas", "cublasCreate failed");
        }
        float alpha = 1.0f, beta = 0.0f;
        // Row-major C[m,n] = A[m,k] B[k,n] is column-major C^T = B^T A^T.
        Launch launch = [&]() -> BackendStatus {
            int status = m_cublas.gemmEx(m_cublasHandle, kCublasOpN, kCublasOpN, n, m, k, &alpha,
                                         reinterpret_cast<const void*>(m_gemmB), kCudaR16F, n,
                                         reinterpret_cast<const void*>(m_gemmA), kCudaR16F, k, &beta,
                                         reinterpret_cast<void*>(m_gemmC), kCudaR16F, n, kCublasCompute32F,
                                         kCublasGemmDefault);
            if (status != 0)
                return BackendStatus::error("launch-failed",
                                            "cublasGemmEx returned status " + std::to_string(status));
            return BackendStatus::success();
        };
        for (int i = 0; i < warmup; ++i)
            if (s = launch(); !s.ok())
                return s;
        if (s = sync("cuBLAS warm-up"); !s.ok())
            return s;
        if (flushL2) {
            if (s = ensureFlushBuffer(); !s.ok())
                return s;
        }
        std::string why;
        if (useCupti && loadApi() && registerActivity(why) &&
            m_api->activityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS) {
            // cuBLAS may launch several kernels per call: flush after each call and sum its records.
            for (int i = 0; i < repeat && s.ok(); ++i) {
                if (flushL2)
                    s = flush(i);
                clearRecords();
                if (s.ok())
                    s = launch();
                if (s.ok())
                    s = sync("cuBLAS execution");
                m_api->activityFlushAll(1);
                double ms = 0;
                for (const KernelRecord& r : takeRecords())
                    ms += double(r.end - r.start) * 1e-6;
                if (s.ok())
                    out.milliseconds.push_back(ms);
            }
            m_api->activityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
            out.clock = "cupti-activity";
            return s;
        }
        if (useCupti)
            out.clockNote = "CUPTI kernel records unavailable (" + (why.empty() ? m_cuptiReason : why) +
                            "); timed with CUDA events";
        out.clock = "cuda-events";
        return timeWithEvents(launch, repeat, flushL2, out.milliseconds);
    }

private:
    bool loadApi() {
        if (!m_api) {
            m_api = loadCupti(m_cuptiReason);
            gApi = m_api;
        }
        return m_api != nullptr;
    }

    bool registerActivity(std::string& why) {
        if (m_activityRegistered)
            return true;
        CUptiResult r = m_api->activityRegisterCallbacks(bufferRequested, bufferCompleted);
        if (r != CUPTI_SUCCESS) {
            why = "cuptiActivityRegisterCallbacks: " + cuptiResultText(*m_api, r);
            if (classifyCuptiResult(r) == CounterAvailability::AnotherProfiler)
                why += ": another profiler is attached";
            return false;
        }
        m_activityRegistered = true;
        return true;
    }

    static void clearRecords() {
        std::lock_guard<std::mutex> lock(gRecordsMutex);
        gRecords.clear();
    }
    static std::vector<KernelRecord> takeRecords() {
        std::lock_guard<std::mutex> lock(gRecordsMutex);
        std::vector<KernelRecord> out;
        out.swap(gRecords);
        return out;
    }

    // cuptiProfilerInitialize (once), the chip name and the counter-availability image; the availability
    // says why counters cannot be used.
    CounterAvailability profilerReady(std::string& reason) {
        if (m_profilerState != CounterAvailability::Failed || !m_profilerReason.empty()) {
            reason = m_profilerReason;
            return m_profilerState;
        }
        auto fail = [&](CounterAvailability a, std::string why) {
            m_profilerState = a;
            m_profilerReason = std::move(why);
            reason = m_profilerReason;
            return a;
        };
        std::string nvperf;
        if (!nvperfLoadable(nvperf))
            return fail(CounterAvailability::NoNvperf, nvperf);
        CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        CUptiResult r = m_api->profilerInitialize(&pi);
        if (r != CUPTI_SUCCESS)
            return fail(classifyCuptiResult(r), "cuptiProfilerInitialize: " + cuptiResultText(*m_api, r));
        m_profilerInitialized = true;
        CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
        cn.deviceIndex = static_cast<size_t>(m_backend.selectedDevice());
        if ((r = m_api->deviceGetChipName(&cn)) != CUPTI_SUCCESS)
            return fail(classifyCuptiResult(r), "cuptiDeviceGetChipName: " + cuptiResultText(*m_api, r));
        m_chip = cn.pChipName ? cn.pChipName : "";
        CUpti_Profiler_GetCounterAvailability_Params ca = {
            CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
        ca.ctx = m_backend.context();
        if ((r = m_api->profilerGetCounterAvailability(&ca)) == CUPTI_SUCCESS) {
            m_availability.assign(ca.counterAvailabilityImageSize, 0);
            ca.pCounterAvailabilityImage = m_availability.data();
            r = m_api->profilerGetCounterAvailability(&ca);
        }
        if (r != CUPTI_SUCCESS)
            return fail(classifyCuptiResult(r),
                        "cuptiProfilerGetCounterAvailability: " + cuptiResultText(*m_api, r));
        m_profilerState = CounterAvailability::Available;
        m_profilerReason.clear();
        reason.clear();
        return m_profilerState;
    }

    CounterAvailability deviceSupport(CUpti_Profiler_API which, std::string& reason) {
        CUpti_Profiler_DeviceSupported_Params p = {CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
        p.cuDevice = m_backend.cuDevice();
        p.api = which;
        CUptiResult r = m_api->profilerDeviceSupported(&p);
        if (r != CUPTI_SUCCESS) {
            reason = "cuptiProfilerDeviceSupported: " + cuptiResultText(*m_api, r);
            return classifyCuptiResult(r);
        }
        if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
            return CounterAvailability::Available;
        std::string parts;
        auto check = [&](CUpti_Profiler_Support_Level level, const char* what) {
            if (level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
                parts += (parts.empty() ? "" : ", ") + std::string(what) +
                         (level == CUPTI_PROFILER_CONFIGURATION_DISABLED ? " disabled" : " unsupported");
        };
        check(p.architecture, "architecture");
        check(p.sli, "SLI");
        check(p.vGpu, "vGPU");
        check(p.confidentialCompute, "confidential compute");
        check(p.cmp, "CMP");
        check(p.wsl, "WSL");
        reason = "not supported on this device: " + (parts.empty() ? std::string("unknown cause") : parts);
        return CounterAvailability::Unsupported;
    }

    // A Range Profiler configuration image for `names`; false with the CUPTI error when a name is rejected.
    bool buildConfig(const std::vector<std::string>& names, std::vector<uint8_t>& config, int& passes,
                     std::string& error) {
        CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
        hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        hi.pChipName = m_chip.c_str();
        hi.pCounterAvailabilityImage = m_availability.data();
        CUptiResult r = m_api->hostInitialize(&hi);
        if (r != CUPTI_SUCCESS) {
            error = "cuptiProfilerHostInitialize: " + cuptiResultText(*m_api, r);
            return false;
        }
        std::vector<const char*> pointers;
        for (const std::string& n : names)
            pointers.push_back(n.c_str());
        CUpti_Profiler_Host_ConfigAddMetrics_Params am = {
            CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
        am.pHostObject = hi.pHostObject;
        am.ppMetricNames = pointers.data();
        am.numMetrics = pointers.size();
        r = m_api->hostConfigAddMetrics(&am);
        if (r == CUPTI_SUCCESS) {
            CUpti_Profiler_Host_GetConfigImageSize_Params is = {
                CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
            is.pHostObject = hi.pHostObject;
            r = m_api->hostGetConfigImageSize(&is);
            if (r == CUPTI_SUCCESS) {
                config.assign(is.configImageSize, 0);
                CUpti_Profiler_Host_GetConfigImage_Params gi = {
                    CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
                gi.pHostObject = hi.pHostObject;
                gi.configImageSize = config.size();
                gi.pConfigImage = config.data();
                r = m_api->hostGetConfigImage(&gi);
            }
            if (r == CUPTI_SUCCESS) {
                CUpti_Profiler_Host_GetNumOfPasses_Params np = {
                    CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
                np.configImageSize = config.size();
                np.pConfigImage = config.data();
                if (m_api->hostGetNumOfPasses(&np) == CUPTI_SUCCESS)
                    passes = static_cast<int>(np.numOfPasses);
            }
        }
        if (r != CUPTI_SUCCESS)
            error = (names.size() == 1 ? "not a metric of chip " + m_chip + ": "
                                       : "cuptiProfilerHostConfigAddMetrics: ") +
                    cuptiResultText(*m_api, r);
        m_host = hi.pHostObject;
        if (r != CUPTI_SUCCESS)
            releaseHost();
        return r == CUPTI_SUCCESS;
    }

    void releaseHost() {
        if (!m_host)
            return;
        CUpti_Profiler_Host_Deinitialize_Params hd = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        hd.pHostObject = m_host;
        m_api->hostDeinitialize(&hd);
        m_host = nullptr;
    }

    // One launch under the Range Profiler (auto range, kernel replay), evaluated with the host object that
    // buildConfig left for the last configuration. `a`/`error` say why no values came out.
    BackendStatus profileOnce(const Launch& launch, const std::vector<std::string>& names,
                              std::vector<uint8_t>& config, std::vector<double>& values,
                              CounterAvailability& a, std::string& error) {
        struct HostGuard {
            CudaCuptiEngine* self;
            ~HostGuard() { self->releaseHost(); }
        } guard{this};
        std::vector<const char*> pointers;
        for (const std::string& n : names)
            pointers.push_back(n.c_str());
        CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        en.ctx = m_backend.context();
        CUptiResult r = m_api->rangeEnable(&en);
        if (r != CUPTI_SUCCESS) {
            a = classifyCuptiResult(r);
            error = "cuptiRangeProfilerEnable: " + cuptiResultText(*m_api, r);
            return launchAndSync(launch);
        }
        CUpti_RangeProfiler_Object* object = en.pRangeProfilerObject;
        BackendStatus status = BackendStatus::success();
        std::vector<uint8_t> counterData;
        const char* step = "";
        do {
            CUpti_RangeProfiler_GetCounterDataSize_Params cs = {
                CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
            cs.pRangeProfilerObject = object;
            cs.pMetricNames = pointers.data();
            cs.numMetrics = pointers.size();
            cs.maxNumOfRanges = 4;
            cs.maxNumRangeTreeNodes = 4;
            step = "cuptiRangeProfilerGetCounterDataSize";
            if ((r = m_api->rangeGetCounterDataSize(&cs)) != CUPTI_SUCCESS)
                break;
            counterData.assign(cs.counterDataSize, 0);
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {
                CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
            ci.pRangeProfilerObject = object;
            ci.counterDataSize = counterData.size();
            ci.pCounterData = counterData.data();
            step = "cuptiRangeProfilerCounterDataImageInitialize";
            if ((r = m_api->rangeCounterDataImageInitialize(&ci)) != CUPTI_SUCCESS)
                break;
            CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
            sc.pRangeProfilerObject = object;
            sc.configSize = config.size();
            sc.pConfig = config.data();
            sc.counterDataImageSize = counterData.size();
            sc.pCounterDataImage = counterData.data();
            sc.range = CUPTI_AutoRange;
            sc.replayMode = CUPTI_KernelReplay;
            sc.maxRangesPerPass = 4;
            sc.numNestingLevels = 1;
            sc.minNestingLevel = 1;
            sc.passIndex = 0;
            sc.targetNestingLevel = 1;
            step = "cuptiRangeProfilerSetConfig";
            if ((r = m_api->rangeSetConfig(&sc)) != CUPTI_SUCCESS)
                break;
            uint8_t allSubmitted = 0;
            for (int pass = 0; !allSubmitted && pass < 64; ++pass) {
                CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
                st.pRangeProfilerObject = object;
                step = "cuptiRangeProfilerStart";
                if ((r = m_api->rangeStart(&st)) != CUPTI_SUCCESS)
                    break;
                status = launchAndSync(launch);
                CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
                sp.pRangeProfilerObject = object;
                step = "cuptiRangeProfilerStop";
                r = m_api->rangeStop(&sp);
                if (!status.ok() || r != CUPTI_SUCCESS)
                    break;
                allSubmitted = sp.isAllPassSubmitted;
            }
            if (!status.ok() || r != CUPTI_SUCCESS)
                break;
            CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
            dd.pRangeProfilerObject = object;
            step = "cuptiRangeProfilerDecodeData";
            if ((r = m_api->rangeDecodeData(&dd)) != CUPTI_SUCCESS)
                break;
            CUpti_RangeProfiler_GetCounterDataInfo_Params di = {
                CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
            di.pCounterDataImage = counterData.data();
            di.counterDataImageSize = counterData.size();
            step = "cuptiRangeProfilerGetCounterDataInfo";
            if ((r = m_api->rangeGetCounterDataInfo(&di)) != CUPTI_SUCCESS)
                break;
            if (di.numTotalRanges < 1) {
                a = CounterAvailability::Failed;
                error = "the Range Profiler recorded no range for the launch";
                break;
            }
            values.assign(names.size(), 0);
            CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
                CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
            ev.pHostObject = m_host;
            ev.pCounterDataImage = counterData.data();
            ev.counterDataImageSize = counterData.size();
            ev.rangeIndex = 0; // auto ranges are numbered by launch order; this measurement has one launch
            ev.ppMetricNames = pointers.data();
            ev.numMetrics = pointers.size();
            ev.pMetricValues = values.data();
            step = "cuptiProfilerHostEvaluateToGpuValues";
            r = m_api->hostEvaluateToGpuValues(&ev);
        } while (false);
        if (r != CUPTI_SUCCESS) {
            a = classifyCuptiResult(r);
            error = std::string(step) + ": " + cuptiResultText(*m_api, r);
        }
        CUpti_RangeProfiler_Disable_Params dp = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        dp.pRangeProfilerObject = object;
        m_api->rangeDisable(&dp);
        return status;
    }

    BackendStatus unavailable(CounterAvailability& a, std::string& reason, const char* what, CUptiResult r,
                              const Launch& launch) {
        a = classifyCuptiResult(r);
        reason = std::string(what) + ": " + cuptiResultText(*m_api, r);
        return launchAndSync(launch);
    }

    void unsetSass() {
        CUpti_SassMetricsUnsetConfig_Params us = {CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
        us.deviceIndex = static_cast<uint32_t>(m_backend.selectedDevice());
        m_api->sassUnsetConfig(&us);
    }

    BackendStatus sync(const char* what) {
        return m_backend.check(m_backend.api()->ctxSynchronize(), what, "launch-failed");
    }

    BackendStatus launchAndSync(const Launch& launch) {
        BackendStatus s = launch();
        return s.ok() ? sync("kernel execution (cuCtxSynchronize)") : s;
    }

    BackendStatus ensureFlushBuffer() {
        if (m_flush)
            return BackendStatus::success();
        const gpu::GpuDeviceInfo& info = m_backend.devices().at(size_t(m_backend.selectedDevice()));
        // Twice the L2 and at least 128 MiB, so that nothing of the kernel's data survives in L2.
        m_flushBytes = std::max<size_t>(size_t(2) * size_t(std::max(info.l2Bytes, 0)), size_t(128) << 20);
        return m_backend.check(m_backend.api()->memAlloc(&m_flush, m_flushBytes),
                               "cuMemAlloc(L2 flush buffer)", "out-of-memory");
    }

    BackendStatus flush(int i) {
        return m_backend.check(
            m_backend.api()->memsetD8(m_flush, static_cast<unsigned char>(i & 0xff), m_flushBytes),
            "cuMemsetD8 (L2 flush)", "launch-failed");
    }

    BackendStatus timeWithEvents(const Launch& launch, int repeat, bool flushL2, std::vector<double>& ms) {
        const gpu::CudaDriverApi* d = m_backend.api();
        CUevent start = nullptr, stop = nullptr;
        BackendStatus s =
            m_backend.check(d->eventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate", "time-failed");
        if (s.ok())
            s = m_backend.check(d->eventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate", "time-failed");
        for (int i = 0; s.ok() && i < repeat; ++i) {
            if (flushL2)
                s = flush(i);
            if (s.ok())
                s = m_backend.check(d->eventRecord(start, nullptr), "cuEventRecord", "time-failed");
            if (s.ok())
                s = launch();
            if (s.ok())
                s = m_backend.check(d->eventRecord(stop, nullptr), "cuEventRecord", "time-failed");
            if (s.ok())
                s = m_backend.check(d->eventSynchronize(stop), "kernel execution (cuEventSynchronize)",
                                    "launch-failed");
            float value = 0;
            if (s.ok())
                s = m_backend.check(d->eventElapsedTime(&value, start, stop), "cuEventElapsedTime",
                                    "time-failed");
            if (s.ok())
                ms.push_back(value);
        }
        if (start)
            d->eventDestroy(start);
        if (stop)
            d->eventDestroy(stop);
        return s;
    }

    // Device-to-device copy of 1 GiB (256 MiB when memory is short), read + write counted, CUDA events.
    BackendStatus measureCopy(MeasuredCeilings& c) {
        const gpu::CudaDriverApi* d = m_backend.api();
        using MemcpyDtoD = CUresult (*)(CUdeviceptr, CUdeviceptr, size_t);
        void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        auto copy = driver ? reinterpret_cast<MemcpyDtoD>(dlsym(driver, "cuMemcpyDtoD_v2")) : nullptr;
        if (!copy)
            return BackendStatus::error("time-failed", "cuMemcpyDtoD_v2 not found in libcuda.so.1");
        for (size_t bytes : {size_t(1) << 30, size_t(256) << 20}) {
            CUdeviceptr a = 0, b = 0;
            if (d->memAlloc(&a, bytes) != CUDA_SUCCESS || d->memAlloc(&b, bytes) != CUDA_SUCCESS) {
                if (a)
                    d->memFree(a);
                continue;
            }
            d->memsetD8(a, 1, bytes);
            Launch launch = [&]() {
                return m_backend.check(copy(b, a, bytes), "cuMemcpyDtoD", "copy-failed");
            };
            std::vector<double> ms;
            BackendStatus s = launch();
            if (s.ok())
                s = sync("copy warm-up");
            if (s.ok())
                s = timeWithEvents(launch, 10, false, ms);
            d->memFree(a);
            d->memFree(b);
            if (!s.ok())
                return s;
            profile::TimingSummary t = profile::summarizeTimings(ms);
            c.copyBytes = bytes;
            c.copyGBps = t.medianMs > 0 ? 2.0 * double(bytes) / (t.medianMs * 1e-3) / 1e9 : 0;
            return BackendStatus::success();
        }
        return BackendStatus::error("out-of-memory",
                                    "cannot allocate two 256 MiB buffers for the copy ceiling");
    }

    bool loadCublas() {
        if (m_cublas.gemmEx)
            return true;
        if (!m_cublasReason.empty())
            return false;
        std::vector<std::string> names = {"libcublas.so.13", "libcublas.so"};
#ifdef TILEBENCH_CUDA_LIB_DIR
        names.push_back(std::string(TILEBENCH_CUDA_LIB_DIR) + "/libcublas.so.13");
#endif
        names.push_back("/usr/local/cuda/lib64/libcublas.so.13");
        std::string tried;
        for (const std::string& n : names) {
            void* h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!h) {
                const char* e = dlerror();
                tried += (tried.empty() ? "" : "; ") + std::string(e ? e : n);
                continue;
            }
            m_cublas.create = reinterpret_cast<CublasCreate>(dlsym(h, "cublasCreate_v2"));
            m_cublas.destroy = reinterpret_cast<CublasDestroy>(dlsym(h, "cublasDestroy_v2"));
            m_cublas.gemmEx = reinterpret_cast<CublasGemmEx>(dlsym(h, "cublasGemmEx"));
            if (m_cublas.create && m_cublas.destroy && m_cublas.gemmEx) {
                m_cublas.library = n;
                return true;
            }
            m_cublas.gemmEx = nullptr;
            tried += "; " + n + " lacks cublasCreate_v2/cublasGemmEx";
        }
        m_cublasReason = "libcublas could not be loaded: " + tried;
        return false;
    }

    CudaBackend& m_backend;
    const CuptiApi* m_api = nullptr;
    std::string m_cuptiReason;
    bool m_activityRegistered = false;
    bool m_profilerInitialized = false;
    bool m_sassConfigured = false;
    CounterAvailability m_profilerState = CounterAvailability::Failed;
    std::string m_profilerReason;
    std::string m_chip;
    std::vector<uint8_t> m_availability;
    CUpti_Profiler_Host_Object* m_host = nullptr;
    CUdeviceptr m_flush = 0;
    size_t m_flushBytes = 0;
    Cublas m_cublas;
    std::string m_cublasReason;
    CublasHandle m_cublasHandle = nullptr;
    CUdeviceptr m_gemmA = 0, m_gemmB = 0, m_gemmC = 0;
    size_t m_gemmBytesA = 0, m_gemmBytesB = 0, m_gemmBytesC = 0;
    bool m_ceilingsMeasured = false;
    MeasuredCeilings m_ceilings;
};

} // namespace

std::unique_ptr<CuptiEngine> makeCudaCuptiEngine(CudaBackend& backend) {
    return std::make_unique<CudaCuptiEngine>(backend);
}

#endif

} // namespace tb::runner
