// Run records, their one-line form and the diff of two (see RunHistoryModel.h).
#include "views/model/RunHistoryModel.h"

#include "engine/support/NumberText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

namespace tb::views {

const char* runKindName(RunKind kind) {
    switch (kind) {
    case RunKind::CpuRun:
        return "cpu run";
    case RunKind::GpuRun:
        return "run";
    case RunKind::Bench:
        return "bench";
    case RunKind::Profile:
        return "profile";
    case RunKind::Sweep:
        return "sweep";
    }
    return "run";
}

namespace {

// "1.23 ms", "45.6 us", "789 ns".
std::string duration(double ms) {
    if (ms >= 1)
        return formatNumber("%.3g ms", ms);
    if (ms >= 1e-3)
        return formatNumber("%.3g us", ms * 1e3);
    return formatNumber("%.3g ns", ms * 1e6);
}

std::string paramsLine(const std::map<std::string, std::string>& params) {
    std::string s;
    for (const auto& [name, value] : params)
        s += (s.empty() ? "" : " ") + name + "=" + value;
    return s;
}

} // namespace

std::string formatRunRecord(const RunRecord& r) {
    std::string s = r.time + "  " + runKindName(r.kind) + "  " + r.file;
    std::string params = paramsLine(r.params);
    if (!params.empty())
        s += "  " + params;
    std::string numbers;
    if (r.medianMs)
        numbers += "median " + duration(*r.medianMs);
    if (r.spreadPct)
        numbers += formatNumber(" (spread %.1f%%)", *r.spreadPct);
    if (r.tflops && *r.tflops > 0)
        numbers += formatNumber(", %.3g TFLOP/s", *r.tflops);
    if (r.maxAbsError)
        numbers += (numbers.empty() ? "" : ", ") + formatNumber("max abs err %.3g", *r.maxAbsError);
    if (!numbers.empty())
        s += "  " + numbers;
    if (!r.ok)
        s += "  [" + (r.summary.empty() ? std::string("failed") : r.summary) + "]";
    return s;
}

RunDiff diffRuns(const RunRecord& before, const RunRecord& after) {
    RunDiff d;
    d.beforeId = before.id;
    d.afterId = after.id;
    std::set<std::string> names;
    for (const auto& [n, v] : before.params)
        names.insert(n);
    for (const auto& [n, v] : after.params)
        names.insert(n);
    for (const std::string& n : names) {
        auto b = before.params.find(n), a = after.params.find(n);
        std::string bv = b == before.params.end() ? "" : b->second;
        std::string av = a == after.params.end() ? "" : a->second;
        if (bv != av)
            d.params.push_back({n, bv, av});
    }
    if (before.medianMs && after.medianMs && *before.medianMs > 0 && *after.medianMs > 0) {
        d.medianRatio = *before.medianMs / *after.medianMs;
        // A change smaller than the noise of both runs (their larger spread, at least 2%) is "same".
        double noise = std::max({2.0, before.spreadPct.value_or(0), after.spreadPct.value_or(0)}) / 100;
        double change = std::fabs(*d.medianRatio - 1);
        d.verdict = change <= noise ? "same" : *d.medianRatio > 1 ? "faster" : "slower";
    }
    std::set<std::string> metricNames;
    for (const auto& [n, v] : before.metrics)
        metricNames.insert(n);
    for (const auto& [n, v] : after.metrics)
        metricNames.insert(n);
    for (const std::string& n : metricNames) {
        MetricDelta m;
        m.name = n;
        if (auto it = before.metrics.find(n); it != before.metrics.end())
            m.before = it->second;
        if (auto it = after.metrics.find(n); it != after.metrics.end())
            m.after = it->second;
        if (m.before && m.after && *m.before == *m.after)
            continue;
        d.metrics.push_back(m);
    }
    if (before.kind != after.kind)
        d.notes.push_back(std::string("different kinds: ") + runKindName(before.kind) + " vs " +
                          runKindName(after.kind));
    if (before.file != after.file)
        d.notes.push_back("different files: " + before.file + " vs " + after.file);
    if (before.device != after.device)
        d.notes.push_back("different devices: " + before.device + " vs " + after.device);
    return d;
}

std::string formatRunDiff(const RunDiff& d, const RunRecord& before, const RunRecord& after) {
    std::string s = "diff #" + std::to_string(d.beforeId) + " (" + before.time + " " +
                    runKindName(before.kind) + ") -> #" + std::to_string(d.afterId) + " (" + after.time +
                    " " + runKindName(after.kind) + ")\n";
    for (const std::string& n : d.notes)
        s += "note: " + n + "\n";
    if (d.params.empty()) {
        s += "parameters: unchanged\n";
    } else {
        s += "parameters changed:\n";
        for (const ParamChange& p : d.params)
            s += "  " + p.name + ": " + (p.before.empty() ? "(unset)" : p.before) + " -> " +
                 (p.after.empty() ? "(unset)" : p.after) + "\n";
    }
    if (d.medianRatio)
        s += "median: " + duration(*before.medianMs) + " -> " + duration(*after.medianMs) +
             formatNumber(", ratio %.3f", *d.medianRatio) + " (" + d.verdict + ")\n";
    else
        s += "median: not compared (a run without a time)\n";
    if (!d.metrics.empty()) {
        s += "metrics (before -> after, delta):\n";
        for (const MetricDelta& m : d.metrics) {
            s += "  " + m.name + ": " + (m.before ? formatNumber("%.6g", *m.before) : "-") + " -> " +
                 (m.after ? formatNumber("%.6g", *m.after) : "-");
            if (m.before && m.after)
                s += formatNumber(", %+.6g", m.delta());
            s += "\n";
        }
    } else if (!before.metrics.empty() || !after.metrics.empty()) {
        s += "metrics: unchanged\n";
    }
    return s;
}

int RunHistoryModel::add(RunRecord record) {
    record.id = m_nextId++;
    m_records.push_back(std::move(record));
    if (m_records.size() > kMaxRecords)
        m_records.erase(m_records.begin(),
                        m_records.begin() + std::ptrdiff_t(m_records.size() - kMaxRecords));
    return m_records.back().id;
}

const RunRecord* RunHistoryModel::find(int id) const {
    for (const RunRecord& r : m_records)
        if (r.id == id)
            return &r;
    return nullptr;
}

std::optional<RunDiff> RunHistoryModel::diff(int idA, int idB) const {
    const RunRecord* a = find(std::min(idA, idB));
    const RunRecord* b = find(std::max(idA, idB));
    if (!a || !b)
        return std::nullopt;
    return diffRuns(*a, *b);
}

} // namespace tb::views
