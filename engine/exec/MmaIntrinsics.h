// The TensorCoreIntrinEmitter methods (StmtKind::MmaIntrinsic) on the CPU, by the PTX fragment maps: every
// thread of the block keeps its own copy of the local arrays the methods use (`ThreadArrays`), and each
// method does what the warps of the block do on the GPU. Lane l of warp w is thread 32 * w + l; warp w
// works on the tiles of (warp_m, warp_n) = (w % block_row_warps, (w / block_row_warps) % block_col_warps).
//   ldmatrix_a: A micro tile i of k step ks (rows warp_m * warp_row_tiles + 16 i, columns 16 ks of the
//               shared region, swapped when a_transposed) into local[8 i .. 8 i + 7], element v of lane l
//               at the mma.sync A map (layout::mmaAtomA: row l/4 + 8 ((v/2)%2), col 2 (l%4) + v%2 + 8 (v/4)).
//   ldmatrix_b: B micro tile j likewise by the map of two n8 B fragments ([n, k] when b_transposed).
//   mma:        for every (i, j): the C micro tile (i, j) (local[8 (i * warp_cols + j) ..], the 16x16
//               accumulator map) += A_i @ B_j^T, products and sums in single precision in k order, rounded
//               once to C's dtype.
//   stmatrix:   the C micro tiles into shared: C[tile_m * 16 + r, tile_n * 16 + c], or
//               C[tile_m, tile_n, r, c] for a 4-D [M/16, N/16, 16, 16] buffer.
#pragma once

#include "engine/ir/Stmt.h"

#include <cstdint>
#include <functional>

namespace tb {

// A local array of every thread of the block: element e of thread t at data[t * perThread + e].
struct ThreadArrays {
    double* data = nullptr;
    int64_t perThread = 0;
    ir::DType dtype = ir::DType::Float32;

    double& at(int64_t thread, int64_t element) const { return data[thread * perThread + element]; }
};

// An element of a shared tile by its coordinates (2 for ldmatrix: the region's last two dims relative to
// its start; 2 or 4 for stmatrix: the buffer's own), reporting and stopping when out of bounds.
using SharedElement = std::function<double&(const int64_t* index)>;

// The local elements each method reads or writes must exist: perThread of the locals at least
// warpRows * localSizeA (A), warpCols * localSizeB (B), warpRows * warpCols * localSizeC (C).
void runLdmatrix(const ir::MmaEmitter& e, bool operandA, int64_t kStep, int64_t threads, ir::DType sharedType,
                 const SharedElement& shared, const ThreadArrays& local);
void runMma(const ir::MmaEmitter& e, int64_t threads, const ThreadArrays& a, const ThreadArrays& b,
            const ThreadArrays& c);
void runStmatrix(const ir::MmaEmitter& e, int64_t threads, const ThreadArrays& c, size_t sharedRank,
                 ir::DType sharedType, const SharedElement& shared);

} // namespace tb
