// IR reading helpers shared by the layout passes.
#include "engine/passes/IrQueries.h"

#include "engine/ir/Visitor.h"

#include <algorithm>

namespace tb::passes {

std::vector<KernelRef> kernelsOf(const ir::Module& module) {
    std::vector<KernelRef> out;
    for (const ir::PrimFunc& func : module.funcs) {
        if (!func.body)
            continue;
        walkStmts(*func.body, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
            if (s.kind == ir::StmtKind::Kernel)
                out.push_back({&func, &s});
        });
    }
    return out;
}

int64_t blockThreads(const ir::Stmt& kernel) {
    int64_t threads = 1;
    for (int64_t t : kernel.threads)
        threads *= std::max<int64_t>(t, 1);
    return threads;
}

namespace {

void walkRec(const ir::Stmt& s, std::vector<const ir::Stmt*>& enclosing, int depth,
             const std::function<void(const ir::Stmt&, const std::vector<const ir::Stmt*>&)>& fn) {
    if (depth > ir::kMaxIrDepth)
        return;
    fn(s, enclosing);
    const bool isLoop = s.kind == ir::StmtKind::For;
    if (isLoop)
        enclosing.push_back(&s);
    ir::forEachChildStmt(s, [&](const ir::StmtPtr& child) {
        if (child)
            walkRec(*child, enclosing, depth + 1, fn);
    });
    if (isLoop)
        enclosing.pop_back();
}

std::optional<layout::IndexExpr> convert(const ir::ExprPtr& e,
                                         const std::map<const ir::Var*, layout::IndexExpr>& vars, int depth) {
    using layout::IndexExpr;
    if (!e || depth > ir::kMaxIrDepth)
        return std::nullopt;
    switch (e->kind) {
    case ir::ExprKind::IntImm:
        return IndexExpr(e->intValue);
    case ir::ExprKind::VarRef: {
        auto it = vars.find(e->var);
        if (it == vars.end())
            return std::nullopt;
        return it->second;
    }
    case ir::ExprKind::Cast:
        if (!ir::isInteger(e->dtype) || e->operands.empty())
            return std::nullopt;
        return convert(e->operands[0], vars, depth + 1);
    case ir::ExprKind::Unary:
        if (e->unaryOp == ir::UnaryOp::Neg && !e->operands.empty()) {
            auto a = convert(e->operands[0], vars, depth + 1);
            if (!a)
                return std::nullopt;
            return IndexExpr(0) - *a;
        }
        return std::nullopt;
    case ir::ExprKind::Binary: {
        if (e->operands.size() != 2)
            return std::nullopt;
        auto a = convert(e->operands[0], vars, depth + 1);
        auto b = convert(e->operands[1], vars, depth + 1);
        if (!a || !b)
            return std::nullopt;
        switch (e->binaryOp) {
        case ir::BinaryOp::Add:
            return *a + *b;
        case ir::BinaryOp::Sub:
            return *a - *b;
        case ir::BinaryOp::Mul:
            return *a * *b;
        case ir::BinaryOp::Div:
        case ir::BinaryOp::FloorDiv:
            return layout::floorDiv(*a, *b);
        case ir::BinaryOp::FloorMod:
            return layout::floorMod(*a, *b);
        case ir::BinaryOp::Min:
            return layout::minOf(*a, *b);
        case ir::BinaryOp::Max:
            return layout::maxOf(*a, *b);
        case ir::BinaryOp::BitAnd:
            return layout::bitAnd(*a, *b);
        case ir::BinaryOp::BitOr:
            return layout::bitOr(*a, *b);
        case ir::BinaryOp::BitXor:
            return layout::bitXor(*a, *b);
        case ir::BinaryOp::Pow:
        case ir::BinaryOp::Shl:
        case ir::BinaryOp::Shr:
        case ir::BinaryOp::LogicalAnd:
        case ir::BinaryOp::LogicalOr:
        case ir::BinaryOp::Eq:
        case ir::BinaryOp::Ne:
        case ir::BinaryOp::Lt:
        case ir::BinaryOp::Le:
        case ir::BinaryOp::Gt:
        case ir::BinaryOp::Ge:
            return std::nullopt;
        }
        return std::nullopt;
    }
    case ir::ExprKind::FloatImm:
    case ir::ExprKind::BufferLoad:
    case ir::ExprKind::Select:
    case ir::ExprKind::Call:
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

void walkStmts(const ir::Stmt& root,
               const std::function<void(const ir::Stmt&, const std::vector<const ir::Stmt*>&)>& fn) {
    std::vector<const ir::Stmt*> enclosing;
    walkRec(root, enclosing, 0, fn);
}

std::set<const ir::Buffer*> writtenBuffers(const ir::Stmt& root) {
    std::set<const ir::Buffer*> written;
    walkStmts(root, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
        switch (s.kind) {
        case ir::StmtKind::Store:
            written.insert(s.buffer);
            break;
        case ir::StmtKind::Copy:
        case ir::StmtKind::Fill:
        case ir::StmtKind::AtomicAdd:
            written.insert(s.dst.buffer);
            break;
        case ir::StmtKind::Reduce:
            written.insert(s.dstBuffer);
            break;
        case ir::StmtKind::Gemm:
            written.insert(s.c.buffer);
            break;
        default:
            break;
        }
    });
    written.erase(nullptr);
    return written;
}

std::optional<std::vector<int64_t>> constantExtents(const ir::Region& region) {
    std::vector<int64_t> out;
    for (const ir::ExprPtr& e : region.extents) {
        std::optional<int64_t> v = ir::constantInt(e);
        if (!v || *v < 1)
            return std::nullopt;
        out.push_back(*v);
    }
    return out;
}

std::optional<std::vector<int64_t>> constantShape(const ir::Buffer& buffer) {
    std::vector<int64_t> out;
    for (size_t d = 0; d < buffer.rank(); ++d) {
        std::optional<int64_t> v = buffer.constantExtent(d);
        if (!v || *v < 1)
            return std::nullopt;
        out.push_back(*v);
    }
    return out;
}

std::vector<size_t> nonUnitDims(const std::vector<int64_t>& extents) {
    std::vector<size_t> out;
    for (size_t d = 0; d < extents.size(); ++d)
        if (extents[d] != 1)
            out.push_back(d);
    return out;
}

std::optional<layout::IndexExpr> toIndexExpr(const ir::ExprPtr& expr,
                                             const std::map<const ir::Var*, layout::IndexExpr>& vars) {
    return convert(expr, vars, 0);
}

} // namespace tb::passes
