// SASS records placed on CUDA lines (line table) and tile-program lines (the code generator's line map).
#include "engine/profile/SourceAttribution.h"

#include <gtest/gtest.h>
#include <map>
#include <vector>

namespace tb::profile {
namespace {

gpu::CubinLineTable table() {
    gpu::CubinLineTable t;
    t.functions["k"] = {{0x00, 10, "g.cu"}, {0x20, 12, "g.cu"}, {0x40, 15, "g.cu"}, {0x60, 0, ""}};
    return t;
}

TEST(SourceAttribution, PlacesRecordsOnCudaAndTileLines) {
    std::vector<SassRecord> recs = {{"k", 0x00, 100, 0, 0},      {"k", 0x10, 100, 100, 100},
                                    {"k", 0x20, 100, 3200, 100}, {"k", 0x50, 100, 0, 0},
                                    {"k", 0x70, 100, 0, 0},      {"other", 0x0, 5, 5, 5}};
    // CUDA line 12 implements tile line 3; lines 10-11 are boilerplate before any tile statement except 10.
    std::map<int, int> lineMap = {{10, 1}, {12, 3}, {14, 4}};
    attributeSassRecords(recs, table(), lineMap);
    EXPECT_EQ(recs[0].cudaLine, 10);
    EXPECT_EQ(recs[0].tileLine, 1);
    EXPECT_EQ(recs[1].cudaLine, 10); // 0x10 lies in the row starting at 0x00
    EXPECT_EQ(recs[2].cudaLine, 12);
    EXPECT_EQ(recs[2].tileLine, 3);
    EXPECT_EQ(recs[3].cudaLine, 15);
    EXPECT_EQ(recs[3].tileLine, 4);  // nearest mapped line above 15 is 14
    EXPECT_EQ(recs[4].cudaLine, -1); // past the end of the code
    EXPECT_EQ(recs[5].cudaLine, -1); // unknown kernel
    EXPECT_EQ(recs[2].excessWavefronts(), 3100u);

    auto cuda = totalsByCudaLine(recs);
    ASSERT_EQ(cuda.size(), 4u);
    EXPECT_EQ(cuda[0].line, -1);
    EXPECT_EQ(cuda[0].instructions, 2);
    EXPECT_EQ(cuda[1].line, 10);
    EXPECT_EQ(cuda[1].instExecuted, 200u);
    EXPECT_EQ(cuda[2].line, 12);
    EXPECT_EQ(cuda[2].excessWavefronts(), 3100u);
    auto tile = totalsByTileLine(recs);
    ASSERT_EQ(tile.size(), 4u);
    EXPECT_EQ(tile[2].line, 3);
    EXPECT_EQ(tile[2].sharedWavefronts, 3200u);
}

TEST(SourceAttribution, NoLineMapMeansNoTileLines) {
    std::vector<SassRecord> recs = {{"k", 0x20, 1, 1, 1}};
    attributeSassRecords(recs, table(), {});
    EXPECT_EQ(recs[0].cudaLine, 12);
    EXPECT_EQ(recs[0].tileLine, -1);
    std::map<int, int> below = {{20, 7}};
    attributeSassRecords(recs, table(), below);
    EXPECT_EQ(recs[0].tileLine, -1); // no mapped line at or above 12
}

TEST(SourceAttribution, SortIsByFunctionThenPc) {
    std::vector<SassRecord> recs = {{"b", 0x10}, {"a", 0x20}, {"a", 0x10}};
    sortSassRecords(recs);
    EXPECT_EQ(recs[0].function, "a");
    EXPECT_EQ(recs[0].pc, 0x10u);
    EXPECT_EQ(recs[2].function, "b");
}

} // namespace
} // namespace tb::profile
