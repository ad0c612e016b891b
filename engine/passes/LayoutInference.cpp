// Layout inference: strict, common and free levels over the ops of each kernel.
#include "engine/passes/LayoutInference.h"

#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"
#include "engine/layout/algebra/FragmentContains.h"
#include "engine/passes/FragmentDerivation.h"
#include "engine/passes/IndexConversion.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tb::passes {

using layout::Fragment;
using layout::IndexExpr;
using layout::InferenceLevel;
using layout::LayoutOrigin;

namespace {

// One access of a fragment buffer by a loop nest (or by the loop a copy lowers to).
struct FragAccess {
    const ir::Buffer* buffer = nullptr;
    std::vector<IndexExpr> index; // over the loop placeholders; empty when opaque
    bool opaque = false;          // an index uses something other than the nest's loop variables
    bool write = false;
    // An opaque access whose indices also use enclosing sequential loops (`lse_local[k, i]` in a T.Parallel
    // over i inside `for k in T.serial(4)`): the index over the nest's placeholders followed by one per
    // such loop (Op::outerShape). Every value of those loops runs on the same threads, so the thread that
    // takes an iteration must hold the element for all of them.
    std::vector<IndexExpr> extended;
};

enum class OpKind { Gemm, Annotate, Parallel, Copy, Reduce };

struct Op {
    OpKind kind = OpKind::Parallel;
    const ir::Stmt* stmt = nullptr;
    std::vector<int64_t> loopShape;  // Parallel, Copy
    std::vector<int64_t> outerShape; // Parallel: the enclosing sequential loops (FragAccess::extended)
    std::vector<FragAccess> accesses;
    bool storesToMemory = false;
    const layout::GemmPlan* gemm = nullptr;
    std::optional<Fragment> loopLayout;
    LayoutOrigin loopOrigin;
};

struct Known {
    Fragment fragment;
    LayoutOrigin origin;
};

std::string bufferName(const ir::Buffer* b) {
    return "'" + (b ? b->name : std::string("?")) + "'";
}

std::string pointText(const std::vector<int64_t>& p) {
    std::string s = "[";
    for (size_t i = 0; i < p.size(); ++i)
        s += (i ? ", " : "") + std::to_string(p[i]);
    return s + "]";
}

bool isPlaceholder(const IndexExpr& e, size_t dim) {
    return e.kind() == layout::IndexExprKind::Var && e.varName() == layout::inputVarName(dim);
}

// The loop dimension a plain placeholder index names, or -1.
int placeholderDim(const IndexExpr& e, size_t rank) {
    if (e.kind() != layout::IndexExprKind::Var)
        return -1;
    for (size_t d = 0; d < rank; ++d)
        if (e.varName() == layout::inputVarName(d))
            return int(d);
    return -1;
}

bool isIdentityAccess(const FragAccess& a, const std::vector<int64_t>& loopShape) {
    if (a.opaque || a.index.size() != loopShape.size())
        return false;
    for (size_t d = 0; d < a.index.size(); ++d)
        if (!isPlaceholder(a.index[d], d))
            return false;
    return true;
}

bool allConstant(const FragAccess& a) {
    if (a.opaque || a.index.empty())
        return false;
    for (const IndexExpr& e : a.index)
        if (!layout::simplify(e).isConstant())
            return false;
    return true;
}

class KernelInference {
public:
    KernelInference(layout::KernelPlan& kernel, const PassContext& context, DiagnosticEngine& diagnostics)
        : m_kernel(kernel), m_context(context), m_diagnostics(&diagnostics) {}

    void run() {
        for (const ir::Buffer* b : m_kernel.mixedScopeBuffers)
            m_diagnostics->error("fragment-across-warp-groups", b->range,
                                 "'" + b->name +
                                     "' is used inside a T.ws scope and outside it (or in two scopes): its "
                                     "registers belong to the threads of one scope",
                                 "use it within one T.ws scope, or share the data through a shared buffer");
        collect(*m_kernel.kernel->body, 0);
        m_queued.assign(m_ops.size(), false);
        strictLevel();
        commonLevel();
        freeLevel();
        finish();
    }

private:
    layout::KernelPlan& m_kernel;
    const PassContext& m_context;
    DiagnosticEngine* m_diagnostics; // a scratch engine while the free level tries roots
    std::vector<Op> m_ops;
    std::map<const ir::Buffer*, Known> m_known;
    std::map<const ir::Buffer*, std::vector<size_t>> m_users;
    std::set<const ir::Buffer*> m_strict;
    std::set<std::pair<const ir::Stmt*, const ir::Buffer*>> m_reported;
    std::deque<size_t> m_queue;
    std::vector<bool> m_queued;
    FragmentTableCache m_localCache;
    FragmentTableCache& m_cache = m_context.tables ? *m_context.tables : m_localCache;

    bool isFragment(const ir::Buffer* b) const { return b && b->scope == ir::MemoryScope::Fragment; }
    std::string at(const ir::Stmt* s) const {
        std::string line = s ? m_context.lineOf(s->range) : std::string();
        return line.empty() ? std::string() : " at " + line;
    }

    // ---- collection -------------------------------------------------------------------------------

    void addOp(Op op) {
        size_t index = m_ops.size();
        std::set<const ir::Buffer*> touched;
        for (const FragAccess& a : op.accesses)
            touched.insert(a.buffer);
        if (op.kind == OpKind::Gemm && op.stmt) {
            touched.insert(op.stmt->a.buffer);
            touched.insert(op.stmt->b.buffer);
            touched.insert(op.stmt->c.buffer);
        }
        if (op.kind == OpKind::Reduce && op.stmt) {
            touched.insert(op.stmt->srcBuffer);
            touched.insert(op.stmt->dstBuffer);
        }
        for (const ir::Buffer* b : touched)
            if (isFragment(b))
                m_users[b].push_back(index);
        m_ops.push_back(std::move(op));
    }

    void collectExprAccesses(const ir::ExprPtr& e, const std::map<const ir::Var*, IndexExpr>& vars,
                             std::vector<FragAccess>& out) {
        ir::forEachExprNode(e, [&](const ir::Expr& node) {
            if (node.kind == ir::ExprKind::BufferLoad && isFragment(node.buffer))
                out.push_back(makeAccess(node.buffer, node.operands, vars, false));
        });
    }

    FragAccess makeAccess(const ir::Buffer* b, const std::vector<ir::ExprPtr>& indices,
                          const std::map<const ir::Var*, IndexExpr>& vars, bool write) {
        FragAccess a;
        a.buffer = b;
        a.write = write;
        for (const ir::ExprPtr& idx : indices) {
            std::optional<IndexExpr> e = toIndexExpr(idx, vars);
            if (!e) {
                a.opaque = true;
                a.index.clear();
                return a;
            }
            a.index.push_back(layout::simplify(*e));
        }
        return a;
    }

    // Accesses of the body of a parallel nest (inner serial loops included: their variables make the
    // accesses that use them opaque).
    void collectBody(const ir::Stmt& s, const std::map<const ir::Var*, IndexExpr>& vars, Op& op, int depth) {
        if (depth > ir::kMaxIrDepth)
            return;
        ir::forEachStmtExpr(s, [&](const ir::ExprPtr& e) { collectExprAccesses(e, vars, op.accesses); });
        if (s.kind == ir::StmtKind::Store && s.buffer) {
            if (isFragment(s.buffer))
                op.accesses.push_back(makeAccess(s.buffer, s.indices, vars, true));
            else if (s.buffer->scope == ir::MemoryScope::Global || s.buffer->scope == ir::MemoryScope::Shared)
                op.storesToMemory = true;
        }
        ir::forEachChildStmt(s, [&](const ir::StmtPtr& child) {
            if (child)
                collectBody(*child, vars, op, depth + 1);
        });
    }

    void collectParallel(const ir::Stmt& loop) {
        Op op;
        op.kind = OpKind::Parallel;
        op.stmt = &loop;
        std::map<const ir::Var*, IndexExpr> vars;
        std::vector<const ir::Stmt*> nest;
        const ir::Stmt* cur = &loop;
        while (cur && cur->kind == ir::StmtKind::For && cur->loopKind == ir::LoopKind::Parallel &&
               nest.size() < 8) {
            nest.push_back(cur);
            const ir::Stmt* body = cur->body.get();
            if (body && body->kind == ir::StmtKind::Seq && body->stmts.size() == 1)
                body = body->stmts[0].get();
            cur = body;
        }
        bool constant = true;
        for (size_t d = 0; d < nest.size(); ++d) {
            std::optional<int64_t> extent = ir::constantInt(nest[d]->extent);
            std::optional<int64_t> min = ir::constantInt(nest[d]->min);
            if (!extent || !min || *extent < 1) {
                constant = false;
                break;
            }
            op.loopShape.push_back(*extent);
            vars[nest[d]->loopVar] = IndexExpr::var(layout::inputVarName(d), *extent) + IndexExpr(*min);
        }
        if (!constant || layout::shapeSize(op.loopShape) > layout::kMaxEnumerationPoints)
            vars.clear(); // symbolic nest: every access is opaque; no layout can follow it
        if (nest.back()->body)
            collectBody(*nest.back()->body, vars, op, 0);
        if (vars.empty())
            op.loopShape.clear();
        else if (nest.back()->body)
            extendOuterAccesses(*nest.back()->body, vars, op);
        addOp(std::move(op));
    }

    // The enclosing sequential loops that the nest's fragment indices use become extra dimensions of the
    // opaque accesses that use them (FragAccess::extended), in nesting order.
    void extendOuterAccesses(const ir::Stmt& body, const std::map<const ir::Var*, IndexExpr>& vars, Op& op) {
        auto withOuter = [&](const std::vector<const SequentialLoop*>& outer) {
            std::map<const ir::Var*, IndexExpr> extended = vars;
            for (size_t e = 0; e < outer.size(); ++e)
                extended[outer[e]->var] =
                    IndexExpr::var(layout::inputVarName(op.loopShape.size() + e), outer[e]->extent) +
                    IndexExpr(outer[e]->min);
            Op scratch;
            collectBody(body, extended, scratch, 0);
            return scratch.accesses;
        };
        std::vector<const SequentialLoop*> all;
        for (const SequentialLoop& o : m_sequential)
            all.push_back(&o);
        if (all.empty())
            return;
        // Only the loops some index uses, so that the extended loop layout stays small.
        std::set<std::string> used;
        for (const FragAccess& a : withOuter(all))
            for (const IndexExpr& e : a.index)
                for (const std::string& v : layout::variablesOf(e))
                    used.insert(v);
        std::vector<const SequentialLoop*> outer;
        for (size_t e = 0; e < all.size(); ++e)
            if (used.count(layout::inputVarName(op.loopShape.size() + e)))
                outer.push_back(all[e]);
        std::vector<int64_t> shape = op.loopShape;
        for (const SequentialLoop* o : outer)
            shape.push_back(o->extent);
        if (outer.empty() || layout::shapeSize(shape) > layout::kMaxEnumerationPoints)
            return;
        std::vector<FragAccess> extended = withOuter(outer);
        if (extended.size() != op.accesses.size())
            return;
        for (size_t k = 0; k < extended.size(); ++k)
            if (op.accesses[k].opaque && !extended[k].opaque)
                op.accesses[k].extended = extended[k].index;
        for (const SequentialLoop* o : outer)
            op.outerShape.push_back(o->extent);
    }

    std::optional<FragAccess> regionAccess(const ir::Region& r, const std::vector<size_t>& loopDims,
                                           const std::vector<int64_t>& extents, bool write) {
        FragAccess a;
        a.buffer = r.buffer;
        a.write = write;
        std::vector<IndexExpr> vars = layout::inputVarsFor([&] {
            std::vector<int64_t> shape;
            for (size_t d : loopDims)
                shape.push_back(extents[d]);
            return shape;
        }());
        size_t next = 0;
        for (size_t d = 0; d < r.mins.size(); ++d) {
            std::optional<int64_t> min = ir::constantInt(r.mins[d]);
            if (!min)
                return std::nullopt;
            if (next < loopDims.size() && loopDims[next] == d)
                a.index.push_back(layout::simplify(vars[next++] + IndexExpr(*min)));
            else
                a.index.push_back(IndexExpr(*min));
        }
        return a;
    }

    void collectCopy(const ir::Stmt& s) {
        const bool srcFrag = isFragment(s.src.buffer), dstFrag = isFragment(s.dst.buffer);
        if (!srcFrag && !dstFrag)
            return;
        Op op;
        op.kind = OpKind::Copy;
        op.stmt = &s;
        std::optional<std::vector<int64_t>> srcExt = ir::constantExtents(s.src);
        std::optional<std::vector<int64_t>> dstExt = ir::constantExtents(s.dst);
        const ir::Region& fragRegion = srcFrag ? s.src : s.dst;
        std::optional<std::vector<int64_t>> fragExt = srcFrag ? srcExt : dstExt;
        if (fragExt) {
            std::vector<size_t> dims = ir::nonUnitDims(*fragExt);
            for (size_t d : dims)
                op.loopShape.push_back((*fragExt)[d]);
            if (op.loopShape.empty())
                op.loopShape.push_back(1);
            auto fa = regionAccess(fragRegion, dims, *fragExt, dstFrag && !srcFrag);
            if (fa)
                op.accesses.push_back(*fa);
            if (srcFrag && dstFrag && dstExt) {
                std::vector<size_t> dstDims = ir::nonUnitDims(*dstExt);
                bool same = dstDims.size() == dims.size();
                for (size_t k = 0; same && k < dims.size(); ++k)
                    same = (*dstExt)[dstDims[k]] == (*fragExt)[dims[k]];
                if (same)
                    if (auto da = regionAccess(s.dst, dstDims, *dstExt, true))
                        op.accesses.push_back(*da);
            }
        }
        op.storesToMemory = !dstFrag;
        addOp(std::move(op));
    }

    // A sequential loop (serial, unrolled, pipelined) of constant range around parallel nests.
    struct SequentialLoop {
        const ir::Var* var = nullptr;
        int64_t min = 0, extent = 1;
    };
    std::vector<SequentialLoop> m_sequential;

    void collect(const ir::Stmt& s, int depth) {
        if (depth > ir::kMaxIrDepth)
            return;
        switch (s.kind) {
        case ir::StmtKind::For: {
            if (s.loopKind == ir::LoopKind::Parallel) {
                collectParallel(s);
                return;
            }
            std::optional<int64_t> min = ir::constantInt(s.min), extent = ir::constantInt(s.extent);
            const bool constant = s.loopVar && min && extent && *extent >= 1;
            if (constant)
                m_sequential.push_back({s.loopVar, *min, *extent});
            ir::forEachChildStmt(s, [&](const ir::StmtPtr& child) {
                if (child)
                    collect(*child, depth + 1);
            });
            if (constant)
                m_sequential.pop_back();
            return;
        }
        case ir::StmtKind::Copy:
            collectCopy(s);
            return;
        case ir::StmtKind::Gemm: {
            Op op;
            op.kind = OpKind::Gemm;
            op.stmt = &s;
            for (const layout::GemmPlan& g : m_kernel.gemms)
                if (g.gemm == &s)
                    op.gemm = &g;
            if (op.gemm)
                addOp(std::move(op));
            return;
        }
        case ir::StmtKind::Reduce:
            if (isFragment(s.srcBuffer) && isFragment(s.dstBuffer)) {
                Op op;
                op.kind = OpKind::Reduce;
                op.stmt = &s;
                addOp(std::move(op));
            }
            return;
        case ir::StmtKind::AnnotateLayout: {
            Op op;
            op.kind = OpKind::Annotate;
            op.stmt = &s;
            addOp(std::move(op));
            return;
        }
        case ir::StmtKind::Store: {
            // A fragment accessed outside any tile op or parallel loop ("floating"): fully replicated.
            Op op;
            op.kind = OpKind::Parallel;
            op.stmt = &s;
            collectBody(s, {}, op, 0);
            for (FragAccess& a : op.accesses)
                a.opaque = true;
            if (!op.accesses.empty())
                addFloating(op);
            return;
        }
        case ir::StmtKind::IfThenElse: {
            Op op;
            collectExprAccesses(s.cond, {}, op.accesses);
            addFloating(op);
            break;
        }
        case ir::StmtKind::Seq:
        case ir::StmtKind::Kernel:
        case ir::StmtKind::Fill:
        case ir::StmtKind::AtomicAdd:
        case ir::StmtKind::UseSwizzle:
        case ir::StmtKind::Print:
        case ir::StmtKind::WarpGroups:
        case ir::StmtKind::Barrier:
        case ir::StmtKind::GridSync:
        case ir::StmtKind::CpAsync:      // global to shared, by each thread: no fragment
        case ir::StmtKind::MmaIntrinsic: // per-thread locals: no fragment to infer
            break;
        }
        ir::forEachChildStmt(s, [&](const ir::StmtPtr& child) {
            if (child)
                collect(*child, depth + 1);
        });
    }

    std::vector<std::pair<const ir::Buffer*, SourceRange>> m_floating;
    void addFloating(const Op& op) {
        for (const FragAccess& a : op.accesses)
            m_floating.push_back({a.buffer, op.stmt ? op.stmt->range : SourceRange{}});
    }

    // ---- layouts --------------------------------------------------------------------------------

    std::optional<std::vector<int64_t>> shapeOf(const ir::Buffer* b) const { return ir::constantShape(*b); }

    void enqueueUsers(const ir::Buffer* b) {
        for (size_t u : m_users[b])
            if (!m_queued[u]) {
                m_queued[u] = true;
                m_queue.push_back(u);
            }
    }

    bool contains(const Fragment& small, const Fragment& large, bool registers = false) {
        std::optional<bool> r = m_cache.contains(small, large, std::nullopt, registers);
        return r.value_or(false);
    }

    // "element [0, 16] is held by thread 0 under the first layout but by thread 64 under the second".
    std::string firstDifference(const Fragment& first, const Fragment& second,
                                const std::optional<layout::Layout>& access) const {
        auto r = access ? layout::fragmentContains(first, second, *access)
                        : layout::fragmentContains(first, second);
        std::vector<int64_t> element;
        if (r.ok() && !r->contains)
            element = r->element;
        else {
            auto back = layout::fragmentContains(second, first);
            if (access || !back.ok() || back->contains)
                return {};
            element = back->element;
        }
        std::vector<int64_t> target = element;
        if (access) {
            auto mapped = access->apply(element);
            if (!mapped)
                return {};
            target = *mapped;
        }
        auto owners = [](const Fragment& f, const std::vector<int64_t>& p) {
            std::set<int64_t> threads;
            int64_t begin = f.threadRange() ? f.threadRange()->begin : 0;
            for (int64_t rep = 0; rep < f.replicateExtent() && threads.size() < 64; ++rep)
                if (auto t = f.threadOf(p, rep))
                    threads.insert(begin + *t);
            std::string s = threads.size() == 1 ? "thread " : "threads {";
            bool firstItem = true;
            for (int64_t t : threads) {
                s += (firstItem ? "" : ", ") + std::to_string(t);
                firstItem = false;
            }
            return threads.size() == 1 ? s : s + "}";
        };
        std::string text = "element " + pointText(target) + " is held by " + owners(first, element) +
                           " under the first layout but by " + owners(second, target) + " under the second";
        return text;
    }

    void conflict(const ir::Buffer* buffer, const Fragment& required, const LayoutOrigin& requiredOrigin,
                  const ir::Stmt* blamed, const std::optional<layout::Layout>& access,
                  const std::string& hint) {
        const Known& existing = m_known.at(buffer);
        if (!m_reported.insert({blamed, buffer}).second)
            return;
        std::string message = "layout conflict on fragment " + bufferName(buffer) + ": " +
                              requiredOrigin.description + " needs a layout that " +
                              existing.origin.description + " does not give";
        std::string diff = firstDifference(required, existing.fragment, access);
        if (!diff.empty())
            message += "; " + diff;
        Diagnostic& d = m_diagnostics->error("layout-conflict", blamed ? blamed->range : requiredOrigin.range,
                                             message, hint);
        d.notes.push_back({requiredOrigin.range,
                           "first layout (" + requiredOrigin.description + "): " + required.toString()});
        d.notes.push_back({existing.origin.range, "second layout, of " + bufferName(buffer) + " (" +
                                                      existing.origin.description +
                                                      "): " + existing.fragment.toString()});
    }

    // Proposes `fragment` for `buffer`. Returns false on a conflict (reported).
    bool propose(const ir::Buffer* buffer, const Fragment& fragment, const LayoutOrigin& origin,
                 const ir::Stmt* blamed, const std::string& hint) {
        std::optional<std::vector<int64_t>> shape = shapeOf(buffer);
        if (!shape || *shape != fragment.inputShape())
            return true; // a reshaped view: TileLang reshapes aliases; TileBench leaves it to the free level
        auto it = m_known.find(buffer);
        const bool strict = origin.level == InferenceLevel::Strict;
        if (it == m_known.end()) {
            m_known.emplace(buffer, Known{fragment, origin});
            if (strict)
                m_strict.insert(buffer);
            enqueueUsers(buffer);
            return true;
        }
        const Fragment& old = it->second.fragment;
        const bool bothStrict = strict && m_strict.count(buffer);
        if (contains(fragment, old, bothStrict) && contains(old, fragment, bothStrict))
            return true;
        if (!strict && !m_strict.count(buffer) && contains(old, fragment)) {
            it->second = Known{fragment, origin}; // more replicated: serves every old reader too
            enqueueUsers(buffer);
            return true;
        }
        if (!strict && contains(fragment, old))
            return true; // the existing layout already serves this op
        conflict(buffer, fragment, origin, blamed, std::nullopt, hint);
        return false;
    }

    std::string gemmDescription(const layout::GemmPlan& g, const char* role) const {
        return std::string(role) + " of gemm" + at(g.gemm) + " (" + g.instruction.name + " " +
               std::to_string(g.grid.mWarp) + "x" + std::to_string(g.grid.nWarp) + " warps, " +
               ir::gemmWarpPolicyName(g.gemm->policy) + ")";
    }

    LayoutOrigin originOf(const ir::Stmt* s, InferenceLevel level, std::string description) const {
        LayoutOrigin o;
        o.op = s;
        o.level = level;
        o.description = std::move(description);
        o.range = s ? s->range : SourceRange{};
        return o;
    }

    // ---- strict ---------------------------------------------------------------------------------

    void strictGemm(const Op& op) {
        const layout::GemmPlan& g = *op.gemm;
        const ir::Stmt& s = *op.stmt;
        const std::string policyHint = "use the same warp policy (and tile) for every gemm that shares " +
                                       bufferName(s.c.buffer) +
                                       ", or accumulate into a separate fragment and add the two afterwards";
        if (isFragment(s.c.buffer))
            propose(s.c.buffer, g.fragmentC,
                    originOf(&s, InferenceLevel::Strict, gemmDescription(g, "accumulator")), &s, policyHint);
        if (isFragment(s.a.buffer) && g.fragmentA.inputSize() > 0)
            propose(s.a.buffer, g.fragmentA,
                    originOf(&s, InferenceLevel::Strict, gemmDescription(g, "register A operand")), &s,
                    "copy " + bufferName(s.a.buffer) +
                        " through a shared buffer and use the shared tile as the gemm's A operand, or use "
                        "the same warp policy for both gemms");
        if (isFragment(s.b.buffer) && g.fragmentB.inputSize() > 0)
            propose(s.b.buffer, g.fragmentB,
                    originOf(&s, InferenceLevel::Strict, gemmDescription(g, "register B operand")), &s,
                    "copy " + bufferName(s.b.buffer) + " through a shared buffer");
    }

    void strictAnnotate(const Op& op) {
        for (const ir::LayoutAnnotation& ann : op.stmt->layouts) {
            if (!isFragment(ann.buffer))
                continue;
            std::optional<std::vector<int64_t>> shape = shapeOf(ann.buffer);
            if (!shape)
                continue;
            std::optional<Fragment> fragment;
            if (ann.kind == ir::LayoutAnnotationKind::FullyReplicated) {
                fragment = Fragment::fullyReplicated(
                    *shape, ann.threads > 0 ? ann.threads : m_kernel.threadsOf(ann.buffer));
            } else if (ann.kind == ir::LayoutAnnotationKind::CustomFragment) {
                fragment = customFragment(ann, *shape);
                if (!fragment)
                    continue;
            } else {
                continue;
            }
            LayoutOrigin origin =
                originOf(op.stmt, InferenceLevel::Strict, "T.annotate_layout" + at(op.stmt));
            origin.range = ann.range.valid ? ann.range : origin.range;
            propose(ann.buffer, *fragment, origin, op.stmt,
                    "remove the annotation of " + bufferName(ann.buffer) +
                        " or make it match the layout the other op imposes; a different layout needs a "
                        "separate fragment and a copy through shared memory");
        }
    }

    std::optional<Fragment> customFragment(const ir::LayoutAnnotation& ann,
                                           const std::vector<int64_t>& shape) {
        std::map<const ir::Var*, IndexExpr> vars;
        for (size_t d = 0; d < ann.placeholders.size() && d < shape.size(); ++d)
            vars[ann.placeholders[d]] = IndexExpr::var(layout::inputVarName(d), shape[d]);
        const int64_t replicate = std::max(ann.replicate, 1);
        // The replicate placeholder, when the thread function takes one, is the extra trailing parameter.
        if (ann.placeholders.size() > shape.size())
            vars[ann.placeholders[shape.size()]] = IndexExpr::var(Fragment::replicateVarName(), replicate);
        if (ann.placeholders.size() < shape.size()) {
            m_diagnostics->error("layout-annotation-rank", ann.range,
                                 "the T.Fragment for " + bufferName(ann.buffer) + " takes " +
                                     std::to_string(ann.placeholders.size()) + " indices, the buffer has " +
                                     std::to_string(shape.size()) + " dimensions");
            return std::nullopt;
        }
        std::optional<IndexExpr> thread = toIndexExpr(ann.thread, vars);
        if (!thread) {
            m_diagnostics->error("layout-annotation-expr", ann.range,
                                 "the thread function of the T.Fragment for " + bufferName(ann.buffer) +
                                     " is not integer index arithmetic of its parameters",
                                 "use + - * // % and constants of the index parameters");
            return std::nullopt;
        }
        if (!ann.forward.empty()) {
            std::vector<IndexExpr> index;
            for (const ir::ExprPtr& e : ann.forward) {
                std::optional<IndexExpr> x = toIndexExpr(e, vars);
                if (!x) {
                    m_diagnostics->error("layout-annotation-expr", ann.range,
                                         "the index function of the T.Fragment for " +
                                             bufferName(ann.buffer) +
                                             " is not integer index arithmetic of its parameters");
                    return std::nullopt;
                }
                index.push_back(*x);
            }
            return Fragment(shape, *thread, index, replicate);
        }
        auto automatic = fragmentWithAutomaticIndex(shape, *thread, replicate);
        if (!automatic) {
            m_diagnostics->error(automatic.error().code, ann.range, automatic.error().message,
                                 automatic.error().hint);
            return std::nullopt;
        }
        return *automatic;
    }

    void strictLevel() {
        for (const auto& [buffer, range] : m_floating) {
            std::optional<std::vector<int64_t>> shape = shapeOf(buffer);
            if (!shape || m_known.count(buffer))
                continue;
            LayoutOrigin o;
            o.level = InferenceLevel::Strict;
            o.description =
                "an access outside any parallel loop" +
                (m_context.lineOf(range).empty() ? std::string() : " at " + m_context.lineOf(range));
            o.range = range;
            propose(buffer, Fragment::fullyReplicated(*shape, m_kernel.threadsOf(buffer)), o, nullptr, {});
        }
        for (const Op& op : m_ops) {
            if (op.kind == OpKind::Gemm)
                strictGemm(op);
            else if (op.kind == OpKind::Annotate)
                strictAnnotate(op);
        }
        // Fragments indexed only by constants inside a parallel loop are fully replicated.
        for (const Op& op : m_ops)
            for (const FragAccess& a : op.accesses)
                if (op.kind == OpKind::Parallel && allConstant(a) && !m_known.count(a.buffer))
                    if (auto shape = shapeOf(a.buffer))
                        propose(a.buffer, Fragment::fullyReplicated(*shape, m_kernel.threadsOf(a.buffer)),
                                originOf(op.stmt, InferenceLevel::Strict,
                                         "a constant index in the parallel loop" + at(op.stmt)),
                                op.stmt, {});
    }

    // ---- common ---------------------------------------------------------------------------------

    std::string opName(const Op& op) const {
        switch (op.kind) {
        case OpKind::Parallel:
            return "the parallel loop" + at(op.stmt);
        case OpKind::Copy:
            return "the copy" + at(op.stmt);
        case OpKind::Reduce:
            return std::string("reduce_") + ir::reduceKindName(op.stmt->reduceKind) + at(op.stmt);
        case OpKind::Gemm:
            return "the gemm" + at(op.stmt);
        case OpKind::Annotate:
            return "T.annotate_layout" + at(op.stmt);
        }
        return "an op";
    }

    std::optional<layout::Layout> accessLayout(const Op& op, const FragAccess& a) const {
        if (a.opaque || op.loopShape.empty())
            return std::nullopt;
        return layout::Layout(op.loopShape, a.index);
    }

    // The loop layout over the nest and its enclosing sequential loops (Op::outerShape): the same owners for
    // every value of those loops, which become further register dimensions.
    std::optional<Fragment> extendedLoopLayout(const Op& op) const {
        if (!op.loopLayout || op.outerShape.empty())
            return std::nullopt;
        std::vector<int64_t> shape = op.loopShape;
        std::vector<IndexExpr> index = op.loopLayout->indexExprs();
        for (size_t e = 0; e < op.outerShape.size(); ++e) {
            shape.push_back(op.outerShape[e]);
            index.push_back(IndexExpr::var(layout::inputVarName(op.loopShape.size() + e), op.outerShape[e]));
        }
        Fragment extended(shape, op.loopLayout->threadExpr(), index, op.loopLayout->replicateExtent());
        if (const std::optional<layout::ThreadRange>& range = op.loopLayout->threadRange())
            extended = extended.bindThreadRange(range->begin, range->extent);
        return extended;
    }

    // Every known fragment the loop touches must agree with the loop layout (reads: the accessing thread
    // holds the element; writes: exact ownership). Returns false on a conflict.
    bool validate(Op& op) {
        bool ok = true;
        const std::optional<Fragment> extendedLoop = extendedLoopLayout(op);
        for (const FragAccess& a : op.accesses) {
            auto it = m_known.find(a.buffer);
            if (it == m_known.end())
                continue;
            const bool extended = a.opaque && !a.extended.empty() && extendedLoop;
            if (a.opaque && !extended)
                continue;
            const Fragment& loop = extended ? *extendedLoop : *op.loopLayout;
            std::optional<layout::Layout> access =
                extended
                    ? std::optional<layout::Layout>(layout::Layout(extendedLoop->inputShape(), a.extended))
                    : accessLayout(op, a);
            if (!access)
                continue;
            // An access the tables cannot answer (out of the buffer's range) is the checks' business.
            bool good = m_cache.contains(loop, it->second.fragment, access).value_or(true);
            if (good && a.write && isIdentityAccess(a, op.loopShape))
                good = contains(it->second.fragment, *op.loopLayout);
            if (!good) {
                ok = false;
                std::string hint =
                    op.kind == OpKind::Copy
                        ? "copy through a shared buffer (T.copy to an alloc_shared tile, then to the "
                          "fragment), which lets both sides keep their own layout"
                        : "copy one of the fragments through a shared buffer, or allocate a separate "
                          "fragment with the layout this loop gives";
                conflict(a.buffer, loop, op.loopOrigin, op.stmt, access, hint);
            }
        }
        return ok;
    }

    // An unknown fragment read through the enclosing sequential loops' variables (`lse_local[k, i]`): each
    // element is held by the threads that take its iteration, for every value of those loops (TileLang's
    // CompleteBufferFragment, which numbers each thread's elements with the automatic index).
    void completeExtended(const Op& op, const FragAccess& a, InferenceLevel level) {
        const std::optional<Fragment> loop = extendedLoopLayout(op);
        if (!loop)
            return;
        std::vector<size_t> kept;
        std::set<int> seen;
        for (const IndexExpr& e : a.extended) {
            int d = placeholderDim(e, loop->inputShape().size());
            if (d < 0 || !seen.insert(d).second)
                return;
            kept.push_back(size_t(d));
        }
        auto projected = projectFragment(*loop, kept, &m_cache);
        if (!projected)
            return;
        if (auto renumbered = fragmentWithAutomaticIndex(projected->inputShape(), projected->threadExpr(),
                                                         projected->replicateExtent()))
            projected = *renumbered;
        LayoutOrigin origin = originOf(
            op.stmt, level, op.loopOrigin.description + ", for every iteration of the enclosing loops");
        propose(a.buffer, *projected, origin, op.stmt, {});
    }

    // Fragments the loop touches that have no layout yet get one from the loop layout.
    void complete(Op& op, InferenceLevel level) {
        for (const FragAccess& a : op.accesses) {
            if (a.opaque && !a.extended.empty() && !m_known.count(a.buffer))
                completeExtended(op, a, level);
            if (a.opaque || m_known.count(a.buffer))
                continue;
            LayoutOrigin origin = originOf(op.stmt, level, opName(op));
            if (isIdentityAccess(a, op.loopShape)) {
                origin.description = op.loopOrigin.description;
                propose(a.buffer, *op.loopLayout, origin, op.stmt, {});
                continue;
            }
            // A projection: every index a distinct loop variable (m[i] in a loop over (i, j)).
            std::vector<size_t> kept;
            std::set<int> seen;
            bool projection = true;
            for (const IndexExpr& e : a.index) {
                int d = placeholderDim(e, op.loopShape.size());
                if (d < 0 || !seen.insert(d).second) {
                    projection = false;
                    break;
                }
                kept.push_back(size_t(d));
            }
            if (projection && !kept.empty()) {
                auto projected = projectFragment(*op.loopLayout, kept, &m_cache);
                // A transposed read (x[j, i] in a loop over (i, j)): TileLang keeps the owners and numbers
                // each thread's elements in the buffer's own row-major order.
                if (projected && kept.size() == op.loopShape.size() &&
                    !std::is_sorted(kept.begin(), kept.end()))
                    if (auto renumbered = fragmentWithAutomaticIndex(
                            projected->inputShape(), projected->threadExpr(), projected->replicateExtent()))
                        projected = *renumbered;
                if (projected) {
                    origin.description =
                        op.loopOrigin.description + ", replicated over the dropped loop dimensions";
                    propose(a.buffer, *projected, origin, op.stmt, {});
                    continue;
                }
            }
            bool written = false;
            for (const FragAccess& b : op.accesses)
                written = written || (b.buffer == a.buffer && b.write);
            if (!written && level == InferenceLevel::Free)
                if (auto shape = shapeOf(a.buffer)) {
                    origin.description =
                        opName(op) + " (read through a non-invertible index: fully replicated)";
                    propose(a.buffer, Fragment::fullyReplicated(*shape, m_kernel.threadsOf(a.buffer)), origin,
                            op.stmt, {});
                }
        }
    }

    bool adoptFrom(Op& op, const FragAccess& source, InferenceLevel level) {
        const Known& known = m_known.at(source.buffer);
        std::optional<Fragment> loop;
        if (isIdentityAccess(source, op.loopShape) && known.fragment.inputShape() == op.loopShape)
            loop = known.fragment;
        else {
            auto derived = loopFromAccess(known.fragment, op.loopShape, source.index, &m_cache);
            if (!derived)
                return false;
            loop = *derived;
        }
        op.loopLayout = *loop;
        op.loopOrigin = originOf(op.stmt, level,
                                 opName(op) + ", which follows " + bufferName(source.buffer) + " (" +
                                     known.origin.description + ")");
        return true;
    }

    void inferLoop(Op& op, InferenceLevel level) {
        if (op.loopShape.empty())
            return;
        if (!op.loopLayout) {
            const FragAccess* source = nullptr;
            for (const FragAccess& a : op.accesses)
                if (!a.opaque && a.write && m_known.count(a.buffer))
                    source = &a; // the last written fragment wins
            if (!source)
                for (const FragAccess& a : op.accesses)
                    if (!a.opaque && !a.write && m_known.count(a.buffer) &&
                        m_known.at(a.buffer).fragment.replicateExtent() == 1) {
                        source = &a;
                        break;
                    }
            if (!source && level == InferenceLevel::Free) {
                size_t best = 0;
                for (const FragAccess& a : op.accesses)
                    if (!a.opaque && m_known.count(a.buffer) && (!source || a.index.size() > best)) {
                        source = &a;
                        best = a.index.size();
                    }
            }
            if (source && !adoptFrom(op, *source, level) && level != InferenceLevel::Free)
                return;
            if (!op.loopLayout) {
                if (level != InferenceLevel::Free)
                    return;
                planDefault(op);
            }
            validate(op);
        }
        // A fragment the loop itself lays out must also serve the loop's other accesses to it
        // (x[(i + 1) % 8, j] next to x[i, j]).
        const size_t known = m_known.size();
        complete(op, level);
        if (m_known.size() != known && op.loopLayout)
            validate(op);
    }

    void planDefault(Op& op) {
        int bits = 0;
        for (const FragAccess& a : op.accesses)
            bits = std::max(bits, ir::dtypeBits(a.buffer->dtype));
        if (op.kind == OpKind::Copy) {
            // Memory accesses set the vector, as in TileLang: a copy between a fragment and global or shared
            // memory moves whole 128-bit vectors of the memory side, whatever the registers' type.
            const ir::Buffer* src = op.stmt->src.buffer;
            const ir::Buffer* dst = op.stmt->dst.buffer;
            const bool srcFragment = src->scope == ir::MemoryScope::Fragment;
            const bool dstFragment = dst->scope == ir::MemoryScope::Fragment;
            if (srcFragment != dstFragment)
                bits = ir::dtypeBits((srcFragment ? dst : src)->dtype);
            else
                bits = std::max({bits, ir::dtypeBits(src->dtype), ir::dtypeBits(dst->dtype)});
        }
        const int64_t maxVector = std::max<int64_t>(m_context.options.maxVectorBits / std::max(bits, 8), 1);
        const int64_t threads = m_kernel.threadsOf(op.stmt);
        const int64_t vector = fragmentLoopVector(op.loopShape, maxVector, threads);
        op.loopLayout = planLoopPartition(op.loopShape, vector, threads, true);
        op.loopOrigin = originOf(op.stmt, InferenceLevel::Free,
                                 "default partition of " + opName(op) + " over " + std::to_string(threads) +
                                     " threads, vector " + std::to_string(vector));
    }

    void inferReduce(Op& op) {
        const ir::Stmt& s = *op.stmt;
        auto src = m_known.find(s.srcBuffer);
        if (src == m_known.end())
            return;
        std::vector<size_t> kept;
        for (size_t d = 0; d < src->second.fragment.inputShape().size(); ++d)
            if (int(d) != s.dim)
                kept.push_back(d);
        auto reduced = projectFragment(src->second.fragment, kept, &m_cache);
        if (!reduced)
            return;
        std::optional<std::vector<int64_t>> dstShape = shapeOf(s.dstBuffer);
        if (!dstShape || *dstShape != reduced->inputShape())
            return;
        LayoutOrigin origin =
            originOf(&s, InferenceLevel::Common,
                     opName(op) + " of " + bufferName(s.srcBuffer) + " over dim " + std::to_string(s.dim));
        auto dst = m_known.find(s.dstBuffer);
        if (dst == m_known.end()) {
            propose(s.dstBuffer, *reduced, origin, &s, {});
            return;
        }
        // Every thread that holds a result under the destination's layout must have computed it.
        if (!contains(dst->second.fragment, *reduced))
            conflict(s.dstBuffer, *reduced, origin, &s, std::nullopt,
                     "use a shared memory buffer to transform the layout, or reduce into a separate "
                     "fragment and copy it");
        else if (!m_strict.count(s.dstBuffer) && contains(dst->second.fragment, *reduced) &&
                 !contains(*reduced, dst->second.fragment))
            propose(s.dstBuffer, *reduced, origin, &s, {});
    }

    void inferOp(size_t index, InferenceLevel level) {
        Op& op = m_ops[index];
        switch (op.kind) {
        case OpKind::Parallel:
        case OpKind::Copy:
            inferLoop(op, level);
            return;
        case OpKind::Reduce:
            inferReduce(op);
            return;
        case OpKind::Gemm:
        case OpKind::Annotate:
            return;
        }
    }

    void drain(InferenceLevel level) {
        size_t budget = 64 * m_ops.size() + 1000;
        while (!m_queue.empty() && budget-- > 0) {
            size_t index = m_queue.front();
            m_queue.pop_front();
            m_queued[index] = false;
            inferOp(index, level);
        }
        m_queue.clear();
        std::fill(m_queued.begin(), m_queued.end(), false);
    }

    void commonLevel() {
        m_queued.assign(m_ops.size(), true);
        for (size_t i = 0; i < m_ops.size(); ++i)
            m_queue.push_back(i);
        drain(InferenceLevel::Common);
    }

    // An undecided loop or copy over fragments; `following`: one that accesses a fragment whose layout is
    // known, so it can follow it instead of taking a default partition.
    bool undecided(const Op& op, bool following) const {
        if ((op.kind != OpKind::Parallel && op.kind != OpKind::Copy) || op.loopLayout || op.loopShape.empty())
            return false;
        bool touchesFragment = false, touchesKnown = false;
        for (const FragAccess& a : op.accesses) {
            touchesFragment = touchesFragment || !a.opaque;
            touchesKnown = touchesKnown || (!a.opaque && m_known.count(a.buffer));
        }
        return following ? touchesKnown : touchesFragment;
    }

    // What the free level may change, saved to try another root.
    struct FreeState {
        std::vector<Op> ops;
        std::map<const ir::Buffer*, Known> known;
        std::set<std::pair<const ir::Stmt*, const ir::Buffer*>> reported;
    };
    FreeState saveState() const { return {m_ops, m_known, m_reported}; }
    void restoreState(const FreeState& state) {
        m_ops = state.ops;
        m_known = state.known;
        m_reported = state.reported;
    }

    // TileLang's free level (InferInFreeMode) tries every op as the root that decides first and keeps the
    // plan without conflicts that needs the fewest registers per thread, summed over the fragments (ties:
    // the earliest root). The greedy order below is that plan for the corpus; only when it ends in a
    // conflict are the undecided loops and copies tried as roots in turn (a fragment read through an
    // enclosing loop's variable, lse_local[k, i], cannot follow a default partition taken at its copy).
    void freeLevel() {
        DiagnosticEngine* real = m_diagnostics;
        const FreeState start = saveState();
        std::vector<size_t> roots;
        for (size_t i = 0; i < m_ops.size(); ++i)
            if (undecided(m_ops[i], false))
                roots.push_back(i);
        DiagnosticEngine greedy;
        m_diagnostics = &greedy;
        greedyFreeLevel(std::nullopt);
        std::optional<FreeState> best;
        std::vector<Diagnostic> bestDiagnostics = greedy.diagnostics();
        if (greedy.hasErrors()) {
            int64_t fewest = INT64_MAX;
            for (size_t root : roots) {
                restoreState(start);
                DiagnosticEngine trial;
                m_diagnostics = &trial;
                greedyFreeLevel(root);
                if (trial.hasErrors())
                    continue;
                int64_t registers = 0;
                for (const auto& [buffer, known] : m_known)
                    registers += known.fragment.registersPerThread();
                if (registers < fewest) {
                    fewest = registers;
                    best = saveState();
                    bestDiagnostics = trial.diagnostics();
                }
            }
            if (!best) { // every root conflicts: the greedy order's plan and conflicts
                restoreState(start);
                DiagnosticEngine again;
                m_diagnostics = &again;
                greedyFreeLevel(std::nullopt);
                bestDiagnostics = again.diagnostics();
            }
        }
        if (best)
            restoreState(*best);
        m_diagnostics = real;
        for (const Diagnostic& d : bestDiagnostics)
            m_diagnostics->report(d);
    }

    // The free level in one order: `root` first when given, then loops that can follow a known fragment, in
    // program order, then the first undecided one takes a default partition, and so on.
    void greedyFreeLevel(std::optional<size_t> root) {
        if (root) {
            inferLoop(m_ops[*root], InferenceLevel::Free);
            drain(InferenceLevel::Common);
        }
        for (size_t round = 0; round < 2 * m_ops.size() + 1; ++round) {
            // Loops that can follow a known fragment go first, in program order; only when none is left does
            // the first undecided one take a default partition. A default taken early would be imposed on
            // fragments a later loop reads together with a laid-out one (a row max copied in from shared
            // memory, then combined with a reduction's result): TileLang tries each op of a component as the
            // root and keeps an ordering that does not conflict, which in such a case is this one.
            std::optional<size_t> next;
            for (bool following : {true, false}) {
                for (size_t i = 0; i < m_ops.size() && !next; ++i)
                    if (undecided(m_ops[i], following))
                        next = i;
                if (next)
                    break;
            }
            if (!next)
                break;
            inferLoop(m_ops[*next], InferenceLevel::Free);
            drain(InferenceLevel::Common);
        }
        // Fragments no op could decide (only filled, or read through opaque indices): the default
        // partition of their shape.
        for (const ir::Buffer* b : m_kernel.kernel->allocations) {
            if (!isFragment(b) || m_known.count(b))
                continue;
            std::optional<std::vector<int64_t>> shape = shapeOf(b);
            if (!shape || layout::shapeSize(*shape) > layout::kMaxEnumerationPoints)
                continue;
            const int64_t maxVector =
                std::max<int64_t>(m_context.options.maxVectorBits / ir::dtypeBits(b->dtype), 1);
            const int64_t threads = m_kernel.threadsOf(b);
            const int64_t vector = fragmentLoopVector(*shape, maxVector, threads);
            LayoutOrigin o;
            o.level = InferenceLevel::Free;
            o.range = b->range;
            o.description = "default partition over " + std::to_string(threads) + " threads, vector " +
                            std::to_string(vector) + " (no op constrains it)";
            propose(b, planLoopPartition(*shape, vector, threads, true), o, nullptr, {});
            m_queued.assign(m_ops.size(), false);
            drain(InferenceLevel::Common);
        }
        // Loops whose fragments all became known after they were visited.
        for (Op& op : m_ops)
            if ((op.kind == OpKind::Parallel || op.kind == OpKind::Copy) && !op.loopLayout &&
                !op.loopShape.empty())
                inferLoop(op, InferenceLevel::Free);
    }

    void finish() {
        for (const ir::Buffer* b : m_kernel.kernel->allocations) {
            auto it = m_known.find(b);
            if (!isFragment(b) || it == m_known.end())
                continue;
            layout::FragmentPlan plan;
            plan.buffer = b;
            plan.fragment = it->second.fragment;
            plan.origin = it->second.origin;
            plan.registersPerThread = plan.fragment.registersPerThread();
            m_kernel.fragments.push_back(std::move(plan));
        }
        for (const Op& op : m_ops) {
            if (op.kind != OpKind::Parallel || !op.loopLayout || !op.stmt ||
                op.stmt->kind != ir::StmtKind::For)
                continue;
            layout::ParallelLoopPlan plan;
            plan.loop = op.stmt;
            plan.loopLayout = *op.loopLayout;
            plan.origin = op.loopOrigin;
            m_kernel.loops.push_back(std::move(plan));
        }
    }
};

} // namespace

void runLayoutInference(const ir::Module&, layout::LayoutPlan& plan, const PassContext& context,
                        DiagnosticEngine& diagnostics) {
    for (layout::KernelPlan& kernel : plan.kernels) {
        if (!kernel.kernel || !kernel.kernel->body)
            continue;
        KernelInference inference(kernel, context, diagnostics);
        inference.run();
    }
}

} // namespace tb::passes
