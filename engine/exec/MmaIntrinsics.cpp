// The TensorCoreIntrinEmitter methods on the CPU (see MmaIntrinsics.h). The fragment maps are the layout
// algebra's mma.sync atoms, tabulated once per operand.
#include "engine/exec/MmaIntrinsics.h"

#include "engine/exec/HostTensor.h"
#include "engine/layout/algebra/GemmFragments.h"

#include <array>
#include <cstdint>
#include <utility>

namespace tb {

namespace {

constexpr int64_t kTile = 16;

// Lane and register of every element of a 16 x 16 atom.
struct AtomTable {
    std::array<std::array<int64_t, kTile>, kTile> lane{};
    std::array<std::array<int64_t, kTile>, kTile> reg{};
};

AtomTable tableOf(const layout::Fragment& atom) {
    AtomTable t;
    for (int64_t r = 0; r < kTile; ++r)
        for (int64_t c = 0; c < kTile; ++c) {
            t.lane[r][c] = atom.threadOf({r, c}).value_or(0);
            t.reg[r][c] = atom.registerOf({r, c}).value_or(0);
        }
    return t;
}

const AtomTable& atomA() { // (m, k)
    static const AtomTable table = tableOf(layout::mmaAtomA());
    return table;
}
const AtomTable& atomB() { // (n, k): two m16n8k16 B fragments side by side
    static const AtomTable table = tableOf(layout::mmaAtomB16x16(/*kInner=*/true));
    return table;
}
const AtomTable& atomC() { // (m, n)
    static const AtomTable table = tableOf(layout::mmaAtomC16x16());
    return table;
}

struct WarpPosition {
    int64_t m = 0, n = 0;
};

WarpPosition warpPosition(const ir::MmaEmitter& e, int64_t warp) {
    return {warp % e.blockRowWarps, (warp / e.blockRowWarps) % e.blockColWarps};
}

int64_t warpsOf(int64_t threads) {
    return (threads + ir::MmaEmitter::kWarpSize - 1) / ir::MmaEmitter::kWarpSize;
}

// Calls fn(thread, r, c, reg) for every element of a 16 x 16 atom held by a thread of the block.
template <typename Fn>
void forEachAtomElement(const AtomTable& atom, int64_t warp, int64_t threads, Fn&& fn) {
    for (int64_t r = 0; r < kTile; ++r)
        for (int64_t c = 0; c < kTile; ++c) {
            const int64_t thread = warp * ir::MmaEmitter::kWarpSize + atom.lane[r][c];
            if (thread < threads)
                fn(thread, r, c, atom.reg[r][c]);
        }
}

} // namespace

void runLdmatrix(const ir::MmaEmitter& e, bool operandA, int64_t kStep, int64_t threads, ir::DType sharedType,
                 const SharedElement& shared, const ThreadArrays& local) {
    const AtomTable& atom = operandA ? atomA() : atomB();
    const int64_t tiles = operandA ? e.warpRows() : e.warpCols();
    const int64_t perTile = operandA ? e.localSizeA() : e.localSizeB();
    const int64_t k0 = kStep * e.microK();
    for (int64_t w = 0; w < warpsOf(threads); ++w) {
        const WarpPosition p = warpPosition(e, w);
        for (int64_t t = 0; t < tiles; ++t) {
            // Rows of the tile: m (A) or n (B); columns: k. The shared tile is stored transposed or not.
            const int64_t row0 =
                operandA ? p.m * e.warpRowTiles + t * kTile : p.n * e.warpColTiles + t * kTile;
            const bool kMajor = operandA ? !e.aTransposed : e.bTransposed; // [rows, k] in shared
            forEachAtomElement(atom, w, threads, [&](int64_t thread, int64_t r, int64_t c, int64_t reg) {
                int64_t index[2] = {row0 + r, k0 + c};
                if (!kMajor)
                    std::swap(index[0], index[1]);
                local.at(thread, t * perTile + reg) = convertValue(shared(index), sharedType, local.dtype);
            });
        }
    }
}

void runMma(const ir::MmaEmitter& e, int64_t threads, const ThreadArrays& a, const ThreadArrays& b,
            const ThreadArrays& c) {
    float tileA[kTile][kTile], tileB[kTile][kTile], tileC[kTile][kTile];
    for (int64_t w = 0; w < warpsOf(threads); ++w)
        for (int64_t i = 0; i < e.warpRows(); ++i)
            for (int64_t j = 0; j < e.warpCols(); ++j) {
                const int64_t cBase = (i * e.warpCols() + j) * e.localSizeC();
                forEachAtomElement(
                    atomA(), w, threads, [&](int64_t thread, int64_t r, int64_t col, int64_t reg) {
                        tileA[r][col] = static_cast<float>(a.at(thread, i * e.localSizeA() + reg));
                    });
                forEachAtomElement(
                    atomB(), w, threads, [&](int64_t thread, int64_t r, int64_t col, int64_t reg) {
                        tileB[r][col] = static_cast<float>(b.at(thread, j * e.localSizeB() + reg));
                    });
                forEachAtomElement(atomC(), w, threads,
                                   [&](int64_t thread, int64_t r, int64_t col, int64_t reg) {
                                       tileC[r][col] = static_cast<float>(c.at(thread, cBase + reg));
                                   });
                for (int64_t m = 0; m < kTile; ++m)
                    for (int64_t n = 0; n < kTile; ++n) {
                        float acc = tileC[m][n];
                        for (int64_t k = 0; k < kTile; ++k) {
                            float product = tileA[m][k] * tileB[n][k];
                            acc = acc + product; // no fma: this file is built with -ffp-contract=off
                        }
                        tileC[m][n] = acc;
                    }
                forEachAtomElement(
                    atomC(), w, threads, [&](int64_t thread, int64_t r, int64_t col, int64_t reg) {
                        c.at(thread, cBase + reg) =
                            convertValue(static_cast<double>(tileC[r][col]), ir::DType::Float32, c.dtype);
                    });
            }
}

void runStmatrix(const ir::MmaEmitter& e, int64_t threads, const ThreadArrays& c, size_t sharedRank,
                 ir::DType sharedType, const SharedElement& shared) {
    for (int64_t w = 0; w < warpsOf(threads); ++w) {
        const WarpPosition p = warpPosition(e, w);
        for (int64_t i = 0; i < e.warpRows(); ++i)
            for (int64_t j = 0; j < e.warpCols(); ++j) {
                const int64_t tileM = p.m * e.warpRows() + i, tileN = p.n * e.warpCols() + j;
                const int64_t cBase = (i * e.warpCols() + j) * e.localSizeC();
                forEachAtomElement(atomC(), w, threads,
                                   [&](int64_t thread, int64_t r, int64_t col, int64_t reg) {
                                       int64_t index4[4] = {tileM, tileN, r, col};
                                       int64_t index2[2] = {tileM * kTile + r, tileN * kTile + col};
                                       shared(sharedRank == 4 ? index4 : index2) =
                                           convertValue(c.at(thread, cBase + reg), c.dtype, sharedType);
                                   });
            }
    }
}

} // namespace tb
