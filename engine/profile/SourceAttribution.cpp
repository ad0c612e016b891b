// SASS records -> CUDA lines -> tile-program lines (see SourceAttribution.h).
#include "engine/profile/SourceAttribution.h"

#include <algorithm>

namespace tb::profile {

void attributeSassRecords(std::vector<SassRecord>& records, const gpu::CubinLineTable& lines,
                          const std::map<int, int>& lineMap) {
    for (SassRecord& r : records) {
        auto line = lines.lineAt(r.function, r.pc);
        r.cudaLine = line ? *line : -1;
        r.tileLine = -1;
        if (r.cudaLine < 0 || lineMap.empty())
            continue;
        auto it = lineMap.upper_bound(r.cudaLine);
        if (it != lineMap.begin())
            r.tileLine = std::prev(it)->second;
    }
}

namespace {

std::vector<LineTotals> totalsBy(const std::vector<SassRecord>& records, bool tile) {
    std::map<int, LineTotals> byLine;
    for (const SassRecord& r : records) {
        int line = tile ? r.tileLine : r.cudaLine;
        LineTotals& t = byLine[line < 0 ? -1 : line];
        t.line = line < 0 ? -1 : line;
        t.instExecuted += r.instExecuted;
        t.sharedWavefronts += r.sharedWavefronts;
        t.sharedWavefrontsIdeal += r.sharedWavefrontsIdeal;
        ++t.instructions;
    }
    std::vector<LineTotals> out;
    for (auto& [line, t] : byLine)
        out.push_back(t);
    return out;
}

} // namespace

std::vector<LineTotals> totalsByCudaLine(const std::vector<SassRecord>& records) {
    return totalsBy(records, false);
}

std::vector<LineTotals> totalsByTileLine(const std::vector<SassRecord>& records) {
    return totalsBy(records, true);
}

void sortSassRecords(std::vector<SassRecord>& records) {
    std::sort(records.begin(), records.end(), [](const SassRecord& a, const SassRecord& b) {
        return a.function != b.function ? a.function < b.function : a.pc < b.pc;
    });
}

} // namespace tb::profile
