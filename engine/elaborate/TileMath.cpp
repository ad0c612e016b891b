// TileLang's element math: casts (T.cast, T.Cast, T.float32(x)), the math intrinsics (T.exp, T.sqrt,
// T.fma, ...), T.max / T.min, the integer helpers (T.ceildiv, T.floordiv, T.floormod, T.truncdiv, T.pow),
// T.clamp, T.if_then_else / T.Select and the dtype limits (T.infinity, T.min_value, T.max_value).
// Compile-time operands fold; run-time ones build ir::Expr.
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

std::optional<ir::Intrinsic> intrinsicFor(const std::string& name) {
    struct Entry {
        const char* name;
        ir::Intrinsic fn;
    };
    static const Entry table[] = {
        {"exp", ir::Intrinsic::Exp},       {"exp2", ir::Intrinsic::Exp2},
        {"exp10", ir::Intrinsic::Exp10},   {"log", ir::Intrinsic::Log},
        {"log2", ir::Intrinsic::Log2},     {"log10", ir::Intrinsic::Log10},
        {"sqrt", ir::Intrinsic::Sqrt},     {"rsqrt", ir::Intrinsic::Rsqrt},
        {"abs", ir::Intrinsic::Abs},       {"sigmoid", ir::Intrinsic::Sigmoid},
        {"tanh", ir::Intrinsic::Tanh},     {"sin", ir::Intrinsic::Sin},
        {"cos", ir::Intrinsic::Cos},       {"floor", ir::Intrinsic::Floor},
        {"ceil", ir::Intrinsic::Ceil},     {"round", ir::Intrinsic::Round},
        {"trunc", ir::Intrinsic::Trunc},   {"erf", ir::Intrinsic::Erf},
        {"fma", ir::Intrinsic::Fma},       {"isnan", ir::Intrinsic::IsNan},
        {"isinf", ir::Intrinsic::IsInf},   {"__exp", ir::Intrinsic::Exp},
        {"__exp2", ir::Intrinsic::Exp2},   {"__exp10", ir::Intrinsic::Exp10},
        {"__log", ir::Intrinsic::Log},     {"__log2", ir::Intrinsic::Log2},
        {"__log10", ir::Intrinsic::Log10}, {"__sin", ir::Intrinsic::Sin},
        {"__cos", ir::Intrinsic::Cos},
    };
    for (const Entry& e : table)
        if (name == e.name)
            return e.fn;
    return std::nullopt;
}

double dtypeMax(ir::DType t) {
    switch (t) {
    case ir::DType::Float16:
        return 65504.0;
    case ir::DType::BFloat16:
        return 3.38953139e38;
    case ir::DType::Float32:
        return FLT_MAX;
    case ir::DType::Float64:
        return DBL_MAX;
    case ir::DType::Float8E4M3:
        return 448.0;
    case ir::DType::Float8E5M2:
        return 57344.0;
    case ir::DType::Bool:
    case ir::DType::Int8:
    case ir::DType::Int16:
    case ir::DType::Int32:
    case ir::DType::Int64:
    case ir::DType::UInt8:
    case ir::DType::UInt16:
    case ir::DType::UInt32:
    case ir::DType::UInt64:
        break;
    }
    return 0;
}

Value tileCast(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    BoundArgs b;
    if (!in.bind(op == "cast" ? "T.cast(value, dtype)" : "T.Cast(dtype, value)", args, b))
        return Value::poison();
    size_t vi = op == "cast" ? 0 : 1, ti = 1 - vi;
    auto t = in.toDType(b[ti], b.at(ti));
    if (!t)
        return Value::poison();
    const Value& v = b[vi];
    if (v.isNumber()) {
        if (ir::isFloat(*t))
            return Value::symbolic(
                ir::makeFloat(v.kind == ValueKind::Float ? v.f : static_cast<double>(v.i), *t, range));
        if (*t == ir::DType::Bool)
            return Value::symbolic(ir::makeBool(in.truth(v).value_or(false), range));
        return Value::symbolic(
            ir::makeInt(v.kind == ValueKind::Float ? static_cast<int64_t>(v.f) : v.i, *t, range));
    }
    ir::ExprPtr e = in.toExpr(v, b.at(vi), "the cast operand");
    if (!e)
        return Value::poison();
    return Value::symbolic(e->dtype == *t ? e : ir::makeCast(*t, e, range));
}

Value dtypeLimit(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    BoundArgs b;
    if (!in.bind(("T." + op + "(dtype)").c_str(), args, b))
        return Value::poison();
    auto t = in.toDType(b[0], b.at(0));
    if (!t)
        return Value::poison();
    if (ir::isFloat(*t)) {
        double v = op == "infinity" ? std::numeric_limits<double>::infinity()
                                    : (op == "max_value" ? dtypeMax(*t) : -dtypeMax(*t));
        return Value::symbolic(ir::makeFloat(v, *t, range));
    }
    if (op == "infinity")
        return in.error("type-error", b.at(0),
                        std::string("T.infinity needs a float dtype, not ") + ir::dtypeName(*t));
    int bits = ir::dtypeBits(*t);
    int64_t lo = 0, hi = 0;
    if (*t == ir::DType::Bool) {
        hi = 1;
    } else if (ir::isSignedInt(*t)) {
        hi = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (bits - 1)) - 1;
        lo = -hi - 1;
    } else {
        hi = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << bits) - 1;
    }
    return Value::symbolic(ir::makeInt(op == "max_value" ? hi : lo, *t, range));
}

Value minMax(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    if (args.positional.size() != 2 || !args.keywords.empty())
        return in.error("wrong-arguments", range, "T." + op + " takes 2 arguments",
                        "signature: T." + op + "(a, b)");
    const Value& x = args.positional[0];
    const Value& y = args.positional[1];
    if (x.isNumber() && y.isNumber()) {
        Value less = in.compare(ast::CompareKind::Lt, x, y, range);
        bool pickX = op == "min" ? less.i != 0 : less.i == 0;
        return pickX ? x : y;
    }
    return in.symbolicBinary(op == "max" ? ir::BinaryOp::Max : ir::BinaryOp::Min, x, y, range);
}

Value integerDivision(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    BoundArgs b;
    if (!in.bind(("T." + op + "(a, b)").c_str(), args, b))
        return Value::poison();
    const Value& x = b[0];
    const Value& y = b[1];
    if (op == "ceildiv") {
        if (x.isIntLike() && y.isIntLike()) {
            if (y.i == 0)
                return in.error("division-by-zero", range,
                                "T.ceildiv(" + std::to_string(x.i) + ", 0) divides by zero");
            Value sum = in.binary(ast::BinOpKind::Add, x,
                                  in.binary(ast::BinOpKind::Sub, y, Value::integer(1), range), range);
            return in.binary(ast::BinOpKind::FloorDiv, sum, y, range);
        }
        Value sum = in.binary(ast::BinOpKind::Sub, in.binary(ast::BinOpKind::Add, x, y, range),
                              Value::integer(1), range);
        return in.binary(ast::BinOpKind::FloorDiv, sum, y, range);
    }
    if (op == "truncdiv") {
        if (x.isIntLike() && y.isIntLike()) {
            if (y.i == 0)
                return in.error("division-by-zero", range, "T.truncdiv by zero");
            return Value::integer(x.i / y.i);
        }
        return in.symbolicBinary(ir::BinaryOp::Div, x, y, range);
    }
    ast::BinOpKind k = op == "floordiv"   ? ast::BinOpKind::FloorDiv
                       : op == "floormod" ? ast::BinOpKind::Mod
                                          : ast::BinOpKind::Pow;
    return in.binary(k, x, y, range);
}

Value tileClamp(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.clamp(value, min_value, max_value)", args, b))
        return Value::poison();
    Value lo = in.symbolicBinary(ir::BinaryOp::Max, b[0], b[1], range);
    if (lo.isPoison())
        return lo;
    return in.symbolicBinary(ir::BinaryOp::Min, lo, b[2], range);
}

Value tileSelect(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    BoundArgs b;
    if (!in.bind(("T." + op + "(cond, true_value, false_value)").c_str(), args, b))
        return Value::poison();
    bool inert = false;
    auto t = in.truth(b[0], &inert);
    if (inert)
        return b[0];
    if (t)
        return *t ? b[1] : b[2];
    ir::ExprPtr c = in.toExpr(b[0], b.at(0), "the condition");
    ir::ExprPtr x, y;
    if (!c || !in.promote(b[1], b[2], x, y, range))
        return Value::poison();
    return Value::symbolic(ir::makeSelect(in.castTo(c, ir::DType::Bool), x, y, range));
}

Value intrinsicCall(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    auto fn = intrinsicFor(op);
    if (!fn)
        return in.error("unsupported-construct", range, call.name + " is not supported by TileBench");
    size_t arity = *fn == ir::Intrinsic::Fma ? 3 : 1;
    if (args.positional.size() != arity || !args.keywords.empty())
        return in.error("wrong-arguments", range,
                        "T." + op + " takes " + std::to_string(arity) + " argument" +
                            (arity == 1 ? "" : "s") + ", got " +
                            std::to_string(args.positional.size() + args.keywords.size()));
    std::vector<ir::ExprPtr> operands;
    for (size_t k = 0; k < arity; ++k) {
        ir::ExprPtr e = in.toExpr(args.positional[k], args.positionalRanges[k], "a math operand");
        if (!e)
            return Value::poison();
        operands.push_back(e);
    }
    bool keepsInt = *fn == ir::Intrinsic::Abs;
    ir::DType t = operands[0]->dtype;
    for (const ir::ExprPtr& e : operands)
        if (ir::isFloat(e->dtype) && (!ir::isFloat(t) || ir::dtypeBits(e->dtype) > ir::dtypeBits(t)))
            t = e->dtype;
    if (!ir::isFloat(t) && !keepsInt)
        t = ir::DType::Float32;
    for (ir::ExprPtr& e : operands)
        e = in.castTo(e, t);
    ir::DType result = (*fn == ir::Intrinsic::IsNan || *fn == ir::Intrinsic::IsInf) ? ir::DType::Bool : t;
    return Value::symbolic(ir::makeCall(*fn, result, std::move(operands), range));
}

} // namespace

std::span<const PrimitiveRow> elementMathPrimitives() {
    static const PrimitiveRow rows[] = {
        {"cast", tileCast},
        {"Cast", tileCast},
        {"infinity", dtypeLimit},
        {"min_value", dtypeLimit},
        {"max_value", dtypeLimit},
        {"max", minMax},
        {"min", minMax},
        {"ceildiv", integerDivision},
        {"floordiv", integerDivision},
        {"floormod", integerDivision},
        {"truncdiv", integerDivision},
        {"pow", integerDivision},
        {"clamp", tileClamp},
        {"if_then_else", tileSelect},
        {"Select", tileSelect},
        {"exp", intrinsicCall},
        {"exp2", intrinsicCall},
        {"exp10", intrinsicCall},
        {"log", intrinsicCall},
        {"log2", intrinsicCall},
        {"log10", intrinsicCall},
        {"sqrt", intrinsicCall},
        {"rsqrt", intrinsicCall},
        {"abs", intrinsicCall},
        {"sigmoid", intrinsicCall},
        {"tanh", intrinsicCall},
        {"sin", intrinsicCall},
        {"cos", intrinsicCall},
        {"floor", intrinsicCall},
        {"ceil", intrinsicCall},
        {"round", intrinsicCall},
        {"trunc", intrinsicCall},
        {"erf", intrinsicCall},
        {"fma", intrinsicCall},
        {"isnan", intrinsicCall},
        {"isinf", intrinsicCall},
        {"__exp", intrinsicCall},
        {"__exp2", intrinsicCall},
        {"__exp10", intrinsicCall},
        {"__log", intrinsicCall},
        {"__log2", intrinsicCall},
        {"__log10", intrinsicCall},
        {"__sin", intrinsicCall},
        {"__cos", intrinsicCall},
    };
    return rows;
}

} // namespace tb::elab
