// Bench and profile of a tile program through the runner (see ProgramProfiler.h).
#include "engine/profile/ProgramProfiler.h"

#include "engine/exec/Executor.h"
#include "engine/exec/HostTensor.h"
#include "engine/gpu/CubinLineTable.h"
#include "engine/gpu/RunnerProtocol.h"
#include "engine/profile/BenchHistory.h"
#include "engine/support/Json.h"
#include "engine/support/NumberText.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <variant>
#include <vector>

namespace tb::profile {

namespace {

bool isCancelled(const ProgramProfileOptions& o) {
    return o.cancelled && o.cancelled();
}

// Parameters of a correctness check small enough for the CPU executor to finish in seconds.
constexpr int64_t kCheckMaxBytes = int64_t(4) << 20;
constexpr double kCheckMaxFlops = double(int64_t(1) << 28); // 2 * 512^3

// Times cuBLAS on the target's GEMM shape alternately with our kernel, o.peerRounds times (our first round
// is `ours`, already timed). Our samples from the later rounds are added to `ours`, so both medians come
// from the same stretch of the run.
PeerComparison compareWithCublas(gpu::RunnerClient& client, const KernelTarget& t,
                                 const ProgramProfileOptions& o, TimingOutcome& ours) {
    PeerComparison peer;
    peer.name = "cuBLAS fp16 GEMM " + std::to_string(t.gemmM) + "x" + std::to_string(t.gemmN) + "x" +
                std::to_string(t.gemmK);
    if (!t.gemmM) {
        peer.note = t.noGemmNote;
        return peer;
    }
    if (!ours.ok) {
        peer.note = "our kernel was not timed";
        return peer;
    }
    TimingOutcome cublas;
    double oursMedian = ours.summary.medianMs; // this round's
    for (int round = 0; round < std::max(1, o.peerRounds); ++round) {
        if (round > 0) {
            if (isCancelled(o))
                break;
            TimingOutcome again = timeKernel(client, t.moduleId, t.launchFields, timingRequest(o));
            if (!again.ok)
                break;
            ours.samplesMs.insert(ours.samplesMs.end(), again.samplesMs.begin(), again.samplesMs.end());
            ours.summary = summarizeTimings(ours.samplesMs);
            oursMedian = again.summary.medianMs;
        }
        TimingOutcome c = timeCublasGemm(client, t.gemmM, t.gemmN, t.gemmK, timingRequest(o));
        if (!c.ok) {
            if (round == 0)
                peer.note = c.error;
            break;
        }
        if (oursMedian > 0)
            peer.roundRatios.push_back(c.summary.medianMs / oursMedian);
        if (round == 0)
            cublas = c;
        else
            cublas.samplesMs.insert(cublas.samplesMs.end(), c.samplesMs.begin(), c.samplesMs.end());
    }
    if (!peer.note.empty())
        return peer;
    cublas.summary = summarizeTimings(cublas.samplesMs);
    peer.peerMedianMs = cublas.summary.medianMs;
    peer.ratio = ours.summary.medianMs > 0 ? cublas.summary.medianMs / ours.summary.medianMs : 0;
    peer.name += " (" + cublas.clock + (cublas.library.empty() ? "" : ", " + cublas.library) + ")";
    return peer;
}

} // namespace

TimingRequest timingRequest(const ProgramProfileOptions& o) {
    TimingRequest t;
    t.warmup = o.warmup;
    t.repeat = o.repeat;
    t.flushL2 = o.flushL2;
    t.cupti = !o.events;
    return t;
}

std::map<int, int> tileLineMap(const codegen::LineMap& lineMap) {
    std::map<int, int> out;
    for (const codegen::LineMapEntry& e : lineMap.entries())
        out[e.generatedLine] = e.sourceLine > 0 ? e.sourceLine : -1;
    return out;
}

bool runnerDevice(gpu::RunnerClient& client, std::string& name, std::string& arch, std::string& error) {
    if (!client.isRunning() && !client.start(&error))
        return false;
    if (client.helloReply().field("gpus", "0") == "0") {
        error = "no GPU: " + client.helloReply().field("reason", "unknown");
        return false;
    }
    gpu::RunnerReply devices = client.request("devices");
    if (!devices.ok() || devices.dataLines.empty()) {
        error = "no GPU: " + (devices.ok() ? devices.field("reason", "no devices") : devices.message);
        return false;
    }
    gpu::ProtocolLine d = gpu::parseProtocolLine(devices.dataLines.front());
    name = gpu::unescapeProtocolValue(d.field("name"));
    arch = d.field("arch", "sm_90a");
    return true;
}

bool runnerSimulated(gpu::RunnerClient& client) {
    if (!client.isRunning() && !client.start())
        return false;
    return client.helloReply().field("mode") == "fake";
}

Ceilings sessionCeilings(gpu::RunnerClient& client, const ProgramProfileOptions& options,
                         std::vector<std::string>& warnings) {
    Ceilings ceilings;
    std::string error;
    if (options.ceilings && !measureCeilings(client, ceilings, error))
        warnings.push_back("ceilings not measured: " + error);
    return ceilings;
}

bool profileKernel(gpu::RunnerClient& client, const KernelTarget& t, const ProgramProfileOptions& o,
                   const std::string& device, const std::string& arch, const Ceilings& ceilings,
                   ProfileReport& report, std::vector<std::string>& warnings) {
    report.subject = t.subject;
    report.kernel = t.kernel;
    report.device = device;
    report.registers = t.registers;
    report.sharedBytes = t.sharedBytes;
    report.dynamicShared = t.dynamicShared;
    report.blocks = t.blocks;
    report.warmup = o.warmup;
    report.work = t.work;
    report.ceilings = ceilings;
    // Before a cuBLAS comparison both run once untimed: after an idle spell the card's clock is high for a
    // while, and the first timed round would otherwise catch our kernel there alone.
    const bool cublasPeer = o.vs == PeerKind::Cublas && t.gemmM;
    if (cublasPeer) {
        timeCublasGemm(client, t.gemmM, t.gemmN, t.gemmK, timingRequest(o));
        timeKernel(client, t.moduleId, t.launchFields, timingRequest(o));
    }
    report.timing = timeKernel(client, t.moduleId, t.launchFields, timingRequest(o));
    if (o.vs == PeerKind::Cublas) {
        report.peers.push_back(compareWithCublas(client, t, o, report.timing));
        // Untimed launches of ours: one warm-up per round, and the joint warm-up's.
        report.warmup = o.warmup * std::max<int>(1, report.peers.back().roundRatios.size()) +
                        (cublasPeer ? o.warmup + o.repeat : 0);
    }
    finishReport(report);

    std::string error;
    std::string key = historyKey(t.historyFile, t.params, arch);
    BenchHistory history;
    bool historyOk = !o.historyPath.empty() && history.load(o.historyPath, error);
    if (!o.historyPath.empty() && !historyOk)
        warnings.push_back("bench history not used: " + error);
    if (o.vs == PeerKind::Previous) {
        PeerComparison peer;
        auto previous = historyOk ? history.latest(key) : std::nullopt;
        if (!previous) {
            peer.name = "previous run";
            peer.note = o.historyPath.empty()
                            ? "no history file (HOME is not set)"
                            : "no earlier result for this file and parameters in " + o.historyPath;
        } else {
            BenchComparison c = compareWithPrevious(*previous, report.timing.summary.medianMs,
                                                    report.timing.summary.spreadPct);
            peer.name = "previous run (" + previous->timestamp + ")";
            peer.peerMedianMs = previous->medianMs;
            peer.ratio = c.ratio;
            peer.verdict = c.verdict;
        }
        report.peers.push_back(peer);
    }
    if (o.command == ProfileCommand::Profile) {
        report.countersRequested = true;
        report.counters = collectMetrics(client, t.moduleId, t.launchFields);
        report.sassRequested = true;
        report.sass = collectSass(client, t.moduleId, t.launchFields);
        gpu::CubinLineTable lines;
        if (!t.cubin || !gpu::readCubinLineTable(*t.cubin, lines, error)) {
            report.lineInfoNote = t.cubin ? error : "no cubin";
        } else {
            attributeSassRecords(report.sass.records, lines, t.tileLineOfCudaLine);
            report.cudaLines = totalsByCudaLine(report.sass.records);
            if (!t.tileLineOfCudaLine.empty())
                report.tileLines = totalsByTileLine(report.sass.records);
        }
    }
    if (o.command == ProfileCommand::Bench && report.timing.ok && historyOk) {
        BenchRecord r;
        r.key = key;
        r.file = t.historyFile;
        r.params = paramsText(t.params);
        r.device = device;
        r.timestamp = utcTimestamp();
        r.clock = report.timing.clock;
        r.count = report.timing.summary.count;
        r.medianMs = report.timing.summary.medianMs;
        r.minMs = report.timing.summary.minMs;
        r.maxMs = report.timing.summary.maxMs;
        r.tflops = report.rates.tflops;
        r.gbps = report.rates.gbps;
        history.add(r);
        if (!history.save(o.historyPath, error))
            warnings.push_back(error);
    }
    return report.timing.ok;
}

int64_t integerParam(const ir::Module& module, const std::string& name) {
    for (const ir::SpecializationParam& sp : module.specialization)
        if (sp.name == name && std::holds_alternative<int64_t>(sp.value))
            return std::get<int64_t>(sp.value);
    return 0;
}

WorkCounts programWork(const CompileResult& result, const std::vector<int64_t>& paramBytes, int& m, int& n,
                       int& k, bool& gemmShape, bool& hasGemm) {
    hasGemm = false;
    if (result.plan)
        for (const auto& kernel : result.plan->kernels)
            hasGemm = hasGemm || !kernel.gemms.empty();
    int64_t pm = integerParam(*result.module, "M"), pn = integerParam(*result.module, "N"),
            pk = integerParam(*result.module, "K");
    gemmShape =
        hasGemm && pm > 0 && pn > 0 && pk > 0 && pm <= INT32_MAX && pn <= INT32_MAX && pk <= INT32_MAX;
    m = gemmShape ? int(pm) : 0;
    n = gemmShape ? int(pn) : 0;
    k = gemmShape ? int(pk) : 0;
    WorkCounts work;
    work.flops = gemmShape ? 2.0 * double(pm) * double(pn) * double(pk) : 0;
    int64_t total = 0;
    for (int64_t b : paramBytes)
        total += b;
    work.bytes = double(total);
    return work;
}

bool makeFilledInputs(const CompileResult& result, const ProgramProfileOptions& o,
                      std::vector<HostTensor>& params, std::vector<Diagnostic>& diagnostics) {
    const ir::PrimFunc& func = result.module->funcs.front();
    std::map<std::string, int64_t> dims = o.dims;
    for (const ir::Var* v : func.dynamicDims)
        dims.emplace(v->name, 256);
    DiagnosticEngine diags;
    params = allocateParams(func, dims, o.fillSeed, diags, {}, /*fillInputs=*/true, o.fills);
    for (const Diagnostic& d : diags.diagnostics())
        diagnostics.push_back(d);
    return !diags.hasErrors();
}

ProgramProfileReport profileProgram(const CompileResult& result, gpu::RunnerClient& client,
                                    const ProgramProfileOptions& o, const std::string& file) {
    ProgramProfileReport out;
    out.file = file;
    auto fail = [&](run::GpuRunStage stage, std::string message) {
        out.stage = stage;
        out.error = std::move(message);
        out.ok = false;
        return out;
    };
    if (!result.ok() || !result.module || result.module->funcs.empty()) {
        out.compileError = true;
        return fail(run::GpuRunStage::Plan, file + " did not compile");
    }
    const ir::Module& module = *result.module;
    for (const ir::SpecializationParam& sp : module.specialization)
        out.params.emplace_back(sp.name, sp.text);
    std::sort(out.params.begin(), out.params.end());
    out.subject = file + (out.params.empty() ? "" : " " + paramsText(out.params));

    std::string error, arch;
    if (!runnerDevice(client, out.device, arch, error))
        return fail(run::GpuRunStage::Runner, error);
    out.arch = o.arch.empty() ? arch : o.arch;
    out.device += " (" + out.arch + ")";
    out.simulated = runnerSimulated(client);
    if (isCancelled(o)) {
        out.cancelled = true;
        return fail(run::GpuRunStage::Runner, "cancelled");
    }

    run::GpuLaunchOptions lo;
    lo.arch = out.arch;
    lo.prefix = o.prefix;
    lo.dims = o.dims;
    lo.fastCompile = o.fastCompile;
    lo.nvrtcOptions = o.nvrtcOptions;
    lo.cudaSourceOverride = o.cudaSourceOverride;
    std::vector<HostTensor> hostParams;
    if (!o.fills.empty()) {
        if (!makeFilledInputs(result, o, hostParams, out.diagnostics))
            return fail(run::GpuRunStage::Upload, "cannot make the filled inputs");
        lo.hostParams = &hostParams;
    }
    run::GpuLaunchSetup setup = run::setUpForLaunches(result, client, lo);
    out.diagnostics = setup.diagnostics;
    auto release = [&] {
        for (const std::string& id : setup.moduleIds)
            client.request("unload " + id);
        for (const std::string& b : setup.bufferNames)
            client.request("free " + b);
    };
    if (!setup.ok) {
        out.compileError = setup.stage == run::GpuRunStage::Compile ||
                           setup.stage == run::GpuRunStage::Codegen || setup.stage == run::GpuRunStage::Plan;
        release();
        return fail(setup.stage,
                    std::string(run::gpuRunStageName(setup.stage)) + " failed: " + setup.message);
    }

    int m = 0, n = 0, k = 0;
    bool gemmShape = false, hasGemm = false;
    out.work = programWork(result, setup.paramBytes, m, n, k, gemmShape, hasGemm);
    out.launches = setup.kernels;

    // Correctness: once, against the CPU executor, when that finishes quickly.
    int64_t totalBytes = int64_t(out.work.bytes);
    if (!o.checkCorrectness) {
        out.correctness = "not checked";
    } else if (out.simulated) {
        out.correctness = "not checked (simulated runner)";
    } else if (totalBytes > kCheckMaxBytes || out.work.flops > kCheckMaxFlops) {
        out.correctness =
            "not checked (" + std::to_string(totalBytes >> 10) +
            " KiB of parameters is too much for the CPU executor; tilec run --gpu checks smaller -p values)";
    } else {
        run::GpuRunOptions ro;
        ro.client = &client;
        ro.arch = out.arch;
        ro.dims = o.dims;
        // The kernel that was timed, on the inputs it was timed with where they were made on the host.
        ro.fills = o.fills;
        ro.seed = o.fillSeed;
        ro.cudaSourceOverride = o.cudaSourceOverride;
        run::GpuRunResult r = run::runOnGpu(result, ro);
        if (!r.ran) {
            out.correctness = "not checked (the check run failed at " +
                              std::string(run::gpuRunStageName(r.stage)) + ": " + r.message + ")";
            out.checkFailed = true;
        } else {
            double maxAbs = 0;
            for (const run::GpuOutputCheck& c : r.outputs)
                maxAbs = std::max(maxAbs, c.comparison.maxAbsError);
            char buffer[96];
            std::snprintf(buffer, sizeof buffer, " (max abs err %.3g)", maxAbs);
            out.correctness = std::string(r.matches ? "correct against the CPU reference executor"
                                                    : "WRONG RESULTS against the CPU reference executor") +
                              buffer;
            out.wrongResults = !r.matches;
        }
    }

    Ceilings ceilings = sessionCeilings(client, o, out.warnings);
    std::map<int, int> lineMap = tileLineMap(setup.lineMap);
    bool single = setup.kernels.size() == 1;
    bool allTimed = true;
    for (size_t i = 0; i < setup.kernels.size(); ++i) {
        if (isCancelled(o)) {
            out.cancelled = true;
            release();
            return fail(run::GpuRunStage::Launch, "cancelled");
        }
        const run::GpuKernelReport& kr = setup.kernels[i];
        KernelTarget t;
        t.subject = out.subject;
        t.kernel = kr.name;
        t.moduleId = setup.moduleIds[i];
        t.launchFields = setup.launchFields[i];
        t.registers = kr.registers;
        t.sharedBytes = int(kr.dynamicSharedBytes);
        t.dynamicShared = true;
        t.blocks = kr.grid[0] * kr.grid[1] * kr.grid[2];
        if (single)
            t.work = out.work;
        if (single && gemmShape) {
            t.gemmM = m;
            t.gemmN = n;
            t.gemmK = k;
        }
        t.noGemmNote = !hasGemm  ? "the program has no T.gemm"
                       : !single ? "the program has " + std::to_string(setup.kernels.size()) +
                                       " kernels; compare their total by hand"
                                 : "the program has no integer jit parameters M, N and K";
        t.historyFile = single ? file : file + "#" + kr.name;
        t.params = out.params;
        t.cubin = &setup.cubins[i];
        t.tileLineOfCudaLine = lineMap;
        ProfileReport report;
        allTimed =
            profileKernel(client, t, o, out.device, out.arch, ceilings, report, out.warnings) && allTimed;
        out.totalMedianMs += report.timing.summary.medianMs;
        out.kernels.push_back(std::move(report));
    }
    release();
    out.ok = allTimed;
    if (!allTimed) {
        out.stage = run::GpuRunStage::Launch;
        for (const ProfileReport& r : out.kernels)
            if (!r.timing.ok) {
                out.error = r.kernel + ": " + r.timing.error;
                break;
            }
    }
    return out;
}

std::string formatProgramReportText(const ProgramProfileReport& report) {
    std::string s;
    for (const ProfileReport& r : report.kernels)
        s += formatReportText(r);
    if (report.kernels.size() > 1)
        s += "all " + std::to_string(report.kernels.size()) +
             " kernels: " + formatDuration(report.totalMedianMs) + " (sum of medians)\n";
    if (!report.correctness.empty())
        s += "correctness: " + report.correctness + "\n";
    return s;
}

std::string formatProgramReportJson(const ProgramProfileReport& report) {
    JsonWriter w;
    w.beginObject()
        .field("file", report.file)
        .field("correctness", report.correctness)
        .field("totalMedianMs", report.totalMedianMs);
    w.key("reports").beginArray();
    for (const ProfileReport& r : report.kernels)
        w.raw(formatReportJson(r));
    w.endArray().endObject();
    return w.str();
}

ProgramHeadline programHeadline(const ProgramProfileReport& r) {
    ProgramHeadline h;
    for (const ProfileReport& k : r.kernels) {
        h.spreadPct = std::max(h.spreadPct, k.timing.summary.spreadPct);
        h.tflops = std::max(h.tflops, k.rates.tflops);
        h.gbps = std::max(h.gbps, k.rates.gbps);
    }
    h.text = "median " + formatDuration(r.totalMedianMs) + formatNumber(", spread %.1f%%", h.spreadPct);
    if (h.tflops > 0)
        h.text += formatNumber(", %.3g TFLOP/s", h.tflops);
    if (h.gbps > 0)
        h.text += formatNumber(", %.4g GB/s", h.gbps);
    if (r.kernels.size() == 1) {
        const DerivedRates& rates = r.kernels[0].rates;
        if (rates.fractionOfGemm >= 0)
            h.text += formatNumber(", %.1f%% of cuBLAS peak", rates.fractionOfGemm * 100);
        if (rates.fractionOfCopy >= 0)
            h.text += formatNumber(", %.1f%% of copy bandwidth", rates.fractionOfCopy * 100);
        for (const PeerComparison& p : r.kernels[0].peers)
            if (p.ratio > 0)
                h.text += formatNumber(", %.3gx the speed of cuBLAS", p.ratio);
    }
    if (r.simulated)
        h.text += " (SIMULATED)";
    return h;
}

} // namespace tb::profile
