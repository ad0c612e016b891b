// Tile-program sweeps (see ProgramSweep.h).
#include "engine/profile/ProgramSweep.h"

#include "engine/exec/HostTensor.h"
#include "engine/profile/BenchHistory.h"
#include "engine/profile/SweepVariants.h"
#include "engine/support/Json.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <vector>

namespace tb::profile {

const char* variantStatusName(VariantStatus status) {
    switch (status) {
    case VariantStatus::Ran:
        return "ran";
    case VariantStatus::CompileError:
        return "compile error";
    case VariantStatus::RunFailed:
        return "run failed";
    case VariantStatus::TimingFailed:
        return "timing failed";
    case VariantStatus::Skipped:
        return "skipped";
    }
    return "skipped";
}

size_t ProgramSweepReport::ranCount() const {
    return size_t(
        std::count_if(variants.begin(), variants.end(), [](const SweepVariant& v) { return v.ran(); }));
}

namespace {

// Compiles, sets up and times one variant; fills `v`. Frees what it loaded in the runner.
void runVariant(const std::string& fileName, const std::string& text, const SweepBase& base,
                gpu::RunnerClient& client, const ProgramSweepOptions& options, const std::string& arch,
                const Ceilings& ceilings, SweepVariant& v, std::set<std::string>& unusedOverrides) {
    // The same variant program as the static sweep plan (SweepVariants.h): overrides, or edited literals.
    CompileOptions compileOptions;
    compileOptions.backend = options.backend;
    VariantProgram vp = variantProgram(text, base, compileOptions, options.baseOverrides, v.params);
    std::unique_ptr<CompileResult> result = compileTileProgram(fileName, vp.text, vp.options);
    v.diagnostics = result->diagnostics.diagnostics();
    for (const Diagnostic& d : v.diagnostics)
        if (d.code == "unused-override")
            unusedOverrides.insert(d.message);
    if (!result->ok() || !result->plan || result->module->funcs.empty()) {
        v.status = VariantStatus::CompileError;
        v.formattedDiagnostics = result->formattedDiagnostics();
        v.message = firstErrorMessage(v.diagnostics);
        if (v.message.empty())
            v.message = "the program did not compile";
        return;
    }
    run::GpuLaunchOptions lo;
    lo.arch = arch;
    lo.prefix = "sweep_";
    lo.dims = options.timing.dims;
    std::vector<HostTensor> hostParams; // each variant's own shapes
    if (!options.timing.fills.empty()) {
        if (!makeFilledInputs(*result, options.timing, hostParams, v.diagnostics)) {
            v.status = VariantStatus::RunFailed;
            v.message = firstErrorMessage(v.diagnostics);
            v.formattedDiagnostics = formatDiagnostics(result->sources, v.diagnostics);
            return;
        }
        lo.hostParams = &hostParams;
    }
    run::GpuLaunchSetup setup = run::setUpForLaunches(*result, client, lo);
    for (const Diagnostic& d : setup.diagnostics)
        v.diagnostics.push_back(d);
    for (const run::GpuKernelReport& k : setup.kernels) {
        v.sharedBytes = std::max(v.sharedBytes, k.dynamicSharedBytes);
        v.registers = std::max(v.registers, k.registers);
    }
    v.kernels = int(setup.kernels.size());
    if (!setup.ok) {
        bool compile = setup.stage == run::GpuRunStage::Plan || setup.stage == run::GpuRunStage::Codegen ||
                       setup.stage == run::GpuRunStage::Compile;
        v.status = compile ? VariantStatus::CompileError : VariantStatus::RunFailed;
        v.formattedDiagnostics = formatDiagnostics(result->sources, setup.diagnostics);
        std::string first = firstErrorMessage(setup.diagnostics);
        v.message = std::string(run::gpuRunStageName(setup.stage)) +
                    " failed: " + (first.empty() ? setup.message : first);
    } else {
        TimingRequest t;
        t.warmup = options.timing.warmup;
        t.repeat = options.timing.repeat;
        t.flushL2 = options.timing.flushL2;
        t.cupti = !options.timing.events;
        v.status = VariantStatus::Ran;
        for (size_t i = 0; i < setup.moduleIds.size(); ++i) {
            TimingOutcome timing = timeKernel(client, setup.moduleIds[i], setup.launchFields[i], t);
            if (!timing.ok) {
                v.status = VariantStatus::TimingFailed;
                v.message = setup.kernels[i].name + ": " + timing.error;
                break;
            }
            v.medianMs += timing.summary.medianMs;
            v.spreadPct = std::max(v.spreadPct, timing.summary.spreadPct);
            v.clock = timing.clock;
        }
        if (v.ran()) {
            int m = 0, n = 0, k = 0;
            bool gemmShape = false, hasGemm = false;
            WorkCounts work = programWork(*result, setup.paramBytes, m, n, k, gemmShape, hasGemm);
            v.rates = deriveRates(work, v.medianMs, ceilings);
        }
    }
    for (const std::string& id : setup.moduleIds)
        client.request("unload " + id);
    for (const std::string& b : setup.bufferNames)
        client.request("free " + b);
}

} // namespace

ProgramSweepReport sweepProgram(const std::string& fileName, const std::string& text,
                                const std::vector<SweepAxis>& axes, gpu::RunnerClient& client,
                                const ProgramSweepOptions& options, const SweepProgress& progress) {
    ProgramSweepReport out;
    out.file = fileName;
    DiagnosticEngine diags;
    auto configs =
        axes.empty() ? decltype(sweepConfigurations(axes, diags)){} : sweepConfigurations(axes, diags);
    out.axisDiagnostics = diags.diagnostics();
    if (axes.empty()) {
        out.error = "a sweep needs at least one NAME=VALUES axis";
        return out;
    }
    if (diags.hasErrors() || configs.empty()) {
        out.error = firstErrorMessage(out.axisDiagnostics);
        if (out.error.empty())
            out.error = "the sweep has no configurations";
        return out;
    }
    std::string arch, error;
    if (!runnerDevice(client, out.device, arch, error)) {
        out.error = error;
        return out;
    }
    if (!options.timing.arch.empty())
        arch = options.timing.arch;
    out.device += " (" + arch + ")";
    out.simulated = runnerSimulated(client);
    Ceilings ceilings = sessionCeilings(client, options.timing, out.warnings);
    out.ok = true;
    CompileOptions baseOptions;
    baseOptions.elaborate.overrides = options.baseOverrides;
    baseOptions.stopAfter = "elaborate";
    std::vector<std::string> axisNames;
    for (const SweepAxis& a : axes)
        axisNames.push_back(a.name);
    SweepBase base = sweepBaseOf(*compileTileProgram(fileName, text, baseOptions), axisNames);
    out.notes = base.notes;
    std::set<std::string> unused;
    for (size_t i = 0; i < configs.size(); ++i) {
        SweepVariant v;
        v.params = configs[i];
        v.paramsText = paramsText(configs[i]);
        // paramsText sorts; the table keeps the axis order (first axis outermost) instead.
        v.paramsText.clear();
        for (const auto& [name, value] : configs[i])
            v.paramsText += (v.paramsText.empty() ? "" : " ") + name + "=" + value;
        if ((progress && !progress(i, configs.size(), v.paramsText)) ||
            (options.timing.cancelled && options.timing.cancelled())) {
            out.cancelled = true;
            break;
        }
        runVariant(fileName, text, base, client, options, arch, ceilings, v, unused);
        if (out.clock.empty() && v.ran())
            out.clock = v.clock;
        out.variants.push_back(std::move(v));
    }
    for (const std::string& u : unused)
        out.warnings.push_back(u + ": every variant is the same for that parameter");
    return out;
}

std::string formatSweepText(const ProgramSweepReport& report, const ProgramSweepOptions& options) {
    std::string s;
    char line[512];
    std::snprintf(line, sizeof line, "%s on %s (%s, %d repeats%s)\n", report.file.c_str(),
                  report.device.c_str(), report.clock.empty() ? "no configuration ran" : report.clock.c_str(),
                  options.timing.repeat, options.timing.flushL2 ? ", L2 flushed" : "");
    s += line;
    std::snprintf(line, sizeof line, "%-36s %12s %8s %10s %9s %10s %5s  %s\n", "parameters", "median",
                  "spread", "TFLOP/s", "GB/s", "smem B", "regs", "status");
    s += line;
    for (const SweepVariant& v : report.variants) {
        std::string status = v.ran() ? "ran (correctness not checked in a sweep)"
                                     : std::string(variantStatusName(v.status)) + ": " + v.message;
        std::snprintf(line, sizeof line, "%-36s %12s %7.1f%% %10.1f %9.0f %10lld %5d  %s\n",
                      v.paramsText.c_str(), v.ran() ? formatDuration(v.medianMs).c_str() : "-",
                      v.ran() ? v.spreadPct : 0, v.rates.tflops, v.rates.gbps,
                      static_cast<long long>(v.sharedBytes), v.registers, status.c_str());
        s += line;
    }
    if (report.cancelled)
        s += "cancelled after " + std::to_string(report.variants.size()) + " variants\n";
    for (const std::string& n : report.notes)
        s += "note: " + n + "\n";
    for (const std::string& w : report.warnings)
        s += "warning: " + w + "\n";
    return s;
}

std::string formatSweepJson(const ProgramSweepReport& report) {
    JsonWriter w;
    w.beginObject()
        .field("file", report.file)
        .field("device", report.device)
        .field("cancelled", report.cancelled);
    w.key("rows").beginArray();
    for (const SweepVariant& v : report.variants) {
        w.beginObject()
            .field("params", v.paramsText)
            .field("status", std::string(variantStatusName(v.status)));
        w.field("message", v.message).field("medianMs", v.medianMs).field("spreadPct", v.spreadPct);
        w.field("tflops", v.rates.tflops).field("gbps", v.rates.gbps).field("sharedBytes", v.sharedBytes);
        w.field("registers", v.registers).field("kernels", v.kernels).field("clock", v.clock);
        w.key("diagnostics").beginArray();
        for (const Diagnostic& d : v.diagnostics)
            w.beginObject().field("code", d.code).field("message", d.message).endObject();
        w.endArray().endObject();
    }
    w.endArray();
    w.key("notes").beginArray();
    for (const std::string& note : report.notes)
        w.value(note);
    w.endArray();
    w.key("warnings").beginArray();
    for (const std::string& warning : report.warnings)
        w.value(warning);
    w.endArray().endObject();
    return w.str();
}

} // namespace tb::profile
