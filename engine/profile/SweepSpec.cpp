// Sweep parameter parsing (see SweepSpec.h).
#include "engine/profile/SweepSpec.h"

#include "engine/support/TextScan.h"

#include <cctype>
#include <cstdlib>

namespace tb::profile {

namespace {

bool parseInteger(const std::string& text, long long& out) {
    if (text.empty() || text.size() > 18)
        return false;
    char* end = nullptr;
    out = std::strtoll(text.c_str(), &end, 10);
    return end && *end == '\0';
}

bool validName(const std::string& name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
        return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
            return false;
    return true;
}

} // namespace

bool parseSweepAxis(const std::string& text, SweepAxis& axis, DiagnosticEngine& diags) {
    size_t eq = text.find('=');
    axis.name = trimmedCopy(eq == std::string::npos ? text : text.substr(0, eq));
    std::string values = eq == std::string::npos ? "" : trimmedCopy(text.substr(eq + 1));
    if (!validName(axis.name) || values.empty()) {
        diags.error("sweep-bad-parameter", {}, "sweep parameter '" + text + "' is not NAME=VALUES",
                    "write e.g. -p num_stages=1..4 or -p block_M=64,128");
        return false;
    }
    axis.values.clear();
    size_t dots = values.find("..");
    if (dots != std::string::npos) {
        std::string hiText = values.substr(dots + 2), stepText = "1";
        if (size_t colon = hiText.find(':'); colon != std::string::npos) {
            stepText = hiText.substr(colon + 1);
            hiText = hiText.substr(0, colon);
        }
        long long lo = 0, hi = 0, step = 0;
        if (!parseInteger(trimmedCopy(values.substr(0, dots)), lo) ||
            !parseInteger(trimmedCopy(hiText), hi) || !parseInteger(trimmedCopy(stepText), step)) {
            diags.error("sweep-bad-range", {},
                        "range '" + values + "' of " + axis.name + " is not LO..HI or LO..HI:STEP",
                        "ranges are inclusive integer ranges, e.g. 1..4 or 32..256:32");
            return false;
        }
        if (step <= 0 || hi < lo) {
            diags.error("sweep-empty-range", {},
                        "range " + std::to_string(lo) + ".." + std::to_string(hi) + " with step " +
                            std::to_string(step) + " of " + axis.name + " is empty",
                        "the first bound must not exceed the second, and the step must be positive");
            return false;
        }
        if ((hi - lo) / step + 1 > static_cast<long long>(kMaxSweepConfigurations)) {
            diags.error("sweep-too-many", {},
                        "range of " + axis.name + " has " + std::to_string((hi - lo) / step + 1) +
                            " values, more than " + std::to_string(kMaxSweepConfigurations),
                        "use a step: LO..HI:STEP");
            return false;
        }
        for (long long v = lo; v <= hi; v += step)
            axis.values.push_back(std::to_string(v));
        return true;
    }
    size_t start = 0;
    while (start <= values.size()) {
        size_t comma = values.find(',', start);
        std::string v =
            trimmedCopy(values.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (v.empty()) {
            diags.error("sweep-empty-value", {},
                        "value list '" + values + "' of " + axis.name + " has an empty entry",
                        "separate values with single commas: 64,128");
            return false;
        }
        axis.values.push_back(v);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return true;
}

std::vector<std::vector<std::pair<std::string, std::string>>>
sweepConfigurations(const std::vector<SweepAxis>& axes, DiagnosticEngine& diags) {
    std::vector<SweepAxis> unique;
    for (const SweepAxis& a : axes) {
        bool replaced = false;
        for (SweepAxis& u : unique)
            if (u.name == a.name) {
                u = a;
                replaced = true;
            }
        if (!replaced)
            unique.push_back(a);
    }
    size_t total = 1;
    for (const SweepAxis& a : unique) {
        if (a.values.empty())
            return {};
        total *= a.values.size();
        if (total > kMaxSweepConfigurations) {
            diags.error("sweep-too-many", {},
                        "the sweep has more than " + std::to_string(kMaxSweepConfigurations) +
                            " configurations",
                        "sweep fewer parameters or fewer values at a time");
            return {};
        }
    }
    std::vector<std::vector<std::pair<std::string, std::string>>> out;
    for (size_t i = 0; i < total; ++i) {
        std::vector<std::pair<std::string, std::string>> config;
        size_t rest = i;
        // The last axis varies fastest, so the first one is outermost.
        std::vector<size_t> index(unique.size());
        for (size_t k = unique.size(); k-- > 0;) {
            index[k] = rest % unique[k].values.size();
            rest /= unique[k].values.size();
        }
        for (size_t k = 0; k < unique.size(); ++k)
            config.emplace_back(unique[k].name, unique[k].values[index[k]]);
        out.push_back(std::move(config));
    }
    return out;
}

} // namespace tb::profile
