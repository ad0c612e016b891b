// Tile IR index expressions -> layout-algebra IndexExpr (see IndexConversion.h).
#include "engine/passes/IndexConversion.h"

#include "engine/ir/Visitor.h"

#include <map>
#include <optional>

namespace tb::passes {

namespace {

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

std::optional<layout::IndexExpr> toIndexExpr(const ir::ExprPtr& expr,
                                             const std::map<const ir::Var*, layout::IndexExpr>& vars) {
    return convert(expr, vars, 0);
}

} // namespace tb::passes
