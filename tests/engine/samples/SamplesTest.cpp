// Every bundled sample, end to end on the CPU: parse, elaborate (at its default sizes, and again at small
// sizes that are not multiples of its tile sizes), check for sm_80 and sm_90a with no errors (MLA decode's
// default sizes: sm_90a only), run the small specialization on the CPU executor with random inputs, and
// compare every output that the sample's naive reference computes, within the reference's tolerances.
#include "engine/check/Checks.h"
#include "engine/elaborate/Elaborator.h"
#include "engine/exec/Executor.h"
#include "engine/frontend/Parser.h"
#include "engine/reference/Reference.h"
#include "engine/target/Target.h"

#include <cstdint>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tb {
namespace {

struct SampleCase {
    std::string label;     // test name suffix
    std::string file;      // in samples/
    std::string reference; // expected directive
    std::vector<std::pair<std::string, std::string>> overrides;
};

// Small sizes for a fast CPU run; each is deliberately not a multiple of the sample's tile sizes where the
// sample allows it (ragged edges exercise the out-of-bounds rules of copies and the samples' masks).
std::vector<SampleCase> sampleCases() {
    return {
        {"elementwise_add", "01_elementwise_add.py", "elementwise_add", {{"M", "200"}, {"N", "72"}}},
        {"gemm_relu", "02_gemm_relu.py", "gemm_relu", {{"M", "200"}, {"N", "136"}, {"K", "72"}}},
        {"gemm_transpose_NN",
         "03_gemm_transpose.py",
         "gemm_transpose",
         {{"M", "200"}, {"N", "136"}, {"K", "72"}, {"trans_A", "False"}, {"trans_B", "False"}}},
        {"gemm_transpose_NT",
         "03_gemm_transpose.py",
         "gemm_transpose",
         {{"M", "200"}, {"N", "136"}, {"K", "72"}, {"trans_A", "False"}, {"trans_B", "True"}}},
        {"gemm_transpose_TN",
         "03_gemm_transpose.py",
         "gemm_transpose",
         {{"M", "200"}, {"N", "136"}, {"K", "72"}, {"trans_A", "True"}, {"trans_B", "False"}}},
        {"gemm_transpose_TT",
         "03_gemm_transpose.py",
         "gemm_transpose",
         {{"M", "200"}, {"N", "136"}, {"K", "72"}, {"trans_A", "True"}, {"trans_B", "True"}}},
        {"softmax", "04_softmax.py", "softmax", {{"M", "10"}, {"N", "1000"}}},
        {"rmsnorm_silu", "05_rmsnorm_silu.py", "rmsnorm_silu", {{"M", "100"}, {"C", "160"}}},
        {"flash_attention",
         "06_flash_attention.py",
         "flash_attention",
         {{"batch", "1"}, {"heads", "2"}, {"seq_len", "100"}, {"dim", "64"}, {"is_causal", "False"}}},
        {"flash_attention_causal",
         "06_flash_attention.py",
         "flash_attention",
         {{"batch", "2"}, {"heads", "1"}, {"seq_len", "100"}, {"dim", "64"}, {"is_causal", "True"}}},
        // heads stays 64: block_H comes from main() as min(64, heads // kv_heads) at the default heads.
        {"mla_decode",
         "07_mla_decode.py",
         "mla_decode",
         {{"batch", "1"},
          {"heads", "64"},
          {"seqlen_kv", "200"},
          {"dim", "64"},
          {"pe_dim", "16"},
          {"num_split", "1"}}},
        {"mla_decode_split",
         "07_mla_decode.py",
         "mla_decode",
         {{"batch", "1"},
          {"heads", "64"},
          {"seqlen_kv", "200"},
          {"dim", "64"},
          {"pe_dim", "16"},
          {"num_split", "3"}}},
    };
}

std::string readSample(const std::string& file) {
    std::ifstream in(std::string(TILEBENCH_SAMPLES_DIR) + "/" + file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Parses and elaborates; on failure records the diagnostics and returns null.
std::unique_ptr<ir::Module> compile(SourceManager& sources, const std::string& file, const std::string& text,
                                    const ElaborateOptions& options, DiagnosticEngine& diagnostics) {
    const FileId id = sources.addFile(file, text);
    ast::Module ast = parseModule(sources, id, diagnostics);
    if (diagnostics.hasErrors())
        return nullptr;
    return elaborate(sources, ast, options, diagnostics);
}

void expectChecksPass(const SourceManager& sources, const ir::Module& module, const std::string& what,
                      bool includeSm80 = true) {
    for (const Target* target : {&targetSm80(), &targetSm90a()}) {
        if (target == &targetSm80() && !includeSm80)
            continue;
        DiagnosticEngine diagnostics;
        check::checkModule(module, *target, diagnostics);
        EXPECT_FALSE(diagnostics.hasErrors())
            << what << " on " << (target == &targetSm80() ? "sm_80" : "sm_90a") << ":\n"
            << formatDiagnostics(sources, diagnostics.diagnostics());
    }
}

// gtest prints the parameter of a failing case with this.
void PrintTo(const SampleCase& c, std::ostream* os) {
    *os << c.label;
}

class SampleTest : public ::testing::TestWithParam<SampleCase> {};

TEST_P(SampleTest, ElaboratesChecksRunsAndMatchesItsReference) {
    const SampleCase& c = GetParam();
    const std::string text = readSample(c.file);
    ASSERT_FALSE(text.empty()) << "cannot read " << c.file;
    ASSERT_EQ(referenceDirective(text), c.reference);
    const Reference* reference = findReference(c.reference);
    ASSERT_NE(reference, nullptr);

    // Default sizes (from the sample's own first call): elaborate and check only.
    {
        SourceManager sources;
        DiagnosticEngine diagnostics;
        std::unique_ptr<ir::Module> module = compile(sources, c.file, text, {}, diagnostics);
        ASSERT_TRUE(module && !diagnostics.hasErrors())
            << "default sizes:\n"
            << formatDiagnostics(sources, diagnostics.diagnostics());
        // MLA decode at its real sizes (dim 512) is a Hopper kernel: its ~224 KB of shared memory fits
        // sm_90a only.
        expectChecksPass(sources, *module, "default sizes", /*includeSm80=*/c.reference != "mla_decode");
    }

    // Small sizes: elaborate, check, execute, compare.
    SourceManager sources;
    DiagnosticEngine diagnostics;
    ElaborateOptions options;
    options.overrides = c.overrides;
    std::unique_ptr<ir::Module> module = compile(sources, c.file, text, options, diagnostics);
    ASSERT_TRUE(module && !diagnostics.hasErrors()) << formatDiagnostics(sources, diagnostics.diagnostics());
    ASSERT_EQ(module->funcs.size(), 1u) << "one entry PrimFunc";
    expectChecksPass(sources, *module, "small sizes");

    const ir::PrimFunc& func = module->funcs.front();
    const std::map<std::string, int64_t> noDynamicDims;
    std::vector<HostTensor> params = allocateParams(func, noDynamicDims, /*seed=*/2024, diagnostics);
    ASSERT_FALSE(params.empty()) << formatDiagnostics(sources, diagnostics.diagnostics());

    std::map<int, HostTensor> expected;
    std::string error;
    ReferenceInvocation invocation{params, *module, &func};
    ASSERT_TRUE(reference->compute(invocation, expected, error)) << error;
    ASSERT_FALSE(expected.empty());

    ASSERT_TRUE(executePrimFunc(*module, func, params, noDynamicDims, diagnostics))
        << formatDiagnostics(sources, diagnostics.diagnostics());

    for (const auto& [index, want] : expected) {
        const HostTensor& got = params[index];
        const ComparisonResult cmp = compareTensors(got, want, reference->atol, reference->rtol);
        std::ostringstream where;
        for (int64_t i : cmp.firstMismatch)
            where << i << ' ';
        EXPECT_TRUE(cmp.ok()) << "output '" << got.name << "' (" << index << "): " << cmp.mismatches
                              << " mismatches, max abs error " << cmp.maxAbsError << ", first at [ "
                              << where.str() << "] expected " << cmp.expectedAtMismatch << " got "
                              << cmp.actualAtMismatch << (cmp.shapeMismatch ? " (shape mismatch)" : "");
    }
}

INSTANTIATE_TEST_SUITE_P(Samples, SampleTest, ::testing::ValuesIn(sampleCases()),
                         [](const ::testing::TestParamInfo<SampleCase>& info) { return info.param.label; });

// The default sizes come from each sample's first call of its jit function, whether that call is at module
// level or inside main() (where main's own parameter defaults supply the values).
TEST(SampleDefaults, ComeFromTheFirstCall) {
    const std::vector<std::pair<std::string, std::map<std::string, int64_t>>> wants = {
        {"01_elementwise_add.py", {{"M", 512}, {"N", 1024}, {"block_M", 32}, {"block_N", 32}}},
        {"02_gemm_relu.py", {{"M", 512}, {"N", 512}, {"K", 512}, {"block_M", 128}, {"block_K", 64}}},
        {"03_gemm_transpose.py", {{"M", 512}, {"block_K", 32}, {"trans_A", 0}, {"trans_B", 1}}},
        {"04_softmax.py", {{"M", 1024}, {"N", 2000}, {"block_M", 4}, {"block_N", 512}}},
        {"05_rmsnorm_silu.py", {{"M", 4096}, {"C", 320}, {"BLOCK_M", 8}}},
        {"06_flash_attention.py",
         {{"batch", 1}, {"heads", 4}, {"seq_len", 512}, {"dim", 64}, {"is_causal", 0}}},
        {"07_mla_decode.py",
         {{"batch", 1}, {"heads", 64}, {"seqlen_kv", 1024}, {"dim", 512}, {"block_H", 64}, {"num_split", 1}}},
    };
    for (const auto& [file, values] : wants) {
        SourceManager sources;
        DiagnosticEngine diagnostics;
        std::unique_ptr<ir::Module> module = compile(sources, file, readSample(file), {}, diagnostics);
        ASSERT_TRUE(module) << file << ":\n" << formatDiagnostics(sources, diagnostics.diagnostics());
        for (const auto& [name, want] : values) {
            const ir::SpecializationParam* found = nullptr;
            for (const ir::SpecializationParam& p : module->specialization)
                if (p.name == name)
                    found = &p;
            ASSERT_NE(found, nullptr) << file << " " << name;
            std::optional<int64_t> got;
            if (const auto* i = std::get_if<int64_t>(&found->value))
                got = *i;
            else if (const auto* b = std::get_if<bool>(&found->value))
                got = *b ? 1 : 0;
            EXPECT_EQ(got, want) << file << " " << name << " = " << found->text;
        }
    }
}

TEST(SamplesCatalog, EverySampleFileIsCovered) {
    std::set<std::string> covered;
    for (const SampleCase& c : sampleCases())
        covered.insert(c.file);
    EXPECT_EQ(covered.size(), 7u);
    for (const std::string& file : covered)
        EXPECT_FALSE(readSample(file).empty()) << file;
}

} // namespace
} // namespace tb
