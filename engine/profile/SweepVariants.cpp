// Sweep variants: literal sites in the syntax tree, the variant programs, and the static plan of a sweep.
#include "engine/profile/SweepVariants.h"

#include "engine/check/SharedMemoryBudget.h"
#include "engine/frontend/Ast.h"
#include "engine/profile/BenchHistory.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tb::profile {

namespace {

// The syntax tree's parser bounds its depth, so these walkers cannot run out of stack.
void collectFromExpr(const ast::Expr* e, const std::string& name, std::vector<const ast::Expr*>& out);

void collectFromExprs(const std::vector<ast::ExprPtr>& es, const std::string& name,
                      std::vector<const ast::Expr*>& out) {
    for (const ast::ExprPtr& e : es)
        collectFromExpr(e.get(), name, out);
}

void collectFromExpr(const ast::Expr* e, const std::string& name, std::vector<const ast::Expr*>& out) {
    if (!e)
        return;
    if (e->kind == ast::ExprKind::Call)
        for (const ast::Keyword& k : e->keywords)
            if (k.name == name && k.value && k.value->kind == ast::ExprKind::Constant &&
                k.value->constantKind == ast::ConstantKind::Int && !k.value->intOverflow)
                out.push_back(k.value.get());
    collectFromExpr(e->a.get(), name, out);
    collectFromExpr(e->b.get(), name, out);
    collectFromExpr(e->c.get(), name, out);
    collectFromExprs(e->elements, name, out);
    collectFromExprs(e->values, name, out);
    for (const ast::Keyword& k : e->keywords)
        collectFromExpr(k.value.get(), name, out);
    for (const ast::Param& p : e->params)
        collectFromExpr(p.defaultValue.get(), name, out);
    for (const ast::Comprehension& g : e->generators) {
        collectFromExpr(g.iter.get(), name, out);
        collectFromExprs(g.ifs, name, out);
    }
}

void collectFromStmts(const std::vector<ast::StmtPtr>& stmts, const std::string& name,
                      std::vector<const ast::Expr*>& out) {
    for (const ast::StmtPtr& s : stmts) {
        if (!s)
            continue;
        collectFromExpr(s->value.get(), name, out);
        collectFromExprs(s->targets, name, out);
        collectFromExprs(s->decorators, name, out);
        collectFromExpr(s->test.get(), name, out);
        collectFromExpr(s->iter.get(), name, out);
        for (const ast::WithItem& w : s->items)
            collectFromExpr(w.context.get(), name, out);
        for (const ast::Param& p : s->params)
            collectFromExpr(p.defaultValue.get(), name, out);
        collectFromStmts(s->body, name, out);
        collectFromStmts(s->orelse, name, out);
    }
}

std::string axisOrderText(const std::vector<std::pair<std::string, std::string>>& params) {
    std::string s;
    for (const auto& [name, value] : params)
        s += (s.empty() ? "" : " ") + name + "=" + value;
    return s;
}

} // namespace

std::vector<KeywordLiteral> findKeywordLiterals(const CompileResult& result, const std::string& name) {
    std::vector<const ast::Expr*> found;
    collectFromStmts(result.ast.body, name, found);
    std::vector<KeywordLiteral> out;
    if (result.file >= result.sources.fileCount())
        return out;
    const SourceFile& file = result.sources.file(result.file);
    for (const ast::Expr* e : found) {
        if (!e->range.valid || e->range.file != result.file || e->range.end <= e->range.begin)
            continue;
        out.push_back({name, e->range.begin, e->range.end, file.lineCol(e->range.begin).line, e->intValue});
    }
    std::sort(out.begin(), out.end(),
              [](const KeywordLiteral& a, const KeywordLiteral& b) { return a.begin < b.begin; });
    return out;
}

std::string withLiteralsReplaced(std::string text, const std::vector<KeywordLiteral>& literals,
                                 const std::string& value) {
    // From the last to the first, so earlier ranges stay valid.
    for (auto it = literals.rbegin(); it != literals.rend(); ++it)
        if (it->end <= text.size())
            text.replace(it->begin, it->end - it->begin, value);
    return text;
}

SweepBase sweepBaseOf(const CompileResult& base, const std::vector<std::string>& axisNames) {
    SweepBase out;
    if (base.module)
        for (const ir::SpecializationParam& p : base.module->specialization)
            out.jitParameters.insert(p.name);
    for (const std::string& name : axisNames) {
        if (out.jitParameters.count(name))
            continue;
        std::vector<KeywordLiteral> literals = findKeywordLiterals(base, name);
        if (literals.empty())
            continue;
        std::string lines;
        for (const KeywordLiteral& l : literals)
            lines += (lines.empty() ? "" : ", ") + std::to_string(l.line);
        out.notes.push_back(name + " is not a jit parameter but the literal " + name + "=" +
                            std::to_string(literals.front().value) + " at line" +
                            (literals.size() > 1 ? "s " : " ") + lines + ": each variant edits " +
                            (literals.size() > 1 ? "them" : "it"));
        out.literals[name] = std::move(literals);
    }
    return out;
}

VariantProgram variantProgram(const std::string& text, const SweepBase& base, const CompileOptions& options,
                              const std::vector<std::pair<std::string, std::string>>& baseOverrides,
                              const std::vector<std::pair<std::string, std::string>>& params) {
    VariantProgram v;
    v.options = options;
    v.options.elaborate.overrides = baseOverrides;
    // Literal edits change byte offsets, so all edits of one variant are applied together, last first.
    std::vector<std::pair<KeywordLiteral, std::string>> edits;
    for (const auto& p : params) {
        auto it = base.literals.find(p.first);
        if (it == base.literals.end()) {
            v.options.elaborate.overrides.push_back(p);
            continue;
        }
        for (const KeywordLiteral& l : it->second)
            edits.emplace_back(l, p.second);
    }
    std::sort(edits.begin(), edits.end(),
              [](const auto& a, const auto& b) { return a.first.begin > b.first.begin; });
    v.text = text;
    for (const auto& [literal, value] : edits)
        if (literal.end <= v.text.size())
            v.text.replace(literal.begin, literal.end - literal.begin, value);
    return v;
}

namespace {

// One configuration compiled through shared-memory planning, and its budget.
PlannedVariant planVariant(const std::string& fileName, const std::string& text, const SweepBase& sweepBase,
                           const CompileOptions& variantOptions, const SweepPlanOptions& options,
                           const std::vector<std::pair<std::string, std::string>>& config) {
    PlannedVariant pv;
    pv.params = config;
    pv.paramsText = axisOrderText(config);
    pv.limitBytes = options.compile.target.maxSharedMemoryPerBlock;
    VariantProgram vp = variantProgram(text, sweepBase, variantOptions, options.baseOverrides, config);
    std::unique_ptr<CompileResult> r = compileTileProgram(fileName, vp.text, vp.options);
    pv.compiled = r->ok() && r->plan && !r->plan->kernels.empty();
    if (pv.compiled) {
        const layout::KernelPlan* widest = &r->plan->kernels.front();
        for (const layout::KernelPlan& k : r->plan->kernels)
            if (k.budget.totalBytes > widest->budget.totalBytes)
                widest = &k;
        pv.sharedBytes = widest->budget.totalBytes;
        pv.limitBytes = widest->budget.limitBytes > 0 ? widest->budget.limitBytes : pv.limitBytes;
        pv.threads = widest->threads;
    } else {
        pv.message = firstErrorMessage(r->diagnostics.diagnostics());
        if (pv.message.empty())
            pv.message = "the program did not compile";
        // A variant over the budget fails the checks; its bytes are still the checker's sum.
        if (r->module)
            for (const ir::PrimFunc& f : r->module->funcs)
                pv.sharedBytes = std::max(pv.sharedBytes, check::sharedMemoryBytes(f));
    }
    pv.fits = pv.compiled && (pv.limitBytes <= 0 || pv.sharedBytes <= pv.limitBytes);
    pv.occupancy = computeOccupancy(options.compile.target, std::max<int64_t>(pv.threads, 1), pv.sharedBytes);
    return pv;
}

} // namespace

SweepPlan planSweep(const std::string& fileName, const std::string& text, const std::vector<SweepAxis>& axes,
                    const SweepPlanOptions& options, const CompileResult* base) {
    SweepPlan out;
    DiagnosticEngine diags;
    auto configs =
        axes.empty() ? decltype(sweepConfigurations(axes, diags)){} : sweepConfigurations(axes, diags);
    if (axes.empty() || diags.hasErrors() || configs.empty()) {
        out.error = axes.empty() ? "a sweep needs at least one NAME=VALUES axis"
                                 : firstErrorMessage(diags.diagnostics());
        if (out.error.empty())
            out.error = "the sweep has no configurations";
        return out;
    }
    std::unique_ptr<CompileResult> own;
    if (!base) {
        CompileOptions co = options.compile;
        co.elaborate.overrides = options.baseOverrides;
        co.stopAfter = "elaborate";
        own = compileTileProgram(fileName, text, co);
        base = own.get();
    }
    std::vector<std::string> names;
    for (const SweepAxis& a : axes)
        names.push_back(a.name);
    SweepBase sweepBase = sweepBaseOf(*base, names);
    out.notes = sweepBase.notes;
    out.literals = sweepBase.literals;
    CompileOptions variantOptions = options.compile;
    // The budget is known after this pass; the bank analysis after it is not needed here.
    variantOptions.stopAfter = "shared-memory-planning";
    // Variants are independent compiles: spread over the cores, each into its own slot, so the order (and
    // the result) is that of the configurations whatever thread finishes first. The app's stage plot waits
    // for all of them after every edit.
    out.variants.resize(configs.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < configs.size(); i = next++)
            out.variants[i] = planVariant(fileName, text, sweepBase, variantOptions, options, configs[i]);
    };
    const size_t workers =
        std::min<size_t>(configs.size(), std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> helpers;
    for (size_t w = 1; w < workers; ++w)
        helpers.emplace_back(work);
    work();
    for (std::thread& t : helpers)
        t.join();
    out.ok = true;
    return out;
}

} // namespace tb::profile
