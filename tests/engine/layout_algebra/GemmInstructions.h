// Gemm instructions that the layout-algebra tests build fragments and warp grids for.
#pragma once

#include "engine/layout/algebra/GemmInstruction.h"

namespace tb::layout::testing {

// wgmma m64, N left open (0): the instruction the warp-grid and fragment code choose N for.
inline GemmInstruction wgmmaWithAnyN() {
    GemmInstruction inst;
    inst.kind = GemmInstructionKind::Wgmma;
    inst.m = 64;
    inst.n = 0;
    return inst;
}

} // namespace tb::layout::testing
