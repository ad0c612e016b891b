// Pass 1, warp partition: one GemmPlan per T.gemm of each kernel — the tensor-core instruction for the
// target (reference §3.1), the warp grid its policy gives (§3.3) and the A/B/C register fragments (§3.2,
// §3.4). The plan's kernels must already be listed (initKernelPlans in LayoutPipeline.h).
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/PassContext.h"
#include "engine/support/Diagnostics.h"

namespace tb::passes {

// Errors: "gemm-shape-symbolic" (a gemm tile that is not a compile-time constant) and the algebra's
// "gemm-dtype-unsupported", "gemm-tile-shape", "no-valid-warp-partition", "gemm-fragment-unsupported".
void runWarpPartition(const ir::Module& module, layout::LayoutPlan& plan, const PassContext& context,
                      DiagnosticEngine& diagnostics);

layout::GemmWarpPolicy toLayoutPolicy(ir::GemmWarpPolicy policy);

} // namespace tb::passes
