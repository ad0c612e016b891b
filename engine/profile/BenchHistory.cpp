// The bench history file (see BenchHistory.h).
#include "engine/profile/BenchHistory.h"

#include "engine/support/Json.h"
#include "engine/support/JsonReader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tb::profile {

std::string paramsText(std::vector<std::pair<std::string, std::string>> params) {
    std::sort(params.begin(), params.end());
    std::string s;
    for (const auto& [name, value] : params)
        s += (s.empty() ? "" : " ") + name + "=" + value;
    return s;
}

std::string historyKey(const std::string& file, std::vector<std::pair<std::string, std::string>> params,
                       const std::string& arch) {
    return file + "|" + paramsText(std::move(params)) + "|" + arch;
}

std::string defaultHistoryPath() {
    auto env = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v && *v ? v : "";
    };
    if (std::string dir = env("TILEBENCH_CACHE_DIR"); !dir.empty())
        return dir + "/bench-history.json";
    if (std::string dir = env("XDG_CACHE_HOME"); !dir.empty())
        return dir + "/tilebench/bench-history.json";
    if (std::string home = env("HOME"); !home.empty())
        return home + "/.cache/tilebench/bench-history.json";
    return {};
}

bool BenchHistory::load(const std::string& path, std::string& error) {
    m_records.clear();
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return true; // no history yet
    std::stringstream text;
    text << in.rdbuf();
    std::string parseError;
    auto doc = parseJson(text.str(), parseError);
    if (!doc) {
        error = path + ": " + parseError;
        return false;
    }
    const JsonValue* entries = doc->member("entries");
    if (doc->numberOr("version", 0) != 1 || !entries || entries->kind != JsonValue::Kind::Array) {
        error = path + ": not a TileBench bench history (version 1 with an 'entries' array)";
        return false;
    }
    for (const JsonValue& e : entries->items) {
        if (e.kind != JsonValue::Kind::Object || e.stringOr("key", "").empty())
            continue;
        BenchRecord r;
        r.key = e.stringOr("key", "");
        r.file = e.stringOr("file", "");
        r.params = e.stringOr("params", "");
        r.device = e.stringOr("device", "");
        r.timestamp = e.stringOr("timestamp", "");
        r.clock = e.stringOr("clock", "");
        r.count = static_cast<int>(e.numberOr("count", 0));
        r.medianMs = e.numberOr("medianMs", 0);
        r.minMs = e.numberOr("minMs", 0);
        r.maxMs = e.numberOr("maxMs", 0);
        r.tflops = e.numberOr("tflops", 0);
        r.gbps = e.numberOr("gbps", 0);
        m_records.push_back(std::move(r));
    }
    return true;
}

bool BenchHistory::save(const std::string& path, std::string& error) const {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path target(path);
    if (target.has_parent_path())
        fs::create_directories(target.parent_path(), ec);
    JsonWriter w;
    w.beginObject().field("version", 1).key("entries").beginArray();
    for (const BenchRecord& r : m_records) {
        w.beginObject().field("key", r.key).field("file", r.file).field("params", r.params);
        w.field("device", r.device).field("timestamp", r.timestamp).field("clock", r.clock);
        w.field("count", r.count)
            .field("medianMs", r.medianMs)
            .field("minMs", r.minMs)
            .field("maxMs", r.maxMs);
        w.field("tflops", r.tflops).field("gbps", r.gbps).endObject();
    }
    w.endArray().endObject();
    std::string temp = path + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << w.str() << "\n";
        if (!out) {
            error = "cannot write " + temp;
            return false;
        }
    }
    fs::rename(temp, target, ec);
    if (ec) {
        error = "cannot replace " + path + ": " + ec.message();
        return false;
    }
    return true;
}

std::optional<BenchRecord> BenchHistory::latest(const std::string& key) const {
    for (auto it = m_records.rbegin(); it != m_records.rend(); ++it)
        if (it->key == key)
            return *it;
    return std::nullopt;
}

void BenchHistory::add(BenchRecord record) {
    size_t sameKey = 0;
    for (const BenchRecord& r : m_records)
        sameKey += r.key == record.key;
    if (sameKey >= kPerKey) {
        auto oldest = std::find_if(m_records.begin(), m_records.end(),
                                   [&](const BenchRecord& r) { return r.key == record.key; });
        m_records.erase(oldest);
    }
    m_records.push_back(std::move(record));
    if (m_records.size() > kTotal)
        m_records.erase(m_records.begin(), m_records.begin() + static_cast<long>(m_records.size() - kTotal));
}

BenchComparison compareWithPrevious(const BenchRecord& previous, double medianMs, double spreadPct) {
    BenchComparison c;
    if (!(medianMs > 0) || !(previous.medianMs > 0)) {
        c.verdict = "same";
        return c;
    }
    c.ratio = previous.medianMs / medianMs;
    double previousSpread =
        previous.medianMs > 0 ? 100.0 * (previous.maxMs - previous.minMs) / previous.medianMs : 0;
    double noise = std::max({2.0, spreadPct, previousSpread}) / 100.0;
    double change = std::fabs(medianMs - previous.medianMs) / previous.medianMs;
    c.verdict = change <= noise ? "same" : (c.ratio > 1 ? "faster" : "slower");
    return c;
}

std::string utcTimestamp() {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

} // namespace tb::profile
