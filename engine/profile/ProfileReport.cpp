// Text and JSON renderings of a profile (see ProfileReport.h).
#include "engine/profile/ProfileReport.h"

#include "engine/support/Json.h"
#include "engine/support/NumberText.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace tb::profile {

namespace {

std::string metricText(const MetricValue& v) {
    const MetricInfo* info = findMetric(v.name);
    MetricUnit unit = info ? info->unit : MetricUnit::Count;
    switch (unit) {
    case MetricUnit::Nanoseconds:
        return formatDuration(v.value * 1e-6);
    case MetricUnit::Percent:
        return formatNumber("%.1f %%", v.value);
    case MetricUnit::Count:
        return formatCount(v.value);
    }
    return formatCount(v.value);
}

std::string unavailableLine(const char* what, CounterAvailability a, const std::string& reason) {
    std::string s = std::string(what) + ": unavailable (" + availabilityCode(a) + ")";
    if (!reason.empty())
        s += ": " + reason;
    std::string hint = availabilityHint(a);
    if (!hint.empty())
        s += "\n    hint: " + hint;
    return s + "\n";
}

} // namespace

std::string formatDuration(double ms) {
    if (!(ms > 0))
        return "0 ns";
    if (ms >= 1)
        return formatNumber("%.3f ms", ms);
    if (ms >= 1e-3)
        return formatNumber("%.2f us", ms * 1e3);
    return formatNumber("%.0f ns", ms * 1e6);
}

std::string formatCount(double value) {
    if (!std::isfinite(value))
        return "n/a";
    if (std::fabs(value - std::round(value)) > 1e-6 || std::fabs(value) >= 1e18)
        return formatNumber("%.3f", value);
    long long v = std::llround(value);
    bool negative = v < 0;
    std::string digits = std::to_string(negative ? -v : v), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            out.push_back(',');
        out.push_back(digits[i]);
    }
    return negative ? "-" + out : out;
}

void finishReport(ProfileReport& report) {
    report.rates = deriveRates(report.work, report.timing.summary.medianMs, report.ceilings);
}

std::string formatReportText(const ProfileReport& r) {
    std::string s;
    s += r.subject + (r.kernel.empty() ? "" : "  [" + r.kernel + "]") + "\n";
    if (!r.device.empty())
        s += "device: " + r.device + "\n";
    // NVRTC answering from its own ptxas cache prints no report; the registers then come from the cubin,
    // which does not record the static shared memory apart from the reserved system area. Generated kernels
    // give their launch's dynamic shared memory instead.
    if (r.registers >= 0)
        s += "resources: " + std::to_string(r.registers) + " registers/thread, " +
             (r.sharedBytes >= 0
                  ? std::to_string(r.sharedBytes) + (r.dynamicShared ? " B dynamic" : " B static") +
                        " shared memory"
                  : std::string("static shared memory not reported (NVRTC's ptxas cache answered)")) +
             "\n";
    const TimingOutcome& t = r.timing;
    if (!t.ok) {
        s += "timing: failed: " + t.error + "\n";
    } else {
        s += "time: median " + formatDuration(t.summary.medianMs) + "  min " +
             formatDuration(t.summary.minMs) + "  max " + formatDuration(t.summary.maxMs) + "  spread " +
             formatNumber("%.1f%%", t.summary.spreadPct) + "\n";
        s += "  measured with " + t.clock + ", " + std::to_string(r.warmup) + " warm-up + " +
             std::to_string(t.summary.count) + " timed launches, L2 " +
             (t.flushL2 ? "flushed" : "not flushed") + " between launches" +
             (t.simulated ? " (SIMULATED: fake runner)" : "") + "\n";
        if (!t.clockNote.empty())
            s += "  note: " + t.clockNote + "\n";
        if (std::string caution = timingCaution(t.summary); !caution.empty())
            s += "  caution: " + caution + "\n";
        if (r.rates.tflops > 0) {
            s += "  compute: " + formatNumber("%.1f TFLOP/s", r.rates.tflops);
            if (r.rates.fractionOfGemm >= 0)
                s += formatNumber(" = %.1f%%", 100 * r.rates.fractionOfGemm) +
                     " of the measured cuBLAS fp16 GEMM rate (" +
                     formatNumber("%.0f TFLOP/s", r.ceilings.gemmTflops) + ")";
            s += "\n";
        }
        if (r.rates.gbps > 0) {
            s += "  memory:  " + formatNumber("%.0f GB/s", r.rates.gbps);
            if (r.rates.fractionOfCopy >= 0)
                s += formatNumber(" = %.1f%%", 100 * r.rates.fractionOfCopy) +
                     " of the measured device copy bandwidth (" +
                     formatNumber("%.0f GB/s", r.ceilings.copyGBps) + ")";
            s += "\n";
        }
    }
    for (const PeerComparison& p : r.peers) {
        if (!p.note.empty()) {
            s += "vs " + p.name + ": unavailable: " + p.note + "\n";
            continue;
        }
        s += "vs " + p.name + ": " + formatDuration(p.peerMedianMs) + formatNumber(", ratio %.3f", p.ratio) +
             (p.verdict.empty() ? std::string(p.ratio >= 1 ? " (ours is faster)" : " (ours is slower)")
                                : " (" + p.verdict + ")") +
             "\n";
        if (p.roundRatios.size() > 1) {
            s += "  timed alternately with ours in " + std::to_string(p.roundRatios.size()) +
                 " rounds; ratio per round, in order:";
            for (double ratio : p.roundRatios)
                s += formatNumber(" %.3f", ratio);
            s += "\n";
        }
    }
    if (r.countersRequested) {
        const MetricsOutcome& m = r.counters;
        if (!m.ok) {
            s += "counters: failed: " + m.error + "\n";
        } else if (m.availability != CounterAvailability::Available) {
            s += unavailableLine("counters (Range Profiler)", m.availability, m.reason);
        } else {
            s += "counters (Range Profiler, " + std::to_string(m.passes) + " pass" +
                 (m.passes == 1 ? "" : "es") + (m.simulated ? ", SIMULATED" : "") + "):\n";
            for (const MetricValue& v : m.values) {
                char buf[256];
                std::snprintf(buf, sizeof buf, "  %-72s %s\n", v.name.c_str(),
                              v.available ? metricText(v).c_str() : ("unavailable: " + v.note).c_str());
                s += buf;
            }
        }
    }
    if (r.sassRequested) {
        const SassOutcome& q = r.sass;
        if (!q.ok) {
            s += "SASS metrics: failed: " + q.error + "\n";
        } else if (q.availability != CounterAvailability::Available) {
            s += unavailableLine("SASS metrics", q.availability, q.reason);
        } else {
            uint64_t wf = 0, ideal = 0;
            for (const SassRecord& rec : q.records) {
                wf += rec.sharedWavefronts;
                ideal += rec.sharedWavefrontsIdeal;
            }
            s += "SASS metrics: " + std::to_string(q.records.size()) + " instructions, shared wavefronts " +
                 formatCount(double(wf)) + " (ideal " + formatCount(double(ideal)) + ", excess " +
                 formatCount(double(wf > ideal ? wf - ideal : 0)) + ")" + (q.simulated ? " SIMULATED" : "") +
                 "\n";
            auto table = [&](const char* title, const std::vector<LineTotals>& lines) {
                bool any = false;
                for (const LineTotals& l : lines) {
                    if (l.sharedWavefronts == 0)
                        continue;
                    if (!any)
                        s += std::string("  shared memory by ") + title +
                             " (wavefronts / ideal / excess, instructions executed):\n";
                    any = true;
                    char buf[200];
                    std::snprintf(buf, sizeof buf, "    %-10s %16s %16s %16s %16s\n",
                                  l.line < 0 ? "?" : ("line " + std::to_string(l.line)).c_str(),
                                  formatCount(double(l.sharedWavefronts)).c_str(),
                                  formatCount(double(l.sharedWavefrontsIdeal)).c_str(),
                                  formatCount(double(l.excessWavefronts())).c_str(),
                                  formatCount(double(l.instExecuted)).c_str());
                    s += buf;
                }
            };
            table("tile-program line", r.tileLines);
            table("CUDA line", r.cudaLines);
            if (!r.lineInfoNote.empty())
                s += "  lines: " + r.lineInfoNote + "\n";
        }
    }
    return s;
}

std::string formatReportJson(const ProfileReport& r) {
    JsonWriter w;
    w.beginObject().field("subject", r.subject).field("kernel", r.kernel).field("device", r.device);
    w.field("registers", r.registers)
        .field("sharedBytes", r.sharedBytes)
        .field("dynamicShared", r.dynamicShared)
        .field("blocks", r.blocks);
    const TimingOutcome& t = r.timing;
    w.key("timing").beginObject().field("ok", t.ok);
    if (!t.ok)
        w.field("error", t.error);
    w.field("clock", t.clock).field("simulated", t.simulated).field("warmup", r.warmup);
    w.field("count", t.summary.count).field("l2Flushed", t.flushL2);
    w.field("medianMs", t.summary.medianMs).field("minMs", t.summary.minMs).field("maxMs", t.summary.maxMs);
    w.field("meanMs", t.summary.meanMs).field("spreadPct", t.summary.spreadPct);
    if (!t.clockNote.empty())
        w.field("clockNote", t.clockNote);
    w.key("samplesMs").beginArray();
    for (double v : t.samplesMs)
        w.value(v);
    w.endArray().endObject();
    w.key("work").beginObject().field("flops", r.work.flops).field("bytes", r.work.bytes).endObject();
    w.key("ceilings")
        .beginObject()
        .field("copyGBps", r.ceilings.copyGBps)
        .field("gemmTflops", r.ceilings.gemmTflops);
    w.field("simulated", r.ceilings.simulated).endObject();
    w.key("rates").beginObject().field("tflops", r.rates.tflops).field("gbps", r.rates.gbps);
    w.field("fractionOfGemm", r.rates.fractionOfGemm)
        .field("fractionOfCopy", r.rates.fractionOfCopy)
        .endObject();
    w.key("peers").beginArray();
    for (const PeerComparison& p : r.peers) {
        w.beginObject().field("name", p.name).field("medianMs", p.peerMedianMs).field("ratio", p.ratio);
        w.field("verdict", p.verdict).field("note", p.note);
        w.key("roundRatios").beginArray();
        for (double ratio : p.roundRatios)
            w.value(ratio);
        w.endArray().endObject();
    }
    w.endArray();
    if (r.countersRequested) {
        const MetricsOutcome& m = r.counters;
        w.key("counters").beginObject().field("ok", m.ok).field("error", m.error);
        w.field("availability", availabilityCode(m.availability)).field("reason", m.reason);
        w.field("hint", availabilityHint(m.availability))
            .field("passes", m.passes)
            .field("simulated", m.simulated);
        w.key("metrics").beginArray();
        for (const MetricValue& v : m.values) {
            w.beginObject().field("name", v.name).field("available", v.available);
            if (v.available)
                w.field("value", v.value);
            else
                w.field("note", v.note);
            w.endObject();
        }
        w.endArray().endObject();
    }
    if (r.sassRequested) {
        const SassOutcome& q = r.sass;
        w.key("sass").beginObject().field("ok", q.ok).field("error", q.error);
        w.field("availability", availabilityCode(q.availability)).field("reason", q.reason);
        w.field("hint", availabilityHint(q.availability))
            .field("dropped", q.dropped)
            .field("simulated", q.simulated);
        w.key("instructions").beginArray();
        for (const SassRecord& rec : q.records) {
            w.beginObject().field("function", rec.function).field("pc", static_cast<int64_t>(rec.pc));
            w.field("instExecuted", rec.instExecuted).field("sharedWavefronts", rec.sharedWavefronts);
            w.field("sharedWavefrontsIdeal", rec.sharedWavefrontsIdeal).field("cudaLine", rec.cudaLine);
            w.field("tileLine", rec.tileLine).endObject();
        }
        w.endArray();
        auto lines = [&](const char* key, const std::vector<LineTotals>& list) {
            w.key(key).beginArray();
            for (const LineTotals& l : list) {
                w.beginObject().field("line", l.line).field("instructions", l.instructions);
                w.field("instExecuted", l.instExecuted).field("sharedWavefronts", l.sharedWavefronts);
                w.field("sharedWavefrontsIdeal", l.sharedWavefrontsIdeal);
                w.field("excessWavefronts", l.excessWavefronts()).endObject();
            }
            w.endArray();
        };
        lines("cudaLines", r.cudaLines);
        lines("tileLines", r.tileLines);
        w.field("lineInfoNote", r.lineInfoNote).endObject();
    }
    w.endObject();
    return w.str();
}

} // namespace tb::profile
