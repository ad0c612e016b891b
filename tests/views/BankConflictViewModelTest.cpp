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

TEST(BankConflictViewModel, TableSortsWorstRowFirstByDefault) {
    SourceManager sources;
    FileId file = sources.addFile("t.py", "a = 1\nb = 2\nc = 3\n");
    ir::Buffer tile, other;
    tile.name = "tile";
    other.name = "other";
    layout::KernelPlan kernel;
    // Line 1 conflict-free, line 2 a 32-way conflict (stride 128 bytes), line 3 16-way (stride 64 bytes).
    kernel.sharedAccesses.push_back(accessPlan(&tile, SourceRange::make(file, 0, 5), strided(4), strided(4)));
    kernel.sharedAccesses.push_back(
        accessPlan(&other, SourceRange::make(file, 6, 11), strided(128), strided(128)));
    kernel.sharedAccesses.push_back(
        accessPlan(&tile, SourceRange::make(file, 12, 17), strided(64), strided(64)));
    BankConflictViewModel m = buildBankConflictView(kernel, sources);
    ASSERT_EQ(m.rows.size(), 3u);
    ASSERT_GT(m.rows[1].excessWavefronts(), m.rows[2].excessWavefronts());
    ASSERT_GT(m.rows[2].excessWavefronts(), 0);
    // The view's default: excess wavefronts, descending.
    EXPECT_EQ(sortedBankRows(m, BankColumn::Excess, true), (std::vector<int>{1, 2, 0}));
    EXPECT_EQ(sortedBankRows(m, BankColumn::Excess, false), (std::vector<int>{0, 2, 1}));
    EXPECT_EQ(sortedBankRows(m, BankColumn::Line, false), (std::vector<int>{0, 1, 2}));
    // Text columns sort as text; equal buffers keep line order.
    EXPECT_EQ(sortedBankRows(m, BankColumn::Buffer, false), (std::vector<int>{1, 0, 2}));
    EXPECT_EQ(sortedBankRows(m, BankColumn::Ways, true).front(), 1);
}

TEST(BankConflictViewModel, ReductionScratchIsNamedAfterItsReduce) {
    // Every access without a program buffer is a reduce's all-reduce scratch, named after the reduce.
    int scratchRows = 0;
    for (const SampleInfo& s : listSamples())
        for (Backend backend : {Backend::Portable, Backend::Hopper}) {
            auto a = test::analyzeSample(s.name, backend);
            if (!a || !a->plan)
                continue;
            for (const layout::KernelPlan& k : a->plan->kernels) {
                BankConflictViewModel m = buildBankConflictView(k, a->sources());
                for (const layout::SharedAccessPlan& p : k.sharedAccesses) {
                    if (p.buffer)
                        continue;
                    ASSERT_TRUE(p.op && p.op->kind == ir::StmtKind::Reduce && p.op->srcBuffer);
                    const std::string name = "reduction scratch (T.reduce of " + p.op->srcBuffer->name + ")";
                    bool named = false;
                    for (const BankAccessRow& r : m.rows)
                        named = named || r.buffer == name;
                    EXPECT_TRUE(named) << s.name << ": " << name;
                    ++scratchRows;
                }
            }
        }
    EXPECT_GT(scratchRows, 0) << "no sample reduces through shared memory";
}

TEST(BankConflictViewModel, HoverNamesTheElementsALaneMoves) {
    BankAccessRow row;
    row.buffer = "A_shared";
    row.shape = {128, 64};
    row.elementBytes = 2;
    // ldmatrix .x4: lane 8m + r gives row r of matrix m; here matrix m starts at column 8m of row r.
    row.accessUnswizzled.kind = SharedAccessKind::LdMatrix;
    row.accessUnswizzled.matrices = 4;
    for (int l = 0; l < kWarpLanes; ++l)
        row.accessUnswizzled.address[size_t(l)] = (l % 8) * 128 + (l / 8) * 16;
    EXPECT_EQ(bankLaneElements(row, 0), "A_shared[0, 0..7]");
    EXPECT_EQ(bankLaneElements(row, 11), "A_shared[3, 8..15]");
    EXPECT_EQ(bankLaneElements(row, 31), "A_shared[7, 24..31]");
    // A 4-byte store of one fp32 element per lane names one element.
    row.elementBytes = 4;
    row.accessUnswizzled.kind = SharedAccessKind::Store;
    row.accessUnswizzled.widthBytes = 4;
    row.accessUnswizzled.activeMask = 0x1u;
    row.accessUnswizzled.address[0] = 4 * 65;
    EXPECT_EQ(bankLaneElements(row, 0), "A_shared[1, 1]");
    EXPECT_EQ(bankLaneElements(row, 5), ""); // predicated off
    row.shape.clear();                       // scratch: no program elements
    EXPECT_EQ(bankLaneElements(row, 0), "");
}

} // namespace tb::views
