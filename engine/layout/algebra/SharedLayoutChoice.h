// Which shared-memory layout a GEMM operand buffer gets (reference §4.4). The mma path allows padding
// (TileLang's MakeGemmABLayout); the WGMMA/TMA path does not (MakeGemmABLayoutHopper), because the
// descriptors only describe the three swizzles and the plain (interleaved) layout.
#pragma once

#include "engine/layout/algebra/Layout.h"
#include "engine/layout/algebra/LayoutResult.h"
#include "engine/layout/algebra/Swizzle.h"

#include <cstdint>
#include <string>

namespace tb::layout {

enum class SharedLayoutKind { Linear, Padded, Quarter32B, Half64B, Full128B };

const char* sharedLayoutKindName(SharedLayoutKind kind); // "linear", "padded", "swizzle-32B", ...

struct SharedLayoutChoice {
    SharedLayoutKind kind = SharedLayoutKind::Linear;
    Layout layout;
    std::string reason; // one line: which rule chose it, with the numbers
};

// rows x cols is the buffer's last two dimensions (cols contiguous); elementBits is the dtype width;
// kMajor says whether the contiguous dimension is the GEMM's K (A not transposed, B transposed).
// allowPad (mma path): 8-bit MN-major -> padded; else cols % 8vec -> 128B, % 4vec -> 64B, % 2vec -> 32B,
// else padded (vec = 128/bits). Swizzles also need rows % 8 == 0 (padded otherwise); fp64 swizzles are not
// modelled and fall back to padded.
// !allowPad (WGMMA/TMA): the same swizzle ladder when rows % 8 == 0, else linear when cols % vec == 0, else
// error "shared-layout-unsupported".
// continuity (0: cols) bounds the swizzle's width too: TileLang's `continuity` of an MN-major wgmma operand,
// the columns one instruction and one warpgroup read (a swizzle panel may not straddle two warpgroups).
// Example: f16 A tile 128x32 (block_K = 32), K-major, allowPad -> 64B swizzle; f16 B tile 32x64 MN-major
// read by two warpgroups of 32 columns (continuity 32) -> 64B, not 128B.
LayoutResult<SharedLayoutChoice> chooseSharedLayout(int64_t rows, int64_t cols, int elementBits, bool kMajor,
                                                    bool allowPad, int64_t continuity = 0);

} // namespace tb::layout
