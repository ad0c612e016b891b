// The Run panel's history: one record per run, bench, profile or sweep (when, what kind, on which device,
// with which parameters, and the key numbers: errors, median and spread, rates, CUPTI metrics), and the
// diff of two records (parameters that changed, the median ratio with a verdict that respects the noise
// of both runs, metric deltas). Qt-free so that the diff logic is unit-tested without a window.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tb::views {

enum class RunKind { CpuRun, GpuRun, Bench, Profile, Sweep };
// "cpu run", "run", "bench", "profile", "sweep".
const char* runKindName(RunKind kind);

struct RunRecord {
    int id = 0;       // assigned by RunHistoryModel::add, increasing
    std::string time; // "12:34:56", as the caller's clock says
    RunKind kind = RunKind::Bench;
    std::string file;
    std::string device;                        // "NVIDIA H200 (sm_90a)", "CPU reference executor"
    std::map<std::string, std::string> params; // the specialization (jit parameters and their values)
    bool ok = false;
    std::string summary; // one line

    std::optional<double> maxAbsError, maxRelError; // runs
    std::optional<double> medianMs, spreadPct;      // bench, profile (sum over kernels), sweep (best)
    std::optional<double> tflops, gbps;
    std::map<std::string, double> metrics; // CUPTI metric name -> value (profile)
};

struct ParamChange {
    std::string name;
    std::string before, after; // empty when the parameter is missing on that side
};

struct MetricDelta {
    std::string name;
    std::optional<double> before, after;
    double delta() const { return before && after ? *after - *before : 0; }
};

struct RunDiff {
    int beforeId = 0, afterId = 0;
    std::vector<ParamChange> params; // only the changed ones, by name
    // before median / after median: > 1 means the later run is faster. Absent when either has no time.
    std::optional<double> medianRatio;
    std::string verdict;              // "faster", "slower", "same" (within the noise), or empty
    std::vector<MetricDelta> metrics; // every metric either side has, by name; equal values left out
    std::vector<std::string> notes;   // different kinds, files or devices
};

// `before` and `after` in that order (the caller passes the older record first).
RunDiff diffRuns(const RunRecord& before, const RunRecord& after);
std::string formatRunDiff(const RunDiff& diff, const RunRecord& before, const RunRecord& after);
// "12:34:56  bench  gemm.py  block_K=32 num_stages=3  median 10.2 us, 26.3 TFLOP/s"
std::string formatRunRecord(const RunRecord& record);

class RunHistoryModel {
public:
    // Appends (oldest first) and returns the record's id; the oldest are dropped beyond kMaxRecords.
    int add(RunRecord record);
    const std::vector<RunRecord>& records() const { return m_records; }
    const RunRecord* find(int id) const;
    size_t size() const { return m_records.size(); }
    void clear() { m_records.clear(); }
    // The diff of two records by id (ordered by id, older first); nullopt when either is gone.
    std::optional<RunDiff> diff(int idA, int idB) const;

    static constexpr size_t kMaxRecords = 500;

private:
    std::vector<RunRecord> m_records;
    int m_nextId = 1;
};

} // namespace tb::views
