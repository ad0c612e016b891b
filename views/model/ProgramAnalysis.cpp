// Runs the compile line and keeps what the views need: the plan it computed, the printed IR and its links.
#include "views/model/ProgramAnalysis.h"

#include "engine/ir/IrQueries.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

namespace tb::views {

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
    return compile ? compile->sources.lineOf(range) : 0;
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

std::string ProgramAnalysis::firstError() const {
    for (const Diagnostic& d : diagnostics())
        if (d.severity == Severity::Error) {
            uint32_t line = lineOf(d.range);
            return (line ? "line " + std::to_string(line) + ": " : std::string()) + d.message;
        }
    return {};
}

namespace {

// The budgets the shared-memory check rejected: the same function over the same kernels, so the bytes are
// the check's (Checks.cpp: checkSharedMemory), kept only where a kernel is over the limit.
std::vector<check::KernelSharedMemory> rejectedBudgets(const CompileResult& r) {
    std::vector<check::KernelSharedMemory> out;
    bool rejected = false;
    for (const Diagnostic& d : r.diagnostics.diagnostics())
        rejected = rejected || d.code == "shared-memory-over-limit";
    if (!rejected || !r.module)
        return out;
    for (const ir::PrimFunc& f : r.module->funcs)
        for (check::KernelSharedMemory& k : check::sharedMemoryBudgets(f))
            if (r.target.maxSharedMemoryPerBlock > 0 && k.totalBytes > r.target.maxSharedMemoryPerBlock)
                out.push_back(std::move(k));
    return out;
}

} // namespace

int64_t ProgramAnalysis::numStages() const {
    if (!compile || !compile->module)
        return 0;
    for (const ir::SpecializationParam& p : compile->module->specialization)
        if (p.name == "num_stages" && std::holds_alternative<int64_t>(p.value))
            return std::get<int64_t>(p.value);
    // The kernel schedule's pipelines (the first one), or, without a plan, the first T.Pipelined loop.
    if (plan)
        for (const layout::KernelPlan& k : plan->kernels)
            if (!k.schedule.pipelines.empty())
                return k.schedule.pipelines.front().stages;
    int64_t stages = 0;
    for (const ir::PrimFunc& f : compile->module->funcs)
        if (f.body)
            ir::walkStmts(*f.body, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
                if (stages == 0 && s.kind == ir::StmtKind::For && s.loopKind == ir::LoopKind::Pipelined)
                    stages = s.pipeline.numStages;
            });
    return stages;
}

std::shared_ptr<ProgramAnalysis> analyzeProgram(std::string fileName, std::string text,
                                                const CompileOptions& options, uint64_t generation) {
    auto analysis = std::make_shared<ProgramAnalysis>();
    analysis->generation = generation;
    analysis->options = options;
    analysis->compile = compileTileProgram(std::move(fileName), std::move(text), options);
    CompileResult& r = *analysis->compile;
    // The pipeline's own timings: the front half (parse to checks), then the layout passes.
    bool front = true;
    for (const PassTiming& t : r.timings) {
        (front ? analysis->compileMilliseconds : analysis->planMilliseconds) += t.milliseconds;
        front = front && t.pass != "check";
    }
    if (!r.module)
        return analysis;
    analysis->irLines = ir::printModuleLines(*r.module, &r.sources);
    // The plan views draw is the one the code was generated from (a program with errors before codegen
    // keeps its diagnostics and shows no plan; one whose codegen failed still shows its plan).
    if (r.planComplete()) {
        analysis->plan = r.plan.get();
        for (const layout::KernelPlan& k : r.plan->kernels)
            analysis->bankFixes.push_back(findSwizzleFixes(k, r.plan->target));
    } else
        analysis->rejectedSharedMemory = rejectedBudgets(r);
    return analysis;
}

} // namespace tb::views
