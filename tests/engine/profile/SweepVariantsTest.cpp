// Sweep variants compiled the one way tilec sweep and the app's stage-sweep plot use
// (engine/profile/SweepVariants.h): a jit parameter becomes an override, a keyword literal is edited in
// the variant's source; planSweep reports each variant's planned shared memory, which must be what a
// compile of that variant on its own plans (the numbers `tilec plan -p num_stages=N` prints).
#include "engine/profile/SweepVariants.h"

#include "engine/catalog/SampleCatalog.h"
#include "engine/pipeline/Pipeline.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tb::profile {

namespace {

std::string sampleText(const std::string& name, std::string& fileName) {
    auto sample = findSample(name);
    EXPECT_TRUE(sample.has_value()) << name;
    std::string text;
    EXPECT_TRUE(sample && readTextFile(sample->path, text));
    fileName = sample ? sample->fileName : name;
    return text;
}

// The budget of a compile of `text` with `overrides`, as `tilec plan` computes it.
int64_t plannedBytes(const std::string& fileName, const std::string& text,
                     std::vector<std::pair<std::string, std::string>> overrides) {
    CompileOptions co;
    co.elaborate.overrides = std::move(overrides);
    auto r = compileTileProgram(fileName, text, co);
    EXPECT_TRUE(r->ok()) << r->formattedDiagnostics();
    return r->plan && !r->plan->kernels.empty() ? r->plan->kernels.front().budget.totalBytes : -1;
}

SweepAxis stages(int last) {
    SweepAxis a{"num_stages", {}};
    for (int s = 1; s <= last; ++s)
        a.values.push_back(std::to_string(s));
    return a;
}

} // namespace

// flash attention's num_stages is a jit parameter that defaults to 1: the variants must not stay at the
// default's 32768 bytes (the plot's old static rule did).
TEST(SweepVariants, JitParameterVariantsArePlannedOneByOne) {
    std::string file, text = sampleText("flash_attention", file);
    SweepPlan plan = planSweep(file, text, {stages(4)}, {});
    ASSERT_TRUE(plan.ok) << plan.error;
    ASSERT_EQ(plan.variants.size(), 4u);
    EXPECT_TRUE(plan.notes.empty());
    std::vector<int64_t> expected;
    for (int s = 1; s <= 4; ++s)
        expected.push_back(plannedBytes(file, text, {{"num_stages", std::to_string(s)}}));
    for (size_t i = 0; i < 4; ++i) {
        SCOPED_TRACE(plan.variants[i].paramsText);
        EXPECT_TRUE(plan.variants[i].compiled) << plan.variants[i].message;
        EXPECT_EQ(plan.variants[i].sharedBytes, expected[i]);
        EXPECT_TRUE(plan.variants[i].fits);
    }
    EXPECT_EQ(plan.variants[0].sharedBytes, 32768);
    EXPECT_EQ(plan.variants[1].sharedBytes, 49152);
    EXPECT_EQ(plan.variants[2].sharedBytes, 65536);
}

// The GEMM sample writes num_stages=3 as a literal of T.Pipelined: each variant edits it.
TEST(SweepVariants, LiteralKeywordsAreEditedPerVariant) {
    std::string file, text = sampleText("gemm_relu", file);
    CompileOptions co;
    co.stopAfter = "elaborate";
    auto base = compileTileProgram(file, text, co);
    std::vector<KeywordLiteral> literals = findKeywordLiterals(*base, "num_stages");
    ASSERT_EQ(literals.size(), 1u);
    EXPECT_EQ(literals[0].value, 3);
    EXPECT_EQ(text.substr(literals[0].begin, literals[0].end - literals[0].begin), "3");
    EXPECT_NE(text.substr(0, literals[0].begin).rfind("num_stages="), std::string::npos);

    SweepPlan plan = planSweep(file, text, {stages(4)}, {}, base.get());
    ASSERT_TRUE(plan.ok) << plan.error;
    ASSERT_EQ(plan.notes.size(), 1u);
    EXPECT_NE(plan.notes[0].find("num_stages is not a jit parameter but the literal num_stages=3 at line "),
              std::string::npos)
        << plan.notes[0];
    for (size_t i = 0; i < 4; ++i) {
        std::string edited = withLiteralsReplaced(text, literals, std::to_string(i + 1));
        EXPECT_EQ(plan.variants[i].sharedBytes, plannedBytes(file, edited, {}));
    }
    EXPECT_EQ(plan.variants[0].sharedBytes * 3, plan.variants[2].sharedBytes);
    // No variant got an override that changes nothing.
    VariantProgram v =
        variantProgram(text, sweepBaseOf(*base, {"num_stages"}), {}, {}, {{"num_stages", "2"}});
    EXPECT_TRUE(v.options.elaborate.overrides.empty());
    EXPECT_NE(v.text.find("num_stages=2"), std::string::npos);
}

// A variant over the shared-memory limit is a row with the check's bytes and its diagnostic.
TEST(SweepVariants, OverTheLimitIsAVariantThatDoesNotFit) {
    std::string file, text = sampleText("gemm_relu", file);
    SweepPlanOptions o;
    o.baseOverrides = {{"block_K", "512"}};
    SweepPlan plan = planSweep(file, text, {stages(4)}, o);
    ASSERT_TRUE(plan.ok) << plan.error;
    const PlannedVariant& last = plan.variants.back();
    EXPECT_FALSE(last.fits);
    EXPECT_FALSE(last.compiled);
    EXPECT_GT(last.sharedBytes, last.limitBytes);
    EXPECT_NE(last.message.find("[shared-memory-over-limit]"), std::string::npos) << last.message;
    EXPECT_EQ(last.occupancy.blocks, 0);
}

} // namespace tb::profile
