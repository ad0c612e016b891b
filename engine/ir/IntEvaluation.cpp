// Integer evaluation of Tile IR expressions (see IntEvaluation.h).
#include "engine/ir/IntEvaluation.h"

#include "engine/ir/Visitor.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace tb::ir {

namespace {

std::optional<int64_t> evaluate(const ExprPtr& e, const VarValue& valueOf, int depth) {
    if (!e || depth > kMaxIrDepth)
        return std::nullopt;
    switch (e->kind) {
    case ExprKind::IntImm:
        return e->intValue;
    case ExprKind::FloatImm:
    case ExprKind::BufferLoad:
    case ExprKind::Call:
        return std::nullopt;
    case ExprKind::VarRef:
        return e->var ? valueOf(*e->var) : std::nullopt;
    case ExprKind::Cast:
        if (e->operands.empty() || !(isInteger(e->dtype) || e->dtype == DType::Bool))
            return std::nullopt;
        return evaluate(e->operands[0], valueOf, depth + 1);
    case ExprKind::Unary: {
        if (e->operands.empty())
            return std::nullopt;
        std::optional<int64_t> a = evaluate(e->operands[0], valueOf, depth + 1);
        if (!a)
            return std::nullopt;
        switch (e->unaryOp) {
        case UnaryOp::Neg:
            return -*a;
        case UnaryOp::LogicalNot:
            return *a == 0 ? 1 : 0;
        case UnaryOp::BitNot:
            return ~*a;
        }
        return std::nullopt;
    }
    case ExprKind::Select: {
        if (e->operands.size() < 3)
            return std::nullopt;
        std::optional<int64_t> c = evaluate(e->operands[0], valueOf, depth + 1);
        if (!c)
            return std::nullopt;
        return evaluate(e->operands[*c ? 1 : 2], valueOf, depth + 1);
    }
    case ExprKind::Binary: {
        if (e->operands.size() < 2)
            return std::nullopt;
        std::optional<int64_t> a = evaluate(e->operands[0], valueOf, depth + 1);
        std::optional<int64_t> b = evaluate(e->operands[1], valueOf, depth + 1);
        if (!a || !b)
            return std::nullopt;
        int64_t x = *a, y = *b, out = 0;
        switch (e->binaryOp) {
        case BinaryOp::Add:
            return __builtin_add_overflow(x, y, &out) ? std::nullopt : std::optional<int64_t>(out);
        case BinaryOp::Sub:
            return __builtin_sub_overflow(x, y, &out) ? std::nullopt : std::optional<int64_t>(out);
        case BinaryOp::Mul:
            return __builtin_mul_overflow(x, y, &out) ? std::nullopt : std::optional<int64_t>(out);
        case BinaryOp::Div:
            return y == 0 ? std::nullopt : std::optional<int64_t>(x / y);
        case BinaryOp::FloorDiv: {
            if (y == 0)
                return std::nullopt;
            int64_t q = x / y;
            return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
        }
        case BinaryOp::FloorMod: {
            if (y == 0)
                return std::nullopt;
            int64_t r = x % y;
            return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
        }
        case BinaryOp::Min:
            return std::min(x, y);
        case BinaryOp::Max:
            return std::max(x, y);
        case BinaryOp::Pow:
            return std::nullopt;
        case BinaryOp::BitAnd:
            return x & y;
        case BinaryOp::BitOr:
            return x | y;
        case BinaryOp::BitXor:
            return x ^ y;
        case BinaryOp::Shl:
            return (y < 0 || y > 62) ? std::nullopt : std::optional<int64_t>(x << y);
        case BinaryOp::Shr:
            return (y < 0 || y > 62) ? std::nullopt : std::optional<int64_t>(x >> y);
        case BinaryOp::LogicalAnd:
            return (x && y) ? 1 : 0;
        case BinaryOp::LogicalOr:
            return (x || y) ? 1 : 0;
        case BinaryOp::Eq:
            return x == y ? 1 : 0;
        case BinaryOp::Ne:
            return x != y ? 1 : 0;
        case BinaryOp::Lt:
            return x < y ? 1 : 0;
        case BinaryOp::Le:
            return x <= y ? 1 : 0;
        case BinaryOp::Gt:
            return x > y ? 1 : 0;
        case BinaryOp::Ge:
            return x >= y ? 1 : 0;
        }
        return std::nullopt;
    }
    }
    return std::nullopt;
}

} // namespace

std::optional<int64_t> evaluateInt(const ExprPtr& expr, const VarValue& valueOf) {
    return evaluate(expr, valueOf, 0);
}

} // namespace tb::ir
