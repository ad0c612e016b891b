// Helpers for the view-model tests: compile a bundled sample into a ProgramAnalysis, and compare text
// with a golden file (TILEBENCH_UPDATE_GOLDENS=1 rewrites the file instead).
#pragma once

#include "engine/catalog/SampleCatalog.h"
#include "views/model/ProgramAnalysis.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <sstream>
#include <string>

namespace tb::views::test {

inline std::shared_ptr<ProgramAnalysis> analyzeSample(const std::string& name,
                                                      Backend backend = Backend::Portable) {
    auto sample = findSample(name);
    if (!sample)
        return nullptr;
    std::string text;
    if (!readTextFile(sample->path, text))
        return nullptr;
    CompileOptions options;
    options.backend = backend;
    return analyzeProgram(sample->fileName, text, options);
}

inline void expectGolden(const std::string& actual, const std::string& goldenName) {
    std::string path = std::string(TILEBENCH_TESTS_DIR) + "/views/golden/" + goldenName;
    if (const char* update = std::getenv("TILEBENCH_UPDATE_GOLDENS"); update && std::string(update) == "1") {
        std::ofstream(path, std::ios::binary) << actual;
        return;
    }
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in.good()) << "missing golden file " << path << " (run with TILEBENCH_UPDATE_GOLDENS=1)";
    std::stringstream expected;
    expected << in.rdbuf();
    EXPECT_EQ(actual, expected.str()) << "golden " << goldenName << " differs";
}

} // namespace tb::views::test
