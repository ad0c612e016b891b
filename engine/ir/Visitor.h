// The one way to walk the Tile IR. `forEachChildStmt` and `forEachStmtExpr` enumerate what a statement
// holds directly, in a fixed order; `StmtVisitor` walks a statement tree in preorder with a depth guard,
// so that a pathological (or cyclic, hand-built) tree can never overflow the stack. Passes, the verifier,
// the checks and the printers all walk through these, so a new field needs to be added here only once.
#pragma once

#include "engine/ir/Stmt.h"

#include <functional>

namespace tb::ir {

// Deepest statement or expression nesting any walker descends into. Real programs nest a few dozen levels.
inline constexpr int kMaxIrDepth = 256;

// The direct child statements of s, in source order (Seq: each stmt; Kernel/For: body; If: body, else).
void forEachChildStmt(const Stmt& s, const std::function<void(const StmtPtr&)>& fn);

// The expressions s holds directly, not those of its children: kernel grid, loop min/extent, if cond,
// store indices and value, region mins/extents, gemm clear_accum, layout forward/thread expressions,
// a cp.async predicate.
// Null expressions are skipped.
void forEachStmtExpr(const Stmt& s, const std::function<void(const ExprPtr&)>& fn);

// The regions s holds (Copy and CpAsync: src, dst; Fill: dst; AtomicAdd: dst and src when it has a buffer;
// Gemm: a, b, c).
void forEachRegion(const Stmt& s, const std::function<void(const Region&)>& fn);

// Every node of an expression tree in preorder (the node, then its operands). Stops at kMaxIrDepth.
void forEachExprNode(const ExprPtr& e, const std::function<void(const Expr&)>& fn);

// Preorder walk over a statement tree. Override visitStmt and call visitChildren where the walk should
// descend; state that depends on the enclosing statements (scopes, loops) is pushed and popped around it.
class StmtVisitor {
public:
    virtual ~StmtVisitor() = default;
    // Visits s (null is ignored).
    void visit(const StmtPtr& s);

protected:
    virtual void visitStmt(const Stmt& s) { visitChildren(s); }
    void visitChildren(const Stmt& s);
    int depth() const { return m_depth; }
    // True once some subtree was skipped because it nested deeper than kMaxIrDepth.
    bool hitDepthLimit() const { return m_hitDepthLimit; }

private:
    int m_depth = 0;
    bool m_hitDepthLimit = false;
};

} // namespace tb::ir
