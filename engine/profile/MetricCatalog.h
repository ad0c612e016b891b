// The metrics TileBench collects, named exactly as Nsight Compute names them, so that a number in a
// TileBench report can be checked with `ncu --metrics <name>`. Two tables: the Range Profiler's default set
// (per kernel, hardware counters) and the SASS metrics (per instruction, by patching). The names are the
// ones measured to work on the H200 (GH100) with CUDA 13 (docs/reference/gpu-machine.md,
// docs/reference/workbench-ideas.md §3); `smsp__sass_l1tex_data_*` variants do not exist on GH100 and are not
// used. Also here: why counters can be unavailable, as stable codes the runner sends and reports print.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tb::profile {

enum class MetricUnit { Nanoseconds, Percent, Count };

struct MetricInfo {
    const char* name;  // the Nsight Compute / CUPTI metric name, with its rollup
    const char* label; // short column title
    MetricUnit unit;
    const char* meaning; // one line for reports and tooltips
};

// gpu__time_duration, dram__throughput, sm__warps_active, the tensor pipe and the shared-memory
// conflicts/wavefronts of loads and stores, in report order.
const std::vector<MetricInfo>& defaultRangeMetrics();
// smsp__sass_inst_executed, smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared and its _ideal.
const std::vector<MetricInfo>& defaultSassMetrics();
// Either table; nullptr for a name TileBench does not describe.
const MetricInfo* findMetric(std::string_view name);
// Syntax of a Perfworks metric name: `unit__counter` words of [a-z0-9_], optional `.rollup` parts
// (`.sum`, `.avg.pct_of_peak_sustained_active`). Guards the protocol against arbitrary text.
bool isWellFormedMetricName(std::string_view name);
const char* metricUnitName(MetricUnit unit);

inline constexpr const char* kSassInstExecuted = "smsp__sass_inst_executed";
inline constexpr const char* kSassSharedWavefronts = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared";
inline constexpr const char* kSassSharedWavefrontsIdeal =
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal";

// Why hardware counters (Range Profiler) or SASS metrics could not be collected.
enum class CounterAvailability {
    Available,
    NoCupti,         // libcupti could not be loaded (or this runner was built without CUPTI headers)
    NoNvperf,        // libnvperf_host.so / libnvperf_target.so missing: CUPTI's profiler needs them
    Permission,      // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (ERR_NVGPUCTRPERM)
    AnotherProfiler, // CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: ncu or another tool is attached
    Unsupported,     // the device, driver or environment (vGPU, WSL, MIG) does not support it
    NoDevice,        // no GPU, or a fake runner that simulates none
    Failed,          // any other CUPTI error; the reason carries CUPTI's message
};

// Stable kebab-case codes: "available", "no-cupti", "no-nvperf", "permission", "another-profiler",
// "unsupported", "no-device", "failed".
const char* availabilityCode(CounterAvailability a);
// Unknown text reads as Failed.
CounterAvailability parseAvailabilityCode(std::string_view code);
// What the user can do about it (one sentence), empty for Available.
std::string availabilityHint(CounterAvailability a);

} // namespace tb::profile
