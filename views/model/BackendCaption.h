// The line every canvas starts with: which backend planned the kernel it pictures and the instructions that
// plan issues, e.g. "hopper backend (sm_90a): wgmma m64n128k16" or "portable backend: mma.sync m16n8k16".
// A view of the plan only: the instructions are the gemm plans' (warp partition), never a guess.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/target/Backend.h"

#include <string>

namespace tb::views {

// "wgmma m64n128k16" (the warpgroup atom's N, which computeWarpGrid chose) or "mma.sync m16n8k16".
std::string gemmInstructionCaption(const layout::GemmPlan& gemm);
// "<backend> backend[ (<arch>)]: <the kernel's distinct gemm instructions>"; a kernel without a gemm names
// its bulk copy instructions ("portable backend: no gemm; cp.async").
std::string backendCaption(Backend backend, const Target& target, const layout::KernelPlan& kernel);

} // namespace tb::views
