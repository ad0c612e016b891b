// dlopen of libcupti and libnvperf (see CuptiLibrary.h).
#include "CuptiLibrary.h"

#include <dlfcn.h>
#include <mutex>
#include <vector>

namespace tb::runner {

namespace {

void* openFirst(const std::vector<std::string>& names, std::string& tried) {
    for (const std::string& name : names) {
        if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))
            return h;
        const char* e = dlerror();
        tried += (tried.empty() ? "" : "; ") + std::string(e ? e : name + ": not found");
    }
    return nullptr;
}

std::vector<std::string> candidates(const char* soname, const char* plain) {
    std::vector<std::string> names{soname, plain};
#ifdef TILEBENCH_CUDA_LIB_DIR
    names.push_back(std::string(TILEBENCH_CUDA_LIB_DIR) + "/" + soname);
#endif
    names.push_back(std::string("/usr/local/cuda/lib64/") + soname);
    return names;
}

} // namespace

bool nvperfLoadable(std::string& reason) {
    for (const char* lib : {"libnvperf_host.so", "libnvperf_target.so"}) {
        std::string tried;
        void* h = openFirst(candidates(lib, lib), tried);
        if (!h) {
            reason = std::string(lib) + " could not be loaded (" + tried + ")";
            return false;
        }
        // Kept loaded: CUPTI opens the same libraries by name and shares the handle.
    }
    return true;
}

#if TILEBENCH_HAS_CUPTI_HEADERS

const CuptiApi* loadCupti(std::string& reason) {
    static std::once_flag once;
    static CuptiApi api;
    static const CuptiApi* loaded = nullptr;
    static std::string failure;
    std::call_once(once, [] {
        std::string tried;
        void* h = openFirst(candidates("libcupti.so.13", "libcupti.so"), tried);
        if (!h) {
            failure = "libcupti could not be loaded: " + tried;
            return;
        }
        bool ok = true;
        auto get = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
            if (!fn && ok) {
                ok = false;
                failure = std::string("libcupti has no ") + name + " (CUPTI older than CUDA 13?)";
            }
        };
        get(api.getResultString, "cuptiGetResultString");
        get(api.getVersion, "cuptiGetVersion");
        get(api.activityRegisterCallbacks, "cuptiActivityRegisterCallbacks");
        get(api.activityEnable, "cuptiActivityEnable");
        get(api.activityDisable, "cuptiActivityDisable");
        get(api.activityFlushAll, "cuptiActivityFlushAll");
        get(api.activityGetNextRecord, "cuptiActivityGetNextRecord");
        get(api.activityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords");
        get(api.profilerInitialize, "cuptiProfilerInitialize");
        get(api.profilerDeInitialize, "cuptiProfilerDeInitialize");
        get(api.profilerDeviceSupported, "cuptiProfilerDeviceSupported");
        get(api.deviceGetChipName, "cuptiDeviceGetChipName");
        get(api.profilerGetCounterAvailability, "cuptiProfilerGetCounterAvailability");
        get(api.hostInitialize, "cuptiProfilerHostInitialize");
        get(api.hostDeinitialize, "cuptiProfilerHostDeinitialize");
        get(api.hostConfigAddMetrics, "cuptiProfilerHostConfigAddMetrics");
        get(api.hostGetConfigImageSize, "cuptiProfilerHostGetConfigImageSize");
        get(api.hostGetConfigImage, "cuptiProfilerHostGetConfigImage");
        get(api.hostGetNumOfPasses, "cuptiProfilerHostGetNumOfPasses");
        get(api.hostEvaluateToGpuValues, "cuptiProfilerHostEvaluateToGpuValues");
        get(api.rangeEnable, "cuptiRangeProfilerEnable");
        get(api.rangeDisable, "cuptiRangeProfilerDisable");
        get(api.rangeGetCounterDataSize, "cuptiRangeProfilerGetCounterDataSize");
        get(api.rangeCounterDataImageInitialize, "cuptiRangeProfilerCounterDataImageInitialize");
        get(api.rangeSetConfig, "cuptiRangeProfilerSetConfig");
        get(api.rangeStart, "cuptiRangeProfilerStart");
        get(api.rangeStop, "cuptiRangeProfilerStop");
        get(api.rangeDecodeData, "cuptiRangeProfilerDecodeData");
        get(api.rangeGetCounterDataInfo, "cuptiRangeProfilerGetCounterDataInfo");
        get(api.sassGetNumOfMetrics, "cuptiSassMetricsGetNumOfMetrics");
        get(api.sassGetMetrics, "cuptiSassMetricsGetMetrics");
        get(api.sassSetConfig, "cuptiSassMetricsSetConfig");
        get(api.sassUnsetConfig, "cuptiSassMetricsUnsetConfig");
        get(api.sassEnable, "cuptiSassMetricsEnable");
        get(api.sassDisable, "cuptiSassMetricsDisable");
        get(api.sassGetDataProperties, "cuptiSassMetricsGetDataProperties");
        get(api.sassFlushData, "cuptiSassMetricsFlushData");
        if (ok)
            loaded = &api;
    });
    if (!loaded)
        reason = failure;
    return loaded;
}

std::string cuptiResultText(const CuptiApi& api, CUptiResult result) {
    const char* text = nullptr;
    if (api.getResultString)
        api.getResultString(result, &text);
    return std::string(text ? text : "CUPTI_ERROR") + " (" + std::to_string(int(result)) + ")";
}

profile::CounterAvailability classifyCuptiResult(CUptiResult result) {
    using profile::CounterAvailability;
    switch (int(result)) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return CounterAvailability::Permission;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        return CounterAvailability::AnotherProfiler;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
        return CounterAvailability::Unsupported;
    }
    return CounterAvailability::Failed;
}

#endif

} // namespace tb::runner
