// Statement and expression enumeration for every IR walker (see Visitor.h).
#include "engine/ir/Visitor.h"

namespace tb::ir {

void forEachChildStmt(const Stmt& s, const std::function<void(const StmtPtr&)>& fn) {
    switch (s.kind) {
    case StmtKind::Seq:
        for (const StmtPtr& child : s.stmts)
            if (child)
                fn(child);
        return;
    case StmtKind::Kernel:
    case StmtKind::For:
    case StmtKind::WarpGroups:
        if (s.body)
            fn(s.body);
        return;
    case StmtKind::IfThenElse:
        if (s.body)
            fn(s.body);
        if (s.elseBody)
            fn(s.elseBody);
        return;
    case StmtKind::Store:
    case StmtKind::Copy:
    case StmtKind::Gemm:
    case StmtKind::Fill:
    case StmtKind::Reduce:
    case StmtKind::AtomicAdd:
    case StmtKind::AnnotateLayout:
    case StmtKind::UseSwizzle:
    case StmtKind::Print:
    case StmtKind::Barrier:
    case StmtKind::GridSync:
    case StmtKind::CpAsync:
    case StmtKind::MmaIntrinsic:
        return;
    }
}

namespace {

void regionExprs(const Region& r, const std::function<void(const ExprPtr&)>& fn) {
    for (const ExprPtr& e : r.mins)
        if (e)
            fn(e);
    for (const ExprPtr& e : r.extents)
        if (e)
            fn(e);
}

void maybe(const ExprPtr& e, const std::function<void(const ExprPtr&)>& fn) {
    if (e)
        fn(e);
}

} // namespace

void forEachRegion(const Stmt& s, const std::function<void(const Region&)>& fn) {
    switch (s.kind) {
    case StmtKind::Copy:
    case StmtKind::CpAsync:
        fn(s.src);
        fn(s.dst);
        return;
    case StmtKind::Fill:
        fn(s.dst);
        return;
    case StmtKind::AtomicAdd:
        fn(s.dst);
        if (s.src.buffer)
            fn(s.src);
        return;
    case StmtKind::Gemm:
        fn(s.a);
        fn(s.b);
        fn(s.c);
        return;
    case StmtKind::MmaIntrinsic:
        if (s.mmaOp == MmaIntrinsicOp::Mma) {
            fn(s.a);
            fn(s.b);
            fn(s.c);
        } else {
            fn(s.src);
            fn(s.dst);
        }
        return;
    case StmtKind::Seq:
    case StmtKind::Kernel:
    case StmtKind::For:
    case StmtKind::IfThenElse:
    case StmtKind::Store:
    case StmtKind::Reduce:
    case StmtKind::AnnotateLayout:
    case StmtKind::UseSwizzle:
    case StmtKind::Print:
    case StmtKind::WarpGroups:
    case StmtKind::Barrier:
    case StmtKind::GridSync:
        return;
    }
}

void forEachStmtExpr(const Stmt& s, const std::function<void(const ExprPtr&)>& fn) {
    switch (s.kind) {
    case StmtKind::Seq:
        return;
    case StmtKind::Kernel:
        for (const ExprPtr& e : s.grid)
            maybe(e, fn);
        return;
    case StmtKind::For:
        maybe(s.min, fn);
        maybe(s.extent, fn);
        return;
    case StmtKind::IfThenElse:
        maybe(s.cond, fn);
        return;
    case StmtKind::Store:
        for (const ExprPtr& e : s.indices)
            maybe(e, fn);
        maybe(s.value, fn);
        return;
    case StmtKind::Copy:
    case StmtKind::Fill:
    case StmtKind::AtomicAdd:
        forEachRegion(s, [&](const Region& r) { regionExprs(r, fn); });
        maybe(s.value, fn);
        maybe(s.barrierIndex, fn);
        return;
    case StmtKind::Gemm:
        forEachRegion(s, [&](const Region& r) { regionExprs(r, fn); });
        maybe(s.clearAccum, fn);
        return;
    case StmtKind::MmaIntrinsic:
        forEachRegion(s, [&](const Region& r) { regionExprs(r, fn); });
        maybe(s.value, fn);
        return;
    case StmtKind::Reduce:
        return;
    case StmtKind::AnnotateLayout:
        for (const LayoutAnnotation& layout : s.layouts) {
            for (const ExprPtr& e : layout.forward)
                maybe(e, fn);
            maybe(layout.thread, fn);
        }
        return;
    case StmtKind::UseSwizzle:
    case StmtKind::Print:
        maybe(s.value, fn);
        return;
    case StmtKind::WarpGroups:
    case StmtKind::GridSync:
        return;
    case StmtKind::Barrier:
        maybe(s.barrierIndex, fn);
        maybe(s.value, fn);
        return;
    case StmtKind::CpAsync:
        forEachRegion(s, [&](const Region& r) { regionExprs(r, fn); });
        maybe(s.cond, fn);
        return;
    }
}

namespace {

void exprNodes(const ExprPtr& e, const std::function<void(const Expr&)>& fn, int depth) {
    if (!e || depth > kMaxIrDepth)
        return;
    fn(*e);
    for (const ExprPtr& op : e->operands)
        exprNodes(op, fn, depth + 1);
}

} // namespace

void forEachExprNode(const ExprPtr& e, const std::function<void(const Expr&)>& fn) {
    exprNodes(e, fn, 0);
}

void StmtVisitor::visit(const StmtPtr& s) {
    if (!s)
        return;
    if (m_depth >= kMaxIrDepth) {
        m_hitDepthLimit = true;
        return;
    }
    ++m_depth;
    visitStmt(*s);
    --m_depth;
}

void StmtVisitor::visitChildren(const Stmt& s) {
    forEachChildStmt(s, [&](const StmtPtr& child) { visit(child); });
}

} // namespace tb::ir
