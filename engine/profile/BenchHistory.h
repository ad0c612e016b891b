// The bench history behind `tilec bench --vs previous`: every bench result is appended to a small JSON file
// (default ~/.cache/tilebench/bench-history.json; $TILEBENCH_CACHE_DIR or $XDG_CACHE_HOME move it), keyed by
// the program file, its parameter overrides (sorted) and the target, so that the next run of the same
// file+params can say how much faster or slower it got. A damaged file is reported and not overwritten.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::profile {

struct BenchRecord {
    std::string key; // historyKey(...)
    std::string file;
    std::string params; // "block_M=128 num_stages=3"
    std::string device;
    std::string timestamp; // UTC, ISO 8601
    std::string clock;     // how the samples were taken (cupti-activity, cuda-events, simulated)
    int count = 0;
    double medianMs = 0, minMs = 0, maxMs = 0;
    double tflops = 0, gbps = 0;
};

// "<file>|<sorted params>|<arch>"; the parameter order on the command line does not matter.
std::string historyKey(const std::string& file, std::vector<std::pair<std::string, std::string>> params,
                       const std::string& arch);
std::string paramsText(std::vector<std::pair<std::string, std::string>> params);

// $TILEBENCH_CACHE_DIR/bench-history.json, else $XDG_CACHE_HOME/tilebench/..., else
// $HOME/.cache/tilebench/...; empty when none of them is set.
std::string defaultHistoryPath();

class BenchHistory {
public:
    // A missing file is an empty history (true); unreadable or damaged JSON is false with `error`.
    bool load(const std::string& path, std::string& error);
    // Creates the folder; writes to a temporary file and renames it, so a crash never leaves half a file.
    bool save(const std::string& path, std::string& error) const;

    // The most recent record with this key.
    std::optional<BenchRecord> latest(const std::string& key) const;
    // Appends; keeps at most kPerKey records per key and kTotal overall (oldest dropped first).
    void add(BenchRecord record);
    const std::vector<BenchRecord>& records() const { return m_records; }

    static constexpr size_t kPerKey = 20;
    static constexpr size_t kTotal = 2000;

private:
    std::vector<BenchRecord> m_records; // oldest first
};

struct BenchComparison {
    double ratio = 0;    // previous median / current median: > 1 means faster now
    std::string verdict; // "faster", "slower" or "same" (within the noise of both runs)
};
// Differences smaller than the larger relative spread of the two runs (at least 2%) count as "same".
BenchComparison compareWithPrevious(const BenchRecord& previous, double medianMs, double spreadPct);

// Current time as "2026-11-29T12:34:56Z".
std::string utcTimestamp();

} // namespace tb::profile
