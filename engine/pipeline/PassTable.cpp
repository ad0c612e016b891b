// The pass table (see PassTable.h). The order of the layout rows matters: warp grids fix the gemm fragments
// that inference propagates; loop, reduce and copy plans follow the inferred fragments; a shared buffer's
// arena slot is its chosen layout's size; the budget is the arena; the bank analysis enumerates the
// accesses the schedule makes; codegen prints all of it.
#include "engine/pipeline/PassTable.h"

#include "engine/check/Checks.h"
#include "engine/codegen/CudaCodegen.h"
#include "engine/frontend/Parser.h"
#include "engine/ir/Verifier.h"
#include "engine/passes/BankAnalysis.h"
#include "engine/passes/CopyPlanning.h"
#include "engine/passes/KernelSchedule.h"
#include "engine/passes/LayoutInference.h"
#include "engine/passes/LoopPlanning.h"
#include "engine/passes/ReducePlanning.h"
#include "engine/passes/SharedLayouts.h"
#include "engine/passes/SharedMemoryPlanning.h"
#include "engine/passes/WarpPartition.h"
#include "engine/pipeline/PassSnapshots.h"

#include <memory>

namespace tb {

namespace {

void runParse(CompileResult& r, PassEnvironment&) {
    r.ast = parseModule(r.sources, r.file, r.diagnostics);
}

void runElaborate(CompileResult& r, PassEnvironment& e) {
    ElaborateOptions options = e.options.elaborate;
    if (!options.target)
        options.target = &r.device; // host code's get_num_sms() is the device's
    r.module = elaborate(r.sources, r.ast, options, r.diagnostics);
}

void runVerify(CompileResult& r, PassEnvironment&) {
    verifyModule(*r.module, r.diagnostics);
}

void runCheck(CompileResult& r, PassEnvironment& e) {
    check::checkModule(*r.module, e.context.target, r.diagnostics);
}

// The layout passes share one signature: they read the IR and extend the plan.
using LayoutPassFn = void (*)(const ir::Module&, layout::LayoutPlan&, const passes::PassContext&,
                              DiagnosticEngine&);

template <LayoutPassFn Pass>
void runLayoutPass(CompileResult& r, PassEnvironment& e) {
    Pass(*r.module, *r.plan, e.context, r.diagnostics);
}

void runBankAnalysis(CompileResult& r, PassEnvironment& e) {
    passes::analyzeSharedAccesses(*r.module, *r.plan, e.context.target, r.diagnostics);
}

void runCodegen(CompileResult& r, PassEnvironment&) {
    r.cuda = std::make_unique<codegen::CudaKernelSource>(
        codegen::generateCuda(*r.module, *r.plan, r.target, r.diagnostics, &r.sources));
}

} // namespace

const std::vector<PassDefinition>& passTable() {
    static const std::vector<PassDefinition> table = {
        {{"parse", "lex and parse the Python subset of tile programs into a syntax tree"},
         PassNeeds::Source,
         runParse,
         snapshotSyntaxTree},
        {{"elaborate", "run the compile-time Python and build the Tile IR of the specialized kernel"},
         PassNeeds::Ast,
         runElaborate,
         snapshotTileIr},
        {{"verify", "check the Tile IR's internal invariants (a failure is a TileBench bug)"},
         PassNeeds::Module,
         runVerify,
         snapshotIrUnchanged},
        {{"check", "check shapes, dtypes, scopes, indices, thread counts and the shared-memory budget"},
         PassNeeds::Module,
         runCheck,
         snapshotIrUnchanged},
        {{"warp-partition", "choose each gemm's instruction for the backend and split its tile over warps"},
         PassNeeds::Plan,
         runLayoutPass<passes::runWarpPartition>,
         snapshotWarpPartition},
        {{"layout-inference", "infer every fragment's thread and register layout: strict, common, then free"},
         PassNeeds::Plan,
         runLayoutPass<passes::runLayoutInference>,
         snapshotFragments},
        {{"loop-planning", "map each T.Parallel nest to threads and pick its vector width"},
         PassNeeds::Plan,
         runLayoutPass<passes::runLoopPlanning>,
         snapshotLoops},
        {{"reduce-planning", "plan reductions: thread-local, then shuffles, then a shared-memory round"},
         PassNeeds::Plan,
         runLayoutPass<passes::runReducePlanning>,
         snapshotReduces},
        {{"copy-planning", "choose each T.copy's instruction (cp.async, vector ld/st) and thread mapping"},
         PassNeeds::Plan,
         runLayoutPass<passes::runCopyPlanning>,
         snapshotCopies},
        {{"shared-layouts", "choose each shared buffer's swizzle or padding, honouring T.annotate_layout"},
         PassNeeds::Plan,
         runLayoutPass<passes::runSharedLayouts>,
         snapshotSharedLayouts},
        {{"kernel-schedule",
          "lay out the shared arena (offsets, stage copies, alignment, scratch) and schedule each pipeline"},
         PassNeeds::Plan,
         runLayoutPass<passes::runKernelSchedule>,
         snapshotSchedule},
        {{"shared-memory-planning",
          "the arena's bytes against the target's limit; blocks per SM; whether a cooperative grid fits"},
         PassNeeds::Plan,
         runLayoutPass<passes::runSharedMemoryPlanning>,
         snapshotBudget},
        {{"bank-analysis", "enumerate every shared-memory warp instruction and count its bank wavefronts"},
         PassNeeds::Plan,
         runBankAnalysis,
         snapshotBanks},
        {{"codegen", "print the Tile IR and the plan as CUDA C++ for the backend's instruction set"},
         PassNeeds::Cuda,
         runCodegen,
         snapshotCuda},
    };
    return table;
}

} // namespace tb
