// Python's math module at compile time: the integer functions (gcd, lcm, prod, factorial, comb, isqrt),
// rounding to integers (ceil, floor, trunc), and the float functions (sqrt, log, exp, pow, sin, ...), with
// Python's domain errors. A run-time operand gets a not-compile-time diagnostic that points to T.<fn>.
#include "engine/elaborate/Primitives.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>

namespace tb::elab {

namespace {

std::string fnName(const PrimitiveCall& call) {
    return call.name.substr(5); // after "math."
}

// The number arguments of a float function: x, and y when given.
struct RealArgs {
    double x = 0;
    double y = 0;
    bool hasY = false;
};

// Reads x (required) and y; on failure `failure` is the value the handler returns.
bool realArgs(Interpreter& in, const PrimitiveCall& call, RealArgs& a, Value& failure) {
    auto& pos = call.args.positional;
    std::string f = fnName(call);
    if (!numberArg(call, 0, a.x)) {
        if (!pos.empty() && pos[0].kind == ValueKind::Expr)
            failure = in.error("not-compile-time", call.at(0), "math." + f + "() of a run-time value",
                               "use T." + f + " in kernel code");
        else
            failure = in.error("type-error", call.range, "math." + f + "() needs a number");
        return false;
    }
    a.hasY = numberArg(call, 1, a.y);
    return true;
}

Value domainError(Interpreter& in, const PrimitiveCall& call) {
    return in.error("value-error", call.range,
                    "math domain error in math." + fnName(call) + "(" + toStr(call.args.positional[0]) + ")");
}

Value toInteger(Interpreter& in, const PrimitiveCall& call, double v) {
    if (!std::isfinite(v) || std::fabs(v) >= 9.2e18)
        return in.error("value-error", call.range,
                        "cannot convert " + toStr(Value::real(v)) + " to an integer");
    return Value::integer(static_cast<int64_t>(v));
}

// gcd(*integers) and lcm(*integers).
Value mathGcdLcm(Interpreter& in, PrimitiveCall& call) {
    auto& pos = call.args.positional;
    std::string f = fnName(call);
    int64_t acc = f == "gcd" ? 0 : 1;
    for (size_t k = 0; k < pos.size(); ++k) {
        if (!pos[k].isIntLike())
            return in.error("type-error", call.at(k), "math." + f + "() needs integers");
        int64_t a = std::llabs(acc), b = std::llabs(pos[k].i);
        if (f == "gcd") {
            while (b) {
                int64_t t = a % b;
                a = b;
                b = t;
            }
            acc = a;
        } else {
            int64_t g = a, h = b;
            while (h) {
                int64_t t = g % h;
                g = h;
                h = t;
            }
            acc = g == 0 ? 0 : a / g * b;
        }
    }
    return Value::integer(acc);
}

Value mathProd(Interpreter& in, PrimitiveCall& call) {
    auto& pos = call.args.positional;
    auto seq = pos.empty() ? std::nullopt : in.iterate(pos[0], call.at(0));
    if (!seq)
        return Value::poison();
    Value total = Value::integer(1);
    for (const Value& v : *seq)
        total = in.binary(ast::BinOpKind::Mul, total, v, call.range);
    return total;
}

// factorial(n) and comb(n, k) for n <= 20 (the results fit in 64 bits).
Value mathFactorialComb(Interpreter& in, PrimitiveCall& call) {
    auto& pos = call.args.positional;
    std::string f = fnName(call);
    if (!pos.empty() && pos[0].isIntLike() && pos[0].i >= 0 && pos[0].i <= 20) {
        int64_t n = pos[0].i, r = 1;
        if (f == "factorial") {
            for (int64_t k = 2; k <= n; ++k)
                r *= k;
            return Value::integer(r);
        }
        if (pos.size() == 2 && pos[1].isIntLike() && pos[1].i >= 0 && pos[1].i <= n) {
            int64_t kk = pos[1].i;
            for (int64_t k = 1; k <= kk; ++k)
                r = r * (n - kk + k) / k;
            return Value::integer(r);
        }
    }
    return in.error("value-error", call.range, "math." + f + "() argument out of the supported range");
}

Value mathSqrt(Interpreter& in, PrimitiveCall& call) {
    RealArgs a;
    Value failure;
    if (!realArgs(in, call, a, failure))
        return failure;
    return a.x < 0 ? domainError(in, call) : Value::real(std::sqrt(a.x));
}

Value mathIsqrt(Interpreter& in, PrimitiveCall& call) {
    RealArgs a;
    Value failure;
    if (!realArgs(in, call, a, failure))
        return failure;
    const Value& n = call.args.positional[0];
    if (!n.isIntLike() || n.i < 0)
        return domainError(in, call);
    int64_t r = static_cast<int64_t>(std::sqrt(static_cast<double>(n.i)));
    while (r * r > n.i)
        --r;
    while ((r + 1) * (r + 1) <= n.i)
        ++r;
    return Value::integer(r);
}

// log(x[, base]), log2(x) and log10(x).
Value mathLog(Interpreter& in, PrimitiveCall& call) {
    RealArgs a;
    Value failure;
    if (!realArgs(in, call, a, failure))
        return failure;
    std::string f = fnName(call);
    if (f == "log2")
        return a.x <= 0 ? domainError(in, call) : Value::real(std::log2(a.x));
    if (f == "log10")
        return a.x <= 0 ? domainError(in, call) : Value::real(std::log10(a.x));
    if (a.x <= 0 || (a.hasY && (a.y <= 0 || a.y == 1)))
        return domainError(in, call);
    return Value::real(a.hasY ? std::log(a.x) / std::log(a.y) : std::log(a.x));
}

// ceil, floor and trunc: integers stay integers.
Value mathRounding(Interpreter& in, PrimitiveCall& call) {
    RealArgs a;
    Value failure;
    if (!realArgs(in, call, a, failure))
        return failure;
    const Value& v = call.args.positional[0];
    if (v.isIntLike())
        return Value::integer(v.i);
    std::string f = fnName(call);
    return toInteger(in, call,
                     f == "ceil"    ? std::ceil(a.x)
                     : f == "floor" ? std::floor(a.x)
                                    : std::trunc(a.x));
}

Value mathPow(Interpreter& in, PrimitiveCall& call) {
    RealArgs a;
    Value failure;
    if (!realArgs(in, call, a, failure))
        return failure;
    return Value::real(std::pow(a.x, a.y));
}

Value mathIsclose(Interpreter& in, PrimitiveCall& call) {
    RealArgs a;
    Value failure;
    if (!realArgs(in, call, a, failure))
        return failure;
    return Value::boolean(std::fabs(a.x - a.y) <= 1e-9 * std::max(std::fabs(a.x), std::fabs(a.y)));
}

// isinf(x) and isnan(x).
Value mathClassify(Interpreter& in, PrimitiveCall& call) {
    RealArgs a;
    Value failure;
    if (!realArgs(in, call, a, failure))
        return failure;
    return Value::boolean(fnName(call) == "isinf" ? std::isinf(a.x) : std::isnan(a.x));
}

// The float functions defined everywhere: exp, exp2, fabs, sin, cos, tan, tanh, erf.
Value mathOfReal(Interpreter& in, PrimitiveCall& call) {
    RealArgs a;
    Value failure;
    if (!realArgs(in, call, a, failure))
        return failure;
    struct Entry {
        const char* name;
        double (*fn)(double);
    };
    static const Entry table[] = {
        {"exp", [](double x) { return std::exp(x); }},   {"exp2", [](double x) { return std::exp2(x); }},
        {"fabs", [](double x) { return std::fabs(x); }}, {"sin", [](double x) { return std::sin(x); }},
        {"cos", [](double x) { return std::cos(x); }},   {"tan", [](double x) { return std::tan(x); }},
        {"tanh", [](double x) { return std::tanh(x); }}, {"erf", [](double x) { return std::erf(x); }},
    };
    std::string f = fnName(call);
    for (const Entry& e : table)
        if (f == e.name)
            return Value::real(e.fn(a.x));
    return Value::opaque(call.name + "(...)");
}

// Names the math module has but the elaborator does not model: host values.
Value mathFallback(Interpreter&, PrimitiveCall& call) {
    return Value::opaque(call.name + "(...)");
}

} // namespace

std::span<const PrimitiveRow> mathModule() {
    static const PrimitiveRow rows[] = {
        {"math.gcd", mathGcdLcm},         {"math.lcm", mathGcdLcm},
        {"math.prod", mathProd},          {"math.factorial", mathFactorialComb},
        {"math.comb", mathFactorialComb}, {"math.sqrt", mathSqrt},
        {"math.isqrt", mathIsqrt},        {"math.log", mathLog},
        {"math.log2", mathLog},           {"math.log10", mathLog},
        {"math.ceil", mathRounding},      {"math.floor", mathRounding},
        {"math.trunc", mathRounding},     {"math.pow", mathPow},
        {"math.isclose", mathIsclose},    {"math.isinf", mathClassify},
        {"math.isnan", mathClassify},     {"math.exp", mathOfReal},
        {"math.exp2", mathOfReal},        {"math.fabs", mathOfReal},
        {"math.sin", mathOfReal},         {"math.cos", mathOfReal},
        {"math.tan", mathOfReal},         {"math.tanh", mathOfReal},
        {"math.erf", mathOfReal},         {"math.", mathFallback},
    };
    return rows;
}

} // namespace tb::elab
