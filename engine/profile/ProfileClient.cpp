// Profiling requests over the runner protocol (see ProfileClient.h).
#include "engine/profile/ProfileClient.h"

#include "engine/gpu/RunnerProtocol.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <utility>

namespace tb::profile {

namespace {

using namespace std::chrono_literals;

double number(const std::string& text) {
    return text.empty() ? 0 : std::strtod(text.c_str(), nullptr);
}

uint64_t count(const std::string& text) {
    return text.empty() ? 0 : std::strtoull(text.c_str(), nullptr, 10);
}

std::string failure(const gpu::RunnerReply& reply) {
    std::string s = gpu::runnerStatusName(reply.status);
    if (!reply.code.empty())
        s += " " + reply.code;
    if (!reply.message.empty())
        s += ": " + reply.message;
    return s;
}

std::vector<double> splitNumbers(const std::string& text) {
    std::vector<double> out;
    size_t start = 0;
    while (start < text.size()) {
        size_t comma = text.find(',', start);
        out.push_back(
            number(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

std::string timingFields(const TimingRequest& r) {
    return " warmup=" + std::to_string(r.warmup) + " repeat=" + std::to_string(r.repeat) +
           " clock=" + (r.cupti ? "cupti" : "events") + " flush_l2=" + (r.flushL2 ? "1" : "0");
}

// Profiling requests replay kernels and run cuBLAS: give them more than the default watchdog.
constexpr auto kProfileTimeout = 120000ms;

} // namespace

ProfilerStatus queryProfiler(gpu::RunnerClient& client) {
    ProfilerStatus s;
    gpu::RunnerReply reply = client.request("profiler");
    if (!reply.ok()) {
        s.error =
            reply.code == "unknown-command" ? "the runner predates the profiling requests" : failure(reply);
        return s;
    }
    s.ok = true;
    s.cupti = reply.field("cupti") == "1";
    s.activity = reply.field("activity") == "1";
    s.counters = parseAvailabilityCode(reply.field("counters", "no-cupti"));
    s.sass = parseAvailabilityCode(reply.field("sass", "no-cupti"));
    s.cuptiReason = reply.field("cupti_reason");
    s.countersReason = reply.field("counters_reason");
    s.sassReason = reply.field("sass_reason");
    s.chip = reply.field("chip");
    s.cuptiVersion = static_cast<int>(count(reply.field("cupti_version")));
    s.simulated = reply.field("simulated") == "1";
    return s;
}

TimingOutcome parseTimingReply(const gpu::RunnerReply& reply) {
    TimingOutcome t;
    if (!reply.ok()) {
        t.error = failure(reply);
        return t;
    }
    t.ok = true;
    t.samplesMs = splitNumbers(reply.field("samples_ms"));
    if (!t.samplesMs.empty()) {
        t.summary = summarizeTimings(t.samplesMs);
    } else {
        t.summary.count = static_cast<int>(count(reply.field("repeat")));
        t.summary.medianMs = number(reply.field("median_ms"));
        t.summary.minMs = number(reply.field("min_ms"));
        t.summary.maxMs = number(reply.field("max_ms"));
        t.summary.meanMs = number(reply.field("mean_ms"));
        t.summary.spreadPct = number(reply.field("spread_pct"));
    }
    t.simulated = reply.field("simulated") == "1";
    t.clock = reply.field("clock", t.simulated ? "simulated" : "cuda-events");
    t.clockNote = reply.field("clock_note");
    t.flushL2 = reply.field("flush_l2") == "1";
    t.library = reply.field("library");
    return t;
}

TimingOutcome timeKernel(gpu::RunnerClient& client, const std::string& module,
                         const std::string& launchFields, const TimingRequest& request) {
    std::string line = "time " + gpu::escapeProtocolValue(module);
    if (!launchFields.empty())
        line += " " + launchFields;
    return parseTimingReply(client.request(line + timingFields(request), kProfileTimeout));
}

MetricsOutcome parseMetricsReply(const gpu::RunnerReply& reply) {
    MetricsOutcome m;
    if (!reply.ok()) {
        m.error = failure(reply);
        return m;
    }
    m.ok = true;
    m.availability = parseAvailabilityCode(reply.field("counters", "failed"));
    m.reason = reply.field("reason");
    m.passes = static_cast<int>(count(reply.field("passes")));
    m.simulated = reply.field("simulated") == "1";
    for (const std::string& text : reply.dataLines) {
        gpu::ProtocolLine line = gpu::parseProtocolLine(text);
        if (line.words.size() < 2 || line.words[0] != "metric")
            continue;
        MetricValue v;
        v.name = line.words[1];
        v.available = line.has("value");
        v.value = number(line.field("value"));
        v.note = line.field("unavailable");
        m.values.push_back(std::move(v));
    }
    return m;
}

MetricsOutcome collectMetrics(gpu::RunnerClient& client, const std::string& module,
                              const std::string& launchFields, const std::vector<std::string>& names) {
    std::string line = "metrics " + gpu::escapeProtocolValue(module);
    if (!launchFields.empty())
        line += " " + launchFields;
    if (!names.empty()) {
        std::string list;
        for (const std::string& n : names)
            list += (list.empty() ? "" : ",") + n;
        line += " names=" + list;
    }
    return parseMetricsReply(client.request(line, kProfileTimeout));
}

SassOutcome parseSassReply(const gpu::RunnerReply& reply) {
    SassOutcome s;
    if (!reply.ok()) {
        s.error = failure(reply);
        return s;
    }
    s.ok = true;
    s.availability = parseAvailabilityCode(reply.field("sass", "failed"));
    s.reason = reply.field("reason");
    s.dropped = static_cast<int>(count(reply.field("dropped")));
    s.simulated = reply.field("simulated") == "1";
    for (const std::string& text : reply.dataLines) {
        gpu::ProtocolLine line = gpu::parseProtocolLine(text);
        if (line.words.size() < 2 || line.words[0] != "sass")
            continue;
        SassRecord r;
        r.function = line.words[1];
        r.pc = static_cast<uint32_t>(count(line.field("pc")));
        r.instExecuted = count(line.field("inst"));
        r.sharedWavefronts = count(line.field("wavefronts"));
        r.sharedWavefrontsIdeal = count(line.field("ideal"));
        s.records.push_back(std::move(r));
    }
    sortSassRecords(s.records);
    return s;
}

SassOutcome collectSass(gpu::RunnerClient& client, const std::string& module,
                        const std::string& launchFields) {
    std::string line = "sass " + gpu::escapeProtocolValue(module);
    if (!launchFields.empty())
        line += " " + launchFields;
    return parseSassReply(client.request(line, kProfileTimeout));
}

bool measureCeilings(gpu::RunnerClient& client, Ceilings& c, std::string& error, bool refresh) {
    gpu::RunnerReply reply = client.request(refresh ? "ceilings refresh=1" : "ceilings", kProfileTimeout);
    if (!reply.ok()) {
        error = failure(reply);
        return false;
    }
    c.copyGBps = number(reply.field("copy_gbps"));
    c.gemmTflops = number(reply.field("gemm_tflops"));
    c.gemmM = static_cast<int>(count(reply.field("gemm_m")));
    c.gemmN = static_cast<int>(count(reply.field("gemm_n")));
    c.gemmK = static_cast<int>(count(reply.field("gemm_k")));
    c.gemmNote = reply.field("gemm_note");
    c.simulated = reply.field("simulated") == "1";
    return true;
}

TimingOutcome timeCublasGemm(gpu::RunnerClient& client, int m, int n, int k, const TimingRequest& request) {
    std::string line =
        "cublas m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
    return parseTimingReply(client.request(line + timingFields(request), kProfileTimeout));
}

} // namespace tb::profile
