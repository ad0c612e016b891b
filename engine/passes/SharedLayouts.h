// Pass 4, shared layouts (reference §4.4): the layout of every shared buffer of each kernel, as TileLang
// chooses it. A gemm operand gets chooseSharedLayout over its last two dimensions, K-major from how the
// gemm uses it (A not transposed, B transposed), with padding allowed on the mma.sync path and not on the
// wgmma path (the descriptors only describe the three swizzles and the plain layout); a buffer used by
// several gemms that ask for different swizzles keeps the smaller one (MergeSwizzleLayouts). Other buffers
// are linear. T.annotate_layout overrides everything (make_swizzled_layout, the full/half/quarter-bank
// makers, make_linear_layout, T.Layout). The reason says which rule decided and whether TMA/wgmma can use it.
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/PassContext.h"
#include "engine/support/Diagnostics.h"

namespace tb::passes {

// Errors from the algebra ("shared-layout-unsupported", "swizzle-cols", ...) at the annotation or gemm.
void runSharedLayouts(const ir::Module& module, layout::LayoutPlan& plan, const PassContext& context,
                      DiagnosticEngine& diagnostics);

} // namespace tb::passes
