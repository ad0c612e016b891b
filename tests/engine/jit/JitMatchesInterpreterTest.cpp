// The JIT's acceptance in small: every bundled sample at several shapes (ragged ones included) and every
// test program gives bit-identical outputs on the JIT and on the interpreter, from the same seeded
// inputs, and the JIT really ran (no silent fallback).
#include "tests/engine/jit/JitTestSupport.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tb {
namespace {

using testing::compileText;
using testing::firstDifference;
using testing::runBoth;

struct ProgramCase {
    std::string label;
    std::string path; // absolute
    std::vector<std::pair<std::string, std::string>> overrides;
};

void PrintTo(const ProgramCase& c, std::ostream* os) {
    *os << c.label;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<ProgramCase> sampleCases() {
    const std::string dir = std::string(TILEBENCH_SAMPLES_DIR) + "/";
    using P = std::vector<std::pair<std::string, std::string>>;
    std::vector<std::pair<std::string, std::pair<std::string, P>>> list = {
        {"add_200x72", {"01_elementwise_add.py", P{{"M", "200"}, {"N", "72"}}}},
        {"add_33x65", {"01_elementwise_add.py", P{{"M", "33"}, {"N", "65"}}}},
        {"add_bf16",
         {"01_elementwise_add.py",
          P{{"M", "64"}, {"N", "96"}, {"in_dtype", "'bfloat16'"}, {"out_dtype", "'float16'"}}}},
        {"gemm_relu_200x136x72", {"02_gemm_relu.py", P{{"M", "200"}, {"N", "136"}, {"K", "72"}}}},
        {"gemm_relu_128x128x128", {"02_gemm_relu.py", P{{"M", "128"}, {"N", "128"}, {"K", "128"}}}},
        {"gemm_relu_bf16_70x130x100",
         {"02_gemm_relu.py", P{{"M", "70"}, {"N", "130"}, {"K", "100"}, {"dtype", "'bfloat16'"}}}},
        {"gemm_NN",
         {"03_gemm_transpose.py",
          P{{"M", "200"}, {"N", "136"}, {"K", "72"}, {"trans_A", "False"}, {"trans_B", "False"}}}},
        {"gemm_NT",
         {"03_gemm_transpose.py",
          P{{"M", "200"}, {"N", "136"}, {"K", "72"}, {"trans_A", "False"}, {"trans_B", "True"}}}},
        {"gemm_TN",
         {"03_gemm_transpose.py",
          P{{"M", "200"}, {"N", "136"}, {"K", "72"}, {"trans_A", "True"}, {"trans_B", "False"}}}},
        {"gemm_TT",
         {"03_gemm_transpose.py",
          P{{"M", "96"}, {"N", "160"}, {"K", "48"}, {"trans_A", "True"}, {"trans_B", "True"}}}},
        {"softmax_10x1000", {"04_softmax.py", P{{"M", "10"}, {"N", "1000"}}}},
        {"softmax_7x513", {"04_softmax.py", P{{"M", "7"}, {"N", "513"}}}},
        {"rmsnorm_100x160", {"05_rmsnorm_silu.py", P{{"M", "100"}, {"C", "160"}}}},
        {"rmsnorm_9x96", {"05_rmsnorm_silu.py", P{{"M", "9"}, {"C", "96"}}}},
        {"flash_100",
         {"06_flash_attention.py",
          P{{"batch", "1"}, {"heads", "2"}, {"seq_len", "100"}, {"dim", "64"}, {"is_causal", "False"}}}},
        {"flash_causal_70",
         {"06_flash_attention.py",
          P{{"batch", "2"}, {"heads", "1"}, {"seq_len", "70"}, {"dim", "64"}, {"is_causal", "True"}}}},
        {"mla_decode",
         {"07_mla_decode.py", P{{"batch", "1"},
                                {"heads", "64"},
                                {"seqlen_kv", "200"},
                                {"dim", "64"},
                                {"pe_dim", "16"},
                                {"num_split", "1"}}}},
        {"mla_decode_split",
         {"07_mla_decode.py", P{{"batch", "1"},
                                {"heads", "64"},
                                {"seqlen_kv", "200"},
                                {"dim", "64"},
                                {"pe_dim", "16"},
                                {"num_split", "3"}}}},
    };
    std::vector<ProgramCase> cases;
    for (auto& [label, file] : list)
        cases.push_back({label, dir + file.first, file.second});
    // TileLang's flash decoding: T.alloc_global workspaces written by a split kernel and read by a combine
    // kernel, at a small shape and one ragged in seqlen_q.
    const std::string decoding = std::string(TILEBENCH_TESTS_DIR) +
                                 "/corpus/tilelang-examples/flash_decoding/example_mha_inference.py";
    cases.push_back(
        {"flash_decoding", decoding,
         P{{"batch", "1"}, {"heads", "2"}, {"seqlen_q", "128"}, {"seqlen_kv", "512"}, {"dim", "64"}}});
    cases.push_back(
        {"flash_decoding_ragged", decoding,
         P{{"batch", "1"}, {"heads", "1"}, {"seqlen_q", "200"}, {"seqlen_kv", "256"}, {"dim", "64"}}});
    return cases;
}

// TileLang examples of the corpus at small shapes: the float8 GEMM (gemm on e4m3fn and e5m2 operands).
std::vector<ProgramCase> corpusCases() {
    const std::string file = std::string(TILEBENCH_TESTS_DIR) +
                             "/corpus/tilelang-examples/gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py";
    using P = std::vector<std::pair<std::string, std::string>>;
    return {
        {"gemm_fp8_e4m3_200x136x200", file, P{{"M", "200"}, {"N", "136"}, {"K", "200"}}},
        {"gemm_fp8_e5m2_256x128x320", file,
         P{{"M", "256"}, {"N", "128"}, {"K", "320"}, {"dtype", "T.float8_e5m2"}}},
    };
}

// Every .py of the test-program folders, at its own default sizes.
std::vector<ProgramCase> programCases() {
    std::vector<ProgramCase> cases;
    const std::string root = TILEBENCH_TESTS_DIR;
    for (const char* folder : {"/engine/codegen/programs", "/engine/jit/programs"}) {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(root + folder, ec)) {
            if (entry.path().extension() != ".py")
                continue;
            std::string label = entry.path().stem().string();
            for (char& ch : label)
                if (!std::isalnum(static_cast<unsigned char>(ch)))
                    ch = '_';
            cases.push_back({label, entry.path().string(), {}});
        }
    }
    std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.label < b.label; });
    return cases;
}

class JitMatchesInterpreter : public ::testing::TestWithParam<ProgramCase> {};

TEST_P(JitMatchesInterpreter, BitIdenticalOutputs) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    const ProgramCase& c = GetParam();
    std::string text = readFile(c.path);
    ASSERT_FALSE(text.empty()) << "cannot read " << c.path;
    auto compiled = compileText(c.path, text, c.overrides);
    ASSERT_TRUE(compiled->module) << formatDiagnostics(compiled->sources, compiled->diags.diagnostics());
    for (const ir::PrimFunc& func : compiled->module->funcs) {
        std::map<std::string, int64_t> dims;
        for (const ir::Var* v : func.dynamicDims)
            dims[v->name] = 200; // not a multiple of any tile size
        for (uint64_t seed : {uint64_t(1), uint64_t(77)}) {
            auto runs = runBoth(*compiled, func, dims, seed);
            ASSERT_TRUE(runs.interpreterOk) << runs.interpreterDiags;
            ASSERT_TRUE(runs.jitOk) << runs.jitDiags;
            EXPECT_EQ(runs.jitReport.used, CpuBackend::Jit);
            EXPECT_EQ(firstDifference(runs.interpreted, runs.jitted), "") << func.name << " seed " << seed;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Samples, JitMatchesInterpreter, ::testing::ValuesIn(sampleCases()),
                         [](const ::testing::TestParamInfo<ProgramCase>& info) { return info.param.label; });
INSTANTIATE_TEST_SUITE_P(Corpus, JitMatchesInterpreter, ::testing::ValuesIn(corpusCases()),
                         [](const ::testing::TestParamInfo<ProgramCase>& info) { return info.param.label; });
INSTANTIATE_TEST_SUITE_P(Programs, JitMatchesInterpreter, ::testing::ValuesIn(programCases()),
                         [](const ::testing::TestParamInfo<ProgramCase>& info) { return info.param.label; });

} // namespace
} // namespace tb
