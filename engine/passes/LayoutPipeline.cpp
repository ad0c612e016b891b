// The layout passes in order.
#include "engine/passes/LayoutPipeline.h"

#include "engine/passes/CopyPlanning.h"
#include "engine/passes/FragmentDerivation.h"
#include "engine/passes/IrQueries.h"
#include "engine/passes/LayoutInference.h"
#include "engine/passes/LoopPlanning.h"
#include "engine/passes/ReducePlanning.h"
#include "engine/passes/SharedLayouts.h"
#include "engine/passes/SharedMemoryPlanning.h"
#include "engine/passes/WarpPartition.h"

#include <utility>

namespace tb::passes {

void initKernelPlans(const ir::Module& module, layout::LayoutPlan& plan, const PassContext& context) {
    plan.target = context.target;
    plan.kernels.clear();
    for (const KernelRef& k : kernelsOf(module)) {
        layout::KernelPlan kernel;
        kernel.kernel = k.kernel;
        kernel.func = k.func;
        kernel.threads = blockThreads(*k.kernel);
        plan.kernels.push_back(std::move(kernel));
    }
}

layout::LayoutPlan planLayouts(const ir::Module& module, const PassContext& given,
                               DiagnosticEngine& diagnostics) {
    FragmentTableCache tables;
    PassContext context = given;
    if (!context.tables)
        context.tables = &tables;
    layout::LayoutPlan plan;
    initKernelPlans(module, plan, context);
    runWarpPartition(module, plan, context, diagnostics);
    runLayoutInference(module, plan, context, diagnostics);
    runLoopPlanning(module, plan, context, diagnostics);
    runReducePlanning(module, plan, context, diagnostics);
    runCopyPlanning(module, plan, context, diagnostics);
    runSharedLayouts(module, plan, context, diagnostics);
    runSharedMemoryPlanning(module, plan, context, diagnostics);
    return plan;
}

} // namespace tb::passes
