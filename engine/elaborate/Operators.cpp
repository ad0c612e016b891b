// Operators of the interpreter. Compile-time numbers follow Python exactly (floor division and modulo,
// int ** negative -> float, 64-bit ints with an overflow diagnostic); as soon as one operand is a run-time
// ir::Expr the operation builds IR instead, with TVM-style dtype promotion: Python literals adopt the other
// operand's dtype, int with float gives the float, two floats give the wider one; `/` on integers is C
// division, `//` FloorDiv and `%` FloorMod, comparisons are bool.
#include "engine/elaborate/HostTensors.h"
#include "engine/elaborate/Interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tb::elab {

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

double pyFloorMod(double a, double b) {
    double m = std::fmod(a, b);
    if (m != 0 && ((m < 0) != (b < 0)))
        m += b;
    return m;
}

ir::BinaryOp irOp(ast::BinOpKind op) {
    switch (op) {
    case ast::BinOpKind::Add:
        return ir::BinaryOp::Add;
    case ast::BinOpKind::Sub:
        return ir::BinaryOp::Sub;
    case ast::BinOpKind::Mul:
        return ir::BinaryOp::Mul;
    case ast::BinOpKind::Div:
        return ir::BinaryOp::Div;
    case ast::BinOpKind::FloorDiv:
        return ir::BinaryOp::FloorDiv;
    case ast::BinOpKind::Mod:
        return ir::BinaryOp::FloorMod;
    case ast::BinOpKind::Pow:
        return ir::BinaryOp::Pow;
    case ast::BinOpKind::LShift:
        return ir::BinaryOp::Shl;
    case ast::BinOpKind::RShift:
        return ir::BinaryOp::Shr;
    case ast::BinOpKind::BitAnd:
        return ir::BinaryOp::BitAnd;
    case ast::BinOpKind::BitOr:
        return ir::BinaryOp::BitOr;
    case ast::BinOpKind::BitXor:
        return ir::BinaryOp::BitXor;
    case ast::BinOpKind::MatMul:
        return ir::BinaryOp::Mul;
    }
    return ir::BinaryOp::Add;
}

bool isScalarOperand(const Value& v) {
    return v.isNumber() || v.kind == ValueKind::Expr ||
           (v.kind == ValueKind::Buffer && v.buffer->scope == ir::MemoryScope::LocalVar);
}

} // namespace

ir::ExprPtr Interpreter::castTo(ir::ExprPtr e, ir::DType t) {
    if (!e || e->dtype == t)
        return e;
    if (t == ir::DType::Bool && e->kind != ir::ExprKind::IntImm) {
        // Truth of a number: x != 0.
        ir::ExprPtr zero = ir::isFloat(e->dtype) ? ir::makeFloat(0, e->dtype) : ir::makeInt(0, e->dtype);
        return ir::makeBinary(ir::BinaryOp::Ne, e, zero, e->range);
    }
    if (e->kind == ir::ExprKind::IntImm) {
        if (ir::isFloat(t))
            return ir::makeFloat(static_cast<double>(e->intValue), t, e->range);
        if (t == ir::DType::Bool)
            return ir::makeBool(e->intValue != 0, e->range);
        return ir::makeInt(e->intValue, t, e->range);
    }
    if (e->kind == ir::ExprKind::FloatImm && ir::isFloat(t))
        return ir::makeFloat(e->floatValue, t, e->range);
    return ir::makeCast(t, e, e->range);
}

ir::ExprPtr Interpreter::toExpr(const Value& v, SourceRange range, const char* what) {
    switch (v.kind) {
    case ValueKind::Int:
        if (v.i >= std::numeric_limits<int32_t>::min() && v.i <= std::numeric_limits<int32_t>::max())
            return ir::makeInt(v.i, ir::DType::Int32, range);
        return ir::makeInt(v.i, ir::DType::Int64, range);
    case ValueKind::Bool:
        return ir::makeBool(v.i != 0, range);
    case ValueKind::Float:
        return ir::makeFloat(v.f, ir::DType::Float32, range);
    case ValueKind::Expr:
        return v.expr;
    case ValueKind::Buffer:
        if (v.buffer->scope == ir::MemoryScope::LocalVar) {
            Value loaded = loadElement(v.buffer, {Value::integer(0)}, range);
            return loaded.kind == ValueKind::Expr ? loaded.expr : nullptr;
        }
        error("type-error", range,
              std::string(what) + " must be a scalar, but '" + v.buffer->name + "' is a whole buffer",
              "index it, e.g. " + v.buffer->name + "[i]");
        return nullptr;
    case ValueKind::Poison:
        return nullptr;
    case ValueKind::Opaque:
        error("unsupported-construct", range,
              std::string(what) + " comes from host code ('" + v.s + "') and cannot be used in kernel code",
              "kernel code can only use compile-time constants, parameters and buffers");
        return nullptr;
    case ValueKind::Object:
        if (!isTensor(v))
            break;
        error("unsupported-construct", range,
              std::string(what) +
                  " comes from host code ('a torch tensor') and cannot be used in kernel code",
              "kernel code can only use compile-time constants, parameters and buffers");
        return nullptr;
    case ValueKind::None:
    case ValueKind::Str:
    case ValueKind::Tuple:
    case ValueKind::List:
    case ValueKind::Dict:
    case ValueKind::Range:
    case ValueKind::Slice:
    case ValueKind::Ellipsis:
    case ValueKind::Function:
    case ValueKind::Builtin:
    case ValueKind::Namespace:
    case ValueKind::DType:
    case ValueKind::Enum:
    case ValueKind::Region:
    case ValueKind::TensorType:
    case ValueKind::LoopSpec:
    case ValueKind::KernelSpec:
    case ValueKind::Layout:
        break;
    }
    error("type-error", range, std::string(what) + " must be a scalar expression, not " + typeName(v));
    return nullptr;
}

bool Interpreter::promote(const Value& a, const Value& b, ir::ExprPtr& x, ir::ExprPtr& y, SourceRange range) {
    bool aLit = a.isNumber();
    bool bLit = b.isNumber();
    x = toExpr(a, range, "operand");
    y = toExpr(b, range, "operand");
    if (!x || !y)
        return false;
    // A Python literal takes the dtype of the run-time side.
    auto adopt = [&](const Value& lit, ir::ExprPtr& litExpr, ir::ExprPtr& other) {
        ir::DType t = other->dtype;
        if (lit.kind == ValueKind::Float) {
            if (ir::isFloat(t)) {
                litExpr = ir::makeFloat(lit.f, t, range);
            } else {
                litExpr = ir::makeFloat(lit.f, ir::DType::Float32, range);
                other = castTo(other, ir::DType::Float32);
            }
            return;
        }
        if (t == ir::DType::Bool) {
            if (lit.kind == ValueKind::Bool)
                return;
            other = castTo(other, ir::DType::Int32);
            t = ir::DType::Int32;
        }
        litExpr = ir::isFloat(t) ? ir::makeFloat(static_cast<double>(lit.i), t, range)
                                 : ir::makeInt(lit.i, t, range);
    };
    if (aLit && !bLit) {
        adopt(a, x, y);
        return true;
    }
    if (bLit && !aLit) {
        adopt(b, y, x);
        return true;
    }
    if (x->dtype == y->dtype)
        return true;
    ir::DType ta = x->dtype, tb = y->dtype;
    ir::DType target;
    if (ir::isFloat(ta) && ir::isFloat(tb)) {
        int ba = ir::dtypeBits(ta), bb = ir::dtypeBits(tb);
        target = ba > bb ? ta : bb > ba ? tb : ir::DType::Float32; // float16 with bfloat16 -> float32
    } else if (ir::isFloat(ta)) {
        target = ta;
    } else if (ir::isFloat(tb)) {
        target = tb;
    } else if (ta == ir::DType::Bool) {
        target = tb;
    } else if (tb == ir::DType::Bool) {
        target = ta;
    } else {
        target = ir::dtypeBits(ta) >= ir::dtypeBits(tb) ? ta : tb;
    }
    x = castTo(x, target);
    y = castTo(y, target);
    return true;
}

Value Interpreter::symbolicBinary(ir::BinaryOp op, const Value& a, const Value& b, SourceRange range) {
    ir::ExprPtr x, y;
    if (!promote(a, b, x, y, range))
        return Value::poison();
    bool bitwise = op == ir::BinaryOp::BitAnd || op == ir::BinaryOp::BitOr || op == ir::BinaryOp::BitXor ||
                   op == ir::BinaryOp::Shl || op == ir::BinaryOp::Shr;
    if (bitwise && ir::isFloat(x->dtype))
        return error("type-error", range,
                     std::string("unsupported operand dtype for ") + ir::binaryOpName(op) + ": '" +
                         ir::dtypeName(x->dtype) + "'");
    if (auto divisor = y->kind == ir::ExprKind::IntImm ? std::optional<int64_t>(y->intValue) : std::nullopt;
        divisor && *divisor == 0 &&
        (op == ir::BinaryOp::Div || op == ir::BinaryOp::FloorDiv || op == ir::BinaryOp::FloorMod))
        return error("division-by-zero", range,
                     "division by zero in kernel expression " + ir::printExpr(x) + " " +
                         ir::binaryOpName(op) + " 0");
    return Value::symbolic(ir::makeBinary(op, x, y, range));
}

Value Interpreter::binary(ast::BinOpKind op, const Value& a, const Value& b, SourceRange range) {
    if (a.isPoison() || b.isPoison())
        return Value::poison();
    if (a.isOpaque() || b.isOpaque())
        return a.isOpaque() ? a : b;
    if (isTensor(a) || isTensor(b))
        return tensorArithmetic(a, b, op == ast::BinOpKind::MatMul);
    const char* spelling = ast::binOpSpelling(op);
    auto typeError = [&] {
        return error("type-error", range,
                     std::string("unsupported operand types for ") + spelling + ": '" + typeName(a) +
                         "' and '" + typeName(b) + "'");
    };
    if (a.isNumber() && b.isNumber()) {
        if (op == ast::BinOpKind::MatMul)
            return typeError();
        bool isFloatOp = a.kind == ValueKind::Float || b.kind == ValueKind::Float;
        if (isFloatOp) {
            double x = a.kind == ValueKind::Float ? a.f : static_cast<double>(a.i);
            double y = b.kind == ValueKind::Float ? b.f : static_cast<double>(b.i);
            switch (op) {
            case ast::BinOpKind::Add:
                return Value::real(x + y);
            case ast::BinOpKind::Sub:
                return Value::real(x - y);
            case ast::BinOpKind::Mul:
                return Value::real(x * y);
            case ast::BinOpKind::Div:
                if (y == 0)
                    return error("division-by-zero", range, "float division by zero");
                return Value::real(x / y);
            case ast::BinOpKind::FloorDiv:
                if (y == 0)
                    return error("division-by-zero", range, "float floor division by zero");
                return Value::real(std::floor(x / y));
            case ast::BinOpKind::Mod:
                if (y == 0)
                    return error("division-by-zero", range, "float modulo by zero");
                return Value::real(pyFloorMod(x, y));
            case ast::BinOpKind::Pow:
                if (x == 0 && y < 0)
                    return error("division-by-zero", range, "0.0 cannot be raised to a negative power");
                if (x < 0 && std::floor(y) != y)
                    return error("value-error", range,
                                 "a negative number raised to a fractional power is complex");
                return Value::real(std::pow(x, y));
            case ast::BinOpKind::LShift:
            case ast::BinOpKind::RShift:
            case ast::BinOpKind::BitAnd:
            case ast::BinOpKind::BitOr:
            case ast::BinOpKind::BitXor:
            case ast::BinOpKind::MatMul:
                return typeError();
            }
            return typeError();
        }
        int64_t x = a.i, y = b.i, r = 0;
        auto overflow = [&] {
            return error("integer-overflow", range,
                         "integer overflow: " + std::to_string(x) + " " + spelling + " " + std::to_string(y) +
                             " does not fit in 64 bits",
                         "compile-time integers are 64-bit");
        };
        switch (op) {
        case ast::BinOpKind::Add:
            if (__builtin_add_overflow(x, y, &r))
                return overflow();
            return Value::integer(r);
        case ast::BinOpKind::Sub:
            if (__builtin_sub_overflow(x, y, &r))
                return overflow();
            return Value::integer(r);
        case ast::BinOpKind::Mul:
            if (__builtin_mul_overflow(x, y, &r))
                return overflow();
            return Value::integer(r);
        case ast::BinOpKind::Div:
            if (y == 0)
                return error("division-by-zero", range, "division by zero: " + std::to_string(x) + " / 0");
            return Value::real(static_cast<double>(x) / static_cast<double>(y));
        case ast::BinOpKind::FloorDiv:
            if (y == 0)
                return error("division-by-zero", range,
                             "integer division by zero: " + std::to_string(x) + " // 0");
            if (x == std::numeric_limits<int64_t>::min() && y == -1)
                return overflow();
            return Value::integer(floorDiv(x, y));
        case ast::BinOpKind::Mod:
            if (y == 0)
                return error("division-by-zero", range,
                             "integer modulo by zero: " + std::to_string(x) + " % 0");
            if (y == -1)
                return Value::integer(0);
            return Value::integer(x - floorDiv(x, y) * y);
        case ast::BinOpKind::Pow: {
            if (y < 0) {
                if (x == 0)
                    return error("division-by-zero", range, "0 cannot be raised to a negative power");
                return Value::real(std::pow(static_cast<double>(x), static_cast<double>(y)));
            }
            int64_t result = 1, base = x, e = y;
            while (e > 0) {
                if (e & 1)
                    if (__builtin_mul_overflow(result, base, &result))
                        return overflow();
                e >>= 1;
                if (e > 0 && __builtin_mul_overflow(base, base, &base))
                    return overflow();
            }
            return Value::integer(result);
        }
        case ast::BinOpKind::LShift:
            if (y < 0)
                return error("value-error", range, "negative shift count");
            if (x == 0)
                return Value::integer(0);
            if (y >= 63 || ((x << y) >> y) != x)
                return overflow();
            return Value::integer(x << y);
        case ast::BinOpKind::RShift:
            if (y < 0)
                return error("value-error", range, "negative shift count");
            return Value::integer(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
        case ast::BinOpKind::BitAnd:
        case ast::BinOpKind::BitOr:
        case ast::BinOpKind::BitXor: {
            int64_t v = op == ast::BinOpKind::BitAnd  ? (x & y)
                        : op == ast::BinOpKind::BitOr ? (x | y)
                                                      : (x ^ y);
            if (a.kind == ValueKind::Bool && b.kind == ValueKind::Bool)
                return Value::boolean(v != 0);
            return Value::integer(v);
        }
        case ast::BinOpKind::MatMul:
            return typeError();
        }
        return typeError();
    }
    if (isScalarOperand(a) && isScalarOperand(b)) {
        if (op == ast::BinOpKind::MatMul)
            return typeError();
        return symbolicBinary(irOp(op), a, b, range);
    }
    // Sequences and strings.
    constexpr size_t kMaxSize = 1 << 20;
    if (op == ast::BinOpKind::Add) {
        if (a.kind == ValueKind::Str && b.kind == ValueKind::Str)
            return Value::str(a.s + b.s);
        if (a.isSequence() && a.kind == b.kind) {
            std::vector<Value> items = *a.items;
            items.insert(items.end(), b.items->begin(), b.items->end());
            return a.kind == ValueKind::Tuple ? Value::tuple(items) : Value::list(items);
        }
    }
    if (op == ast::BinOpKind::Mul) {
        const Value* seq = a.isIntLike() ? &b : &a;
        const Value* count = a.isIntLike() ? &a : &b;
        if (count->isIntLike() && (seq->kind == ValueKind::Str || seq->isSequence())) {
            int64_t n = std::max<int64_t>(0, count->i);
            size_t unit = seq->kind == ValueKind::Str ? seq->s.size() : seq->items->size();
            if (unit > 0 && static_cast<uint64_t>(n) > kMaxSize / unit)
                return error("value-error", range,
                             "sequence repetition is too large (" + std::to_string(n) + " copies)");
            if (seq->kind == ValueKind::Str) {
                std::string out;
                for (int64_t k = 0; k < n; ++k)
                    out += seq->s;
                return Value::str(out);
            }
            std::vector<Value> items;
            for (int64_t k = 0; k < n; ++k)
                items.insert(items.end(), seq->items->begin(), seq->items->end());
            return seq->kind == ValueKind::Tuple ? Value::tuple(items) : Value::list(items);
        }
    }
    if (op == ast::BinOpKind::Mod && a.kind == ValueKind::Str)
        return Value::str(a.s); // printf-style formatting: only used for messages
    return typeError();
}

Value Interpreter::compare(ast::CompareKind op, const Value& a, const Value& b, SourceRange range) {
    if (a.isPoison() || b.isPoison())
        return Value::poison();
    if (a.isOpaque() || b.isOpaque())
        return a.isOpaque() ? a : b;
    if ((isTensor(a) || isTensor(b)) && op != ast::CompareKind::Is && op != ast::CompareKind::IsNot &&
        op != ast::CompareKind::In && op != ast::CompareKind::NotIn) {
        Value mask = tensorArithmetic(a, b, false);
        mask.object->attrs["dtype"] = Value::dtypeOf(ir::DType::Bool);
        return mask;
    }
    switch (op) {
    case ast::CompareKind::Is:
    case ast::CompareKind::IsNot: {
        bool same = a.kind == b.kind && (a.kind == ValueKind::None || a.kind == ValueKind::Ellipsis ||
                                         ((a.kind == ValueKind::Bool || a.kind == ValueKind::Enum ||
                                           a.kind == ValueKind::DType || a.kind == ValueKind::Namespace) &&
                                          valuesEqual(a, b)) ||
                                         (a.items && a.items == b.items) || (a.fn && a.fn == b.fn) ||
                                         (a.buffer && a.buffer == b.buffer && a.kind == ValueKind::Buffer));
        return Value::boolean(op == ast::CompareKind::Is ? same : !same);
    }
    case ast::CompareKind::In:
    case ast::CompareKind::NotIn: {
        bool found = false;
        if (b.kind == ValueKind::Str && a.kind == ValueKind::Str) {
            found = b.s.find(a.s) != std::string::npos;
        } else if (b.isSequence()) {
            for (const Value& v : *b.items)
                found = found || valuesEqual(v, a);
        } else if (b.kind == ValueKind::Dict) {
            found = dictFind(*b.dict, a) != nullptr;
        } else if (b.kind == ValueKind::Range && a.isIntLike()) {
            int64_t start = b.range[0], stop = b.range[1], st = b.range[2];
            found = st > 0 ? (a.i >= start && a.i < stop && (a.i - start) % st == 0)
                           : (a.i <= start && a.i > stop && (start - a.i) % (-st) == 0);
        } else {
            return error("type-error", range, "argument of type '" + typeName(b) + "' is not a container");
        }
        return Value::boolean(op == ast::CompareKind::In ? found : !found);
    }
    case ast::CompareKind::Eq:
    case ast::CompareKind::NotEq:
    case ast::CompareKind::Lt:
    case ast::CompareKind::LtE:
    case ast::CompareKind::Gt:
    case ast::CompareKind::GtE:
        break;
    }
    bool symbolic = (a.kind == ValueKind::Expr || b.kind == ValueKind::Expr ||
                     (a.kind == ValueKind::Buffer && a.buffer->scope == ir::MemoryScope::LocalVar) ||
                     (b.kind == ValueKind::Buffer && b.buffer->scope == ir::MemoryScope::LocalVar)) &&
                    isScalarOperand(a) && isScalarOperand(b);
    auto irCompare = [&]() {
        switch (op) {
        case ast::CompareKind::Eq:
            return ir::BinaryOp::Eq;
        case ast::CompareKind::NotEq:
            return ir::BinaryOp::Ne;
        case ast::CompareKind::Lt:
            return ir::BinaryOp::Lt;
        case ast::CompareKind::LtE:
            return ir::BinaryOp::Le;
        case ast::CompareKind::Gt:
            return ir::BinaryOp::Gt;
        case ast::CompareKind::GtE:
        case ast::CompareKind::Is:
        case ast::CompareKind::IsNot:
        case ast::CompareKind::In:
        case ast::CompareKind::NotIn:
            break;
        }
        return ir::BinaryOp::Ge;
    };
    if (symbolic)
        return symbolicBinary(irCompare(), a, b, range);
    if (op == ast::CompareKind::Eq)
        return Value::boolean(valuesEqual(a, b));
    if (op == ast::CompareKind::NotEq)
        return Value::boolean(!valuesEqual(a, b));
    // Ordering: numbers, strings, sequences (lexicographic).
    int order = 0;
    bool comparable = true;
    std::function<void(const Value&, const Value&)> cmp = [&](const Value& x, const Value& y) {
        if (x.isNumber() && y.isNumber()) {
            if (x.kind == ValueKind::Float || y.kind == ValueKind::Float) {
                double p = x.kind == ValueKind::Float ? x.f : static_cast<double>(x.i);
                double q = y.kind == ValueKind::Float ? y.f : static_cast<double>(y.i);
                order = p < q ? -1 : p > q ? 1 : 0;
            } else {
                order = x.i < y.i ? -1 : x.i > y.i ? 1 : 0;
            }
            return;
        }
        if (x.kind == ValueKind::Str && y.kind == ValueKind::Str) {
            order = x.s < y.s ? -1 : x.s > y.s ? 1 : 0;
            return;
        }
        if (x.isSequence() && x.kind == y.kind) {
            for (size_t k = 0; k < x.items->size() && k < y.items->size(); ++k) {
                if (!valuesEqual((*x.items)[k], (*y.items)[k])) {
                    cmp((*x.items)[k], (*y.items)[k]);
                    return;
                }
            }
            order = x.items->size() < y.items->size() ? -1 : x.items->size() > y.items->size() ? 1 : 0;
            return;
        }
        comparable = false;
    };
    cmp(a, b);
    if (!comparable)
        return error("type-error", range,
                     std::string("'") + ast::compareSpelling(op) + "' not supported between instances of '" +
                         typeName(a) + "' and '" + typeName(b) + "'");
    switch (op) {
    case ast::CompareKind::Lt:
        return Value::boolean(order < 0);
    case ast::CompareKind::LtE:
        return Value::boolean(order <= 0);
    case ast::CompareKind::Gt:
        return Value::boolean(order > 0);
    case ast::CompareKind::GtE:
        return Value::boolean(order >= 0);
    case ast::CompareKind::Eq:
    case ast::CompareKind::NotEq:
    case ast::CompareKind::Is:
    case ast::CompareKind::IsNot:
    case ast::CompareKind::In:
    case ast::CompareKind::NotIn:
        break;
    }
    return Value::poison();
}

Value Interpreter::unary(ast::UnaryOpKind op, const Value& a, SourceRange range) {
    if (a.isInert())
        return a;
    if (isTensor(a) && op != ast::UnaryOpKind::Not)
        return a; // -t, ~t: the same shape
    switch (op) {
    case ast::UnaryOpKind::Not: {
        std::optional<bool> t = truth(a);
        if (t)
            return Value::boolean(!*t);
        ir::ExprPtr x = toExpr(a, range, "operand");
        if (!x)
            return Value::poison();
        return Value::symbolic(ir::makeUnary(ir::UnaryOp::LogicalNot, castTo(x, ir::DType::Bool), range));
    }
    case ast::UnaryOpKind::Pos:
        if (a.isNumber())
            return a.kind == ValueKind::Bool ? Value::integer(a.i) : a;
        if (isScalarOperand(a))
            return Value::symbolic(toExpr(a, range));
        break;
    case ast::UnaryOpKind::Neg:
        if (a.kind == ValueKind::Float)
            return Value::real(-a.f);
        if (a.isIntLike()) {
            if (a.i == std::numeric_limits<int64_t>::min())
                return error("integer-overflow", range, "integer overflow negating " + std::to_string(a.i));
            return Value::integer(-a.i);
        }
        if (isScalarOperand(a)) {
            ir::ExprPtr x = toExpr(a, range, "operand");
            if (!x)
                return Value::poison();
            if (x->kind == ir::ExprKind::FloatImm)
                return Value::symbolic(ir::makeFloat(-x->floatValue, x->dtype, range));
            if (x->kind == ir::ExprKind::IntImm && x->dtype != ir::DType::Bool)
                return Value::symbolic(ir::makeInt(-x->intValue, x->dtype, range));
            if (x->dtype == ir::DType::Bool)
                x = castTo(x, ir::DType::Int32);
            return Value::symbolic(ir::makeUnary(ir::UnaryOp::Neg, x, range));
        }
        break;
    case ast::UnaryOpKind::Invert:
        if (a.isIntLike())
            return Value::integer(~a.i);
        if (isScalarOperand(a)) {
            ir::ExprPtr x = toExpr(a, range, "operand");
            if (!x)
                return Value::poison();
            if (ir::isFloat(x->dtype))
                break;
            return Value::symbolic(ir::makeUnary(ir::UnaryOp::BitNot, x, range));
        }
        break;
    }
    return error("type-error", range,
                 std::string("bad operand type for unary ") + ast::unaryOpSpelling(op) + ": '" + typeName(a) +
                     "'");
}

std::optional<bool> Interpreter::truth(const Value& v, bool* inert) {
    if (inert)
        *inert = false;
    switch (v.kind) {
    case ValueKind::None:
        return false;
    case ValueKind::Bool:
    case ValueKind::Int:
        return v.i != 0;
    case ValueKind::Float:
        return v.f != 0;
    case ValueKind::Str:
        return !v.s.empty();
    case ValueKind::Tuple:
    case ValueKind::List:
        return !v.items->empty();
    case ValueKind::Dict:
        return !v.dict->entries.empty();
    case ValueKind::Range:
        return v.range[2] > 0 ? v.range[0] < v.range[1] : v.range[0] > v.range[1];
    case ValueKind::Expr: {
        ir::ExprPtr s = ir::simplify(v.expr);
        if (s->kind == ir::ExprKind::IntImm)
            return s->intValue != 0;
        if (s->kind == ir::ExprKind::FloatImm)
            return s->floatValue != 0;
        return std::nullopt;
    }
    case ValueKind::Buffer:
        if (v.buffer->scope == ir::MemoryScope::LocalVar)
            return std::nullopt; // a run-time scalar
        return true;
    case ValueKind::Poison:
    case ValueKind::Opaque:
        if (inert)
            *inert = true;
        return std::nullopt;
    case ValueKind::Object:
        if (isTensor(v)) { // the truth of a tensor is its data
            if (inert)
                *inert = true;
            return std::nullopt;
        }
        return true;
    case ValueKind::Slice:
    case ValueKind::Ellipsis:
    case ValueKind::Function:
    case ValueKind::Builtin:
    case ValueKind::Namespace:
    case ValueKind::DType:
    case ValueKind::Enum:
    case ValueKind::Region:
    case ValueKind::TensorType:
    case ValueKind::LoopSpec:
    case ValueKind::KernelSpec:
    case ValueKind::Layout:
        return true;
    }
    return true;
}

} // namespace tb::elab
