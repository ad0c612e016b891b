// The metric tables and availability codes (see MetricCatalog.h).
#include "engine/profile/MetricCatalog.h"

#include <cctype>

namespace tb::profile {

const std::vector<MetricInfo>& defaultRangeMetrics() {
    static const std::vector<MetricInfo> metrics = {
        {"gpu__time_duration.sum", "duration", MetricUnit::Nanoseconds,
         "kernel duration measured by the GPU"},
        {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram %", MetricUnit::Percent,
         "DRAM throughput as a share of its peak"},
        {"sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy %", MetricUnit::Percent,
         "achieved occupancy: active warps as a share of the SM's maximum"},
        {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor %",
         MetricUnit::Percent, "tensor pipe utilization (HMMA, HGMMA, QGMMA on GH100)"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "ld conflicts", MetricUnit::Count,
         "shared-memory bank conflicts of loads (LDS, LDSM): wavefronts beyond one per request"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "st conflicts", MetricUnit::Count,
         "shared-memory bank conflicts of stores (STS, STSM)"},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "ld wavefronts", MetricUnit::Count,
         "shared-memory wavefronts of loads"},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "st wavefronts", MetricUnit::Count,
         "shared-memory wavefronts of stores"},
    };
    return metrics;
}

const std::vector<MetricInfo>& defaultSassMetrics() {
    static const std::vector<MetricInfo> metrics = {
        {kSassInstExecuted, "inst", MetricUnit::Count, "warp-level executions of the instruction"},
        {kSassSharedWavefronts, "smem wf", MetricUnit::Count, "shared-memory wavefronts of the instruction"},
        {kSassSharedWavefrontsIdeal, "ideal wf", MetricUnit::Count,
         "wavefronts the instruction would need without bank conflicts"},
    };
    return metrics;
}

const MetricInfo* findMetric(std::string_view name) {
    for (const auto* table : {&defaultRangeMetrics(), &defaultSassMetrics()})
        for (const MetricInfo& m : *table)
            if (name == m.name)
                return &m;
    return nullptr;
}

bool isWellFormedMetricName(std::string_view name) {
    if (name.empty() || name.size() > 200)
        return false;
    size_t sep = name.find("__");
    if (sep == std::string_view::npos || sep == 0)
        return false;
    bool lastWasDot = false;
    for (size_t i = 0; i < name.size(); ++i) {
        char c = name[i];
        if (c == '.') {
            if (i == 0 || lastWasDot || i + 1 == name.size() || i < sep)
                return false;
            lastWasDot = true;
            continue;
        }
        lastWasDot = false;
        if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
              c == '_'))
            return false;
    }
    return sep + 2 < name.size() && name[sep + 2] != '.';
}

const char* metricUnitName(MetricUnit unit) {
    switch (unit) {
    case MetricUnit::Nanoseconds:
        return "ns";
    case MetricUnit::Percent:
        return "%";
    case MetricUnit::Count:
        return "count";
    }
    return "count";
}

const char* availabilityCode(CounterAvailability a) {
    switch (a) {
    case CounterAvailability::Available:
        return "available";
    case CounterAvailability::NoCupti:
        return "no-cupti";
    case CounterAvailability::NoNvperf:
        return "no-nvperf";
    case CounterAvailability::Permission:
        return "permission";
    case CounterAvailability::AnotherProfiler:
        return "another-profiler";
    case CounterAvailability::Unsupported:
        return "unsupported";
    case CounterAvailability::NoDevice:
        return "no-device";
    case CounterAvailability::Failed:
        return "failed";
    }
    return "failed";
}

CounterAvailability parseAvailabilityCode(std::string_view code) {
    for (CounterAvailability a :
         {CounterAvailability::Available, CounterAvailability::NoCupti, CounterAvailability::NoNvperf,
          CounterAvailability::Permission, CounterAvailability::AnotherProfiler,
          CounterAvailability::Unsupported, CounterAvailability::NoDevice, CounterAvailability::Failed})
        if (code == availabilityCode(a))
            return a;
    return CounterAvailability::Failed;
}

std::string availabilityHint(CounterAvailability a) {
    switch (a) {
    case CounterAvailability::Available:
        return {};
    case CounterAvailability::NoCupti:
        return "install the CUDA toolkit's CUPTI (libcupti.so.13) or put its folder on LD_LIBRARY_PATH";
    case CounterAvailability::NoNvperf:
        return "install the CUDA toolkit (libnvperf_host.so and libnvperf_target.so are not redistributable) "
               "or add its lib64 folder to LD_LIBRARY_PATH";
    case CounterAvailability::Permission:
        return "GPU performance counters are restricted to admin users (ERR_NVGPUCTRPERM): run as root, or "
               "set NVreg_RestrictProfilingToAdminUsers=0 for the nvidia kernel module";
    case CounterAvailability::AnotherProfiler:
        return "another profiler (Nsight Compute, Nsight Systems) is attached to this process; run without "
               "it";
    case CounterAvailability::Unsupported:
        return "this GPU, driver or environment (vGPU, WSL, MIG, confidential compute) does not allow "
               "profiling";
    case CounterAvailability::NoDevice:
        return "no usable NVIDIA GPU; timings and counters need one";
    case CounterAvailability::Failed:
        return "see the reason; timings are unaffected";
    }
    return {};
}

} // namespace tb::profile
