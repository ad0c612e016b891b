// libcupti, loaded at run time with dlopen: the runner (and so the app and tilec) must start on machines
// without CUPTI or a GPU, and the CUPTI headers are only needed for their types. The table holds the
// Activity, Range Profiler, Profiler Host and SASS Metrics entry points of CUDA 13's CUPTI (API 130001);
// libnvperf_host/target, which the profiler APIs load themselves, are probed separately so that a missing
// one is reported as such. Search order: libcupti.so.13, libcupti.so, then the toolkit's lib64 folder the
// runner was built against (TILEBENCH_CUDA_LIB_DIR).
#pragma once

#include "engine/profile/MetricCatalog.h"

#include <string>

#if TILEBENCH_HAS_CUDA_HEADERS && __has_include(<cupti_range_profiler.h>) && __has_include(<cupti_sass_metrics.h>)
#define TILEBENCH_HAS_CUPTI_HEADERS 1
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#else
#define TILEBENCH_HAS_CUPTI_HEADERS 0
#endif

namespace tb::runner {

#if TILEBENCH_HAS_CUPTI_HEADERS
struct CuptiApi {
    decltype(&::cuptiGetResultString) getResultString = nullptr;
    decltype(&::cuptiGetVersion) getVersion = nullptr;
    decltype(&::cuptiActivityRegisterCallbacks) activityRegisterCallbacks = nullptr;
    decltype(&::cuptiActivityEnable) activityEnable = nullptr;
    decltype(&::cuptiActivityDisable) activityDisable = nullptr;
    decltype(&::cuptiActivityFlushAll) activityFlushAll = nullptr;
    decltype(&::cuptiActivityGetNextRecord) activityGetNextRecord = nullptr;
    decltype(&::cuptiActivityGetNumDroppedRecords) activityGetNumDroppedRecords = nullptr;
    decltype(&::cuptiProfilerInitialize) profilerInitialize = nullptr;
    decltype(&::cuptiProfilerDeInitialize) profilerDeInitialize = nullptr;
    decltype(&::cuptiProfilerDeviceSupported) profilerDeviceSupported = nullptr;
    decltype(&::cuptiDeviceGetChipName) deviceGetChipName = nullptr;
    decltype(&::cuptiProfilerGetCounterAvailability) profilerGetCounterAvailability = nullptr;
    decltype(&::cuptiProfilerHostInitialize) hostInitialize = nullptr;
    decltype(&::cuptiProfilerHostDeinitialize) hostDeinitialize = nullptr;
    decltype(&::cuptiProfilerHostConfigAddMetrics) hostConfigAddMetrics = nullptr;
    decltype(&::cuptiProfilerHostGetConfigImageSize) hostGetConfigImageSize = nullptr;
    decltype(&::cuptiProfilerHostGetConfigImage) hostGetConfigImage = nullptr;
    decltype(&::cuptiProfilerHostGetNumOfPasses) hostGetNumOfPasses = nullptr;
    decltype(&::cuptiProfilerHostEvaluateToGpuValues) hostEvaluateToGpuValues = nullptr;
    decltype(&::cuptiRangeProfilerEnable) rangeEnable = nullptr;
    decltype(&::cuptiRangeProfilerDisable) rangeDisable = nullptr;
    decltype(&::cuptiRangeProfilerGetCounterDataSize) rangeGetCounterDataSize = nullptr;
    decltype(&::cuptiRangeProfilerCounterDataImageInitialize) rangeCounterDataImageInitialize = nullptr;
    decltype(&::cuptiRangeProfilerSetConfig) rangeSetConfig = nullptr;
    decltype(&::cuptiRangeProfilerStart) rangeStart = nullptr;
    decltype(&::cuptiRangeProfilerStop) rangeStop = nullptr;
    decltype(&::cuptiRangeProfilerDecodeData) rangeDecodeData = nullptr;
    decltype(&::cuptiRangeProfilerGetCounterDataInfo) rangeGetCounterDataInfo = nullptr;
    decltype(&::cuptiSassMetricsGetNumOfMetrics) sassGetNumOfMetrics = nullptr;
    decltype(&::cuptiSassMetricsGetMetrics) sassGetMetrics = nullptr;
    decltype(&::cuptiSassMetricsSetConfig) sassSetConfig = nullptr;
    decltype(&::cuptiSassMetricsUnsetConfig) sassUnsetConfig = nullptr;
    decltype(&::cuptiSassMetricsEnable) sassEnable = nullptr;
    decltype(&::cuptiSassMetricsDisable) sassDisable = nullptr;
    decltype(&::cuptiSassMetricsGetDataProperties) sassGetDataProperties = nullptr;
    decltype(&::cuptiSassMetricsFlushData) sassFlushData = nullptr;
};

// The loaded table (once per process), or nullptr with `reason`.
const CuptiApi* loadCupti(std::string& reason);
// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)" style text.
std::string cuptiResultText(const CuptiApi& api, CUptiResult result);
// Which availability a failing CUPTI call means.
profile::CounterAvailability classifyCuptiResult(CUptiResult result);
#endif

// True when libnvperf_host.so and libnvperf_target.so can be loaded; else false with `reason`.
bool nvperfLoadable(std::string& reason);

} // namespace tb::runner
