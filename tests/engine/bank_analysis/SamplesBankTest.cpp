// End to end: compile the samples through the layout passes and the bank analysis, and check what TileLang's
// layout choices promise: every shared access of the GEMM and of MLA decode is conflict-free with the chosen
// swizzles, and worse without them.
#include "BankTestSupport.h"
#include "engine/layout/plan/BankPrinter.h"
#include "engine/pipeline/Pipeline.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace tb::test {
namespace {

struct Compiled {
    std::unique_ptr<CompileResult> result;
    layout::LayoutPlan plan;
    DiagnosticEngine diagnostics; // unused: the compile's own diagnostics hold every pass's
};

// Compiles through the bank analysis on the target's own instruction set (wgmma targets on the hopper
// backend: these tests check TileLang's layout choices, not one backend's code).
std::unique_ptr<Compiled> compileSample(const std::string& name, const Target& target) {
    std::ifstream in(std::string(TILEBENCH_SAMPLES_DIR) + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    auto c = std::make_unique<Compiled>();
    CompileOptions options;
    options.target = target;
    options.backend = target.hasWgmma ? Backend::Hopper : Backend::Portable;
    options.stopAfter = "bank-analysis";
    c->result = compileTileProgram(name, text.str(), options);
    if (c->result->plan)
        c->plan = *c->result->plan;
    return c;
}

std::string describe(const layout::SharedAccessPlan& a) {
    return a.role + " (" + a.instruction + ", " + std::to_string(a.hardware.conflictWays) +
           "-way, note: " + a.note + ")";
}

TEST(SampleBanks, GemmReluIsConflictFreeOnSm80) {
    auto c = compileSample("02_gemm_relu.py", targetSm80());
    ASSERT_TRUE(c->result->ok()) << c->result->formattedDiagnostics();
    ASSERT_FALSE(c->diagnostics.hasErrors())
        << formatDiagnostics(c->result->sources, c->diagnostics.diagnostics());
    ASSERT_EQ(c->plan.kernels.size(), 1u);
    const layout::KernelPlan& k = c->plan.kernels[0];
    // block 128x128x64: cp.async of A and B, ldmatrix of A and B, all in the 8-iteration pipelined loop.
    int ldmatrix = 0, cpAsync = 0;
    for (const layout::SharedAccessPlan& a : k.sharedAccesses) {
        EXPECT_EQ(a.hardware.conflictWays, 1) << describe(a);
        EXPECT_EQ(a.wavefrontsPerBlock, a.idealWavefrontsPerBlock) << describe(a);
        EXPECT_EQ(a.executionsPerBlock, 8) << describe(a);
        EXPECT_EQ(a.rowSpreadInstructionsPerBlock, 0) << describe(a);
        if (a.access.kind == SharedAccessKind::LdMatrix) {
            ++ldmatrix;
            // Rows of 64 fp16 are 128 B apart: without the swizzle every matrix is 8-way.
            EXPECT_EQ(a.hardwareUnswizzled.conflictWays, 8) << describe(a);
        }
        if (a.access.kind == SharedAccessKind::CpAsyncCg)
            ++cpAsync;
    }
    EXPECT_EQ(ldmatrix, 2);
    EXPECT_EQ(cpAsync, 2);
    layout::KernelBankTotals totals = layout::bankTotalsPerKernel(k);
    EXPECT_EQ(totals.opLd, totals.opLdIdeal);
    EXPECT_GT(totals.lsu.wavefrontsUnswizzled, totals.lsu.wavefronts);
    EXPECT_EQ(totals.blocks, 16); // 512/128 x 512/128
}

TEST(SampleBanks, MlaDecodeExchangeAndOperandsAreConflictFreeOnSm90a) {
    auto c = compileSample("07_mla_decode.py", targetSm90a());
    ASSERT_TRUE(c->result->ok()) << c->result->formattedDiagnostics();
    ASSERT_FALSE(c->diagnostics.hasErrors())
        << formatDiagnostics(c->result->sources, c->diagnostics.diagnostics());
    ASSERT_FALSE(c->plan.kernels.empty());
    const layout::KernelPlan& k = c->plan.kernels[0];
    bool exchange = false, wgmma = false;
    for (const layout::SharedAccessPlan& a : k.sharedAccesses) {
        EXPECT_EQ(a.hardware.conflictWays, 1) << describe(a);
        if (a.role.find("acc_s -> S_shared") != std::string::npos) {
            exchange = true;
            // Each warp's 8 row groups write the same 16-byte column chunk: 8-way without the swizzle.
            EXPECT_EQ(a.hardwareUnswizzled.conflictWays, 8) << describe(a);
            EXPECT_TRUE(a.isStore);
        }
        wgmma = wgmma || a.wgmmaOperand;
    }
    EXPECT_TRUE(exchange);
    EXPECT_TRUE(wgmma);
    std::string json = layout::printBankJson(c->plan, c->result->sources);
    EXPECT_NE(json.find("S_shared"), std::string::npos);
}

} // namespace
} // namespace tb::test
