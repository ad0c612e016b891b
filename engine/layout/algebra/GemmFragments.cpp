// PTX fragment atoms and the block-level gemm fragments built from them.
#include "engine/layout/algebra/GemmFragments.h"

#include <string>
#include <vector>

namespace tb::layout {

namespace {

using Vars = std::vector<IndexExpr>;

// The common lane pattern of 16-bit mma operands: element (r, c) of an 8-row slab is held by lane
// 4*(r%8) + (c%8)//2, two consecutive columns per lane.
IndexExpr lane16(const IndexExpr& row, const IndexExpr& col) {
    return 4 * floorMod(row, 8) + floorDiv(floorMod(col, 8), 2);
}

// Unwraps a repeat that cannot fail for the shapes built here; on failure returns the error.
#define TB_TRY_FRAGMENT(var, expr)                                                                           \
    LayoutResult<Fragment> var##Result = (expr);                                                             \
    if (!var##Result)                                                                                        \
        return var##Result.error();                                                                          \
    Fragment var = *var##Result

} // namespace

Fragment mmaAtomA() {
    return Fragment::fromFunctions(
        {16, 16}, [](const Vars& v, const IndexExpr&) { return lane16(v[0], v[1]); },
        [](const Vars& v) {
            return Vars{floorMod(v[1], 2) + 2 * floorDiv(v[0], 8) + 4 * floorDiv(v[1], 8)};
        });
}

Fragment mmaAtomB() {
    // (k, n): the lane's groupID is the column n, threadID_in_group picks the k pair.
    return Fragment::fromFunctions(
        {16, 8}, [](const Vars& v, const IndexExpr&) { return lane16(v[1], v[0]); },
        [](const Vars& v) { return Vars{floorMod(v[0], 2) + 2 * floorDiv(v[0], 8)}; });
}

Fragment mmaAtomC() {
    return Fragment::fromFunctions(
        {16, 8}, [](const Vars& v, const IndexExpr&) { return lane16(v[0], v[1]); },
        [](const Vars& v) { return Vars{floorMod(v[1], 2) + 2 * floorDiv(v[0], 8)}; });
}

Fragment mmaAtomC16x16() {
    return *mmaAtomC().repeat({1, 2}, /*repeatOnThread=*/false, /*lowerDimFirst=*/true);
}

Fragment mmaAtomB16x16(bool kInner) {
    Fragment kn = *mmaAtomB().repeat({1, 2}, /*repeatOnThread=*/false, /*lowerDimFirst=*/true);
    return kInner ? kn.permuteInputs({1, 0}) : kn;
}

Fragment mmaAtomA8() {
    // Four consecutive k of one row per register: lane 4*(m%8) + (k%16)//4.
    return Fragment::fromFunctions(
        {16, 32},
        [](const Vars& v, const IndexExpr&) {
            return 4 * floorMod(v[0], 8) + floorDiv(floorMod(v[1], 16), 4);
        },
        [](const Vars& v) {
            return Vars{floorMod(v[1], 4) + 4 * floorDiv(v[0], 8) + 8 * floorDiv(v[1], 16)};
        });
}

Fragment mmaAtomB8() {
    return Fragment::fromFunctions(
        {8, 32}, [](const Vars& v, const IndexExpr&) { return 4 * v[0] + floorDiv(floorMod(v[1], 16), 4); },
        [](const Vars& v) { return Vars{floorMod(v[1], 4) + 4 * floorDiv(v[1], 16)}; });
}

Fragment mmaAtomB8x16n() {
    return *mmaAtomB8().repeat({2, 1}, /*repeatOnThread=*/false, /*lowerDimFirst=*/true);
}

Fragment wgmmaAtomC(int64_t instN) {
    int64_t blocks = instN >= 8 ? instN / 8 : 1;
    Fragment warp = *mmaAtomC().repeat({1, blocks}, /*repeatOnThread=*/false, /*lowerDimFirst=*/true);
    return *warp.repeat({4, 1}, /*repeatOnThread=*/true, /*lowerDimFirst=*/false);
}

Fragment wgmmaAtomA() {
    return *mmaAtomA().repeat({4, 1}, /*repeatOnThread=*/true, /*lowerDimFirst=*/false);
}

Fragment wgmmaAtomA8() {
    return *mmaAtomA8().repeat({4, 1}, /*repeatOnThread=*/true, /*lowerDimFirst=*/false);
}

LayoutResult<Fragment> makeGemmFragmentC(const WarpGrid& grid) {
    if (grid.atomsM < 1 || grid.atomsN < 1)
        return layoutError("gemm-fragment-unsupported", "the warp grid has no atoms: " + grid.toString());
    if (grid.instruction == GemmInstructionKind::Wgmma) {
        TB_TRY_FRAGMENT(perGroup, wgmmaAtomC(grid.atomN).repeat({grid.atomsM, grid.atomsN}, false, true));
        return perGroup.repeat({grid.warpgroupsM, grid.warpgroupsN}, /*repeatOnThread=*/true,
                               /*lowerDimFirst=*/false);
    }
    Fragment atom = grid.atomN == 16 ? mmaAtomC16x16() : mmaAtomC();
    TB_TRY_FRAGMENT(
        perWarp, atom.repeat({grid.atomsM, grid.atomsN}, /*repeatOnThread=*/false, /*lowerDimFirst=*/true));
    return perWarp.repeat({grid.mWarp, grid.nWarp}, /*repeatOnThread=*/true, /*lowerDimFirst=*/false);
}

LayoutResult<Fragment> makeGemmFragmentA(const WarpGrid& grid, int64_t K, bool transposed, int elementBits) {
    const bool eightBit = elementBits == 8;
    const int64_t atomK = eightBit ? 32 : 16;
    if (K < atomK || K % atomK != 0)
        return layoutError("gemm-fragment-unsupported", "an a operand fragment needs K to be a multiple of " +
                                                            std::to_string(atomK) + ", got " +
                                                            std::to_string(K));
    bool wgmma = grid.instruction == GemmInstructionKind::Wgmma;
    if ((wgmma || eightBit) && transposed)
        return layoutError("gemm-fragment-unsupported",
                           std::string(eightBit ? "an 8-bit" : "wgmma reads a register") +
                               " A operand fragment is K-major only",
                           "keep A untransposed, or put it in shared memory");
    Fragment atom = wgmma ? (eightBit ? wgmmaAtomA8() : wgmmaAtomA()) : (eightBit ? mmaAtomA8() : mmaAtomA());
    int64_t atomsM = wgmma ? grid.warpTileM / 64 : grid.warpTileM / 16;
    int64_t unitsM = wgmma ? grid.warpgroupsM : grid.mWarp;
    int64_t replicas = grid.nWarp;
    int64_t kAtoms = K / atomK;
    if (transposed) {
        TB_TRY_FRAGMENT(perWarp,
                        atom.permuteInputs({1, 0}).repeat({kAtoms, atomsM}, false, /*lowerDimFirst=*/true));
        TB_TRY_FRAGMENT(tiled, perWarp.repeat({1, unitsM}, true, false));
        return tiled.replicate(replicas);
    }
    TB_TRY_FRAGMENT(perWarp, atom.repeat({atomsM, kAtoms}, false, /*lowerDimFirst=*/false));
    TB_TRY_FRAGMENT(tiled, perWarp.repeat({unitsM, 1}, true, false));
    return tiled.replicate(replicas);
}

LayoutResult<Fragment> makeGemmFragmentB(const WarpGrid& grid, int64_t K, bool transposed, int elementBits) {
    if (grid.instruction == GemmInstructionKind::Wgmma)
        return layoutError("gemm-fragment-unsupported", "wgmma reads B from shared memory only",
                           "keep the B operand in shared memory");
    const bool eightBit = elementBits == 8;
    const int64_t atomK = eightBit ? 32 : 16;
    if (K < atomK || K % atomK != 0)
        return layoutError("gemm-fragment-unsupported", "a b operand fragment needs K to be a multiple of " +
                                                            std::to_string(atomK) + ", got " +
                                                            std::to_string(K));
    if (eightBit && !transposed)
        return layoutError("gemm-fragment-unsupported",
                           "an 8-bit B operand fragment is K-major ([N][K]) only",
                           "store B as [N][K] and pass transpose_B=True");
    int64_t kAtoms = K / atomK;
    Fragment atom = eightBit           ? (grid.atomN == 16 ? mmaAtomB8x16n() : mmaAtomB8())
                    : grid.atomN == 16 ? mmaAtomB16x16(transposed)
                                       : (transposed ? mmaAtomB().permuteInputs({1, 0}) : mmaAtomB());
    if (transposed) { // (n, k)
        TB_TRY_FRAGMENT(perWarp, atom.repeat({grid.atomsN, kAtoms}, false, /*lowerDimFirst=*/false));
        return perWarp.replicate(grid.mWarp).repeat({grid.nWarp, 1}, true, false);
    }
    TB_TRY_FRAGMENT(perWarp, atom.repeat({kAtoms, grid.atomsN}, false, /*lowerDimFirst=*/true));
    return perWarp.replicate(grid.mWarp).repeat({1, grid.nWarp}, true, false);
}

} // namespace tb::layout

#undef TB_TRY_FRAGMENT
