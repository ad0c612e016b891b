// Placement of grid barriers (see GridSyncChecks.h).
#include "engine/check/GridSyncChecks.h"

#include "engine/ir/Printer.h"
#include "engine/ir/Visitor.h"

#include <string>
#include <vector>

namespace tb::check {

using namespace tb::ir;

namespace {

// What an expression depends on that may differ between the threads or blocks that evaluate it.
struct Dependence {
    const Var* thread = nullptr; // a thread index (T.get_thread_binding)
    const Var* block = nullptr;  // a block index of the T.Kernel
    const Buffer* memory = nullptr;
};

Dependence dependenceOf(const std::vector<ExprPtr>& exprs) {
    Dependence d;
    for (const ExprPtr& e : exprs)
        forEachExprNode(e, [&](const Expr& node) {
            if (node.kind == ExprKind::VarRef && node.var && node.var->kind == VarKind::ThreadIndex &&
                !d.thread)
                d.thread = node.var;
            if (node.kind == ExprKind::VarRef && node.var && node.var->kind == VarKind::BlockIndex &&
                !d.block)
                d.block = node.var;
            if (node.kind == ExprKind::BufferLoad && node.buffer && !d.memory)
                d.memory = node.buffer;
        });
    return d;
}

constexpr const char* kEveryThreadHint =
    "T.sync_grid must be reached by every thread of every block, the same number of times: put it where "
    "the whole block runs (the kernel body, or a T.serial loop whose bounds are the same in every block)";

class GridSyncPlacement {
public:
    explicit GridSyncPlacement(DiagnosticEngine& diagnostics) : m_diagnostics(diagnostics) {}

    void walk(const Stmt& s, int depth) {
        if (depth > kMaxIrDepth)
            return;
        if (s.kind == StmtKind::GridSync) {
            check(s);
            return;
        }
        if (s.kind != StmtKind::Seq && s.kind != StmtKind::Kernel)
            m_enclosing.push_back(&s);
        forEachChildStmt(s, [&](const StmtPtr& child) { walk(*child, depth + 1); });
        if (s.kind != StmtKind::Seq && s.kind != StmtKind::Kernel)
            m_enclosing.pop_back();
    }

private:
    // The innermost enclosing statement that keeps some threads from the barrier is the one to blame.
    void check(const Stmt& sync) {
        for (auto it = m_enclosing.rbegin(); it != m_enclosing.rend(); ++it)
            if (reject(sync, **it))
                return;
        for (auto it = m_enclosing.rbegin(); it != m_enclosing.rend(); ++it)
            if (warnDataDependent(sync, **it))
                return;
    }

    void placementError(const Stmt& sync, const Stmt& around, const std::string& why,
                        const std::string& note) {
        Diagnostic& d =
            m_diagnostics.error("grid-sync-placement", sync.range,
                                "T.sync_grid " + why + "; the grid would deadlock", kEveryThreadHint);
        d.notes.push_back({around.range, note});
    }

    bool reject(const Stmt& sync, const Stmt& s) {
        switch (s.kind) {
        case StmtKind::For: {
            if (s.loopKind == LoopKind::Parallel || s.loopKind == LoopKind::Vectorized) {
                placementError(sync, s,
                               std::string("inside a T.") +
                                   (s.loopKind == LoopKind::Parallel ? "Parallel" : "vectorized") +
                                   " loop, whose iterations are spread over the block's threads: each thread "
                                   "would wait once per element it owns",
                               "the loop starts here");
                return true;
            }
            if (s.loopKind == LoopKind::Pipelined) {
                placementError(sync, s,
                               "inside a T.Pipelined loop, whose copies are issued iterations ahead of the "
                               "barrier that should order them",
                               "the pipelined loop starts here; write it as T.serial");
                return true;
            }
            Dependence d = dependenceOf({s.min, s.extent});
            if (d.thread || d.block) {
                const Var* v = d.thread ? d.thread : d.block;
                placementError(sync, s,
                               "inside a loop whose bounds depend on the " +
                                   std::string(d.thread ? "thread" : "block") + " index '" + v->name +
                                   "': the " + (d.thread ? "threads" : "blocks") +
                                   " would wait a different number of times",
                               "the loop over '" + s.loopVar->name + "' starts here");
                return true;
            }
            return false;
        }
        case StmtKind::IfThenElse: {
            Dependence d = dependenceOf({s.cond});
            if (!d.thread && !d.block)
                return false;
            const Var* v = d.thread ? d.thread : d.block;
            placementError(sync, s,
                           "inside a branch on the " + std::string(d.thread ? "thread" : "block") +
                               " index '" + v->name + "': the " + (d.thread ? "threads" : "blocks") +
                               " that skip it never arrive",
                           "the branch `if " + printExpr(s.cond) + ":` starts here");
            return true;
        }
        case StmtKind::WarpGroups:
            placementError(sync, s,
                           "inside a T.ws scope, which only threads " + std::to_string(s.firstThread) + ".." +
                               std::to_string(s.firstThread + s.threadCount - 1) +
                               " of the block run: the others never arrive",
                           "the T.ws scope starts here");
            return true;
        default:
            return false;
        }
    }

    bool warnDataDependent(const Stmt& sync, const Stmt& s) {
        std::vector<ExprPtr> exprs;
        if (s.kind == StmtKind::IfThenElse)
            exprs = {s.cond};
        else if (s.kind == StmtKind::For)
            exprs = {s.min, s.extent};
        Dependence d = dependenceOf(exprs);
        if (!d.memory)
            return false;
        Diagnostic& d2 = m_diagnostics.warning(
            "grid-sync-data-dependent", sync.range,
            "whether every block reaches T.sync_grid depends on '" + d.memory->name +
                "', which may differ between blocks",
            "make sure every block takes the same path to the barrier (the CPU executor checks it for the "
            "inputs it runs); on the GPU a block that skips it deadlocks the grid");
        d2.notes.push_back(
            {s.range, s.kind == StmtKind::IfThenElse ? "the branch starts here" : "the loop starts here"});
        return true;
    }

    DiagnosticEngine& m_diagnostics;
    std::vector<const Stmt*> m_enclosing; // loops, branches and T.ws scopes around the current statement
};

} // namespace

void checkGridSyncPlacement(const Stmt& kernel, DiagnosticEngine& diagnostics) {
    GridSyncPlacement placement(diagnostics);
    placement.walk(kernel, 0);
}

} // namespace tb::check
