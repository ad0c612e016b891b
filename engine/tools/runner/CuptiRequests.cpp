// Protocol handling of the profiling requests (see CuptiRequests.h and docs/runner-protocol.md).
#include "CuptiRequests.h"

#include "engine/profile/TimingStats.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace tb::runner {

namespace {

using gpu::escapeProtocolValue;
using profile::availabilityCode;
using profile::CounterAvailability;

std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

bool parseCount(const std::string& text, long long lo, long long hi, long long& out) {
    if (text.empty() || text.size() > 12)
        return false;
    char* end = nullptr;
    out = std::strtoll(text.c_str(), &end, 10);
    return end && *end == '\0' && out >= lo && out <= hi;
}

} // namespace

CuptiRequests::CuptiRequests(std::unique_ptr<CuptiEngine> engine) : m_engine(std::move(engine)) {}

bool CuptiRequests::handles(const std::string& verb) const {
    return verb == "profiler" || verb == "metrics" || verb == "sass" || verb == "ceilings" ||
           verb == "cublas";
}

bool CuptiRequests::handle(const gpu::ProtocolLine& r, RunnerSession& session) {
    if (r.verb == "profiler")
        return profiler(session);
    if (r.verb == "metrics")
        return metrics(r, session);
    if (r.verb == "sass")
        return sass(r, session);
    if (r.verb == "ceilings")
        return ceilings(r, session);
    return cublas(r, session);
}

bool CuptiRequests::profiler(RunnerSession& session) {
    CuptiCapabilities c = m_engine->capabilities();
    std::string line = std::string("profiler cupti=") + (c.cupti ? "1" : "0") +
                       " activity=" + (c.activity ? "1" : "0") + " counters=" + availabilityCode(c.counters) +
                       " sass=" + availabilityCode(c.sass);
    if (!c.chip.empty())
        line += " chip=" + escapeProtocolValue(c.chip);
    if (c.version)
        line += " cupti_version=" + std::to_string(c.version);
    if (!c.cuptiReason.empty())
        line += " cupti_reason=" + escapeProtocolValue(c.cuptiReason);
    if (!c.countersReason.empty())
        line += " counters_reason=" + escapeProtocolValue(c.countersReason);
    if (!c.sassReason.empty())
        line += " sass_reason=" + escapeProtocolValue(c.sassReason);
    if (m_engine->simulated())
        line += " simulated=1";
    session.ok(line);
    return true;
}

void CuptiRequests::writeTiming(RunnerSession& session, const std::string& head, const KernelTiming& t,
                                bool flushL2, const std::string& extra) {
    profile::TimingSummary s = profile::summarizeTimings(t.milliseconds);
    std::string samples;
    for (double ms : t.milliseconds)
        samples += (samples.empty() ? "" : ",") + number(ms);
    std::string line = head + " repeat=" + std::to_string(s.count) + " median_ms=" + number(s.medianMs) +
                       " min_ms=" + number(s.minMs) + " max_ms=" + number(s.maxMs) +
                       " mean_ms=" + number(s.meanMs) + " spread_pct=" + number(s.spreadPct) +
                       " clock=" + t.clock + " flush_l2=" + (flushL2 ? "1" : "0") + " samples_ms=" + samples +
                       extra;
    if (!t.clockNote.empty())
        line += " clock_note=" + escapeProtocolValue(t.clockNote);
    if (m_engine->simulated())
        line += " simulated=1";
    session.ok(line);
}

bool CuptiRequests::time(const gpu::ProtocolLine& r, RunnerSession& session, RunnerSession::PreparedLaunch& p,
                         int warmup, int repeat) {
    std::string clock = r.field("clock", "cupti");
    if (clock != "cupti" && clock != "events") {
        session.error("bad-request", "clock=" + clock + " is not cupti or events");
        return true;
    }
    bool flushL2 = r.field("flush_l2", "0") == "1";
    RunnerBackend& backend = session.backend();
    CuptiEngine::Launch launch = [&]() { return backend.launchAsync(p.id, p.config, p.params); };
    KernelTiming timing;
    BackendStatus s =
        m_engine->timeKernel(p.kernel, launch, warmup, repeat, flushL2, clock == "cupti", timing);
    if (!s.ok())
        return session.finish(s);
    writeTiming(session, "time " + escapeProtocolValue(p.id), timing, flushL2,
                " warmup=" + std::to_string(warmup));
    return true;
}

bool CuptiRequests::metrics(const gpu::ProtocolLine& r, RunnerSession& session) {
    RunnerSession::PreparedLaunch p;
    if (!session.prepareLaunch(r, true,
                               "usage: metrics <module-id> [grid= block= smem= args=] [names=a,b,...]", p))
        return true;
    std::vector<std::string> names;
    std::string list = r.field("names");
    for (size_t start = 0; start < list.size();) {
        size_t comma = list.find(',', start);
        std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!profile::isWellFormedMetricName(name)) {
            session.error("bad-request", "'" + name + "' is not a metric name (unit__counter.rollup)");
            return true;
        }
        names.push_back(name);
        start = comma == std::string::npos ? list.size() : comma + 1;
    }
    if (names.size() > 64) {
        session.error("bad-request", std::to_string(names.size()) + " metrics requested, at most 64");
        return true;
    }
    RunnerBackend& backend = session.backend();
    CuptiEngine::Launch launch = [&]() { return backend.launchAsync(p.id, p.config, p.params); };
    RangeOutcome out;
    BackendStatus s = m_engine->rangeMetrics(launch, names, out);
    if (!s.ok())
        return session.finish(s);
    for (const RangeMetric& m : out.metrics)
        session.writeLine(
            "info metric " + m.name +
            (m.available ? " value=" + number(m.value) : " unavailable=" + escapeProtocolValue(m.note)));
    std::string line = "metrics " + escapeProtocolValue(p.id) +
                       " counters=" + availabilityCode(out.availability) +
                       " passes=" + std::to_string(out.passes);
    if (!out.reason.empty())
        line += " reason=" + escapeProtocolValue(out.reason);
    if (m_engine->simulated())
        line += " simulated=1";
    session.ok(line);
    return true;
}

bool CuptiRequests::sass(const gpu::ProtocolLine& r, RunnerSession& session) {
    RunnerSession::PreparedLaunch p;
    if (!session.prepareLaunch(r, true, "usage: sass <module-id> [grid= block= smem= args=]", p))
        return true;
    RunnerBackend& backend = session.backend();
    CuptiEngine::Launch launch = [&]() { return backend.launchAsync(p.id, p.config, p.params); };
    SassOutcome out;
    BackendStatus s = m_engine->sassMetrics(p.kernel, launch, out);
    if (!s.ok())
        return session.finish(s);
    for (const SassInstruction& i : out.instructions)
        session.writeLine("info sass " + escapeProtocolValue(i.function) + " pc=" + std::to_string(i.pc) +
                          " inst=" + std::to_string(i.instExecuted) + " wavefronts=" +
                          std::to_string(i.wavefronts) + " ideal=" + std::to_string(i.ideal));
    std::string line = "sass " + escapeProtocolValue(p.id) + " sass=" + availabilityCode(out.availability) +
                       " records=" + std::to_string(out.instructions.size()) +
                       " dropped=" + std::to_string(out.dropped);
    if (!out.reason.empty())
        line += " reason=" + escapeProtocolValue(out.reason);
    if (m_engine->simulated())
        line += " simulated=1";
    session.ok(line);
    return true;
}

bool CuptiRequests::ceilings(const gpu::ProtocolLine& r, RunnerSession& session) {
    MeasuredCeilings c;
    BackendStatus s = m_engine->ceilings(r.field("refresh") == "1", c);
    if (!s.ok())
        return session.finish(s);
    std::string line = "ceilings copy_gbps=" + number(c.copyGBps) +
                       " copy_bytes=" + std::to_string(c.copyBytes) + " gemm_tflops=" + number(c.gemmTflops) +
                       " gemm_m=" + std::to_string(c.gemmM) + " gemm_n=" + std::to_string(c.gemmN) +
                       " gemm_k=" + std::to_string(c.gemmK) + " cached=" + (c.cached ? "1" : "0");
    if (!c.gemmNote.empty())
        line += " gemm_note=" + escapeProtocolValue(c.gemmNote);
    if (m_engine->simulated())
        line += " simulated=1";
    session.ok(line);
    return true;
}

bool CuptiRequests::cublas(const gpu::ProtocolLine& r, RunnerSession& session) {
    long long m = 0, n = 0, k = 0, warmup = 0, repeat = 0;
    if (!parseCount(r.field("m"), 1, 65536, m) || !parseCount(r.field("n"), 1, 65536, n) ||
        !parseCount(r.field("k"), 1, 65536, k) || !parseCount(r.field("warmup", "5"), 0, 10000, warmup) ||
        !parseCount(r.field("repeat", "20"), 1, 100000, repeat)) {
        session.error("bad-request",
                      "usage: cublas m=1..65536 n= k= [warmup=5] [repeat=20] [clock=cupti|events] "
                      "[flush_l2=0|1]");
        return true;
    }
    if (double(m) * double(k) + double(k) * double(n) + double(m) * double(n) > double(uint64_t(4) << 30)) {
        session.error("bad-request", "a " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                                         std::to_string(k) + " GEMM needs more than 8 GiB of fp16 operands");
        return true;
    }
    bool flushL2 = r.field("flush_l2", "0") == "1";
    KernelTiming timing;
    std::string library;
    BackendStatus s = m_engine->cublasGemm(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                                           static_cast<int>(warmup), static_cast<int>(repeat), flushL2,
                                           r.field("clock", "cupti") == "cupti", timing, library);
    if (!s.ok())
        return session.finish(s);
    writeTiming(session,
                "cublas m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k),
                timing, flushL2, " library=" + escapeProtocolValue(library));
    return true;
}

} // namespace tb::runner
