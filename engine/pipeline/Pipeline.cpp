// compileTileProgram: runs the pass table's rows in order (see Pipeline.h and PassTable.h).
#include "engine/pipeline/Pipeline.h"

#include "engine/ir/IrQueries.h"
#include "engine/passes/FragmentDerivation.h"
#include "engine/pipeline/PassTable.h"
#include "engine/support/Stopwatch.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace tb {

CompileResult::CompileResult() = default;
CompileResult::~CompileResult() = default;

bool CompileResult::ran(const std::string& pass) const {
    return std::any_of(timings.begin(), timings.end(), [&](const PassTiming& t) { return t.pass == pass; });
}

bool CompileResult::planComplete() const {
    return plan && ran("bank-analysis") && (failedPass.empty() || failedPass == "codegen");
}

const std::vector<PassInfo>& pipelinePasses() {
    static const std::vector<PassInfo> passes = [] {
        std::vector<PassInfo> out;
        for (const PassDefinition& row : passTable())
            out.push_back(row.info);
        return out;
    }();
    return passes;
}

namespace {

// One KernelPlan per Kernel statement, in program order: the frame the layout passes fill.
std::unique_ptr<layout::LayoutPlan> emptyPlan(const ir::Module& module, const Target& target) {
    auto plan = std::make_unique<layout::LayoutPlan>();
    plan->target = target;
    for (const ir::KernelRef& k : ir::kernelsOf(module)) {
        layout::KernelPlan kernel;
        kernel.kernel = k.kernel;
        kernel.func = k.func;
        kernel.threads = ir::blockThreads(*k.kernel);
        kernel.findWarpGroupScopes();
        plan->kernels.push_back(std::move(kernel));
    }
    return plan;
}

bool needsMet(const CompileResult& r, PassNeeds needs) {
    switch (needs) {
    case PassNeeds::Source:
    case PassNeeds::Ast:
        return true;
    case PassNeeds::Module:
    case PassNeeds::Plan:
        return r.module != nullptr;
    case PassNeeds::Cuda:
        return r.module != nullptr && r.plan != nullptr;
    }
    return false;
}

} // namespace

std::unique_ptr<CompileResult> compileTileProgram(std::string fileName, std::string text,
                                                  const CompileOptions& options) {
    auto result = std::make_unique<CompileResult>();
    CompileResult& r = *result;
    r.file = r.sources.addFile(std::move(fileName), std::move(text));
    r.device = options.target;
    r.backend = options.backend.value_or(defaultBackend(options.target));
    std::string why;
    if (!backendSupported(r.device, r.backend, &why)) {
        r.diagnostics.error("backend-unsupported", {}, why, "choose --backend portable for this target");
        r.failedPass = "parse";
        return result;
    }
    r.target = instructionTarget(r.device, r.backend);
    r.fragmentTables = std::make_unique<passes::FragmentTableCache>();

    PassEnvironment environment{options, {}};
    passes::PassContext& context = environment.context;
    context.target = r.target;
    context.device = r.device;
    context.backend = r.backend;
    context.options.disableWgmma = options.disableWgmma;
    context.sources = &r.sources;
    context.tables = r.fragmentTables.get();

    for (const PassDefinition& row : passTable()) {
        if (!needsMet(r, row.needs))
            break;
        if (row.needs == PassNeeds::Plan && !r.plan)
            r.plan = emptyPlan(*r.module, r.target);
        auto start = std::chrono::steady_clock::now();
        row.run(r, environment);
        r.timings.push_back({row.info.name, millisecondsSince(start)});
        if (r.diagnostics.hasErrors()) {
            r.failedPass = row.info.name;
            break;
        }
        if (options.stopAfter == row.info.name)
            break;
    }
    return result;
}

} // namespace tb
