// Sweep parameters: ranges, lists, the cartesian product (first parameter outermost) and the errors.
#include "engine/profile/SweepSpec.h"

#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

namespace tb::profile {
namespace {

SweepAxis axis(const std::string& text) {
    DiagnosticEngine diags;
    SweepAxis a;
    EXPECT_TRUE(parseSweepAxis(text, a, diags)) << text;
    return a;
}

std::string axisErrorCode(const std::string& text) {
    DiagnosticEngine diags;
    SweepAxis a;
    EXPECT_FALSE(parseSweepAxis(text, a, diags)) << text;
    return diags.diagnostics().empty() ? "" : diags.diagnostics()[0].code;
}

TEST(SweepSpec, RangesListsAndSingleValues) {
    EXPECT_EQ(axis("num_stages=1..4").values, (std::vector<std::string>{"1", "2", "3", "4"}));
    EXPECT_EQ(axis("block_M=64,128").values, (std::vector<std::string>{"64", "128"}));
    EXPECT_EQ(axis("block_K=32..128:32").values, (std::vector<std::string>{"32", "64", "96", "128"}));
    EXPECT_EQ(axis("dtype='float16', 'bfloat16'").values,
              (std::vector<std::string>{"'float16'", "'bfloat16'"}));
    EXPECT_EQ(axis("x=7").values, (std::vector<std::string>{"7"}));
    EXPECT_EQ(axis(" n = 2..2 ").name, "n");
}

TEST(SweepSpec, Errors) {
    EXPECT_EQ(axisErrorCode("num_stages"), "sweep-bad-parameter");
    EXPECT_EQ(axisErrorCode("=1..4"), "sweep-bad-parameter");
    EXPECT_EQ(axisErrorCode("3x=1"), "sweep-bad-parameter");
    EXPECT_EQ(axisErrorCode("n=4..1"), "sweep-empty-range");
    EXPECT_EQ(axisErrorCode("n=1..4:0"), "sweep-empty-range");
    EXPECT_EQ(axisErrorCode("n=a..4"), "sweep-bad-range");
    EXPECT_EQ(axisErrorCode("n=1,,2"), "sweep-empty-value");
    EXPECT_EQ(axisErrorCode("n=0..100000"), "sweep-too-many");
}

TEST(SweepSpec, CartesianProductFirstParameterOutermost) {
    DiagnosticEngine diags;
    auto configs = sweepConfigurations({axis("num_stages=1..3"), axis("block_M=64,128")}, diags);
    ASSERT_EQ(configs.size(), 6u);
    using C = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(configs[0], (C{{"num_stages", "1"}, {"block_M", "64"}}));
    EXPECT_EQ(configs[1], (C{{"num_stages", "1"}, {"block_M", "128"}}));
    EXPECT_EQ(configs[5], (C{{"num_stages", "3"}, {"block_M", "128"}}));
}

TEST(SweepSpec, LaterAxisReplacesEarlierAndTotalIsBounded) {
    DiagnosticEngine diags;
    auto configs = sweepConfigurations({axis("a=1,2"), axis("a=5")}, diags);
    ASSERT_EQ(configs.size(), 1u);
    EXPECT_EQ(configs[0][0].second, "5");
    auto big = sweepConfigurations({axis("a=1..100"), axis("b=1..100")}, diags);
    EXPECT_TRUE(big.empty());
    ASSERT_TRUE(diags.hasErrors());
    EXPECT_EQ(diags.diagnostics().back().code, "sweep-too-many");
}

} // namespace
} // namespace tb::profile
