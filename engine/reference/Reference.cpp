// The registry of naive references and the parser of the `# tilebench-reference:` directive.
#include "engine/reference/Reference.h"

#include "engine/reference/ReferenceSupport.h"

#include <algorithm>

namespace tb {

namespace {

const std::vector<Reference>& registry() {
    // Built once; the references are immutable after construction.
    static const std::vector<Reference> references = [] {
        std::vector<Reference> all;
        all.push_back(reference::makeElementwiseAddReference());
        all.push_back(reference::makeGemmReference());
        all.push_back(reference::makeGemmNtReference());
        all.push_back(reference::makeGemmReluReference());
        all.push_back(reference::makeGemmTransposeReference());
        all.push_back(reference::makeSoftmaxReference());
        all.push_back(reference::makeRmsNormSiluReference());
        all.push_back(reference::makeFlashAttentionReference());
        all.push_back(reference::makeMlaDecodeReference());
        std::sort(all.begin(), all.end(),
                  [](const Reference& a, const Reference& b) { return a.name < b.name; });
        return all;
    }();
    return references;
}

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

} // namespace

const Reference* findReference(std::string_view name) {
    for (const Reference& r : registry())
        if (r.name == name)
            return &r;
    return nullptr;
}

std::vector<std::string> referenceNames() {
    std::vector<std::string> names;
    for (const Reference& r : registry())
        names.push_back(r.name);
    return names;
}

std::optional<std::string> referenceDirective(std::string_view sourceText) {
    constexpr std::string_view key = "tilebench-reference:";
    size_t lineStart = 0;
    while (lineStart < sourceText.size()) {
        size_t lineEnd = sourceText.find('\n', lineStart);
        if (lineEnd == std::string_view::npos)
            lineEnd = sourceText.size();
        std::string_view line = sourceText.substr(lineStart, lineEnd - lineStart);
        lineStart = lineEnd + 1;

        size_t i = 0;
        while (i < line.size() && isSpace(line[i]))
            ++i;
        if (i >= line.size() || line[i] != '#')
            continue;
        ++i;
        while (i < line.size() && isSpace(line[i]))
            ++i;
        if (line.substr(i, key.size()) != key)
            continue;
        i += key.size();
        while (i < line.size() && isSpace(line[i]))
            ++i;
        size_t end = i;
        while (end < line.size() && !isSpace(line[end]))
            ++end;
        if (end > i)
            return std::string(line.substr(i, end - i));
    }
    return std::nullopt;
}

} // namespace tb
