// Hand-computed bank costs for the accesses tile programs make, and properties every access must satisfy.
#include "engine/layout/bank/BankCost.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <gtest/gtest.h>
#include <random>

namespace tb {
namespace {

WarpAccess makeAccess(SharedAccessKind kind, int widthBytes, const std::function<int64_t(int)>& addressOfLane,
                      uint32_t activeMask = 0xffffffffu) {
    WarpAccess access;
    access.kind = kind;
    access.widthBytes = widthBytes;
    access.activeMask = activeMask;
    for (int lane = 0; lane < 32; ++lane)
        access.address[lane] = addressOfLane(lane);
    return access;
}

// ldmatrix.x4 of a 16x16 fp16 block at (row 0, column 0) of a row-major tile with `rowHalves` halves per
// row: lane l gives row l%16, 16-byte chunk l/16 (matrices 0,1 = rows 0-7, 8-15 of columns 0-7; 2,3 = the
// same rows of columns 8-15), optionally through the 128-byte XOR swizzle chunk ^= row % 8.
WarpAccess ldmatrixBlock(int rowHalves, bool swizzle) {
    WarpAccess access;
    access.kind = SharedAccessKind::LdMatrix;
    access.matrices = 4;
    for (int lane = 0; lane < 32; ++lane) {
        int row = lane % 16, chunk = lane / 16;
        if (swizzle)
            chunk ^= row % 8;
        access.address[lane] = int64_t(row) * rowHalves * 2 + 16 * chunk;
    }
    return access;
}

TEST(BankCost, Stride1WordLoadIsOneWavefront) {
    WarpAccess access = makeAccess(SharedAccessKind::Load, 4, [](int l) { return 4 * l; });
    for (const BankCost& cost : {hardwareCost(access), sassMetricCost(access)}) {
        EXPECT_EQ(cost.wavefronts, 1);
        EXPECT_EQ(cost.idealWavefronts, 1);
        EXPECT_EQ(cost.conflictWays, 1);
        ASSERT_EQ(cost.phases.size(), 1u);
        EXPECT_EQ(cost.phases[0].lanes, 0xffffffffu);
    }
}

TEST(BankCost, Stride32WordsIs32Way) {
    BankCost cost = hardwareCost(makeAccess(SharedAccessKind::Load, 4, [](int l) { return 128 * l; }));
    EXPECT_EQ(cost.wavefronts, 32);
    EXPECT_EQ(cost.conflictWays, 32);
    EXPECT_EQ(cost.idealWavefronts, 1);
    EXPECT_EQ(cost.bankConflicts(), 31);
    EXPECT_EQ(cost.phases[0].perBank[0], 32);
    EXPECT_EQ(cost.phases[0].perBank[1], 0);
    // Stride 33 words: every lane its own bank.
    EXPECT_EQ(hardwareCost(makeAccess(SharedAccessKind::Load, 4, [](int l) { return 132 * l; })).wavefronts,
              1);
}

TEST(BankCost, LdmatrixOfUnswizzled64HalfRowsIs8Way) {
    // Rows are 128 bytes apart, so a matrix's 8 rows all sit in banks 4c..4c+3: 8 words per bank, 8-way,
    // and the 4 matrices are 4 phases: 32 wavefronts where 4 would do.
    BankCost cost = hardwareCost(ldmatrixBlock(64, /*swizzle=*/false));
    EXPECT_EQ(cost.conflictWays, 8);
    EXPECT_EQ(cost.wavefronts, 32);
    EXPECT_EQ(cost.idealWavefronts, 4);
    ASSERT_EQ(cost.phases.size(), 4u);
    EXPECT_EQ(cost.phases[1].lanes, 0x0000ff00u);
    EXPECT_EQ(sassMetricCost(ldmatrixBlock(64, false)).wavefronts, 32);
    // 32-half rows (64 bytes): two rows share a 128-byte line, so 4-way.
    EXPECT_EQ(hardwareCost(ldmatrixBlock(32, false)).conflictWays, 4);
    EXPECT_EQ(hardwareCost(ldmatrixBlock(32, false)).wavefronts, 16);
}

TEST(BankCost, LdmatrixWith128ByteXorSwizzleIsConflictFree) {
    WarpAccess access = ldmatrixBlock(64, /*swizzle=*/true);
    for (const BankCost& cost : {hardwareCost(access), sassMetricCost(access)}) {
        EXPECT_EQ(cost.conflictWays, 1);
        EXPECT_EQ(cost.wavefronts, 4);
        EXPECT_EQ(cost.idealWavefronts, 4);
    }
    access.transposed = true; // .trans costs the same
    EXPECT_EQ(hardwareCost(access).wavefronts, 4);
}

TEST(BankCost, LdmatrixIgnoresLanesBeyondItsMatrices) {
    WarpAccess access = ldmatrixBlock(64, false);
    access.matrices = 1; // lanes 0-7 only: rows 0-7 of chunk 0
    BankCost cost = hardwareCost(access);
    EXPECT_EQ(cost.wavefronts, 8);
    EXPECT_EQ(cost.idealWavefronts, 1);
    access.activeMask = 0; // .sync.aligned: the mask does not apply
    EXPECT_EQ(hardwareCost(access).wavefronts, 8);
}

TEST(BankCost, Broadcast) {
    auto zero = [](int) { return int64_t(0); };
    // One word for all lanes: one wavefront, whatever the width, for loads.
    EXPECT_EQ(hardwareCost(makeAccess(SharedAccessKind::Load, 4, zero)).wavefronts, 1);
    EXPECT_EQ(hardwareCost(makeAccess(SharedAccessKind::Load, 8, zero)).wavefronts, 1);
    // LDS.128: paired half-warps, one wavefront each.
    BankCost ld128 = hardwareCost(makeAccess(SharedAccessKind::Load, 16, zero));
    EXPECT_EQ(ld128.wavefronts, 2);
    EXPECT_TRUE(ld128.pairedLoad);
    // Stores never pair: one wavefront per 128-byte phase.
    EXPECT_EQ(hardwareCost(makeAccess(SharedAccessKind::Store, 16, zero)).wavefronts, 4);
    EXPECT_EQ(hardwareCost(makeAccess(SharedAccessKind::Store, 8, zero)).wavefronts, 2);
    // cp.async does not merge equal destinations: 32 lanes in the same 4 banks.
    BankCost copy = hardwareCost(makeAccess(SharedAccessKind::CpAsyncCa, 16, zero));
    EXPECT_EQ(copy.wavefronts, 32);
    EXPECT_EQ(copy.conflictWays, 8);
    EXPECT_EQ(sassMetricCost(makeAccess(SharedAccessKind::CpAsyncCa, 16, zero)).wavefronts, 4);
}

TEST(BankCost, PairedLds128) {
    // Lanes l and l^1 read the same 16 bytes: 16 distinct chunks, 256 bytes, half-warp phases.
    WarpAccess pairs = makeAccess(SharedAccessKind::Load, 16, [](int l) { return 16 * (l / 2); });
    BankCost hardware = hardwareCost(pairs);
    EXPECT_TRUE(hardware.pairedLoad);
    EXPECT_EQ(hardware.wavefronts, 2);
    EXPECT_EQ(hardware.idealWavefronts, 2);
    ASSERT_EQ(hardware.phases.size(), 2u);
    EXPECT_EQ(hardware.phases[0].lanes, 0x0000ffffu);
    EXPECT_EQ(sassMetricCost(pairs).wavefronts, 2);
    // Same, but pair 1 moved to byte 128 (banks 0-3 again): half 0 has a 2-way conflict.
    // Hardware: half 0 costs 2, half 1 costs 1 = 3, ideal 2 (two phases).
    // SASS model: half 0 is not conflict-free, so its quarters are summed: lanes 0-7 (2-way) 2 + lanes 8-15
    // 1 = 3; half 1 merged = 1; total 4; ideal = ceil((256 + 128) / 128) = 3.
    WarpAccess conflict =
        makeAccess(SharedAccessKind::Load, 16, [](int l) { return l / 2 == 1 ? 128 : 16 * (l / 2); });
    BankCost hw = hardwareCost(conflict), sass = sassMetricCost(conflict);
    EXPECT_EQ(hw.wavefronts, 3);
    EXPECT_EQ(hw.idealWavefronts, 2);
    EXPECT_EQ(hw.conflictWays, 2);
    EXPECT_EQ(sass.wavefronts, 4);
    EXPECT_EQ(sass.idealWavefronts, 3);
    // Pairing with lane^2 counts; with lane^4 it does not (quarter-warp phases again).
    EXPECT_EQ(
        hardwareCost(makeAccess(SharedAccessKind::Load, 16, [](int l) { return 16 * ((l / 4) * 2 + l % 2); }))
            .wavefronts,
        2);
    EXPECT_EQ(
        hardwareCost(makeAccess(SharedAccessKind::Load, 16, [](int l) { return 16 * ((l / 8) * 4 + l % 4); }))
            .wavefronts,
        4);
    // One broken pair breaks it for the whole warp.
    EXPECT_EQ(hardwareCost(
                  makeAccess(SharedAccessKind::Load, 16, [](int l) { return l == 31 ? 256 : 16 * (l / 2); }))
                  .wavefronts,
              4);
    // An inactive partner does not.
    EXPECT_EQ(hardwareCost(makeAccess(
                               SharedAccessKind::Load, 16, [](int l) { return 16 * (l / 2); }, 0xfffffffd))
                  .wavefronts,
              2);
}

TEST(BankCost, PlainLds128UsesQuarterWarps) {
    // A contiguous 512 bytes read in quarter-permuted order: each quarter-warp hits 4 chunks of one bank
    // group.
    BankCost cost = hardwareCost(
        makeAccess(SharedAccessKind::Load, 16, [](int l) { return 16 * (4 * (l % 8) + l / 8); }));
    EXPECT_EQ(cost.wavefronts, 16);
    EXPECT_EQ(cost.conflictWays, 4);
    EXPECT_EQ(cost.idealWavefronts, 4);
    EXPECT_FALSE(cost.pairedLoad);
}

TEST(BankCost, InactiveLanesAreIgnored) {
    WarpAccess access = makeAccess(
        SharedAccessKind::Load, 4, [](int l) { return 128 * l; }, 0x0000ffffu);
    EXPECT_EQ(hardwareCost(access).wavefronts, 16);
    access.activeMask = 0;
    BankCost none = hardwareCost(access);
    EXPECT_EQ(none.wavefronts, 0);
    EXPECT_EQ(none.idealWavefronts, 0);
    EXPECT_EQ(none.conflictWays, 0);
    EXPECT_TRUE(none.phases.empty());
    EXPECT_EQ(sassMetricCost(access).wavefronts, 0);
    EXPECT_EQ(sassMetricCost(access).idealWavefronts, 0);
}

TEST(BankCost, SassIdealCountsBytesAcrossTheWarp) {
    // Lanes 0, 8, 16, 24 of an STS.128: four quarter-warp phases (hardware ideal 4) but only 64 bytes, so the
    // SASS ideal is 1 (st128_one_per_quarter_row).
    WarpAccess access = makeAccess(
        SharedAccessKind::Store, 16, [](int l) { return 128 * l; }, 0x01010101u);
    EXPECT_EQ(hardwareCost(access).idealWavefronts, 4);
    EXPECT_EQ(sassMetricCost(access).idealWavefronts, 1);
    EXPECT_EQ(sassMetricCost(access).wavefronts, 4);
}

TEST(BankCost, BypassCopyRowSpread) {
    WarpAccess contiguous = makeAccess(SharedAccessKind::CpAsyncCg, 16, [](int l) { return 16 * l; });
    EXPECT_FALSE(hardwareCost(contiguous).cpAsyncCgRowSpread);
    WarpAccess rows =
        makeAccess(SharedAccessKind::CpAsyncCg, 16, [](int l) { return 128 * l + 16 * (l % 8); });
    EXPECT_TRUE(hardwareCost(rows).cpAsyncCgRowSpread);
    EXPECT_EQ(hardwareCost(rows).wavefronts, 4); // conflict-free, yet slow
    rows.kind = SharedAccessKind::CpAsyncCa;
    EXPECT_FALSE(hardwareCost(rows).cpAsyncCgRowSpread);
    // Negative offsets floor to the row below.
    WarpAccess negative =
        makeAccess(SharedAccessKind::CpAsyncCg, 16, [](int l) { return l == 0 ? -16 : 16 * l; });
    EXPECT_TRUE(hardwareCost(negative).cpAsyncCgRowSpread);
}

// Properties over random accesses of every kind and width, including invalid widths: bounded, consistent.
TEST(BankCost, RandomAccessesSatisfyInvariants) {
    std::mt19937 rng(12345);
    const SharedAccessKind kinds[] = {SharedAccessKind::Load,      SharedAccessKind::Store,
                                      SharedAccessKind::LdMatrix,  SharedAccessKind::StMatrix,
                                      SharedAccessKind::CpAsyncCa, SharedAccessKind::CpAsyncCg};
    const int widths[] = {1, 2, 4, 8, 16, 0, -3, 12, 1000};
    for (int trial = 0; trial < 3000; ++trial) {
        WarpAccess access;
        access.kind = kinds[rng() % 6];
        access.widthBytes = widths[rng() % 9];
        access.matrices = int(rng() % 6) - 1;
        access.activeMask = rng() % 4 == 0 ? 0xffffffffu : uint32_t(rng());
        int64_t span = int64_t(1) << (rng() % 13);
        bool pairUp = rng() % 3 == 0;
        for (int lane = 0; lane < 32; ++lane)
            access.address[lane] = int64_t(rng() % span) - (rng() % 5 == 0 ? span / 2 : 0);
        if (pairUp)
            for (int lane = 0; lane < 32; lane += 2)
                access.address[lane + 1] = access.address[lane];
        for (BankModelKind model : {BankModelKind::Hardware, BankModelKind::SassMetric}) {
            BankCost cost = bankCost(access, model);
            int sum = 0, ways = 0;
            uint32_t lanes = 0;
            for (const BankPhase& phase : cost.phases) {
                EXPECT_NE(phase.lanes, 0u);
                EXPECT_EQ(lanes & phase.lanes, 0u); // phases are disjoint
                lanes |= phase.lanes;
                sum += phase.wavefronts;
                ways = std::max(ways, phase.wavefronts);
            }
            EXPECT_EQ(lanes, participatingLanes(access));
            EXPECT_EQ(sum, cost.wavefronts);
            EXPECT_EQ(ways, cost.conflictWays);
            EXPECT_LE(cost.idealWavefronts, cost.wavefronts);
            EXPECT_LE(cost.wavefronts, 32 * 4);
            EXPECT_EQ(cost.idealWavefronts == 0, lanes == 0);
        }
        // The models differ only for LDS.64/LDS.128 and for cp.async with equal destinations.
        if (!isCpAsyncAccess(access.kind) &&
            (access.kind != SharedAccessKind::Load || laneBytes(access) <= 4)) {
            EXPECT_EQ(sassMetricCost(access).wavefronts, hardwareCost(access).wavefronts);
        }
    }
}

} // namespace
} // namespace tb
