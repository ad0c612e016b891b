// The punch-card view model: which word each lane touches in each bank, its phase and its wavefront.
#include "engine/layout/bank/BankPunchCard.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <set>

namespace tb {
namespace {

WarpAccess strided(SharedAccessKind kind, int widthBytes, int64_t strideBytes) {
    WarpAccess access;
    access.kind = kind;
    access.widthBytes = widthBytes;
    for (int lane = 0; lane < 32; ++lane)
        access.address[lane] = strideBytes * lane;
    return access;
}

TEST(BankPunchCard, Stride32WordsStacksEveryLaneInBankZero) {
    BankPunchCard card = makeBankPunchCard(strided(SharedAccessKind::Load, 4, 128));
    EXPECT_EQ(card.cost.wavefronts, 32);
    EXPECT_EQ(card.wordsPerBank[0], 32);
    EXPECT_EQ(card.wordsPerBank[1], 0);
    for (int lane = 0; lane < 32; ++lane) {
        EXPECT_EQ(card.phaseOfLane[lane], 0);
        const BankPunchCell& cell = card.cells[lane][0];
        EXPECT_EQ(cell.word, 32 * lane);
        EXPECT_EQ(cell.wavefront, lane); // words in ascending order
        EXPECT_TRUE(cell.conflicted);
        for (int bank = 1; bank < 32; ++bank)
            EXPECT_EQ(card.cells[lane][bank].word, -1);
    }
}

TEST(BankPunchCard, ContiguousLds128FillsOneRowPerQuarterWarp) {
    BankPunchCard card = makeBankPunchCard(strided(SharedAccessKind::Load, 16, 16));
    ASSERT_EQ(card.cost.phases.size(), 4u);
    for (int lane = 0; lane < 32; ++lane) {
        EXPECT_EQ(card.phaseOfLane[lane], lane / 8);
        for (int bank = 0; bank < 32; ++bank) {
            const BankPunchCell& cell = card.cells[lane][bank];
            bool touches = bank / 4 == lane % 8;
            EXPECT_EQ(cell.word >= 0, touches) << lane << " " << bank;
            if (touches) {
                EXPECT_EQ(cell.word, 4 * lane + bank % 4);
                EXPECT_EQ(cell.wavefront, lane / 8);
                EXPECT_FALSE(cell.conflicted);
            }
        }
    }
}

TEST(BankPunchCard, BroadcastSharesOneWavefrontButCpAsyncDoesNot) {
    WarpAccess access = strided(SharedAccessKind::Load, 4, 0);
    BankPunchCard load = makeBankPunchCard(access);
    for (int lane = 0; lane < 32; ++lane)
        EXPECT_EQ(load.cells[lane][0].wavefront, 0);
    EXPECT_FALSE(load.cells[5][0].conflicted);
    access.kind = SharedAccessKind::CpAsyncCa;
    BankPunchCard copy = makeBankPunchCard(access);
    EXPECT_EQ(copy.cost.wavefronts, 32);
    for (int lane = 0; lane < 32; ++lane)
        EXPECT_EQ(copy.cells[lane][0].wavefront, lane);
    // The SASS model merges them.
    EXPECT_EQ(makeBankPunchCard(access, BankModelKind::SassMetric).cells[31][0].wavefront, 0);
}

TEST(BankPunchCard, WavefrontsCoverTheCostExactly) {
    // ldmatrix.x4 over 128-byte rows, unswizzled: 4 phases of 8 wavefronts each.
    WarpAccess access;
    access.kind = SharedAccessKind::LdMatrix;
    access.matrices = 4;
    for (int lane = 0; lane < 32; ++lane)
        access.address[lane] = 128 * (lane % 16) + 16 * (lane / 16);
    BankPunchCard card = makeBankPunchCard(access);
    std::set<int> used;
    for (int lane = 0; lane < 32; ++lane)
        for (int bank = 0; bank < 32; ++bank)
            if (card.cells[lane][bank].word >= 0) {
                used.insert(card.cells[lane][bank].wavefront);
                EXPECT_EQ(card.cells[lane][bank].phase, lane / 8);
            }
    EXPECT_EQ(card.cost.wavefronts, 32);
    EXPECT_EQ(used.size(), 32u);
    EXPECT_EQ(*used.begin(), 0);
    EXPECT_EQ(*used.rbegin(), 31);
}

TEST(BankPunchCard, InactiveLanesAreBlank) {
    WarpAccess access = strided(SharedAccessKind::Store, 8, 8);
    access.activeMask = 0x0000ff00u;
    BankPunchCard card = makeBankPunchCard(access);
    EXPECT_EQ(card.phaseOfLane[0], -1);
    EXPECT_EQ(card.phaseOfLane[8], 0);
    for (int bank = 0; bank < 32; ++bank)
        EXPECT_EQ(card.cells[0][bank].word, -1);
}

} // namespace
} // namespace tb
