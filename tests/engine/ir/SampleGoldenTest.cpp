// Golden tests of the printed Tile IR of every sample at its default parameters. The printer is
// deterministic, so any difference is a change in what the frontend builds: review it, then regenerate
// with TILEBENCH_UPDATE_GOLDENS=1.
#include "engine/catalog/SampleCatalog.h"
#include "engine/ir/Printer.h"
#include "engine/pipeline/Pipeline.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

namespace tb {
namespace {

namespace fs = std::filesystem;

std::string goldenPath(const SampleInfo& sample) {
    return std::string(TILEBENCH_TESTS_DIR) + "/engine/ir/golden/" +
           fs::path(sample.fileName).stem().string() + ".ir";
}

class SampleIrGolden : public ::testing::TestWithParam<SampleInfo> {};

TEST_P(SampleIrGolden, PrintedIrMatchesGolden) {
    const SampleInfo& sample = GetParam();
    std::string text;
    ASSERT_TRUE(readTextFile(sample.path, text));
    CompileOptions options;
    options.stopAfter = "check";
    // The bare file name keeps the golden text independent of where the checkout lives.
    auto result = compileTileProgram(sample.fileName, text, options);
    ASSERT_TRUE(result->ok()) << result->formattedDiagnostics();
    std::string printed = ir::printModule(*result->module, &result->sources);

    std::string path = goldenPath(sample);
    if (const char* update = std::getenv("TILEBENCH_UPDATE_GOLDENS"); update && *update == '1') {
        std::ofstream(path, std::ios::binary) << printed;
        GTEST_SKIP() << "rewrote " << path;
    }
    std::string golden;
    ASSERT_TRUE(readTextFile(path, golden))
        << "missing golden " << path << " (run with TILEBENCH_UPDATE_GOLDENS=1 to create it)";
    EXPECT_EQ(printed, golden) << "the printed IR of " << sample.fileName << " changed";
}

std::string sampleName(const ::testing::TestParamInfo<SampleInfo>& info) {
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Samples, SampleIrGolden, ::testing::ValuesIn(listSamples()), sampleName);

TEST(SampleIrGoldenCoverage, EverySampleHasAGolden) {
    auto samples = listSamples();
    ASSERT_GE(samples.size(), 7u);
    for (const SampleInfo& s : samples)
        EXPECT_TRUE(fs::exists(goldenPath(s))) << s.fileName;
}

} // namespace
} // namespace tb
