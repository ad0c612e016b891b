// The bank table and punch cards, from a hand-made plan (exact numbers) and from a real sample.
#include "views/model/BankConflictViewModel.h"

#include "ViewTestSupport.h"
#include "engine/layout/bank/BankCost.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

namespace tb::views {

namespace {

WarpAccess strided(int64_t strideBytes) {
    WarpAccess a;
    a.kind = SharedAccessKind::Load;
    a.widthBytes = 4;
    for (int l = 0; l < kWarpLanes; ++l)
        a.address[size_t(l)] = strideBytes * l;
    return a;
}

layout::SharedAccessPlan accessPlan(const ir::Buffer* buffer, SourceRange range, WarpAccess chosen,
                                    WarpAccess plain) {
    layout::SharedAccessPlan p;
    p.buffer = buffer;
    p.range = range;
    p.role = "transpose read";
    p.instruction = "LDS.32";
    p.access = chosen;
    p.accessUnswizzled = plain;
    p.hardware = hardwareCost(chosen);
    p.hardwareUnswizzled = hardwareCost(plain);
    p.instructionsPerBlock = 8;
    p.wavefrontsPerBlock = 8 * p.hardware.wavefronts;
    p.idealWavefrontsPerBlock = 8 * p.hardware.idealWavefronts;
    p.wavefrontsPerBlockUnswizzled = 8 * p.hardwareUnswizzled.wavefronts;
    return p;
}

} // namespace

TEST(BankConflictViewModel, RowsAndPunchCardsOfAHandMadePlan) {
    SourceManager sources;
    FileId file = sources.addFile("t.py", "x = 1\ny = 2\nz = 3\n");
    ir::Buffer tile;
    tile.name = "tile";
    tile.scope = ir::MemoryScope::Shared;
    layout::KernelPlan kernel;
    // Line 3: padded (stride 33 words) vs plain (stride 32 words): 1 vs 32 wavefronts.
    kernel.sharedAccesses.push_back(
        accessPlan(&tile, SourceRange::make(file, 12, 17), strided(132), strided(128)));
    // Line 1: conflict-free either way.
    kernel.sharedAccesses.push_back(accessPlan(&tile, SourceRange::make(file, 0, 5), strided(4), strided(4)));
    BankConflictViewModel m = buildBankConflictView(kernel, sources);
    ASSERT_EQ(m.rows.size(), 2u);
    EXPECT_EQ(m.rows[0].line, 1u); // sorted by line
    EXPECT_EQ(m.rows[1].line, 3u);
    EXPECT_EQ(m.rows[1].wavefronts, 8);
    EXPECT_EQ(m.rows[1].wavefrontsUnswizzled, 8 * 32);
    EXPECT_EQ(m.rows[1].conflictWaysUnswizzled, 32);
    EXPECT_EQ(m.rowsOfLine(3), std::vector<int>{1});
    EXPECT_TRUE(m.rowsOfLine(2).empty());
    // Nothing has excess wavefronts with the chosen layout: the first row is selected by default.
    EXPECT_EQ(m.selected, 0);
    selectBankRow(m, 1);
    EXPECT_EQ(m.selected, 1);
    EXPECT_EQ(m.card.cost.wavefronts, 1);
    EXPECT_EQ(m.cardUnswizzled.cost.wavefronts, 32);
    // Stride 33 words: lane l in bank l; stride 32 words: every lane in bank 0, one wavefront each.
    EXPECT_EQ(m.card.cells[7][7].word, 7 * 33);
    EXPECT_FALSE(m.card.cells[7][7].conflicted);
    EXPECT_EQ(m.cardUnswizzled.cells[7][0].wavefront, 7);
    EXPECT_TRUE(m.cardUnswizzled.cells[7][0].conflicted);
    EXPECT_EQ(m.cardUnswizzled.cells[7][7].word, -1);
    selectBankRow(m, 99); // clamped
    EXPECT_EQ(m.selected, 1);

    std::string svg = bankConflictViewToSvg(m);
    EXPECT_NE(svg.find("swizzle off: 32 wavefronts (ideal 1), 32-way"), std::string::npos);
    EXPECT_NE(svg.find("chosen layout: 1 wavefronts (ideal 1), 1-way"), std::string::npos);
    test::expectGolden(svg, "bank_stride33_vs_32.svg");
}

TEST(BankConflictViewModel, EmptyPlanHasNoSelection) {
    SourceManager sources;
    layout::KernelPlan kernel;
    BankConflictViewModel m = buildBankConflictView(kernel, sources);
    EXPECT_TRUE(m.rows.empty());
    EXPECT_EQ(m.selected, -1);
}

TEST(BankConflictViewModel, GemmSampleHasRealAccesses) {
    auto a = test::analyzeSample("gemm_relu");
    ASSERT_TRUE(a && a->ok()) << (a ? a->compile->formattedDiagnostics() : "no sample");
    const layout::KernelPlan* kernel = a->kernel(0);
    ASSERT_NE(kernel, nullptr);
    BankConflictViewModel m = buildBankConflictView(*kernel, a->sources());
    ASSERT_FALSE(m.rows.empty());
    std::set<std::string> buffers;
    for (const BankAccessRow& r : m.rows) {
        EXPECT_GT(r.line, 0u);
        EXPECT_GT(r.instructionsPerBlock, 0);
        EXPECT_GE(r.wavefronts, r.idealWavefronts);
        EXPECT_FALSE(r.instruction.empty());
        buffers.insert(r.buffer);
    }
    EXPECT_TRUE(buffers.count("A_shared"));
    EXPECT_TRUE(buffers.count("B_shared"));
    ASSERT_GE(m.selected, 0);
    EXPECT_GT(m.card.cost.wavefronts, 0);
}

} // namespace tb::views
