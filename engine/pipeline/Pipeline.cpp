#include "engine/pipeline/Pipeline.h"

#include "engine/check/Checks.h"
#include "engine/frontend/Parser.h"
#include "engine/ir/Verifier.h"
#include "engine/passes/BankAnalysis.h"
#include "engine/passes/CopyPlanning.h"
#include "engine/passes/FragmentDerivation.h"
#include "engine/passes/LayoutInference.h"
#include "engine/passes/LayoutPipeline.h"
#include "engine/passes/LoopPlanning.h"
#include "engine/passes/PassContext.h"
#include "engine/passes/ReducePlanning.h"
#include "engine/passes/SharedLayouts.h"
#include "engine/passes/SharedMemoryPlanning.h"
#include "engine/passes/WarpPartition.h"

#include <utility>

namespace tb {

const std::vector<PassInfo>& pipelinePasses() {
    static const std::vector<PassInfo> passes = {
        {"parse", "lex and parse the Python subset of tile programs into a syntax tree"},
        {"elaborate", "run the compile-time Python and build the Tile IR of the specialized kernel"},
        {"verify", "check the Tile IR's internal invariants (a failure is a TileBench bug)"},
        {"check", "check shapes, dtypes, scopes, indices, thread counts and the shared-memory budget"},
        {"warp-partition",
         "choose each gemm's instruction (mma.sync or wgmma) and split its tile over warps"},
        {"layout-inference", "infer every fragment's thread and register layout: strict, common, then free"},
        {"loop-planning", "map each T.Parallel nest to threads and pick its vector width"},
        {"reduce-planning", "plan reductions: thread-local, then shuffles, then a shared-memory round"},
        {"copy-planning", "choose each T.copy's instruction (cp.async, vector ld/st) and thread mapping"},
        {"shared-layouts", "choose each shared buffer's swizzle or padding, honouring T.annotate_layout"},
        {"shared-memory-planning", "bytes per buffer x pipeline stages against the target; blocks per SM"},
        {"bank-analysis", "enumerate every shared-memory warp instruction and count its bank wavefronts"},
    };
    return passes;
}

CompileResult::CompileResult() = default;
CompileResult::~CompileResult() = default;

namespace {

// Times one pass and records it; returns false when the pipeline should stop here.
class PassRunner {
public:
    PassRunner(CompileResult& result, const CompileOptions& options) : m_result(result), m_options(options) {}

    template <typename Fn>
    bool run(const char* name, Fn&& fn) {
        if (m_stopped)
            return false;
        auto start = std::chrono::steady_clock::now();
        fn();
        auto end = std::chrono::steady_clock::now();
        m_result.timings.push_back({name, std::chrono::duration<double, std::milli>(end - start).count()});
        if (m_result.diagnostics.hasErrors() || m_options.stopAfter == name)
            m_stopped = true;
        return !m_stopped;
    }

    bool stopped() const { return m_stopped; }

private:
    CompileResult& m_result;
    const CompileOptions& m_options;
    bool m_stopped = false;
};

} // namespace

std::unique_ptr<CompileResult> compileTileProgram(std::string fileName, std::string text,
                                                  const CompileOptions& options) {
    auto result = std::make_unique<CompileResult>();
    CompileResult& r = *result;
    r.file = r.sources.addFile(std::move(fileName), std::move(text));
    PassRunner passes(r, options);

    passes.run("parse", [&] { r.ast = parseModule(r.sources, r.file, r.diagnostics); });
    passes.run("elaborate",
               [&] { r.module = elaborate(r.sources, r.ast, options.elaborate, r.diagnostics); });
    passes.run("verify", [&] {
        if (r.module)
            verifyModule(*r.module, r.diagnostics);
    });
    passes.run("check", [&] {
        if (r.module)
            check::checkModule(*r.module, options.target, r.diagnostics);
    });

    // The layout engine. Each pass reads the plan its predecessors filled: warp grids fix the gemm
    // fragments that inference propagates; loop, reduce and copy plans follow the inferred fragments;
    // bank analysis needs the copy plans and the chosen shared layouts.
    r.fragmentTables = std::make_unique<passes::FragmentTableCache>();
    passes::PassContext context;
    context.target = options.target;
    context.options.disableWgmma = options.disableWgmma;
    context.sources = &r.sources;
    context.tables = r.fragmentTables.get();
    auto layoutPass = [&](const char* name, auto&& pass) {
        passes.run(name, [&] { pass(*r.module, *r.plan, context, r.diagnostics); });
    };
    if (r.module && !passes.stopped()) {
        r.plan = std::make_unique<layout::LayoutPlan>();
        passes::initKernelPlans(*r.module, *r.plan, context);
    }
    if (r.plan) {
        layoutPass("warp-partition", passes::runWarpPartition);
        layoutPass("layout-inference", passes::runLayoutInference);
        layoutPass("loop-planning", passes::runLoopPlanning);
        layoutPass("reduce-planning", passes::runReducePlanning);
        layoutPass("copy-planning", passes::runCopyPlanning);
        layoutPass("shared-layouts", passes::runSharedLayouts);
        layoutPass("shared-memory-planning", passes::runSharedMemoryPlanning);
        passes.run("bank-analysis",
                   [&] { passes::analyzeSharedAccesses(*r.module, *r.plan, options.target, r.diagnostics); });
    }
    return result;
}

} // namespace tb
