// Runs every malformed or unsupported tile program in cases/ through the full pipeline and checks that
// each expected diagnostic appears at its line and column, and that no unexpected error appears.
//
// Expectations are Python comments, so a case still loads as a tile program:
//   # expected-error@+1 {{code}} col=13      the next line; col is optional
//   x = foo  # expected-error {{unknown-name}} col=5    this line
//   # expected-error@-2 {{code}}             two lines up
// Options for the whole file: "# pipeline-params: NAME=VALUE ..." and "# pipeline-arch: sm_80".
#include "engine/catalog/SampleCatalog.h"
#include "engine/pipeline/Pipeline.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace tb {
namespace {

namespace fs = std::filesystem;

struct Expectation {
    uint32_t line = 0;
    std::string code;
    uint32_t column = 0; // 0 = any
    bool matched = false;
};

struct CaseFile {
    std::string path;
    std::string text;
    std::vector<Expectation> expectations;
    CompileOptions options;
};

CaseFile loadCase(const std::string& path) {
    CaseFile c;
    c.path = path;
    readTextFile(path, c.text);
    static const std::regex expectRe(R"(expected-error(@([+-]\d+))?\s*\{\{([a-z0-9-]+)\}\}(\s*col=(\d+))?)");
    static const std::regex paramsRe(R"(#\s*pipeline-params:\s*(.*))");
    static const std::regex archRe(R"(#\s*pipeline-arch:\s*(\S+))");
    std::istringstream lines(c.text);
    std::string line;
    for (uint32_t lineNo = 1; std::getline(lines, line); ++lineNo) {
        std::smatch m;
        auto begin = std::sregex_iterator(line.begin(), line.end(), expectRe);
        for (auto it = begin; it != std::sregex_iterator(); ++it) {
            Expectation e;
            int offset = (*it)[2].matched ? std::stoi((*it)[2].str()) : 0;
            e.line = static_cast<uint32_t>(static_cast<int>(lineNo) + offset);
            e.code = (*it)[3].str();
            e.column = (*it)[5].matched ? static_cast<uint32_t>(std::stoul((*it)[5].str())) : 0;
            c.expectations.push_back(e);
        }
        if (std::regex_search(line, m, paramsRe)) {
            std::istringstream words(m[1].str());
            std::string word;
            while (words >> word) {
                size_t eq = word.find('=');
                if (eq != std::string::npos)
                    c.options.elaborate.overrides.emplace_back(word.substr(0, eq), word.substr(eq + 1));
            }
        }
        if (std::regex_search(line, m, archRe))
            if (auto t = parseTarget(m[1].str()))
                c.options.target = *t;
    }
    return c;
}

std::vector<std::string> casePaths() {
    std::vector<std::string> paths;
    for (const auto& entry :
         fs::directory_iterator(std::string(TILEBENCH_TESTS_DIR) + "/engine/diagnostics/cases"))
        if (entry.path().extension() == ".py")
            paths.push_back(entry.path().string());
    std::sort(paths.begin(), paths.end());
    return paths;
}

class DiagnosticsCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(DiagnosticsCorpus, ReportsExactlyTheExpectedErrors) {
    CaseFile c = loadCase(GetParam());
    ASSERT_FALSE(c.expectations.empty()) << c.path << " has no expected-error annotation";
    auto result = compileTileProgram(fs::path(c.path).filename().string(), c.text, c.options);
    const SourceFile& file = result->sources.file(result->file);
    std::string unexpected;
    for (const Diagnostic& d : result->diagnostics.diagnostics()) {
        if (d.severity != Severity::Error)
            continue;
        LineCol lc = file.lineCol(d.range.begin);
        bool found = false;
        for (Expectation& e : c.expectations) {
            if (!e.matched && e.line == lc.line && e.code == d.code &&
                (e.column == 0 || e.column == lc.column)) {
                e.matched = found = true;
                break;
            }
        }
        if (!found)
            unexpected += "  " + formatDiagnostic(result->sources, d);
    }
    std::string missing;
    for (const Expectation& e : c.expectations)
        if (!e.matched)
            missing += "  line " + std::to_string(e.line) +
                       (e.column ? " col " + std::to_string(e.column) : "") + ": {{" + e.code + "}}\n";
    EXPECT_TRUE(missing.empty()) << c.path << ": expected diagnostics not reported:\n"
                                 << missing << "all diagnostics:\n"
                                 << result->formattedDiagnostics();
    EXPECT_TRUE(unexpected.empty()) << c.path << ": unexpected errors:\n" << unexpected;
    // Every diagnostic must point into the file and carry a hint or a message a user can act on.
    for (const Diagnostic& d : result->diagnostics.diagnostics()) {
        EXPECT_TRUE(d.range.valid) << c.path << ": diagnostic without a location: " << d.message;
        EXPECT_FALSE(d.message.empty());
        if (d.severity == Severity::Error) {
            EXPECT_FALSE(d.hint.empty()) << c.path << ": error without a hint: " << d.message;
        }
    }
}

std::string caseName(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = fs::path(info.param).stem().string();
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, DiagnosticsCorpus, ::testing::ValuesIn(casePaths()), caseName);

TEST(DiagnosticsCorpusSize, HasAtLeastFortyCases) {
    EXPECT_GE(casePaths().size(), 40u);
}

} // namespace
} // namespace tb
