// The TileLang example corpus (tests/corpus/tilelang-examples, from tile-ai/tilelang, MIT): every program
// goes through what `tilec check FILE` does (the whole compile line, no -p options, sm_90a), and passes
// unless expected-failures.txt lists it with its reason. The list can only shrink: a listed program that
// now passes fails its test until its line is removed, and a program that is not listed must pass.
#include "engine/pipeline/Pipeline.h"
#include "engine/support/Diagnostics.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace tb {
namespace {

namespace fs = std::filesystem;

std::string corpusRoot() {
    return std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples";
}

// The programs: every .py file except packages' __init__.py and the helper modules programs import.
bool isProgram(const std::string& relative) {
    std::string name = fs::path(relative).filename().string();
    return relative.ends_with(".py") && name != "__init__.py" && name != "utils.py" &&
           name != "reference.py" && relative.find("/quantize/") == std::string::npos;
}

std::vector<std::string> corpusPrograms() {
    std::vector<std::string> out;
    if (!fs::exists(corpusRoot()))
        return out;
    for (const auto& entry : fs::recursive_directory_iterator(corpusRoot())) {
        if (!entry.is_regular_file())
            continue;
        std::string relative = fs::relative(entry.path(), corpusRoot()).generic_string();
        if (isProgram(relative))
            out.push_back(relative);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// expected-failures.txt: "PROGRAM: reason" per line; '#' starts a comment.
std::map<std::string, std::string> expectedFailures() {
    std::map<std::string, std::string> out;
    std::ifstream in(std::string(TILEBENCH_TESTS_DIR) + "/engine/corpus/expected-failures.txt");
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        size_t colon = line.find(": ");
        std::string program = line.substr(0, colon);
        out[program] = colon == std::string::npos ? std::string() : line.substr(colon + 2);
    }
    return out;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

class CorpusProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusProgram, ChecksLikeTilecCheck) {
    const std::string& program = GetParam();
    auto result = compileTileProgram(program, readFile(corpusRoot() + "/" + program));
    auto failures = expectedFailures();
    auto listed = failures.find(program);
    if (listed == failures.end()) {
        EXPECT_TRUE(result->ok()) << program << " no longer passes `tilec check`:\n"
                                  << result->formattedDiagnostics();
        return;
    }
    EXPECT_FALSE(result->ok()) << program << " now passes `tilec check`: remove its line (\""
                               << listed->second << "\") from tests/engine/corpus/expected-failures.txt";
    // An expected failure is still a diagnosed one, with a place and a hint, never a crash.
    ASSERT_TRUE(result->diagnostics.hasErrors()) << program;
    for (const Diagnostic& d : result->diagnostics.diagnostics()) {
        if (d.severity != Severity::Error)
            continue;
        EXPECT_TRUE(d.range.valid) << program << ": " << d.message;
        EXPECT_FALSE(d.hint.empty()) << program << ": " << d.message;
        EXPECT_NE(d.code, "internal-error") << program << ": " << d.message;
    }
}

std::string programName(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = info.param.substr(0, info.param.size() - 3);
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(TileLangExamples, CorpusProgram, ::testing::ValuesIn(corpusPrograms()), programName);

TEST(CorpusList, ExpectedFailuresNameCorpusProgramsWithAReason) {
    auto programs = corpusPrograms();
    ASSERT_EQ(programs.size(), 38u) << "the corpus is the 38 programs of tests/corpus/tilelang-examples";
    for (const auto& [program, reason] : expectedFailures()) {
        EXPECT_TRUE(std::find(programs.begin(), programs.end(), program) != programs.end())
            << "expected-failures.txt names '" << program << "', which is not a corpus program";
        EXPECT_FALSE(reason.empty()) << program << " is listed without a reason";
    }
}

// run-inputs.txt: "PROGRAM: tilec run arguments" for programs whose index inputs their host code computes or
// whose check samples blocks. Every --fill names an input of the program and every --dim one of its dynamic
// dims, so that the GPU corpus run (scripts/gpu-check.sh) does not fail on a stale line.
TEST(CorpusList, RunInputsNameInputsAndDynamicDimsOfTheirPrograms) {
    std::ifstream in(std::string(TILEBENCH_TESTS_DIR) + "/engine/corpus/run-inputs.txt");
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        ++lines;
        const size_t colon = line.find(": ");
        ASSERT_NE(colon, std::string::npos) << line;
        const std::string program = line.substr(0, colon);
        auto result = compileTileProgram(program, readFile(corpusRoot() + "/" + program));
        ASSERT_TRUE(result->module && !result->module->funcs.empty()) << program;
        const ir::PrimFunc& func = result->module->funcs.front();
        std::istringstream words(line.substr(colon + 2));
        std::string option, value;
        while (words >> option >> value) {
            const std::string name = value.substr(0, value.find('='));
            if (option == "--fill") {
                EXPECT_TRUE(std::any_of(func.params.begin(), func.params.end(),
                                        [&](const ir::Buffer* b) { return b->name == name && !b->isOutput; }))
                    << program << ": --fill " << name << " is not an input";
            } else if (option == "--check-blocks") {
                EXPECT_GT(std::stoll(value), 0) << program << ": --check-blocks samples some blocks";
            } else {
                EXPECT_EQ(option, "--dim") << program;
                EXPECT_TRUE(std::any_of(func.dynamicDims.begin(), func.dynamicDims.end(),
                                        [&](const ir::Var* v) { return v->name == name; }))
                    << program << ": --dim " << name << " is not a dynamic dim";
            }
        }
    }
    EXPECT_GE(lines, 3);
}

} // namespace
} // namespace tb
