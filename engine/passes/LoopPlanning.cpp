// Loop planning: thread maps of memory-only loops and vector widths of every parallel loop.
#include "engine/passes/LoopPlanning.h"

#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"
#include "engine/passes/FragmentDerivation.h"
#include "engine/passes/IndexConversion.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::passes {

using layout::IndexExpr;

namespace {

struct Nest {
    std::vector<const ir::Stmt*> loops;
    std::vector<int64_t> extents;
    bool constant = true;
};

Nest nestOf(const ir::Stmt& outer) {
    Nest nest;
    const ir::Stmt* cur = &outer;
    while (cur && cur->kind == ir::StmtKind::For && cur->loopKind == ir::LoopKind::Parallel &&
           nest.loops.size() < 8) {
        nest.loops.push_back(cur);
        std::optional<int64_t> e = ir::constantInt(cur->extent);
        nest.constant = nest.constant && e && *e >= 1;
        nest.extents.push_back(e ? *e : 0);
        const ir::Stmt* body = cur->body.get();
        if (body && body->kind == ir::StmtKind::Seq && body->stmts.size() == 1)
            body = body->stmts[0].get();
        cur = body;
    }
    return nest;
}

struct MemAccess {
    const ir::Buffer* buffer;
    std::vector<ir::ExprPtr> indices;
};

void collectMemAccesses(const ir::Stmt& s, std::vector<MemAccess>& out, int depth) {
    if (depth > ir::kMaxIrDepth)
        return;
    ir::forEachStmtExpr(s, [&](const ir::ExprPtr& e) {
        ir::forEachExprNode(e, [&](const ir::Expr& n) {
            if (n.kind == ir::ExprKind::BufferLoad && n.buffer)
                out.push_back({n.buffer, n.operands});
        });
    });
    if (s.kind == ir::StmtKind::Store && s.buffer)
        out.push_back({s.buffer, s.indices});
    ir::forEachChildStmt(s, [&](const ir::StmtPtr& c) {
        if (c)
            collectMemAccesses(*c, out, depth + 1);
    });
}

// Every var of the expression becomes an IndexExpr var: the nest's own vars their placeholders, others
// opaque symbols with a large range.
std::map<const ir::Var*, IndexExpr> varMap(const Nest& nest, const std::vector<MemAccess>& accesses) {
    std::map<const ir::Var*, IndexExpr> vars;
    for (const MemAccess& a : accesses)
        for (const ir::ExprPtr& idx : a.indices)
            ir::forEachExprNode(idx, [&](const ir::Expr& n) {
                if (n.kind == ir::ExprKind::VarRef && n.var && !vars.count(n.var))
                    vars[n.var] =
                        IndexExpr::var("_" + n.var->name + "_" + std::to_string(n.var->id), 1 << 20);
            });
    for (size_t d = 0; d < nest.loops.size(); ++d)
        vars[nest.loops[d]->loopVar] =
            IndexExpr::var(layout::inputVarName(d), std::max<int64_t>(nest.extents[d], 1));
    return vars;
}

// How the last index of `a` moves when the innermost loop variable grows by one: 1 (contiguous),
// 0 (broadcast), or nullopt (strided, or another index moves too, or not analysable).
std::optional<int64_t> innermostStride(const MemAccess& a, const std::map<const ir::Var*, IndexExpr>& vars,
                                       size_t innermost) {
    const std::string name = layout::inputVarName(innermost);
    std::map<std::string, IndexExpr> step{{name, IndexExpr::var(name, 1 << 20) + IndexExpr(1)}};
    std::optional<int64_t> stride = 0;
    for (size_t d = 0; d < a.indices.size(); ++d) {
        std::optional<IndexExpr> e = toIndexExpr(a.indices[d], vars);
        if (!e)
            return std::nullopt;
        IndexExpr diff = layout::simplify(layout::substitute(*e, step) - *e);
        if (!diff.isConstant())
            return std::nullopt;
        if (d + 1 < a.indices.size() && diff.constantValue() != 0)
            return std::nullopt;
        if (d + 1 == a.indices.size())
            stride = diff.constantValue();
    }
    return stride;
}

} // namespace

void runLoopPlanning(const ir::Module&, layout::LayoutPlan& plan, const PassContext& context,
                     DiagnosticEngine&) {
    for (layout::KernelPlan& kernel : plan.kernels) {
        FragmentTableCache local;
        FragmentTableCache& cache = context.tables ? *context.tables : local;
        std::vector<const ir::Stmt*> outers;
        std::vector<const ir::Stmt*> skip;
        ir::walkStmts(*kernel.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>& enclosing) {
            if (s.kind != ir::StmtKind::For || s.loopKind != ir::LoopKind::Parallel)
                return;
            for (const ir::Stmt* e : enclosing)
                if (e->kind == ir::StmtKind::For && e->loopKind == ir::LoopKind::Parallel)
                    return; // inside an outer nest
            outers.push_back(&s);
        });
        for (const ir::Stmt* outer : outers) {
            Nest nest = nestOf(*outer);
            if (!nest.constant || layout::shapeSize(nest.extents) > layout::kMaxEnumerationPoints)
                continue;
            std::vector<MemAccess> accesses;
            if (nest.loops.back()->body)
                collectMemAccesses(*nest.loops.back()->body, accesses, 0);
            int bits = 8;
            bool touchesFragment = false;
            for (const MemAccess& a : accesses) {
                bits = std::max(bits, ir::dtypeBits(a.buffer->dtype));
                touchesFragment = touchesFragment || a.buffer->scope == ir::MemoryScope::Fragment;
            }
            const int64_t vmax = std::max<int64_t>(context.options.maxVectorBits / bits, 1);
            auto it = std::find_if(kernel.loops.begin(), kernel.loops.end(),
                                   [&](const layout::ParallelLoopPlan& p) { return p.loop == outer; });
            layout::ParallelLoopPlan* loopPlan = nullptr;
            if (it == kernel.loops.end()) {
                // A loop over shared/global memory only: TileLang's vector size minimising padding.
                const int64_t total = layout::shapeSize(nest.extents);
                int64_t best = 1, bestPad = -1;
                for (int64_t v = vmax; v >= 1; v /= 2) {
                    const int64_t chunk = kernel.threadsOf(outer) * v;
                    const int64_t pad = (total + chunk - 1) / chunk * chunk - total;
                    if (bestPad < 0 || pad < bestPad) {
                        best = v;
                        bestPad = pad;
                    }
                }
                if (outer->coalescedWidth > 0)
                    best = outer->coalescedWidth;
                layout::ParallelLoopPlan fresh;
                fresh.loop = outer;
                fresh.loopLayout =
                    planLoopPartition(nest.extents, best, kernel.threadsOf(outer), touchesFragment);
                fresh.origin.op = outer;
                fresh.origin.level = layout::InferenceLevel::Free;
                fresh.origin.range = outer->range;
                fresh.origin.description = "default partition over " +
                                           std::to_string(kernel.threadsOf(outer)) + " threads, vector " +
                                           std::to_string(best);
                kernel.loops.push_back(std::move(fresh));
                loopPlan = &kernel.loops.back();
            } else {
                loopPlan = &*it;
            }
            // Vector width: 128-bit accesses at most, then each limit in turn.
            int64_t v = std::min<int64_t>(vmax, nest.extents.back());
            std::string reason = std::to_string(context.options.maxVectorBits) + "-bit accesses of " +
                                 std::to_string(bits) + "-bit elements allow " + std::to_string(vmax);
            while (v > 1 && nest.extents.back() % v != 0)
                v /= 2;
            if (v < vmax)
                reason += "; limited to " + std::to_string(v) + " by the innermost extent " +
                          std::to_string(nest.extents.back());
            const int64_t run = contiguousRegisterRun(loopPlan->loopLayout, v, &cache);
            if (run < v) {
                v = run;
                reason +=
                    "; limited to " + std::to_string(v) + " by the loop layout's contiguous register run";
            }
            std::map<const ir::Var*, IndexExpr> vars = varMap(nest, accesses);
            for (const MemAccess& a : accesses) {
                if (a.buffer->scope == ir::MemoryScope::Fragment ||
                    a.buffer->scope == ir::MemoryScope::Local ||
                    a.buffer->scope == ir::MemoryScope::LocalVar || v == 1)
                    continue;
                std::optional<int64_t> stride = innermostStride(a, vars, nest.loops.size() - 1);
                if (!stride || (*stride != 0 && *stride != 1)) {
                    v = 1;
                    reason += "; limited to 1: '" + a.buffer->name +
                              "' is not contiguous along the innermost " + "loop variable '" +
                              nest.loops.back()->loopVar->name + "'";
                }
            }
            loopPlan->vectorWidth = int(std::max<int64_t>(v, 1));
            loopPlan->vectorReason = reason;
        }
    }
}

} // namespace tb::passes
