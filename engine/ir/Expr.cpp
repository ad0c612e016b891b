#include "engine/ir/Expr.h"

#include "engine/ir/Stmt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

namespace tb::ir {

const char* varKindName(VarKind kind) {
    switch (kind) {
    case VarKind::BlockIndex:
        return "block_index";
    case VarKind::ThreadIndex:
        return "thread_index";
    case VarKind::LoopVar:
        return "loop_var";
    case VarKind::DynamicDim:
        return "dynamic_dim";
    case VarKind::Placeholder:
        return "placeholder";
    }
    return "?";
}

const char* binaryOpName(BinaryOp op) {
    switch (op) {
    case BinaryOp::Add:
        return "+";
    case BinaryOp::Sub:
        return "-";
    case BinaryOp::Mul:
        return "*";
    case BinaryOp::Div:
        return "/";
    case BinaryOp::FloorDiv:
        return "//";
    case BinaryOp::FloorMod:
        return "%";
    case BinaryOp::Min:
        return "min";
    case BinaryOp::Max:
        return "max";
    case BinaryOp::Pow:
        return "**";
    case BinaryOp::BitAnd:
        return "&";
    case BinaryOp::BitOr:
        return "|";
    case BinaryOp::BitXor:
        return "^";
    case BinaryOp::Shl:
        return "<<";
    case BinaryOp::Shr:
        return ">>";
    case BinaryOp::LogicalAnd:
        return "and";
    case BinaryOp::LogicalOr:
        return "or";
    case BinaryOp::Eq:
        return "==";
    case BinaryOp::Ne:
        return "!=";
    case BinaryOp::Lt:
        return "<";
    case BinaryOp::Le:
        return "<=";
    case BinaryOp::Gt:
        return ">";
    case BinaryOp::Ge:
        return ">=";
    }
    return "?";
}

const char* unaryOpName(UnaryOp op) {
    switch (op) {
    case UnaryOp::Neg:
        return "-";
    case UnaryOp::LogicalNot:
        return "not ";
    case UnaryOp::BitNot:
        return "~";
    }
    return "?";
}

const char* intrinsicName(Intrinsic fn) {
    switch (fn) {
    case Intrinsic::Exp:
        return "exp";
    case Intrinsic::Exp2:
        return "exp2";
    case Intrinsic::Exp10:
        return "exp10";
    case Intrinsic::Log:
        return "log";
    case Intrinsic::Log2:
        return "log2";
    case Intrinsic::Log10:
        return "log10";
    case Intrinsic::Sqrt:
        return "sqrt";
    case Intrinsic::Rsqrt:
        return "rsqrt";
    case Intrinsic::Abs:
        return "abs";
    case Intrinsic::Sigmoid:
        return "sigmoid";
    case Intrinsic::Tanh:
        return "tanh";
    case Intrinsic::Sin:
        return "sin";
    case Intrinsic::Cos:
        return "cos";
    case Intrinsic::Floor:
        return "floor";
    case Intrinsic::Ceil:
        return "ceil";
    case Intrinsic::Round:
        return "round";
    case Intrinsic::Trunc:
        return "trunc";
    case Intrinsic::Erf:
        return "erf";
    case Intrinsic::Fma:
        return "fma";
    case Intrinsic::IsNan:
        return "isnan";
    case Intrinsic::IsInf:
        return "isinf";
    }
    return "?";
}

bool isComparison(BinaryOp op) {
    switch (op) {
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
        return true;
    default:
        return false;
    }
}

namespace {

std::shared_ptr<Expr> node(ExprKind kind, DType type, SourceRange range) {
    return std::make_shared<Expr>(kind, type, range);
}

} // namespace

ExprPtr makeInt(int64_t value, DType type, SourceRange range) {
    auto e = node(ExprKind::IntImm, type, range);
    e->intValue = value;
    return e;
}

ExprPtr makeFloat(double value, DType type, SourceRange range) {
    auto e = node(ExprKind::FloatImm, type, range);
    e->floatValue = value;
    return e;
}

ExprPtr makeBool(bool value, SourceRange range) {
    return makeInt(value ? 1 : 0, DType::Bool, range);
}

ExprPtr makeVarRef(const Var* var, SourceRange range) {
    auto e = node(ExprKind::VarRef, var->dtype, range);
    e->var = var;
    return e;
}

ExprPtr makeLoad(const Buffer* buffer, std::vector<ExprPtr> indices, SourceRange range) {
    auto e = node(ExprKind::BufferLoad, buffer->dtype, range);
    e->buffer = buffer;
    e->operands = std::move(indices);
    return e;
}

ExprPtr makeBinary(BinaryOp op, ExprPtr lhs, ExprPtr rhs, SourceRange range) {
    DType type = (isComparison(op) || op == BinaryOp::LogicalAnd || op == BinaryOp::LogicalOr) ? DType::Bool
                                                                                               : lhs->dtype;
    auto e = node(ExprKind::Binary, type, range);
    e->binaryOp = op;
    e->operands = {std::move(lhs), std::move(rhs)};
    return e;
}

ExprPtr makeUnary(UnaryOp op, ExprPtr operand, SourceRange range) {
    DType type = op == UnaryOp::LogicalNot ? DType::Bool : operand->dtype;
    auto e = node(ExprKind::Unary, type, range);
    e->unaryOp = op;
    e->operands = {std::move(operand)};
    return e;
}

ExprPtr makeSelect(ExprPtr cond, ExprPtr thenValue, ExprPtr elseValue, SourceRange range) {
    auto e = node(ExprKind::Select, thenValue->dtype, range);
    e->operands = {std::move(cond), std::move(thenValue), std::move(elseValue)};
    return e;
}

ExprPtr makeCall(Intrinsic fn, DType type, std::vector<ExprPtr> args, SourceRange range) {
    auto e = node(ExprKind::Call, type, range);
    e->intrinsic = fn;
    e->operands = std::move(args);
    return e;
}

ExprPtr makeCast(DType type, ExprPtr operand, SourceRange range) {
    auto e = node(ExprKind::Cast, type, range);
    e->operands = {std::move(operand)};
    return e;
}

// ---------------------------------------------------------------------------------------------------
// Simplification: constant folding plus affine normalization of integer expressions.

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

int64_t floorMod(int64_t a, int64_t b) {
    return a - floorDiv(a, b) * b;
}

// sum(coef * atom) + constant, atoms keyed by their printed form so equal subtrees merge.
struct Affine {
    std::map<std::string, std::pair<ExprPtr, int64_t>> terms;
    int64_t constant = 0;
};

bool toAffine(const ExprPtr& e, int64_t scale, Affine& out, int depth);

void addAtom(const ExprPtr& e, int64_t scale, Affine& out) {
    auto& slot = out.terms[printExpr(e)];
    if (!slot.first)
        slot.first = e;
    slot.second += scale;
}

bool toAffine(const ExprPtr& e, int64_t scale, Affine& out, int depth) {
    if (depth > 64) {
        addAtom(e, scale, out);
        return true;
    }
    if (e->kind == ExprKind::IntImm) {
        out.constant += scale * e->intValue;
        return true;
    }
    if (e->kind == ExprKind::Binary) {
        const ExprPtr& l = e->operands[0];
        const ExprPtr& r = e->operands[1];
        switch (e->binaryOp) {
        case BinaryOp::Add:
            return toAffine(l, scale, out, depth + 1) && toAffine(r, scale, out, depth + 1);
        case BinaryOp::Sub:
            return toAffine(l, scale, out, depth + 1) && toAffine(r, -scale, out, depth + 1);
        case BinaryOp::Mul:
            if (r->kind == ExprKind::IntImm)
                return toAffine(l, scale * r->intValue, out, depth + 1);
            if (l->kind == ExprKind::IntImm)
                return toAffine(r, scale * l->intValue, out, depth + 1);
            break;
        default:
            break;
        }
    }
    if (e->kind == ExprKind::Unary && e->unaryOp == UnaryOp::Neg)
        return toAffine(e->operands[0], -scale, out, depth + 1);
    addAtom(e, scale, out);
    return true;
}

ExprPtr fromAffine(const Affine& a, DType type, SourceRange range) {
    ExprPtr result;
    for (const auto& [key, term] : a.terms) {
        if (term.second == 0)
            continue;
        ExprPtr t = term.second == 1
                        ? term.first
                        : makeBinary(BinaryOp::Mul, term.first, makeInt(term.second, type), range);
        result = result ? makeBinary(BinaryOp::Add, result, t, range) : t;
    }
    if (!result)
        return makeInt(a.constant, type, range);
    if (a.constant > 0)
        result = makeBinary(BinaryOp::Add, result, makeInt(a.constant, type), range);
    else if (a.constant < 0)
        result = makeBinary(BinaryOp::Sub, result, makeInt(-a.constant, type), range);
    return result;
}

ExprPtr foldBinary(const ExprPtr& e, const ExprPtr& l, const ExprPtr& r) {
    if (l->kind != ExprKind::IntImm || r->kind != ExprKind::IntImm || !isInteger(l->dtype))
        return nullptr;
    int64_t x = l->intValue, y = r->intValue;
    auto make = [&](int64_t v) { return makeInt(v, e->dtype, e->range); };
    switch (e->binaryOp) {
    case BinaryOp::Add:
        return make(x + y);
    case BinaryOp::Sub:
        return make(x - y);
    case BinaryOp::Mul:
        return make(x * y);
    case BinaryOp::Div:
        return y != 0 ? make(x / y) : nullptr;
    case BinaryOp::FloorDiv:
        return y != 0 ? make(floorDiv(x, y)) : nullptr;
    case BinaryOp::FloorMod:
        return y != 0 ? make(floorMod(x, y)) : nullptr;
    case BinaryOp::Min:
        return make(std::min(x, y));
    case BinaryOp::Max:
        return make(std::max(x, y));
    case BinaryOp::BitAnd:
        return make(x & y);
    case BinaryOp::BitOr:
        return make(x | y);
    case BinaryOp::BitXor:
        return make(x ^ y);
    case BinaryOp::Shl:
        return (y >= 0 && y < 63) ? make(x << y) : nullptr;
    case BinaryOp::Shr:
        return (y >= 0 && y < 63) ? make(x >> y) : nullptr;
    case BinaryOp::Eq:
        return makeBool(x == y, e->range);
    case BinaryOp::Ne:
        return makeBool(x != y, e->range);
    case BinaryOp::Lt:
        return makeBool(x < y, e->range);
    case BinaryOp::Le:
        return makeBool(x <= y, e->range);
    case BinaryOp::Gt:
        return makeBool(x > y, e->range);
    case BinaryOp::Ge:
        return makeBool(x >= y, e->range);
    case BinaryOp::LogicalAnd:
        return makeBool(x && y, e->range);
    case BinaryOp::LogicalOr:
        return makeBool(x || y, e->range);
    case BinaryOp::Pow:
        return nullptr;
    }
    return nullptr;
}

ExprPtr simplifyImpl(const ExprPtr& e, int depth) {
    if (!e || depth > 200)
        return e;
    switch (e->kind) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::VarRef:
        return e;
    case ExprKind::BufferLoad:
    case ExprKind::Unary:
    case ExprKind::Select:
    case ExprKind::Call:
    case ExprKind::Cast:
    case ExprKind::Binary: {
        std::vector<ExprPtr> ops;
        bool changed = false;
        for (const ExprPtr& op : e->operands) {
            ops.push_back(simplifyImpl(op, depth + 1));
            changed |= ops.back() != op;
        }
        ExprPtr current = e;
        if (changed) {
            auto copy = std::make_shared<Expr>(*e);
            copy->operands = ops;
            current = copy;
        }
        if (current->kind == ExprKind::Binary) {
            if (ExprPtr folded = foldBinary(current, ops[0], ops[1]))
                return folded;
            BinaryOp op = current->binaryOp;
            if (isInteger(current->dtype) &&
                (op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul)) {
                Affine affine;
                toAffine(current, 1, affine, 0);
                ExprPtr normalized = fromAffine(affine, current->dtype, current->range);
                if (printExpr(normalized) != printExpr(current))
                    return normalized;
            }
        }
        if (current->kind == ExprKind::Cast && ops[0]->kind == ExprKind::IntImm && isInteger(current->dtype))
            return makeInt(ops[0]->intValue, current->dtype, current->range);
        if (current->kind == ExprKind::Unary && ops[0]->kind == ExprKind::IntImm &&
            isInteger(current->dtype)) {
            if (current->unaryOp == UnaryOp::Neg)
                return makeInt(-ops[0]->intValue, current->dtype, current->range);
            if (current->unaryOp == UnaryOp::BitNot)
                return makeInt(~ops[0]->intValue, current->dtype, current->range);
        }
        return current;
    }
    }
    return e;
}

void printImpl(const ExprPtr& e, std::string& out, int depth);

void printOperand(const ExprPtr& e, std::string& out, int depth) {
    bool atomic = e->kind != ExprKind::Binary;
    if (!atomic)
        out += '(';
    printImpl(e, out, depth + 1);
    if (!atomic)
        out += ')';
}

void printImpl(const ExprPtr& e, std::string& out, int depth) {
    if (depth > 400) {
        out += "...";
        return;
    }
    switch (e->kind) {
    case ExprKind::IntImm:
        if (e->dtype == DType::Bool)
            out += e->intValue ? "True" : "False";
        else
            out += std::to_string(e->intValue);
        return;
    case ExprKind::FloatImm: {
        if (std::isinf(e->floatValue)) {
            out += e->floatValue > 0 ? "inf" : "-inf";
            return;
        }
        if (std::isnan(e->floatValue)) {
            out += "nan";
            return;
        }
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g", e->floatValue);
        out += buf;
        if (std::string_view(buf).find_first_of(".en") == std::string_view::npos)
            out += ".0";
        return;
    }
    case ExprKind::VarRef:
        out += e->var->name;
        return;
    case ExprKind::BufferLoad:
        out += e->buffer->name;
        out += '[';
        for (size_t i = 0; i < e->operands.size(); ++i) {
            if (i)
                out += ", ";
            printImpl(e->operands[i], out, depth + 1);
        }
        out += ']';
        return;
    case ExprKind::Binary:
        if (e->binaryOp == BinaryOp::Min || e->binaryOp == BinaryOp::Max) {
            out += binaryOpName(e->binaryOp);
            out += '(';
            printImpl(e->operands[0], out, depth + 1);
            out += ", ";
            printImpl(e->operands[1], out, depth + 1);
            out += ')';
            return;
        }
        printOperand(e->operands[0], out, depth);
        out += ' ';
        out += binaryOpName(e->binaryOp);
        out += ' ';
        printOperand(e->operands[1], out, depth);
        return;
    case ExprKind::Unary:
        out += unaryOpName(e->unaryOp);
        printOperand(e->operands[0], out, depth);
        return;
    case ExprKind::Select:
        out += "select(";
        for (size_t i = 0; i < 3; ++i) {
            if (i)
                out += ", ";
            printImpl(e->operands[i], out, depth + 1);
        }
        out += ')';
        return;
    case ExprKind::Call:
        out += intrinsicName(e->intrinsic);
        out += '(';
        for (size_t i = 0; i < e->operands.size(); ++i) {
            if (i)
                out += ", ";
            printImpl(e->operands[i], out, depth + 1);
        }
        out += ')';
        return;
    case ExprKind::Cast:
        out += dtypeName(e->dtype);
        out += '(';
        printImpl(e->operands[0], out, depth + 1);
        out += ')';
        return;
    }
}

} // namespace

std::optional<int64_t> constantInt(const ExprPtr& expr) {
    if (!expr)
        return std::nullopt;
    ExprPtr s = simplify(expr);
    if (s->kind == ExprKind::IntImm)
        return s->intValue;
    return std::nullopt;
}

ExprPtr simplify(const ExprPtr& expr) {
    return simplifyImpl(expr, 0);
}

bool isMultipleOf(const ExprPtr& e, int64_t m) {
    if (m <= 1)
        return true;
    ExprPtr s = simplify(e);
    if (auto c = constantInt(s))
        return *c % m == 0;
    if (s->kind == ExprKind::Binary) {
        const auto& a = s->operands[0];
        const auto& b = s->operands[1];
        switch (s->binaryOp) {
        case BinaryOp::Mul:
            return isMultipleOf(a, m) || isMultipleOf(b, m);
        case BinaryOp::Add:
        case BinaryOp::Sub:
            return isMultipleOf(a, m) && isMultipleOf(b, m);
        default:
            return false;
        }
    }
    return false;
}

int64_t knownPowerOfTwoFactor(const ExprPtr& e, int64_t cap) {
    int64_t factor = 1;
    while (factor * 2 <= cap && isMultipleOf(e, factor * 2))
        factor *= 2;
    return factor;
}

std::string printExpr(const ExprPtr& expr) {
    std::string out;
    if (expr)
        printImpl(expr, out, 0);
    return out;
}

} // namespace tb::ir
