// Register fragments of tensor-core gemms. The atoms are the PTX ISA's fragment maps (lane = 4*groupID +
// threadID_in_group); the block-level fragments are those atoms grown with Fragment::repeat and
// Fragment::replicate over the atoms of a warp and the warps of the grid (reference §3.2, §3.4).
//
// mma.sync m16n8k16 (f16/bf16 inputs, fp32 accumulator), g = lane/4, q = lane%4:
//   A 16x16 (m, k), 8 regs:   a_v at row g + 8*((v/2)%2), col 2q + v%2 + 8*(v/4)
//   B 16x8 (k, n), 4 regs:    b_v at row(k) 2q + v%2 + 8*(v/2), col(n) g
//   C 16x8 (m, n), 4 regs:    c_v at row g + 8*(v/2), col 2q + v%2
// wgmma m64nNk16, warp w of the warpgroup owns rows 16w..16w+15 of the 64-row atom:
//   D 64xN, N/2 regs:         d_v at row 16w + g + 8*((v/2)%2), col 8*(v/4) + 2q + v%2
//   A 64x16 in registers:     the mma A map per warp, rows offset by 16w.
// mma.sync m16n8k32 (8-bit inputs: e4m3/e5m2, s8/u8), four 8-bit elements per b32 register:
//   A 16x32 (m, k), 16 regs:  a_v at row g + 8*((v/4)%2), col 4q + v%4 + 16*(v/8)
//   B 32x8 (k, n), 8 regs:    b_v at row(k) 4q + v%4 + 16*(v/4), col(n) g
//   C as m16n8k16's. Viewed as 16-bit pairs of K these are exactly the 16-bit A and B maps, which is why
//   ldmatrix (a 16-bit instruction) loads 8-bit operands stored K-major.
#pragma once

#include "engine/layout/algebra/Fragment.h"
#include "engine/layout/algebra/LayoutResult.h"
#include "engine/layout/algebra/WarpPartition.h"

#include <cstdint>

namespace tb::layout {

Fragment mmaAtomA(); // 16x16 (m, k): thread = 4*(i%8) + (j%8)//2, index = j%2 + 2*(i//8) + 4*(j//8)
Fragment mmaAtomB(); // 16x8 (k, n): thread = 4*j + (i%8)//2, index = i%2 + 2*(i//8)
Fragment mmaAtomC(); // 16x8 (m, n): thread = 4*(i%8) + j//2, index = j%2 + 2*(i//8)
// The 16x16 accumulator atom TileLang's emitter uses (two m16n8 tiles side by side, 8 registers).
Fragment mmaAtomC16x16(); // index = j%2 + 2*(i//8) + 4*(j//8)
// B for one 16-column atom (two m16n8 MMAs): (k, n) 16x16, or (n, k) when kInner (B stored [N][K]).
Fragment mmaAtomB16x16(bool kInner);

// The 8-bit atoms (m16n8k32): A 16x32 (m, k); B stored [N][K], so (n, k): 8x32, or 16x32 for two n8 tiles
// (registers 8..15 the second).
Fragment mmaAtomA8(); // thread = 4*(i%8) + (j%16)//4, index = j%4 + 4*(i//8) + 8*(j//16)
Fragment mmaAtomB8(); // (n, k) 8x32: thread = 4*n + (k%16)//4, index = k%4 + 4*(k//16)
Fragment mmaAtomB8x16n();

Fragment wgmmaAtomC(int64_t instN); // 64 x instN over 128 threads, instN/2 registers; pre: instN % 8 == 0
Fragment wgmmaAtomA();              // 64 x 16 over 128 threads, 8 registers
Fragment wgmmaAtomA8();             // 64 x 32 8-bit (k32 forms) over 128 threads, 16 registers

// The accumulator fragment of the whole M x N tile for `grid`.
// mma: atom C 16 x atomN repeated {atomsM, atomsN} on registers (N-atoms fastest), then {mWarp, nWarp} on
// threads (warp id = m + mWarp*n): each warp owns a contiguous warpTileM x warpTileN tile.
// Example (128x128, 2x2 warps): thread = 4*(i%8) + (j%8)//2 + 32*(i//64) + 64*(j//64), 128 registers.
// wgmma: atom 64 x instN repeated {atomsM, atomsN} on registers, then {warpgroupsM, warpgroupsN} on threads.
LayoutResult<Fragment> makeGemmFragmentC(const WarpGrid& grid);

// The A operand in registers (RS gemm), M x K (or K x M when transposed). mma: atom repeated {atomsM, K/16}
// on registers (M-atoms fastest), {mWarp, 1} on threads, replicated over nWarp. wgmma: the 64x16 atom the
// same way over warpgroups; transposed A is an error there ("gemm-fragment-unsupported").
// elementBits 8: the m16n8k32 atom (16x32, K a multiple of 32), K-major only (TileLang's
// makeGemmFragmentA for 8-bit); a transposed 8-bit A is "gemm-fragment-unsupported".
LayoutResult<Fragment> makeGemmFragmentA(const WarpGrid& grid, int64_t K, bool transposed,
                                         int elementBits = 16);

// The B operand in registers (mma.sync only), K x N (or N x K when transposed): replicated over mWarp, then
// repeated over nWarp on threads; N-atoms fastest on registers. elementBits 8: the m16n8k32 atom, B stored
// [N][K] (transposed) only.
LayoutResult<Fragment> makeGemmFragmentB(const WarpGrid& grid, int64_t K, bool transposed,
                                         int elementBits = 16);

} // namespace tb::layout
