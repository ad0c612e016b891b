// The reducer's passes; see FuzzReducer.h.
#include "engine/tools/fuzz/FuzzReducer.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <utility>
#include <vector>

namespace tb::fuzz {

namespace {

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

std::string joinLines(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& l : lines)
        out += l + "\n";
    return out;
}

} // namespace

Reduction reduceProgram(const GeneratedProgram& failing, const GeneratorOptions& options,
                        const std::function<bool(const std::string&)>& stillFails, int maxAttempts) {
    Reduction best{failing.text, failing.picks, 0};
    auto tryPicks = [&](std::vector<uint32_t> picks) {
        if (best.attempts >= maxAttempts)
            return false;
        ChoiceSource replay(std::move(picks));
        GeneratedProgram candidate = generateProgram(replay, options);
        if (candidate.text == best.text || candidate.text.size() > best.text.size())
            return false;
        ++best.attempts;
        if (!stillFails(candidate.text))
            return false;
        best.text = candidate.text;
        best.picks = candidate.picks;
        return true;
    };
    for (bool progress = true; progress && best.attempts < maxAttempts;) {
        progress = false;
        for (size_t chunk : {size_t(8), size_t(4), size_t(2), size_t(1)})
            for (size_t at = 0; at + chunk <= best.picks.size(); ++at) {
                std::vector<uint32_t> picks = best.picks;
                picks.erase(picks.begin() + static_cast<std::ptrdiff_t>(at),
                            picks.begin() + static_cast<std::ptrdiff_t>(at + chunk));
                progress = tryPicks(picks) || progress;
            }
        for (size_t at = 0; at < best.picks.size(); ++at) {
            if (best.picks[at] == 0)
                continue;
            std::vector<uint32_t> picks = best.picks;
            picks[at] = 0;
            if (tryPicks(picks)) {
                progress = true;
                continue;
            }
            picks[at] = best.picks[at] / 2;
            progress = tryPicks(picks) || progress;
        }
    }
    // Text: drop lines of the kernel body (indented twice or more), last first.
    std::vector<std::string> lines = splitLines(best.text);
    for (size_t i = lines.size(); i-- > 0 && best.attempts < maxAttempts;) {
        if (lines[i].rfind("        ", 0) != 0)
            continue;
        std::vector<std::string> candidate = lines;
        candidate.erase(candidate.begin() + static_cast<std::ptrdiff_t>(i));
        ++best.attempts;
        if (stillFails(joinLines(candidate))) {
            lines = candidate;
            best.text = joinLines(lines);
        }
    }
    return best;
}

} // namespace tb::fuzz
