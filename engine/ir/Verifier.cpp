// Tile IR verifier (see Verifier.h). One preorder walk keeps the set of vars in scope and the innermost
// kernel's allocations; every expression of every statement is checked against them.
#include "engine/ir/Verifier.h"

#include "engine/ir/Visitor.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tb::ir {

namespace {

// A verifier that found this many problems has said enough; the rest are usually consequences.
constexpr int kMaxReports = 50;

class Verifier : public StmtVisitor {
public:
    explicit Verifier(DiagnosticEngine& diagnostics) : m_diagnostics(diagnostics) {}

    bool run(const Module& module) {
        for (const PrimFunc& func : module.funcs)
            verifyFunc(func);
        if (hitDepthLimit())
            fail({}, "statement nesting exceeds " + std::to_string(kMaxIrDepth) + " levels");
        return m_failures == 0;
    }

private:
    void fail(SourceRange range, const std::string& what) {
        ++m_failures;
        if (m_failures > kMaxReports)
            return;
        m_diagnostics.error("internal-error", range,
                            "internal error: invalid tile ir: " + what +
                                "; please report this as a TileBench bug",
                            "this is a bug in TileBench, not in the tile program; please file a report with "
                            "the program attached");
    }

    void verifyFunc(const PrimFunc& func) {
        m_func = &func;
        for (size_t i = 0; i < func.params.size(); ++i) {
            const Buffer* b = func.params[i];
            if (!b) {
                fail(func.range, "parameter " + std::to_string(i) + " of '" + func.name + "' is null");
                continue;
            }
            if (b->scope != MemoryScope::Global)
                fail(b->range,
                     "parameter '" + b->name + "' has scope " + scopeName(b->scope) + ", not global");
            if (b->paramIndex != static_cast<int>(i))
                fail(b->range, "parameter '" + b->name + "' is at position " + std::to_string(i) +
                                   " but has paramIndex " + std::to_string(b->paramIndex));
            checkShape(*b);
        }
        m_globals = {func.params.begin(), func.params.end()};
        for (const Buffer* b : func.workspaces) {
            if (!b) {
                fail(func.range, "a workspace of '" + func.name + "' is null");
                continue;
            }
            if (b->scope != MemoryScope::Global || b->paramIndex != -1)
                fail(b->range, "workspace '" + b->name + "' must be a global buffer that is not a parameter");
            if (!m_globals.insert(b).second)
                fail(b->range, "workspace '" + b->name + "' is listed twice or is also a parameter");
            checkShape(*b);
        }
        for (const Var* v : func.dynamicDims) {
            if (!v)
                fail(func.range, "a dynamic dim of '" + func.name + "' is null");
            else if (v->kind != VarKind::DynamicDim)
                fail(v->range, "dynamic dim '" + v->name + "' has var kind " + varKindName(v->kind));
        }
        if (!func.body)
            fail(func.range, "prim_func '" + func.name + "' has no body");
        visit(func.body);
        m_func = nullptr;
    }

    // Buffer shapes may only mention the prim_func's dynamic dims.
    void checkShape(const Buffer& b) {
        for (const ExprPtr& dim : b.shape) {
            if (!dim) {
                fail(b.range, "buffer '" + b.name + "' has a null dimension");
                continue;
            }
            checkExpr(dim, b.range);
        }
    }

    // A view is a global buffer over a global base that is not a view itself and not a parameter.
    void checkView(const Buffer& view) {
        const Buffer* base = view.viewOf;
        if (view.scope != MemoryScope::Global || base->scope != MemoryScope::Global)
            fail(view.range, "view '" + view.name + "' (" + scopeName(view.scope) + ") of '" + base->name +
                                 "' (" + scopeName(base->scope) +
                                 ") is not a global view of a global buffer");
        if (base->viewOf)
            fail(view.range, "view '" + view.name + "' has view '" + base->name + "' as its base");
        if (view.paramIndex >= 0 || view.isOutput)
            fail(view.range, "view '" + view.name + "' is marked as a parameter or an output");
    }

    bool isBound(const Var* v) const {
        switch (v->kind) {
        case VarKind::DynamicDim:
            if (m_func)
                for (const Var* d : m_func->dynamicDims)
                    if (d == v)
                        return true;
            return false;
        case VarKind::ThreadIndex:
            return m_kernel != nullptr;
        case VarKind::BlockIndex:
        case VarKind::LoopVar:
        case VarKind::Placeholder:
            return m_bound.count(v) > 0;
        }
        return false;
    }

    void bind(const Var* v, SourceRange range) {
        if (m_bound.count(v))
            fail(range, "var '" + v->name + "' is bound again while already in scope");
        ++m_bound[v];
    }

    void unbind(const Var* v) {
        auto it = m_bound.find(v);
        if (it != m_bound.end() && --it->second == 0)
            m_bound.erase(it);
    }

    void useBuffer(const Buffer* b, SourceRange range) {
        if (b->viewOf && !m_allocated.count(b)) {
            fail(range, "view '" + b->name + "' is used outside the kernel that declares it");
            return;
        }
        if (b->scope == MemoryScope::Global) {
            if (m_func && !b->viewOf && !m_globals.count(b))
                fail(range, "global buffer '" + b->name + "' is neither a parameter nor a workspace of '" +
                                m_func->name + "'");
            return;
        }
        if (!m_kernel) {
            fail(range,
                 std::string(scopeName(b->scope)) + " buffer '" + b->name + "' is used outside any kernel");
            return;
        }
        if (!m_allocated.count(b))
            fail(range, std::string(scopeName(b->scope)) + " buffer '" + b->name +
                            "' is used in a kernel that does not allocate it");
    }

    void checkExpr(const ExprPtr& root, SourceRange stmtRange) {
        forEachExprNode(root, [&](const Expr& e) {
            SourceRange range = e.range.valid ? e.range : stmtRange;
            auto arity = [&](size_t n) {
                bool ok = e.operands.size() == n;
                for (const ExprPtr& op : e.operands)
                    ok = ok && op != nullptr;
                if (!ok)
                    fail(range, "an expression of dtype " + std::string(dtypeName(e.dtype)) + " needs " +
                                    std::to_string(n) + " operands but has " +
                                    std::to_string(e.operands.size()) + " (or a null one)");
                return ok;
            };
            switch (e.kind) {
            case ExprKind::IntImm:
            case ExprKind::FloatImm:
                return;
            case ExprKind::VarRef:
                if (!e.var)
                    fail(range, "a var reference has no var");
                else if (!isBound(e.var))
                    fail(range, std::string(varKindName(e.var->kind)) + " '" + e.var->name +
                                    "' is used outside the scope that binds it");
                return;
            case ExprKind::BufferLoad:
                if (!e.buffer) {
                    fail(range, "a buffer load has no buffer");
                    return;
                }
                if (e.operands.size() != e.buffer->rank())
                    fail(range, "load of '" + e.buffer->name + "' has " + std::to_string(e.operands.size()) +
                                    " indices but the buffer has rank " + std::to_string(e.buffer->rank()));
                for (const ExprPtr& op : e.operands)
                    if (!op)
                        fail(range, "load of '" + e.buffer->name + "' has a null index");
                useBuffer(e.buffer, range);
                return;
            case ExprKind::Binary:
                if (arity(2) && e.operands[0]->dtype != e.operands[1]->dtype)
                    fail(range, std::string("operands of '") + binaryOpName(e.binaryOp) + "' have dtypes " +
                                    dtypeName(e.operands[0]->dtype) + " and " +
                                    dtypeName(e.operands[1]->dtype));
                return;
            case ExprKind::Unary:
            case ExprKind::Cast:
                arity(1);
                return;
            case ExprKind::Select:
                if (arity(3) && e.operands[1]->dtype != e.operands[2]->dtype)
                    fail(range, std::string("branches of a select have dtypes ") +
                                    dtypeName(e.operands[1]->dtype) + " and " +
                                    dtypeName(e.operands[2]->dtype));
                return;
            case ExprKind::Call:
                for (const ExprPtr& op : e.operands)
                    if (!op)
                        fail(range,
                             std::string("call of ") + intrinsicName(e.intrinsic) + " has a null argument");
                return;
            }
        });
    }

    void checkRegion(const Region& r, const Stmt& s, const char* role) {
        SourceRange range = r.range.valid ? r.range : s.range;
        if (!r.buffer) {
            fail(range, std::string("the ") + role + " region has no buffer");
            return;
        }
        size_t rank = r.buffer->rank();
        if (r.mins.size() != rank || r.extents.size() != rank)
            fail(range, std::string("the ") + role + " region of '" + r.buffer->name + "' has " +
                            std::to_string(r.mins.size()) + " mins and " + std::to_string(r.extents.size()) +
                            " extents but the buffer has rank " + std::to_string(rank));
        for (size_t i = 0; i < r.mins.size() || i < r.extents.size(); ++i)
            if ((i < r.mins.size() && !r.mins[i]) || (i < r.extents.size() && !r.extents[i]))
                fail(range,
                     std::string("the ") + role + " region of '" + r.buffer->name + "' has a null bound");
        useBuffer(r.buffer, range);
    }

    void require(bool ok, const Stmt& s, const char* what) {
        if (!ok)
            fail(s.range, what);
    }

    void visitStmt(const Stmt& s) override {
        switch (s.kind) {
        case StmtKind::Seq:
            for (const StmtPtr& child : s.stmts)
                require(child != nullptr, s, "a statement sequence holds a null statement");
            visitChildren(s);
            return;
        case StmtKind::Kernel:
            visitKernel(s);
            return;
        case StmtKind::For:
            visitFor(s);
            return;
        case StmtKind::IfThenElse:
            require(s.cond != nullptr, s, "an if has no condition");
            require(s.body != nullptr, s, "an if has no body");
            checkOwnExprs(s);
            visitChildren(s);
            return;
        case StmtKind::Store:
            if (!s.buffer) {
                fail(s.range, "a store has no buffer");
            } else {
                if (s.indices.size() != s.buffer->rank())
                    fail(s.range, "store to '" + s.buffer->name + "' has " +
                                      std::to_string(s.indices.size()) + " indices but the buffer has rank " +
                                      std::to_string(s.buffer->rank()));
                for (const ExprPtr& index : s.indices)
                    require(index != nullptr, s, "a store has a null index");
                useBuffer(s.buffer, s.range);
            }
            require(s.value != nullptr, s, "a store has no value");
            checkOwnExprs(s);
            return;
        case StmtKind::Copy:
            checkRegion(s.src, s, "copy source");
            checkRegion(s.dst, s, "copy destination");
            if (s.barrier)
                useBuffer(s.barrier, s.range);
            checkOwnExprs(s);
            return;
        case StmtKind::Gemm:
            checkRegion(s.a, s, "gemm A");
            checkRegion(s.b, s, "gemm B");
            checkRegion(s.c, s, "gemm C");
            checkOwnExprs(s);
            return;
        case StmtKind::Fill:
            checkRegion(s.dst, s, "fill destination");
            require(s.value != nullptr, s, "a fill has no value");
            checkOwnExprs(s);
            return;
        case StmtKind::Reduce:
            require(s.srcBuffer != nullptr, s, "a reduce has no source buffer");
            require(s.dstBuffer != nullptr, s, "a reduce has no destination buffer");
            if (s.srcBuffer)
                useBuffer(s.srcBuffer, s.range);
            if (s.dstBuffer)
                useBuffer(s.dstBuffer, s.range);
            return;
        case StmtKind::AtomicAdd:
            checkRegion(s.dst, s, "atomic_add destination");
            if (s.src.buffer)
                checkRegion(s.src, s, "atomic_add source");
            else
                require(s.value != nullptr, s, "an atomic_add has neither a source region nor a value");
            checkOwnExprs(s);
            return;
        case StmtKind::AnnotateLayout:
            visitLayouts(s);
            return;
        case StmtKind::UseSwizzle:
            checkOwnExprs(s);
            return;
        case StmtKind::Print:
            require(s.printBuffer != nullptr || s.value != nullptr, s,
                    "a print has neither a buffer nor a value");
            if (s.printBuffer)
                useBuffer(s.printBuffer, s.range);
            checkOwnExprs(s);
            return;
        case StmtKind::WarpGroups:
            require(s.body != nullptr, s, "a T.ws scope has no body");
            require(!s.warpGroups.empty() && s.threadCount > 0, s, "a T.ws scope names no threads");
            visitChildren(s);
            return;
        case StmtKind::Barrier:
            require(s.barrier != nullptr && s.barrier->scope == MemoryScope::Barrier, s,
                    "an mbarrier operation has no barrier buffer");
            require(s.barrierIndex != nullptr, s, "an mbarrier operation has no barrier index");
            if (s.barrier)
                useBuffer(s.barrier, s.range);
            checkOwnExprs(s);
            return;
        case StmtKind::GridSync:
            require(m_kernel != nullptr, s, "a grid barrier outside every kernel");
            return;
        case StmtKind::CpAsync:
            checkRegion(s.src, s, "cp.async source");
            checkRegion(s.dst, s, "cp.async destination");
            checkOwnExprs(s);
            return;
        case StmtKind::MmaIntrinsic:
            if (s.mmaOp == MmaIntrinsicOp::Mma) {
                checkRegion(s.a, s, "mma A");
                checkRegion(s.b, s, "mma B");
                checkRegion(s.c, s, "mma C");
            } else {
                checkRegion(s.src, s, "mma intrinsic source");
                checkRegion(s.dst, s, "mma intrinsic destination");
            }
            checkOwnExprs(s);
            return;
        }
    }

    void checkOwnExprs(const Stmt& s) {
        forEachStmtExpr(s, [&](const ExprPtr& e) { checkExpr(e, s.range); });
    }

    void visitKernel(const Stmt& s) {
        checkOwnExprs(s); // the grid is evaluated outside the kernel's own bindings
        if (s.grid.empty() || s.grid.size() > 3 || s.grid.size() != s.blockVars.size())
            fail(s.range, "a kernel has " + std::to_string(s.grid.size()) + " grid extents and " +
                              std::to_string(s.blockVars.size()) + " block vars (1 to 3 each, equal counts)");
        if (s.threads.empty() || s.threads.size() > 3)
            fail(s.range, "a kernel has " + std::to_string(s.threads.size()) + " thread extents (1 to 3)");
        require(s.body != nullptr, s, "a kernel has no body");

        const Stmt* outerKernel = m_kernel;
        std::set<const Buffer*> outerAllocated = m_allocated;
        m_kernel = &s;
        m_allocated.clear();
        for (const Buffer* b : s.allocations) {
            if (!b) {
                fail(s.range, "a kernel allocation is null");
                continue;
            }
            if (!m_allocated.insert(b).second)
                fail(b->range, "buffer '" + b->name + "' is allocated twice in one kernel");
            if (b->scope == MemoryScope::Global && !b->viewOf) // a view is declared where it is used
                fail(b->range,
                     "global buffer '" + b->name + "' is allocated in a kernel, not as a workspace");
            checkShape(*b);
            if (b->initValue && *b->initValue)
                checkExpr(*b->initValue, b->range);
            if (b->viewOf)
                checkView(*b);
        }
        std::vector<const Var*> bound;
        for (const Var* v : s.blockVars) {
            if (!v) {
                fail(s.range, "a kernel block var is null");
                continue;
            }
            bind(v, s.range);
            bound.push_back(v);
        }
        visitChildren(s);
        for (const Var* v : bound)
            unbind(v);
        m_kernel = outerKernel;
        m_allocated = std::move(outerAllocated);
    }

    void visitFor(const Stmt& s) {
        require(s.min != nullptr && s.extent != nullptr, s, "a loop has no min or extent");
        require(s.body != nullptr, s, "a loop has no body");
        checkOwnExprs(s); // bounds are evaluated outside the loop
        if (!s.loopVar) {
            fail(s.range, "a loop has no loop var");
            visitChildren(s);
            return;
        }
        bind(s.loopVar, s.range);
        visitChildren(s);
        unbind(s.loopVar);
    }

    void visitLayouts(const Stmt& s) {
        for (const LayoutAnnotation& layout : s.layouts) {
            SourceRange range = layout.range.valid ? layout.range : s.range;
            if (!layout.buffer) {
                fail(range, "a layout annotation has no buffer");
                continue;
            }
            useBuffer(layout.buffer, range);
            bool custom = layout.kind == LayoutAnnotationKind::CustomLayout ||
                          layout.kind == LayoutAnnotationKind::CustomFragment;
            if (custom && layout.placeholders.size() != layout.buffer->rank())
                fail(range, "the layout of '" + layout.buffer->name + "' has " +
                                std::to_string(layout.placeholders.size()) +
                                " placeholders but the buffer has rank " +
                                std::to_string(layout.buffer->rank()));
            std::vector<const Var*> bound;
            for (const Var* v : layout.placeholders) {
                if (!v) {
                    fail(range, "a layout placeholder is null");
                    continue;
                }
                bind(v, range);
                bound.push_back(v);
            }
            for (const ExprPtr& e : layout.forward)
                checkExpr(e, range);
            if (layout.thread)
                checkExpr(layout.thread, range);
            for (const Var* v : bound)
                unbind(v);
        }
    }

    DiagnosticEngine& m_diagnostics;
    const PrimFunc* m_func = nullptr;
    const Stmt* m_kernel = nullptr;
    std::set<const Buffer*> m_allocated;
    std::set<const Buffer*> m_globals; // the current prim_func's parameters and workspaces
    std::map<const Var*, int> m_bound;
    int m_failures = 0;
};

} // namespace

bool verifyModule(const Module& module, DiagnosticEngine& diagnostics) {
    return Verifier(diagnostics).run(module);
}

} // namespace tb::ir
