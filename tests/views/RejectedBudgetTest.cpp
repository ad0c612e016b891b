// A program whose shared memory is over the limit has no plan; the budget view then draws the budget the
// shared-memory check rejected, with the check's own bytes (the numbers of its diagnostic).
#include "ViewTestSupport.h"
#include "views/model/BudgetViewModel.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <memory>
#include <string>

namespace tb::views {

namespace {

std::shared_ptr<ProgramAnalysis> gemmWith(const std::string& from, const std::string& to) {
    auto sample = findSample("gemm_relu");
    std::string text;
    if (!sample || !readTextFile(sample->path, text) || text.find(from) == std::string::npos)
        return nullptr;
    text.replace(text.find(from), from.size(), to);
    return analyzeProgram(sample->fileName, text);
}

const Diagnostic* findCode(const ProgramAnalysis& a, const std::string& code) {
    for (const Diagnostic& d : a.compile->diagnostics.diagnostics())
        if (d.code == code)
            return &d;
    return nullptr;
}

} // namespace

TEST(RejectedBudget, DrawsTheBytesTheFailedCheckComputed) {
    auto a = gemmWith("block_M=128", "block_M=100000");
    ASSERT_TRUE(a && a->compile);
    EXPECT_EQ(a->plan, nullptr);
    const Diagnostic* d = findCode(*a, "shared-memory-over-limit");
    ASSERT_NE(d, nullptr) << a->compile->formattedDiagnostics();
    ASSERT_EQ(a->rejectedSharedMemory.size(), 1u);
    const check::KernelSharedMemory& rejected = a->rejectedSharedMemory.front();

    BudgetViewModel m = buildRejectedBudgetView(rejected, a->compile->target);
    // The diagnostic's numbers: "shared memory needs N bytes ...; sm_90a allows at most L".
    EXPECT_NE(d->message.find("needs " + std::to_string(m.totalBytes) + " bytes"), std::string::npos)
        << d->message;
    EXPECT_NE(d->message.find("at most " + std::to_string(m.limitBytes)), std::string::npos) << d->message;
    EXPECT_TRUE(m.overLimit());
    EXPECT_NE(m.summary().find("OVER THE LIMIT"), std::string::npos) << m.summary();
    EXPECT_FALSE(m.source.empty());
    // A_shared [100000, 64] fp16 in a 3-stage pipeline, B_shared [64, 128] likewise; the bars stack to it.
    ASSERT_EQ(m.bars.size(), 2u);
    EXPECT_EQ(m.bars[0].buffer, "A_shared");
    EXPECT_EQ(m.bars[0].bytesPerStage, int64_t(100000) * 64 * 2);
    EXPECT_EQ(m.bars[0].stages, 3);
    int64_t stacked = 0;
    for (const BudgetBar& b : m.bars)
        stacked += b.totalBytes;
    EXPECT_EQ(stacked, m.totalBytes);
    EXPECT_EQ(m.threads, 128);
    EXPECT_EQ(m.occupancy.blocks, 0);
    EXPECT_NE(budgetViewToSvg(m).find(m.source), std::string::npos);
}

TEST(RejectedBudget, OtherErrorsRejectNoBudget) {
    auto a = gemmWith("T.gemm(A_shared, B_shared, C_local)", "T.gemm(A_shared, B_shared, C_localx)");
    ASSERT_TRUE(a && a->compile);
    EXPECT_FALSE(a->ok());
    EXPECT_TRUE(a->rejectedSharedMemory.empty());
    EXPECT_FALSE(a->firstError().empty());
}

} // namespace tb::views
