// Measurements on the static views: the bank table's measured columns (per-line SASS wavefront totals
// divided by the grid's blocks, on every row of the line, lines without a predicted access kept aside) and
// the sweep plot's measured points (time and TFLOP/s per stage count, failed variants with their status).
#include "ViewTestSupport.h"
#include "engine/layout/bank/BankCost.h"
#include "views/model/BankConflictViewModel.h"
#include "views/model/SweepPlotModel.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::views {

namespace {

layout::SharedAccessPlan access(const ir::Buffer* buffer, SourceRange range, int64_t strideBytes,
                                const char* role) {
    WarpAccess a;
    a.kind = SharedAccessKind::Load;
    a.widthBytes = 4;
    for (int l = 0; l < kWarpLanes; ++l)
        a.address[size_t(l)] = strideBytes * l;
    layout::SharedAccessPlan p;
    p.buffer = buffer;
    p.range = range;
    p.role = role;
    p.instruction = "LDS.32";
    p.access = a;
    p.accessUnswizzled = a;
    p.hardware = hardwareCost(a);
    p.hardwareUnswizzled = p.hardware;
    p.instructionsPerBlock = 4;
    p.wavefrontsPerBlock = 4 * p.hardware.wavefronts;
    p.idealWavefrontsPerBlock = 4 * p.hardware.idealWavefronts;
    p.wavefrontsPerBlockUnswizzled = p.wavefrontsPerBlock;
    return p;
}

} // namespace

TEST(MeasuredBankColumns, PerBlockValuesOnEveryRowOfTheLine) {
    SourceManager sources;
    FileId file = sources.addFile("t.py", "a = 1\nb = 2\nc = 3\nd = 4\n");
    ir::Buffer tile;
    tile.name = "tile";
    layout::KernelPlan kernel;
    kernel.sharedAccesses.push_back(access(&tile, SourceRange::make(file, 6, 11), 128, "read one")); // line 2
    kernel.sharedAccesses.push_back(access(&tile, SourceRange::make(file, 6, 11), 4, "read two"));   // line 2
    kernel.sharedAccesses.push_back(access(&tile, SourceRange::make(file, 12, 17), 4, "write"));     // line 3
    BankConflictViewModel m = buildBankConflictView(kernel, sources);
    ASSERT_EQ(m.rows.size(), 3u);
    EXPECT_FALSE(m.measured);
    for (const BankAccessRow& r : m.rows)
        EXPECT_FALSE(r.measuredWavefronts.has_value());
    int originalSelection = m.selected;
    std::string before = bankConflictViewToSvg(m);
    EXPECT_EQ(before.find("measured"), std::string::npos);

    // 4 blocks: line 2 measured 4 * 132 wavefronts (ideal 4 * 8), line 4 (no predicted access) 400,
    // and an unplaced bucket (line 0) that is ignored.
    setMeasuredWavefronts(m, {{2, 4 * 132, 4 * 8}, {4, 400, 400}, {0, 999, 1}}, 4, "profiled on a test GPU");
    EXPECT_TRUE(m.measured);
    EXPECT_EQ(m.measuredNote, "profiled on a test GPU");
    std::vector<int> line2 = m.rowsOfLine(2);
    ASSERT_EQ(line2.size(), 2u);
    for (int i : line2) {
        const BankAccessRow& r = m.rows[size_t(i)];
        ASSERT_TRUE(r.measuredWavefronts.has_value());
        EXPECT_EQ(*r.measuredWavefronts, 132);
        EXPECT_EQ(*r.measuredIdealWavefronts, 8);
        EXPECT_TRUE(r.measuredLineShared);
    }
    // Line 3 was profiled and had no shared traffic: measured 0, not "unknown".
    const BankAccessRow& line3 = m.rows[size_t(m.rowsOfLine(3).front())];
    ASSERT_TRUE(line3.measuredWavefronts.has_value());
    EXPECT_EQ(*line3.measuredWavefronts, 0);
    EXPECT_FALSE(line3.measuredLineShared);
    ASSERT_EQ(m.measuredLines.size(), 2u);
    EXPECT_EQ(m.measuredLines[0].line, 2u);
    EXPECT_TRUE(m.measuredLines[0].hasRow);
    EXPECT_EQ(m.measuredLines[1].line, 4u);
    EXPECT_FALSE(m.measuredLines[1].hasRow);
    EXPECT_EQ(m.measuredLines[1].wavefronts, 100);

    std::string svg = bankConflictViewToSvg(m);
    EXPECT_NE(svg.find(">measured<"), std::string::npos);
    EXPECT_NE(svg.find(">132 (line)<"), std::string::npos) << svg;

    // Selecting another row keeps the measurements; clearing removes them.
    selectBankRow(m, 2);
    EXPECT_TRUE(m.rows[0].measuredWavefronts.has_value());
    clearMeasuredWavefronts(m);
    selectBankRow(m, originalSelection);
    EXPECT_FALSE(m.measured);
    EXPECT_FALSE(m.rows[0].measuredWavefronts.has_value());
    EXPECT_EQ(bankConflictViewToSvg(m), before);
}

TEST(MeasuredBankColumns, GemmSampleRowsTakeTheirLinesMeasurement) {
    auto an = test::analyzeSample("gemm_relu");
    ASSERT_TRUE(an && an->ok());
    BankConflictViewModel m = buildBankConflictView(*an->kernel(0), an->sources());
    ASSERT_FALSE(m.rows.empty());
    uint32_t line = m.rows.front().line;
    ASSERT_GT(line, 0u);
    setMeasuredWavefronts(m, {{line, 1000, 500}}, 16, "");
    for (int i : m.rowsOfLine(line))
        EXPECT_EQ(m.rows[size_t(i)].measuredWavefronts.value_or(-1), 63) << "1000 / 16 rounded";
}

TEST(MeasuredSweep, MeasuredPointsAndFailedVariants) {
    auto an = test::analyzeSample("gemm_transpose");
    ASSERT_TRUE(an && an->ok());
    const SourceFile& file = an->sources().file(an->compile->file);
    SweepPlotModel m = buildStageSweep(
        profile::planSweep(file.name(), file.text(), {stageSweepAxis(4)}, {}, an->compile.get()),
        an->numStages());
    ASSERT_EQ(m.points.size(), 4u);
    EXPECT_FALSE(hasMeasurements(m));
    auto [x, y] = m.position(SweepMetric::Time, 1, 0, 0, 600, 300);
    EXPECT_EQ(m.hitTest(SweepMetric::Time, 0, 0, 600, 300, x, y, 1000), -1);

    applySweepMeasurements(
        m,
        {{1, true, 0.04, 50, ""},
         {2, true, 0.02, 100, ""},
         {3, true, 0.025, 80, ""},
         {4, false, 0, 0, "compile error: over the limit [shared-memory-over-limit]", 300000},
         {6, true, 0.03, 66, ""}},
        "measured on a test GPU");
    EXPECT_TRUE(hasMeasurements(m));
    EXPECT_EQ(m.measuredNote, "measured on a test GPU");
    ASSERT_EQ(m.points.size(), 5u); // 6 was added, in order
    EXPECT_EQ(m.points[4].value, 6);
    EXPECT_DOUBLE_EQ(m.points[1].milliseconds.value_or(0), 0.02);
    EXPECT_DOUBLE_EQ(m.points[1].tflops.value_or(0), 100);
    EXPECT_FALSE(m.points[3].milliseconds.has_value());
    EXPECT_NE(m.points[3].measuredStatus.find("shared-memory-over-limit"), std::string::npos);
    // The report's bytes replace the plan's on the measured points: plot and Sweep report agree.
    EXPECT_EQ(m.points[3].sharedBytes, 300000);
    EXPECT_FALSE(m.points[3].fits);
    EXPECT_DOUBLE_EQ(m.axisMax(SweepMetric::Tflops) >= 100 ? 1 : 0, 1);
    // The fastest point is the lowest on the time plot and can be hit there.
    auto [fx, fy] = m.position(SweepMetric::Time, 1, 0, 0, 600, 300);
    auto [sx, sy] = m.position(SweepMetric::Time, 0, 0, 0, 600, 300);
    EXPECT_GT(fy, sy);
    EXPECT_EQ(m.hitTest(SweepMetric::Time, 0, 0, 600, 300, fx, fy), 1);

    // A new sweep replaces the old measurements.
    applySweepMeasurements(m, {{2, true, 0.01, 200, ""}}, "again");
    EXPECT_FALSE(m.points[0].milliseconds.has_value());
    EXPECT_TRUE(m.points[3].measuredStatus.empty());
    EXPECT_DOUBLE_EQ(m.points[1].milliseconds.value_or(0), 0.01);
}

} // namespace tb::views
