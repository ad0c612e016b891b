// How long the user waits after an edit, measured on the GEMM sample:
//   1. NVRTC: the generated CUDA of samples/02_gemm_relu.py compiled to a cubin for sm_90a with line info
//      (TileBench's compile cache and NVRTC's ptxas disk cache bypassed, so every run compiles), against the
//      150 ms budget;
//   2. edit to result: a new program text (the sample with an edit) through the whole path the app takes
//      on a keystroke plus Run: parse, elaborate, check, layout passes, bank analysis, CUDA generation,
//      NVRTC (no cache), module load, input upload, launch and download of C in the runner, at
//      M = N = K = 1024, against the 400 ms budget. The CPU oracle is not part of it (a 1024^3 GEMM on
//      the CPU executor takes seconds; `tilec run --gpu` checks correctness separately); its time is
//      printed on its own when --check is given.
// Medians of N runs; prints ratios against the budgets. A benchmark, not a test: it never fails on timing.
// Without a GPU part 2 reports why it was skipped.
#include "engine/catalog/SampleCatalog.h"
#include "engine/codegen/CudaCodegen.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/gpu/RunnerClient.h"
#include "engine/pipeline/Pipeline.h"
#include "engine/profile/TimingStats.h"
#include "engine/run/GpuRun.h"
#include "engine/support/Stopwatch.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

double median(const std::vector<double>& v) {
    return tb::profile::summarizeTimings(v).medianMs;
}

tb::CompileOptions optionsFor(int64_t size) {
    tb::CompileOptions options;
    for (const char* name : {"M", "N", "K"})
        options.elaborate.overrides.emplace_back(name, std::to_string(size));
    return options;
}

// A compile configuration the benchmark measures: full optimization, ptxas at -O2 (NVVM unchanged), and
// NVRTC's fast-compile levels.
struct CompileMode {
    const char* label;
    const char* fastCompile;
    std::vector<std::string> extraOptions;
};
const std::vector<CompileMode>& compileModes() {
    static const std::vector<CompileMode> modes = {
        {"full optimization", "", {}},
        {"ptxas -O2", "", {"--ptxas-options=-O2"}},
        {"--Ofast-compile=mid", "mid", {}},
        {"--Ofast-compile=max", "max", {}},
    };
    return modes;
}

} // namespace

int main(int argc, char** argv) {
    // NVRTC 13 keeps a disk cache of ptxas results keyed by the PTX (CUDA_CACHE_*): an edit that leaves the
    // PTX unchanged (a comment, as below) would be answered from it in ~30 ms with no ptxas report. A real
    // edit changes the kernel, so the benchmark measures with that cache off.
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    int runs = 10;
    bool check = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--check") == 0)
            check = true;
        else
            runs = std::max(1, std::atoi(argv[i]));
    }
    auto sample = tb::findSample("02_gemm_relu");
    std::string text;
    if (!sample || !tb::readTextFile(sample->path, text)) {
        std::fprintf(stderr, "bench_edit: samples/02_gemm_relu.py not found\n");
        return 1;
    }

    // 1. NVRTC compile of the generated CUDA.
    auto compiled = tb::compileTileProgram(sample->path, text, optionsFor(1024));
    if (!compiled->ok() || !compiled->plan) {
        std::fprintf(stderr, "%s", compiled->formattedDiagnostics().c_str());
        return 1;
    }
    if (!compiled->cuda || !compiled->cuda->ok || compiled->cuda->units.empty() ||
        compiled->cuda->units[0].kernels.empty()) {
        std::fprintf(stderr, "bench_edit: no kernel generated\n");
        return 1;
    }
    const tb::codegen::GeneratedUnit& unit = compiled->cuda->units[0];
    // Full optimization (what bench and profile compile) and NVRTC's fast-compile levels (the quick Run).
    for (const CompileMode& mode : compileModes()) {
        std::vector<double> nvrtcMs;
        int registers = -1;
        for (int i = 0; i < runs; ++i) {
            // The options a launch setup compiles with, our cache off.
            tb::run::GpuLaunchOptions launch;
            launch.useCompileCache = false;
            launch.fastCompile = mode.fastCompile;
            launch.nvrtcOptions = mode.extraOptions;
            tb::gpu::CudaCompileOptions co = tb::run::launchCompileOptions(unit, "sm_90a", launch);
            auto start = std::chrono::steady_clock::now();
            // A distinct source each time, so that no cache anywhere (ours is off) can answer.
            std::string source = unit.source + "// compile " + std::to_string(i) + mode.label + "\n";
            tb::gpu::CudaCompileResult r = tb::gpu::compileCuda(source, unit.kernels[0].name, co);
            double ms = tb::millisecondsSince(start);
            if (!r.ok) {
                std::printf("nvrtc: unavailable: %s\n", r.log.substr(0, 200).c_str());
                break;
            }
            registers = r.registers;
            nvrtcMs.push_back(ms);
        }
        if (nvrtcMs.empty())
            continue;
        tb::profile::TimingSummary t = tb::profile::summarizeTimings(nvrtcMs);
        std::printf("NVRTC compile of 02_gemm_relu (sm_90a, line info, %s, no cache, %zu bytes of CUDA, %d "
                    "registers): median %.1f ms of %zu (min %.1f, max %.1f); budget 150 ms: %.2f of budget\n",
                    mode.label, unit.source.size(), registers, t.medianMs, nvrtcMs.size(), t.minMs, t.maxMs,
                    t.medianMs / 150.0);
    }

    // 2. Edit to result through the runner.
    tb::gpu::RunnerOptions ro;
    ro.executable = tb::gpu::defaultRunnerPath();
    tb::gpu::RunnerClient client(ro);
    std::string error;
    if (ro.executable.empty() || !client.start(&error)) {
        std::printf("edit to result: skipped: no runner (%s)\n",
                    error.empty() ? "tilebench-runner not found" : error.c_str());
        return 0;
    }
    std::string device;
    for (const CompileMode& mode : compileModes()) {
        std::vector<double> totalMs, frontMs, gpuMs;
        std::map<std::string, std::vector<double>> steps;
        std::vector<std::string> stepOrder;
        for (int i = 0; i <= runs; ++i) { // run 0 warms the runner (context creation) and is not counted
            // The edit: a changed line, as a keystroke in the editor makes it.
            std::string edited = text + "\n# edit " + std::to_string(i) + "\n";
            auto start = std::chrono::steady_clock::now();
            auto result = tb::compileTileProgram(sample->path, edited, optionsFor(1024));
            if (!result->ok() || !result->plan) {
                std::fprintf(stderr, "%s", result->formattedDiagnostics().c_str());
                return 1;
            }
            double front = tb::millisecondsSince(start);
            tb::run::GpuRunOptions go;
            go.client = &client;
            go.compare = false;
            go.useCompileCache = false;
            go.fastCompile = mode.fastCompile;
            go.nvrtcOptions = mode.extraOptions;
            go.arch = "sm_90a";
            tb::run::GpuRunResult run = tb::run::runOnGpu(*result, go);
            double total = tb::millisecondsSince(start);
            if (!run.ran) {
                std::printf("edit to result: skipped: %s (stage %s)\n", run.message.c_str(),
                            tb::run::gpuRunStageName(run.stage));
                return 0;
            }
            device = run.device;
            if (i == 0)
                continue;
            totalMs.push_back(total);
            frontMs.push_back(front);
            for (const auto& [name, ms] : run.stepMilliseconds) {
                if (!steps.count(name))
                    stepOrder.push_back(name);
                steps[name].push_back(ms);
            }
            gpuMs.push_back(total - front);
        }
        double m = median(totalMs);
        std::printf("edit to result, 02_gemm_relu M=N=K=1024 on %s, %s: median %.1f ms of %zu (front end + "
                    "layouts %.1f ms, CUDA + NVRTC + runner %.1f ms); budget 400 ms: %.2f of budget\n",
                    device.c_str(), mode.label, m, totalMs.size(), median(frontMs), median(gpuMs), m / 400.0);
        std::printf("  steps (median ms):");
        for (const std::string& name : stepOrder)
            std::printf(" %s %.1f", name.c_str(), median(steps[name]));
        std::printf("\n");
    }
    if (check) {
        auto result = tb::compileTileProgram(sample->path, text, optionsFor(1024));
        tb::run::GpuRunOptions go;
        go.client = &client;
        auto start = std::chrono::steady_clock::now();
        tb::run::GpuRunResult run = tb::run::runOnGpu(*result, go);
        std::printf("with the CPU oracle check: %.1f ms (oracle %.1f ms), %s\n", tb::millisecondsSince(start),
                    run.oracleSeconds * 1e3, run.ok() ? "correct" : run.message.c_str());
    }
    return 0;
}
