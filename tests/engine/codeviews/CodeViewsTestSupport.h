// Helpers of the code-view tests: compile a bundled sample with every pass, find a tile-program line by
// its text, and read one line of a text.
#pragma once

#include "engine/catalog/SampleCatalog.h"
#include "engine/pipeline/Pipeline.h"
#include "engine/support/SourceManager.h"

#include <gtest/gtest.h>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace tb::test {

inline std::unique_ptr<CompileResult> compileSample(const std::string& name) {
    auto sample = findSample(name);
    EXPECT_TRUE(sample.has_value()) << name;
    if (!sample)
        return nullptr;
    std::string text;
    EXPECT_TRUE(readTextFile(sample->path, text));
    return compileTileProgram(sample->path, text);
}

inline std::vector<std::string> textLines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

// 1-based line of the first source line containing `needle`, 0 when none.
inline int sourceLineContaining(const CompileResult& result, const std::string& needle) {
    std::vector<std::string> lines = textLines(std::string(result.sources.file(result.file).text()));
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].find(needle) != std::string::npos)
            return int(i) + 1;
    return 0;
}

} // namespace tb::test
