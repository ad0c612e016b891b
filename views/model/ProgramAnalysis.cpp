// Runs the pipeline and keeps what the views need: the layout plan it computed, the printed IR and its links.
#include "views/model/ProgramAnalysis.h"

#include "engine/passes/BankAnalysis.h"
#include "engine/passes/LayoutPipeline.h"

#include <algorithm>
#include <chrono>
#include <tuple>

namespace tb::views {

namespace {

// Once the pipeline fills CompileResult::plan, take it from there instead of planning again.
template <typename R>
std::unique_ptr<layout::LayoutPlan> takePipelinePlan(R& result) {
    if constexpr (requires { result.plan; })
        return std::move(result.plan);
    else
        return nullptr;
}

void maxStagesIn(const ir::StmtPtr& stmt, int64_t& stages, int depth) {
    if (!stmt || depth > 200 || stages > 0)
        return;
    if (stmt->kind == ir::StmtKind::For && stmt->loopKind == ir::LoopKind::Pipelined) {
        stages = stmt->pipeline.numStages;
        return;
    }
    for (const ir::StmtPtr& s : stmt->stmts)
        maxStagesIn(s, stages, depth + 1);
    maxStagesIn(stmt->body, stages, depth + 1);
    maxStagesIn(stmt->elseBody, stages, depth + 1);
}

} // namespace

std::vector<Diagnostic> ProgramAnalysis::diagnostics() const {
    if (!compile)
        return {};
    std::vector<Diagnostic> out = compile->diagnostics.diagnostics();
    std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::tie(a.range.file, a.range.begin) < std::tie(b.range.file, b.range.begin);
    });
    return out;
}

uint32_t ProgramAnalysis::lineOf(const SourceRange& range) const {
    if (!compile || !range.valid || range.file >= compile->sources.fileCount())
        return 0;
    return compile->sources.file(range.file).lineCol(range.begin).line;
}

std::vector<int> ProgramAnalysis::irLinesOfSourceLine(uint32_t line) const {
    std::vector<int> out;
    for (size_t i = 0; i < irLines.size(); ++i)
        if (line != 0 && lineOf(irLines[i].range) == line)
            out.push_back(int(i));
    return out;
}

uint32_t ProgramAnalysis::sourceLineOfIrLine(int irLine) const {
    if (irLine < 0 || size_t(irLine) >= irLines.size())
        return 0;
    return lineOf(irLines[size_t(irLine)].range);
}

const layout::KernelPlan* ProgramAnalysis::kernel(size_t index) const {
    if (!plan || index >= plan->kernels.size())
        return nullptr;
    return &plan->kernels[index];
}

int64_t ProgramAnalysis::numStages() const {
    if (!compile || !compile->module)
        return 0;
    for (const ir::SpecializationParam& p : compile->module->specialization)
        if (p.name == "num_stages" && std::holds_alternative<int64_t>(p.value))
            return std::get<int64_t>(p.value);
    int64_t stages = 0;
    for (const ir::PrimFunc& f : compile->module->funcs)
        maxStagesIn(f.body, stages, 0);
    return stages;
}

std::shared_ptr<ProgramAnalysis> analyzeProgram(std::string fileName, std::string text,
                                                const CompileOptions& options, uint64_t generation) {
    auto analysis = std::make_shared<ProgramAnalysis>();
    analysis->generation = generation;
    auto t0 = std::chrono::steady_clock::now();
    analysis->compile = compileTileProgram(std::move(fileName), std::move(text), options);
    auto t1 = std::chrono::steady_clock::now();
    analysis->compileMilliseconds = std::chrono::duration<double, std::milli>(t1 - t0).count();
    CompileResult& r = *analysis->compile;
    if (!r.module)
        return analysis;
    analysis->irLines = ir::printModuleLines(*r.module, &r.sources);
    analysis->plan = takePipelinePlan(r);
    // The layout passes assume a module that passed the checks; a program with errors keeps its
    // diagnostics and shows no plan.
    if (!analysis->plan && r.ok()) {
        passes::PassContext context;
        context.target = options.target;
        context.sources = &r.sources;
        analysis->plan =
            std::make_unique<layout::LayoutPlan>(passes::planLayouts(*r.module, context, r.diagnostics));
        passes::analyzeSharedAccesses(*r.module, *analysis->plan, options.target, r.diagnostics);
    }
    analysis->planMilliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
    return analysis;
}

} // namespace tb::views
