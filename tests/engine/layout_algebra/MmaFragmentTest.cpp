// mma.sync m16n8k16 fragments checked element by element against the PTX ISA figures, written here
// independently of the library (lane = 4*groupID + threadID_in_group), and the block-level accumulator
// against the formula of reference §3.2.
#include "engine/layout/algebra/FragmentTable.h"
#include "engine/layout/algebra/GemmFragments.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace tb::layout;

namespace {

// PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type": A (16x16, .f16x2 a0..a3 = halves
// a0..a7): row = groupID for a0, a1, a4, a5 and groupID + 8 for a2, a3, a6, a7; col = threadID_in_group*2 +
// (i & 1) for a0..a3 and + 8 for a4..a7.
void ptxA(int lane, int i, int& row, int& col) {
    int groupID = lane >> 2, tig = lane % 4;
    bool lowRows = i == 0 || i == 1 || i == 4 || i == 5;
    row = lowRows ? groupID : groupID + 8;
    col = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);
}

// B (16x8, k x n, b0..b3): row = threadID_in_group*2 + (i & 1) for b0, b1 and + 8 for b2, b3; col = groupID.
void ptxB(int lane, int i, int& row, int& col) {
    int groupID = lane >> 2, tig = lane % 4;
    row = tig * 2 + (i & 1) + (i >= 2 ? 8 : 0);
    col = groupID;
}

// C/D (16x8 fp32, c0..c3): row = groupID for c0, c1 and groupID + 8 for c2, c3; col = threadID_in_group*2 +
// (i & 1).
void ptxC(int lane, int i, int& row, int& col) {
    int groupID = lane >> 2, tig = lane % 4;
    row = i < 2 ? groupID : groupID + 8;
    col = tig * 2 + (i & 1);
}

// PTX ISA, "Matrix Fragments for mma.m16n8k32" (.e4m3/.e5m2, .s8/.u8): A (16x32, four .b32 of four elements,
// a0..a15): row = groupID for a0..a3 and a8..a11, groupID + 8 otherwise; col = threadID_in_group*4 + (i & 3),
// + 16 for i >= 8.
void ptxA8(int lane, int i, int& row, int& col) {
    int groupID = lane >> 2, tig = lane % 4;
    bool lowRows = i < 4 || (i >= 8 && i < 12);
    row = lowRows ? groupID : groupID + 8;
    col = tig * 4 + (i & 3) + (i >= 8 ? 16 : 0);
}

// B (32x8, k x n, b0..b7): row = threadID_in_group*4 + (i & 3), + 16 for i >= 4; col = groupID. The atom is
// (n, k) (B stored [N][K]), so the figure's (row, col) is swapped here.
void ptxB8nk(int lane, int i, int& n, int& k) {
    int groupID = lane >> 2, tig = lane % 4;
    k = tig * 4 + (i & 3) + (i >= 4 ? 16 : 0);
    n = groupID;
}

void expectMatchesPtx(const Fragment& f, int registers, void (*ptx)(int, int, int&, int&), const char* what) {
    ASSERT_EQ(f.threadExtent(), 32) << what;
    ASSERT_EQ(f.registersPerThread(), registers) << what;
    int covered = 0;
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < registers; ++i) {
            int row = 0, col = 0;
            ptx(lane, i, row, col);
            EXPECT_EQ(f.threadOf({row, col}), lane) << what << " element " << row << "," << col;
            EXPECT_EQ(f.registerOf({row, col}), i) << what << " element " << row << "," << col;
            ++covered;
        }
    EXPECT_EQ(covered, f.inputSize()) << what; // every element is some (lane, register)
    LayoutResult<FragmentInverseTable> inverse = inverseFragment(f);
    ASSERT_TRUE(inverse.ok()) << what;
    EXPECT_EQ(inverse->unusedSlots(), 0) << what;
}

} // namespace

TEST(MmaFragment, OperandAMatchesPtx) {
    expectMatchesPtx(mmaAtomA(), 8, ptxA, "A m16k16");
}
TEST(MmaFragment, OperandBMatchesPtx) {
    expectMatchesPtx(mmaAtomB(), 4, ptxB, "B k16n8");
}
TEST(MmaFragment, AccumulatorMatchesPtx) {
    expectMatchesPtx(mmaAtomC(), 4, ptxC, "C m16n8");
}

TEST(MmaFragment, EightBitOperandsMatchPtxM16n8k32) {
    expectMatchesPtx(mmaAtomA8(), 16, ptxA8, "A m16k32 8-bit");
    expectMatchesPtx(mmaAtomB8(), 8, ptxB8nk, "B n8k32 8-bit");
}

TEST(MmaFragment, EightBitOperandsAreTheSixteenBitMapsOverPairsOfK) {
    // What lets ldmatrix (16-bit matrices) load them: element (r, c) of an 8-bit atom is held by the lane
    // that holds the 16-bit atom's element (r, c/2), in the same b32 register (v/4 of four bytes, v/2 of two
    // halves).
    Fragment a8 = mmaAtomA8(), a16 = mmaAtomA();
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 32; ++c) {
            EXPECT_EQ(a8.threadOf({r, c}), a16.threadOf({r, c / 2})) << r << "," << c;
            EXPECT_EQ(*a8.registerOf({r, c}) / 4, *a16.registerOf({r, c / 2}) / 2) << r << "," << c;
        }
    Fragment b8 = mmaAtomB8(), b16 = mmaAtomB().permuteInputs({1, 0}); // both (n, k)
    for (int n = 0; n < 8; ++n)
        for (int k = 0; k < 32; ++k) {
            EXPECT_EQ(b8.threadOf({n, k}), b16.threadOf({n, k / 2})) << n << "," << k;
            EXPECT_EQ(*b8.registerOf({n, k}) / 4, *b16.registerOf({n, k / 2}) / 2) << n << "," << k;
        }
}

TEST(MmaFragment, EightBitBlockOperandsAreKMajorOnly) {
    WarpGrid grid = *computeWarpGrid(128, 128, 4, GemmWarpPolicy::Square, GemmInstruction{});
    Fragment a = *makeGemmFragmentA(grid, 64, /*transposed=*/false, /*elementBits=*/8);
    EXPECT_EQ(a.inputShape(), (std::vector<int64_t>{128, 64}));
    EXPECT_EQ(a.registersPerThread(), 16 * 4 * 2); // 4 row atoms x 2 k atoms of 16 registers
    EXPECT_EQ(a.replicateExtent(), 2);
    for (int i = 0; i < 128; i += 3)
        for (int k = 0; k < 64; ++k) {
            int v = k % 4 + 4 * ((i % 16) / 8) + 8 * ((k % 32) / 16);
            EXPECT_EQ(a.registerOf({i, k}), v + 16 * ((i % 64) / 16 + 4 * (k / 32))) << i << "," << k;
            EXPECT_EQ(*a.threadOf({i, k}) % 32, 4 * (i % 8) + (k % 16) / 4);
        }
    Fragment b = *makeGemmFragmentB(grid, 64, /*transposed=*/true, /*elementBits=*/8);
    EXPECT_EQ(b.inputShape(), (std::vector<int64_t>{128, 64}));
    for (int n = 0; n < 128; n += 5)
        for (int k = 0; k < 64; ++k) {
            EXPECT_EQ(*b.threadOf({n, k}) % 32, 4 * (n % 8) + (k % 16) / 4) << n << "," << k;
            EXPECT_EQ(*b.threadOf({n, k}) / 32 / grid.mWarp, n / 64);
        }
    EXPECT_TRUE(inverseFragment(a).ok());
    EXPECT_TRUE(inverseFragment(b).ok());
    EXPECT_EQ(makeGemmFragmentA(grid, 64, true, 8).error().code, "gemm-fragment-unsupported");
    EXPECT_EQ(makeGemmFragmentB(grid, 64, false, 8).error().code, "gemm-fragment-unsupported");
    EXPECT_EQ(makeGemmFragmentA(grid, 48, false, 8).error().code, "gemm-fragment-unsupported"); // K % 32
}

TEST(MmaFragment, AccumulatorClosedForm) {
    // lane = 4*(row%8) + (col%8)/2, reg = (col%2) + 2*(row/8).
    Fragment c = mmaAtomC();
    for (int row = 0; row < 16; ++row)
        for (int col = 0; col < 8; ++col) {
            EXPECT_EQ(c.threadOf({row, col}), 4 * (row % 8) + (col % 8) / 2);
            EXPECT_EQ(c.registerOf({row, col}), (col % 2) + 2 * (row / 8));
        }
}

TEST(MmaFragment, SixteenWideAtoms) {
    // Two m16n8 tiles side by side: registers 4..7 are the second tile.
    Fragment c = mmaAtomC16x16();
    Fragment b = mmaAtomB16x16(/*kInner=*/true); // B stored [n][k]
    for (int r = 0; r < 16; ++r)
        for (int s = 0; s < 16; ++s) {
            EXPECT_EQ(c.threadOf({r, s}), 4 * (r % 8) + (s % 8) / 2);
            EXPECT_EQ(c.registerOf({r, s}), 4 * (s / 8) + 2 * (r / 8) + s % 2);
            EXPECT_EQ(b.threadOf({r, s}), 4 * (r % 8) + (s % 8) / 2); // r = n, s = k
            EXPECT_EQ(b.registerOf({r, s}), 4 * (r / 8) + 2 * (s / 8) + s % 2);
        }
}

TEST(MmaFragment, BlockAccumulator128x128On2x2Warps) {
    // Reference §3.2: thread = 4(i%8) + (j%8)/2 + 32(i/64 + 2(j/64)), 128 registers per thread.
    WarpGrid grid = *computeWarpGrid(128, 128, 4, GemmWarpPolicy::Square, GemmInstruction{});
    Fragment c = *makeGemmFragmentC(grid);
    EXPECT_EQ(c.threadExtent(), 128);
    EXPECT_EQ(c.registersPerThread(), 128);
    for (int i = 0; i < 128; ++i)
        for (int j = 0; j < 128; ++j) {
            ASSERT_EQ(c.threadOf({i, j}), 4 * (i % 8) + (j % 8) / 2 + 32 * (i / 64 + 2 * (j / 64)))
                << i << "," << j;
            // local = ((i/16)%warp_rows)*warp_cols*R + ((j/16)%warp_cols)*R + v(i%16, j%16), R = 8.
            int v = 4 * ((j % 16) / 8) + 2 * ((i % 16) / 8) + j % 2;
            ASSERT_EQ(c.registerOf({i, j}), ((i / 16) % 4) * 4 * 8 + ((j / 16) % 4) * 8 + v) << i << "," << j;
        }
    EXPECT_EQ(inverseFragment(c)->unusedSlots(), 0);
}

TEST(MmaFragment, BlockAccumulatorEachWarpOwnsAContiguousTile) {
    for (GemmWarpPolicy policy : {GemmWarpPolicy::Square, GemmWarpPolicy::FullRow, GemmWarpPolicy::FullCol}) {
        WarpGrid grid = *computeWarpGrid(64, 128, 8, policy, GemmInstruction{});
        Fragment c = *makeGemmFragmentC(grid);
        ASSERT_EQ(c.threadExtent(), 256) << grid.toString();
        for (int i = 0; i < 64; ++i)
            for (int j = 0; j < 128; ++j) {
                int warp = int(*c.threadOf({i, j}) / 32);
                EXPECT_EQ(warp % grid.mWarp, i / grid.warpTileM) << grid.toString();
                EXPECT_EQ(warp / grid.mWarp, j / grid.warpTileN) << grid.toString();
            }
    }
}

TEST(MmaFragment, OperandFragmentsAreReplicatedAcrossTheOtherDimension) {
    WarpGrid grid = *computeWarpGrid(128, 128, 4, GemmWarpPolicy::Square, GemmInstruction{});
    Fragment a = *makeGemmFragmentA(grid, 32, /*transposed=*/false);
    EXPECT_EQ(a.inputShape(), (std::vector<int64_t>{128, 32}));
    EXPECT_EQ(a.replicateExtent(), 2);
    EXPECT_EQ(a.registersPerThread(), 8 * 4 * 2);
    Fragment c = *makeGemmFragmentC(grid);
    for (int i = 0; i < 128; i += 3)
        for (int k = 0; k < 32; ++k) {
            // local = v + 8*(row_atom + warp_rows*k_atom)
            int v = 4 * ((k % 16) / 8) + 2 * ((i % 16) / 8) + k % 2;
            EXPECT_EQ(a.registerOf({i, k}), v + 8 * ((i % 64) / 16 + 4 * (k / 16)));
            // Every warp whose C rows include row i holds A's row i.
            for (int rep = 0; rep < 2; ++rep) {
                int warp = int(*a.threadOf({i, k}, rep) / 32);
                EXPECT_EQ(warp % grid.mWarp, i / 64);
                EXPECT_EQ(warp / grid.mWarp, rep);
            }
        }
    Fragment at = *makeGemmFragmentA(grid, 32, /*transposed=*/true);
    for (int k = 0; k < 32; ++k)
        for (int i = 0; i < 128; i += 5)
            EXPECT_EQ(at.threadOf({k, i}, 1), a.threadOf({i, k}, 1));
    Fragment b = *makeGemmFragmentB(grid, 32, /*transposed=*/false);
    EXPECT_EQ(b.inputShape(), (std::vector<int64_t>{32, 128}));
    EXPECT_EQ(b.replicateExtent(), 2);
    for (int k = 0; k < 32; ++k)
        for (int n = 0; n < 128; n += 3)
            for (int rep = 0; rep < 2; ++rep) {
                int warp = int(*b.threadOf({k, n}, rep) / 32);
                EXPECT_EQ(warp / grid.mWarp, n / 64);
                EXPECT_EQ(warp % grid.mWarp, rep);
            }
    Fragment bt = *makeGemmFragmentB(grid, 32, /*transposed=*/true);
    for (int k = 0; k < 32; k += 3)
        for (int n = 0; n < 128; n += 7)
            EXPECT_EQ(bt.threadOf({n, k}, 1), b.threadOf({k, n}, 1));
    EXPECT_TRUE(inverseFragment(a).ok());
    EXPECT_TRUE(inverseFragment(b).ok());
    EXPECT_EQ(makeGemmFragmentA(grid, 24, false).error().code, "gemm-fragment-unsupported");
}
