// Suggested fixes are computed by re-running the bank analysis: the GEMM sample with its swizzles taken
// away conflicts, and the fix for each conflicting access is exactly what the sample's own 128B swizzle gets.
#include "views/model/BankFixes.h"

#include "ViewTestSupport.h"
#include "engine/passes/BankAnalysis.h"
#include "views/model/BankConflictViewModel.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::views {

TEST(BankFixes, UnswizzledGemmTilesGetTheSwizzleTheyLack) {
    auto a = test::analyzeSample("gemm_relu");
    ASSERT_TRUE(a && a->plan) << (a ? a->compile->formattedDiagnostics() : "");
    const layout::KernelPlan& planned = *a->kernel(0);
    const layout::SharedBufferPlan* aTile = nullptr;
    for (const layout::SharedBufferPlan& b : planned.sharedBuffers)
        if (b.buffer->name == "A_shared")
            aTile = &b;
    ASSERT_NE(aTile, nullptr);
    ASSERT_EQ(aTile->choice.kind, layout::SharedLayoutKind::Full128B); // 64 fp16 columns: 128-byte rows
    // The sample as planned has nothing to fix.
    EXPECT_TRUE(findSwizzleFixes(planned, a->plan->target).empty());

    // The same kernel with every tile row-major.
    layout::KernelPlan plain = planned;
    for (layout::SharedBufferPlan& b : plain.sharedBuffers) {
        b.choice.kind = layout::SharedLayoutKind::Linear;
        b.choice.layout = b.unswizzled;
    }
    DiagnosticEngine diagnostics;
    passes::analyzeKernelSharedAccesses(plain, a->plan->target, diagnostics);
    std::vector<BankFix> fixes = findSwizzleFixes(plain, a->plan->target);
    int conflicted = 0;
    for (const layout::SharedAccessPlan& p : plain.sharedAccesses) {
        if (p.buffer != aTile->buffer || p.hardware.conflictWays <= 1)
            continue;
        ++conflicted;
        const BankFix* fix = nullptr;
        for (const BankFix& f : fixes)
            if (f.op == p.op && f.role == p.role && f.buffer == p.buffer)
                fix = &f;
        ASSERT_NE(fix, nullptr) << p.role;
        // What the re-run analysis gives is what the planned (swizzled) kernel has for the same access.
        for (const layout::SharedAccessPlan& q : planned.sharedAccesses)
            if (q.op == p.op && q.role == p.role && q.buffer == p.buffer) {
                EXPECT_EQ(fix->wavefrontsPerBlock, q.wavefrontsPerBlock) << p.role;
                EXPECT_EQ(fix->conflictWays, q.hardware.conflictWays) << p.role;
            }
        EXPECT_EQ(fix->remedy, "a 128B swizzle makes this " + std::to_string(fix->conflictWays) +
                                   "-way: " + std::to_string(fix->wavefrontsPerBlock) +
                                   " wavefronts per block instead of " +
                                   std::to_string(p.wavefrontsPerBlock));
    }
    EXPECT_GT(conflicted, 0) << "a row-major 128-byte-row tile should conflict";

    // The table shows each fix on its row.
    BankConflictViewModel m = buildBankConflictView(plain, a->sources());
    applyBankFixes(m, fixes);
    int rowsWithFix = 0;
    for (const BankAccessRow& r : m.rows)
        rowsWithFix += !r.suggestedFix.empty();
    EXPECT_EQ(rowsWithFix, int(fixes.size()));
}

} // namespace tb::views
