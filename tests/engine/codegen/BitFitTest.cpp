// BitFit and ThreadMap: closed forms of (thread, register) -> element maps.
#include "engine/codegen/BitFit.h"

#include "engine/codegen/ThreadMap.h"
#include "engine/layout/algebra/GemmFragments.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <optional>
#include <vector>

using namespace tb;
using namespace tb::codegen;

TEST(BitFit, FitsAndPrintsBitFields) {
    // f(t, r) = 4 * (t % 8) + t / 8 * 64 + 2 * r, t in [0, 32), r in [0, 4)
    std::vector<std::optional<int64_t>> v;
    for (int t = 0; t < 32; ++t)
        for (int r = 0; r < 4; ++r)
            v.push_back(4 * (t % 8) + (t / 8) * 64 + 2 * r);
    BitFit fit = fitOverBits(v, 32, 4);
    ASSERT_TRUE(fit.ok);
    EXPECT_TRUE(fit.dependsOnThread());
    EXPECT_EQ(fit.toC("tx", "r"), "4 * (tx & 7) + 64 * (tx >> 3) + 2 * r");
}

TEST(BitFit, RegisterPartIsTheOffsetFromRegisterZero) {
    // f(t, r) = 5 + 4 * (t % 8) + 2 * r: the register part is 2 * r for every thread.
    std::vector<std::optional<int64_t>> v;
    for (int t = 0; t < 8; ++t)
        for (int r = 0; r < 4; ++r)
            v.push_back(5 + 4 * t + 2 * r);
    BitFit fit = fitOverBits(v, 8, 4);
    ASSERT_TRUE(fit.ok);
    BitFit part = fit.registerPart();
    EXPECT_FALSE(part.dependsOnThread());
    EXPECT_EQ(part.toC("tx", "r"), "2 * r");
    EXPECT_EQ(fit.toC("tx", "r"), "4 * tx + 2 * r + 5");
}

TEST(BitFit, RejectsNonLinearMaps) {
    std::vector<std::optional<int64_t>> v;
    for (int t = 0; t < 8; ++t)
        v.push_back((t * t) % 5);
    EXPECT_FALSE(fitOverBits(v, 8, 1).ok);
}

TEST(BitFit, IgnoresDontCareSlots) {
    std::vector<std::optional<int64_t>> v = {0, 1, std::nullopt, 3};
    BitFit fit = fitOverBits(v, 1, 4);
    ASSERT_TRUE(fit.ok);
    EXPECT_EQ(fit.toC("tx", "r"), "r");
}

TEST(ThreadMap, MmaAccumulatorIsFitted) {
    ThreadMap map = buildThreadMap(layout::mmaAtomC()).value();
    EXPECT_EQ(map.threads, 32);
    EXPECT_EQ(map.regs, 4);
    ASSERT_TRUE(map.fitted);
    // c_v at row g + 8*(v/2), col 2q + v%2 (g = lane/4, q = lane%4)
    for (int t = 0; t < 32; ++t)
        for (int v = 0; v < 4; ++v) {
            auto p = map.point(t, v);
            ASSERT_EQ(p.size(), 2u);
            EXPECT_EQ(p[0], t / 4 + 8 * (v / 2));
            EXPECT_EQ(p[1], 2 * (t % 4) + v % 2);
        }
    EXPECT_EQ(map.coords[0].toC("tx", "r"), "(tx >> 2) + 8 * (r >> 1)");
}

TEST(ThreadMap, DefaultPartitionCoversEveryElementOnce) {
    layout::Fragment f = defaultPartition({4, 512}, 128, 4);
    ThreadMap map = buildThreadMap(f).value();
    EXPECT_EQ(map.threads, 128);
    EXPECT_EQ(map.regs, 16);
    EXPECT_TRUE(map.fitted);
    std::vector<int> seen(4 * 512, 0);
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t r = 0; r < map.regs; ++r) {
            auto p = map.point(t, r);
            ++seen[size_t(p[0] * 512 + p[1])];
        }
    for (int s : seen)
        EXPECT_EQ(s, 1);
    // Four consecutive registers hold four consecutive columns (one 16-byte vector of float).
    EXPECT_EQ(map.point(5, 1)[1], map.point(5, 0)[1] + 1);
}

TEST(ThreadMap, APartitionOfRowsOfTwentyFourVectorsIsFittedWithDivisions) {
    // A 128 x 192 fp16 tile over 256 threads in 8-element vectors (TileLang's gqa backward): a row is 24
    // vectors, which no sum of bit fields can express; the partition's flat order can, and the code it
    // prints gives every slot's element (before, such copies fell back to an ownership-guarded loop).
    layout::Fragment f = defaultPartition({128, 192}, 256, 8);
    ThreadMap map = buildThreadMap(f).value();
    ASSERT_TRUE(map.fitted);
    ASSERT_TRUE(map.coords[1].partition.has_value());
    EXPECT_FALSE(map.coords[1].separable());
    EXPECT_EQ(map.coords[1].toC("tx", "r"), "((((r / 8) * 256 + tx) * 8 + r % 8) % 192)");
    EXPECT_EQ(map.coords[0].toC("tx", "r"), "(((((r / 8) * 256 + tx) * 8 + r % 8) / 192) % 128)");
    // The closed form, evaluated as the C would be, at every slot.
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t r = 0; r < map.regs; ++r) {
            int64_t flat = ((r / 8) * 256 + t) * 8 + r % 8;
            std::vector<int64_t> p = map.point(t, r);
            ASSERT_EQ(p.size(), 2u);
            EXPECT_EQ(p[0], flat / 192 % 128);
            EXPECT_EQ(p[1], flat % 192);
        }
}

TEST(ThreadMap, APartitionWhoseLastRoundIsPartialSaysWhichSlotsHoldAnElement) {
    // 64 x 512 halves over 384 threads in 8-element vectors: 4096 vectors are 10 rounds and 256 more, so
    // threads 256..383 have one slot group fewer. The map is not `fitted` (a slot may be empty), but its
    // coordinates are the partition's and the guard names exactly the slots that hold an element.
    layout::Fragment f = defaultPartition({64, 512}, 384, 8);
    ThreadMap map = buildThreadMap(f).value();
    EXPECT_FALSE(map.fitted);
    ASSERT_TRUE(map.partialPartition);
    EXPECT_EQ(map.partitionVector, 8);
    EXPECT_EQ(map.regs, 88);
    EXPECT_EQ(map.partialRoundGuard("tx", "r"), "(((r / 8) * 384 + tx) * 8 + r % 8) < 32768");
    int64_t held = 0;
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t r = 0; r < map.regs; ++r) {
            int64_t flat = ((r / 8) * 384 + t) * 8 + r % 8;
            std::vector<int64_t> p = map.point(t, r);
            ASSERT_EQ(!p.empty(), flat < 32768) << t << " " << r;
            if (p.empty())
                continue;
            ++held;
            EXPECT_EQ(p[0], flat / 512 % 64);
            EXPECT_EQ(p[1], flat % 512);
        }
    EXPECT_EQ(held, 64 * 512);
}
