// Python builtins, the math module, methods of str/list/dict, argparse (so that main() functions that
// read their sizes from command-line defaults work), the host side of tilelang (jit, compile), torch
// tensor constructors (Opaque, but with their shape), and module attribute resolution with suggestions.
#include "engine/elaborate/Interpreter.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

const char* const kMathFunctions[] = {"sqrt",  "log",   "log2",  "log10",    "exp", "ceil",    "floor",
                                      "pow",   "fabs",  "isqrt", "gcd",      "lcm", "prod",    "sin",
                                      "cos",   "tan",   "tanh",  "trunc",    "erf", "isclose", "exp2",
                                      "isinf", "isnan", "comb",  "factorial"};
const char* const kTorchFunctions[] = {"randn", "rand",    "empty", "zeros",
                                       "ones",  "randint", "full",  "arange"};

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (size_t k = 0; k < names.size(); ++k)
        out += (k ? ", " : "") + names[k];
    return out;
}

} // namespace

// Binds call arguments to a signature written as text: "T.copy(src, dst, coalesced_width=None, *rest)".
// Parameters after a *name are keyword-only. Reports wrong-arguments with the signature as the hint.
bool Interpreter::bind(const char* signature, const CallArgs& args, BoundArgs& out) {
    std::string sig = signature;
    size_t open = sig.find('(');
    std::string fname = sig.substr(0, open);
    std::string inner = sig.substr(open + 1, sig.size() - open - 2);
    struct P {
        std::string name;
        bool optional = false;
        bool varargs = false;
        bool kwOnly = false;
    };
    std::vector<P> params;
    bool kwOnly = false;
    size_t pos = 0;
    while (pos < inner.size()) {
        size_t comma = inner.find(',', pos);
        std::string part = inner.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? inner.size() : comma + 1;
        while (!part.empty() && part.front() == ' ')
            part.erase(part.begin());
        if (part.empty())
            continue;
        P p;
        if (part[0] == '*') {
            p.varargs = true;
            p.name = part.substr(1);
            params.push_back(p);
            kwOnly = true;
            continue;
        }
        size_t eq = part.find('=');
        p.name = part.substr(0, eq);
        p.optional = eq != std::string::npos;
        p.kwOnly = kwOnly;
        params.push_back(p);
    }
    std::string hint = "signature: " + sig;
    out.range = args.range;
    std::vector<size_t> slot(params.size(), SIZE_MAX);
    for (size_t k = 0; k < params.size(); ++k) {
        if (params[k].varargs)
            continue;
        slot[k] = out.values.size();
        out.values.push_back(Value::none());
        out.given.push_back(false);
        out.ranges.push_back(args.range);
    }
    size_t next = 0;
    for (size_t k = 0; k < args.positional.size(); ++k) {
        while (next < params.size() && params[next].kwOnly)
            ++next;
        if (next < params.size() && params[next].varargs) {
            out.varargs.push_back(args.positional[k]);
            out.varargRanges.push_back(args.positionalRanges[k]);
            continue;
        }
        if (next >= params.size()) {
            error("wrong-arguments", args.positionalRanges[k],
                  fname + "() takes at most " + std::to_string(out.values.size()) +
                      " positional arguments but " + std::to_string(args.positional.size()) + " were given",
                  hint);
            return false;
        }
        out.values[slot[next]] = args.positional[k];
        out.given[slot[next]] = true;
        out.ranges[slot[next]] = args.positionalRanges[k];
        ++next;
    }
    for (size_t k = 0; k < args.keywords.size(); ++k) {
        const std::string& name = args.keywords[k].first;
        size_t found = SIZE_MAX;
        for (size_t p = 0; p < params.size(); ++p)
            if (!params[p].varargs && params[p].name == name)
                found = p;
        if (found == SIZE_MAX) {
            std::vector<std::string> names;
            for (const P& p : params)
                if (!p.varargs)
                    names.push_back(p.name);
            std::string best = closestName(name, names);
            error("wrong-arguments", args.keywordName(k),
                  fname + "() got an unexpected keyword argument '" + name + "'",
                  (best.empty() ? "" : "did you mean '" + best + "'? ") + hint);
            return false;
        }
        if (out.given[slot[found]]) {
            error("wrong-arguments", args.keywordRanges[k],
                  fname + "() got multiple values for argument '" + name + "'", hint);
            return false;
        }
        out.values[slot[found]] = args.keywords[k].second;
        out.given[slot[found]] = true;
        out.ranges[slot[found]] = args.keywordRanges[k];
    }
    std::vector<std::string> missing;
    for (size_t p = 0; p < params.size(); ++p)
        if (!params[p].varargs && !params[p].optional && !out.given[slot[p]])
            missing.push_back("'" + params[p].name + "'");
    if (!missing.empty()) {
        error("wrong-arguments", args.range,
              fname + "() missing required argument" + (missing.size() > 1 ? "s " : " ") + joinNames(missing),
              hint);
        return false;
    }
    return true;
}

std::optional<int64_t> Interpreter::constInt(const Value& v, SourceRange range, const char* what,
                                             bool report) {
    if (v.isIntLike())
        return v.i;
    if (v.kind == ValueKind::Expr) {
        if (auto c = ir::constantInt(v.expr))
            return c;
        if (report)
            error("not-compile-time", range,
                  std::string(what) + " must be known at compile time, but it is " + ir::printExpr(v.expr),
                  "use a jit parameter or a constant");
        return std::nullopt;
    }
    if (report && !v.isPoison())
        error(v.isOpaque() ? "not-compile-time" : "type-error", range,
              std::string(what) + " must be an integer, not " + typeName(v));
    return std::nullopt;
}

std::optional<ir::DType> Interpreter::toDType(const Value& v, SourceRange range, bool report) {
    if (v.kind == ValueKind::DType)
        return v.dtype;
    if (v.kind == ValueKind::Str) {
        if (auto t = ir::parseDType(v.s))
            return t;
        if (report)
            error("unknown-dtype", range, "'" + v.s + "' is not a dtype",
                  "use a TileLang dtype such as \"float16\", \"bfloat16\", \"float32\" or \"int32\"");
        return std::nullopt;
    }
    if (v.kind == ValueKind::Builtin &&
        (v.s == "builtins.float" || v.s == "builtins.int" || v.s == "builtins.bool"))
        return v.s == "builtins.float" ? ir::DType::Float32
               : v.s == "builtins.int" ? ir::DType::Int32
                                       : ir::DType::Bool;
    if (report && !v.isPoison())
        error("type-error", range, "expected a dtype, got " + typeName(v),
              "use a dtype such as T.float16 or \"float32\"");
    return std::nullopt;
}

Value Interpreter::callBuiltin(const Value& fn, CallArgs& args, SourceRange range) {
    bool handled = false;
    const std::string& name = fn.s;
    if (name.rfind("T.", 0) == 0 || name.rfind("layout.", 0) == 0) {
        Value v = callTileOp(name, args, range, handled);
        if (handled)
            return v;
        return error("unsupported-construct", range, name + " is not supported by TileBench");
    }
    Value v = callHostBuiltin(name, fn.self.get(), args, range, handled);
    if (handled)
        return v;
    return Value::opaque(name + "(...)");
}

Value Interpreter::namespaceAttr(const std::string& path, const std::string& attr, SourceRange range,
                                 const std::string& shownBase) {
    std::string full = path + "." + attr;
    if (full == "tilelang.language")
        return Value::ns("T");
    if (full == "tilelang.layout" || full == "T.layout")
        return Value::ns("layout");
    if (full == "T.GemmWarpPolicy" || full == "tilelang.GemmWarpPolicy")
        return Value::ns("T.GemmWarpPolicy");
    auto unknown = [&](const std::vector<std::string>& candidates) {
        std::string best = closestName(attr, candidates);
        return error("unknown-attribute", range, "module '" + shownBase + "' has no attribute '" + attr + "'",
                     best.empty() ? std::string() : "did you mean '" + shownBase + "." + best + "'?");
    };
    if (path == "T.GemmWarpPolicy") {
        if (attr == "Square" || attr == "FullRow" || attr == "FullCol")
            return Value::enumeration(full);
        return unknown({"Square", "FullRow", "FullCol"});
    }
    if (path == "T" || path == "layout") {
        const std::vector<std::string>& names = path == "T" ? tileOpNames() : layoutNames();
        if (std::find(names.begin(), names.end(), attr) != names.end())
            return Value::builtin(full);
        if (path == "T") {
            if (auto t = ir::parseDType(attr))
                return Value::dtypeOf(*t);
            if (attr == "dtype")
                return Value::builtin("T.dtype");
            const std::vector<std::string>& unsupported = unsupportedTileNames();
            if (std::find(unsupported.begin(), unsupported.end(), attr) != unsupported.end())
                return error("unsupported-construct", range, "T." + attr + " is not supported by TileBench",
                             "see the TileBench language reference for the supported subset");
        }
        std::vector<std::string> candidates = names;
        if (path == "T") {
            for (const char* d : {"float16", "bfloat16", "float32", "float64", "int8", "int16", "int32",
                                  "int64", "uint8", "uint32", "bool", "GemmWarpPolicy", "layout"})
                candidates.push_back(d);
        }
        return unknown(candidates);
    }
    if (path == "math") {
        for (const char* f : kMathFunctions)
            if (attr == f)
                return Value::builtin(full);
        if (attr == "pi")
            return Value::real(M_PI);
        if (attr == "e")
            return Value::real(M_E);
        if (attr == "tau")
            return Value::real(2 * M_PI);
        if (attr == "inf")
            return Value::real(std::numeric_limits<double>::infinity());
        if (attr == "nan")
            return Value::real(std::numeric_limits<double>::quiet_NaN());
        std::vector<std::string> names(std::begin(kMathFunctions), std::end(kMathFunctions));
        names.insert(names.end(), {"pi", "e", "tau", "inf", "nan"});
        return unknown(names);
    }
    if (path == "tilelang") {
        if (attr == "jit" || attr == "compile")
            return Value::builtin(full);
        if (attr == "language")
            return Value::ns("T");
        if (attr == "layout")
            return Value::ns("layout");
        return Value::opaque(full);
    }
    if (path == "torch" || path == "numpy") {
        if (auto t = ir::parseDType(attr); t && attr != "int" && attr != "float")
            return Value::dtypeOf(*t);
        if (attr == "float")
            return Value::dtypeOf(ir::DType::Float32);
        for (const char* f : kTorchFunctions)
            if (attr == f)
                return Value::builtin("torch." + attr);
        return Value::opaque(full);
    }
    if (path == "argparse" && attr == "ArgumentParser")
        return Value::builtin(full);
    if (path == "functools" && attr == "partial")
        return Value::builtin(full);
    return Value::opaque(full);
}

Value Interpreter::callHostBuiltin(const std::string& name, const Value* self, CallArgs& args,
                                   SourceRange range, bool& handled) {
    handled = true;
    auto& pos = args.positional;
    auto posRange = [&](size_t k) {
        return k < args.positionalRanges.size() ? args.positionalRanges[k] : range;
    };
    auto numberArg = [&](size_t k, double& out) -> bool {
        if (k >= pos.size())
            return false;
        if (pos[k].kind == ValueKind::Float) {
            out = pos[k].f;
            return true;
        }
        if (pos[k].isIntLike()) {
            out = static_cast<double>(pos[k].i);
            return true;
        }
        return false;
    };
    auto requireCount = [&](size_t lo, size_t hi) -> bool {
        if (pos.size() < lo || pos.size() > hi) {
            error("wrong-arguments", range,
                  name.substr(name.find('.') + 1) + "() takes " +
                      (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                      " positional arguments but " + std::to_string(pos.size()) + " were given");
            return false;
        }
        return true;
    };
    for (const Value& v : pos)
        if (v.isOpaque() && name.rfind("builtins.", 0) == 0 && name != "builtins.print" &&
            name != "builtins.isinstance")
            return Value::opaque(name + "(...)");

    // ---- Python builtins ---------------------------------------------------------------------
    if (name == "builtins.print")
        return Value::none();
    if (name == "builtins.range") {
        if (!requireCount(1, 3))
            return Value::poison();
        bool symbolic = false;
        for (const Value& v : pos)
            symbolic = symbolic || v.kind == ValueKind::Expr ||
                       (v.kind == ValueKind::Buffer && v.buffer->scope == ir::MemoryScope::LocalVar);
        if (symbolic) {
            // range() over run-time bounds is a serial loop in kernel code (TVMScript semantics).
            CallArgs serialArgs = args;
            return callTileOp("T.serial", serialArgs, range, handled);
        }
        int64_t v[3] = {0, 0, 1};
        for (size_t k = 0; k < pos.size(); ++k) {
            if (!pos[k].isIntLike())
                return error("type-error", posRange(k),
                             "range() arguments must be integers, not " + typeName(pos[k]));
            v[k] = pos[k].i;
        }
        Value r;
        r.kind = ValueKind::Range;
        if (pos.size() == 1)
            r.range = {0, v[0], 1};
        else
            r.range = {v[0], v[1], pos.size() == 3 ? v[2] : 1};
        if (r.range[2] == 0)
            return error("value-error", posRange(2), "range() arg 3 must not be zero");
        return r;
    }
    if (name == "builtins.len") {
        if (!requireCount(1, 1))
            return Value::poison();
        const Value& v = pos[0];
        if (v.kind == ValueKind::Str)
            return Value::integer(static_cast<int64_t>(v.s.size()));
        if (v.isSequence())
            return Value::integer(static_cast<int64_t>(v.items->size()));
        if (v.kind == ValueKind::Dict)
            return Value::integer(static_cast<int64_t>(v.dict->entries.size()));
        if (v.kind == ValueKind::Range) {
            auto items = iterate(v, range);
            return items ? Value::integer(static_cast<int64_t>(items->size())) : Value::poison();
        }
        if (v.kind == ValueKind::Buffer) {
            auto e = v.buffer->constantExtent(0);
            if (e)
                return Value::integer(*e);
        }
        return error("type-error", posRange(0), "object of type '" + typeName(v) + "' has no len()");
    }
    if (name == "builtins.int" || name == "builtins.float" || name == "builtins.bool" ||
        name == "builtins.str" || name == "builtins.repr") {
        if (!requireCount(0, 2))
            return Value::poison();
        if (pos.empty())
            return name == "builtins.int"     ? Value::integer(0)
                   : name == "builtins.float" ? Value::real(0)
                   : name == "builtins.bool"  ? Value::boolean(false)
                                              : Value::str("");
        Value v = pos[0];
        if (name == "builtins.str")
            return Value::str(toStr(v));
        if (name == "builtins.repr")
            return Value::str(toRepr(v));
        if (name == "builtins.bool") {
            bool inert = false;
            auto t = truth(v, &inert);
            if (inert)
                return v;
            if (!t)
                return error("not-compile-time", posRange(0), "bool() of a run-time value");
            return Value::boolean(*t);
        }
        if (v.kind == ValueKind::Expr) {
            ir::ExprPtr s = ir::simplify(v.expr);
            if (s->kind == ir::ExprKind::IntImm)
                v = Value::integer(s->intValue);
            else if (s->kind == ir::ExprKind::FloatImm)
                v = Value::real(s->floatValue);
            else
                return error("not-compile-time", posRange(0),
                             name.substr(9) + "() of the run-time value " + ir::printExpr(v.expr) +
                                 " is not known at compile time",
                             "use T.cast(x, dtype) in kernel code");
        }
        if (name == "builtins.int") {
            if (v.isIntLike())
                return Value::integer(v.i);
            if (v.kind == ValueKind::Float) {
                if (!std::isfinite(v.f) || std::fabs(v.f) >= 9.2e18)
                    return error("value-error", posRange(0), "cannot convert " + toStr(v) + " to an integer");
                return Value::integer(static_cast<int64_t>(std::trunc(v.f)));
            }
            if (v.kind == ValueKind::Str) {
                std::string text = v.s;
                text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
                char* end = nullptr;
                errno = 0;
                long long x = std::strtoll(text.c_str(), &end, 10);
                while (end && *end == ' ')
                    ++end;
                if (text.empty() || errno != 0 || !end || *end != '\0')
                    return error("value-error", posRange(0), "invalid literal for int(): " + toRepr(v));
                return Value::integer(x);
            }
        } else {
            if (v.isIntLike())
                return Value::real(static_cast<double>(v.i));
            if (v.kind == ValueKind::Float)
                return v;
            if (v.kind == ValueKind::Str) {
                char* end = nullptr;
                double x = std::strtod(v.s.c_str(), &end);
                if (v.s.empty() || !end || *end != '\0')
                    return error("value-error", posRange(0),
                                 "could not convert string to float: " + toRepr(v));
                return Value::real(x);
            }
        }
        return error("type-error", posRange(0),
                     name.substr(9) + "() argument must be a number or string, not " + typeName(v));
    }
    if (name == "builtins.abs") {
        if (!requireCount(1, 1))
            return Value::poison();
        if (pos[0].kind == ValueKind::Float)
            return Value::real(std::fabs(pos[0].f));
        if (pos[0].isIntLike()) {
            if (pos[0].i == std::numeric_limits<int64_t>::min())
                return error("integer-overflow", range, "integer overflow in abs()");
            return Value::integer(pos[0].i < 0 ? -pos[0].i : pos[0].i);
        }
        return callTileOp("T.abs", args, range, handled);
    }
    if (name == "builtins.round") {
        if (!requireCount(1, 2))
            return Value::poison();
        double x;
        if (!numberArg(0, x))
            return error("type-error", posRange(0), "round() needs a number, not " + typeName(pos[0]));
        if (pos.size() == 2 && pos[1].kind != ValueKind::None) {
            if (!pos[1].isIntLike())
                return error("type-error", posRange(1), "round() digits must be an integer");
            double scale = std::pow(10.0, static_cast<double>(pos[1].i));
            return Value::real(std::nearbyint(x * scale) / scale);
        }
        if (pos[0].isIntLike())
            return Value::integer(pos[0].i);
        if (!std::isfinite(x) || std::fabs(x) >= 9.2e18)
            return error("value-error", posRange(0), "cannot round " + toStr(pos[0]) + " to an integer");
        return Value::integer(static_cast<int64_t>(std::nearbyint(x)));
    }
    if (name == "builtins.min" || name == "builtins.max") {
        bool isMin = name == "builtins.min";
        std::vector<Value> items;
        if (pos.size() == 1) {
            auto seq = iterate(pos[0], posRange(0));
            if (!seq)
                return Value::poison();
            items = *seq;
        } else {
            items = pos;
        }
        Value fallback;
        bool hasDefault = false;
        for (auto& [k, v] : args.keywords)
            if (k == "default") {
                fallback = v;
                hasDefault = true;
            }
        if (items.empty()) {
            if (hasDefault)
                return fallback;
            return error("value-error", range, name.substr(9) + "() arg is an empty sequence");
        }
        Value best = items[0];
        for (size_t k = 1; k < items.size(); ++k) {
            const Value& v = items[k];
            if (best.kind == ValueKind::Expr || v.kind == ValueKind::Expr) {
                best = symbolicBinary(isMin ? ir::BinaryOp::Min : ir::BinaryOp::Max, best, v, range);
                if (best.isPoison())
                    return best;
                continue;
            }
            Value less = compare(ast::CompareKind::Lt, v, best, range);
            Value more = compare(ast::CompareKind::Gt, v, best, range);
            if (less.isInert())
                return less;
            if (isMin ? less.i : more.i)
                best = v;
        }
        return best;
    }
    if (name == "builtins.sum") {
        if (!requireCount(1, 2))
            return Value::poison();
        auto seq = iterate(pos[0], posRange(0));
        if (!seq)
            return Value::poison();
        Value total = pos.size() == 2 ? pos[1] : Value::integer(0);
        for (const Value& v : *seq)
            total = binary(ast::BinOpKind::Add, total, v, range);
        return total;
    }
    if (name == "builtins.tuple" || name == "builtins.list" || name == "builtins.set" ||
        name == "builtins.sorted" || name == "builtins.reversed") {
        if (!requireCount(0, 1))
            return Value::poison();
        std::vector<Value> items;
        if (!pos.empty()) {
            auto seq = iterate(pos[0], posRange(0));
            if (!seq)
                return Value::poison();
            items = *seq;
        }
        if (name == "builtins.set") {
            std::vector<Value> unique;
            for (const Value& v : items)
                if (std::none_of(unique.begin(), unique.end(),
                                 [&](const Value& u) { return valuesEqual(u, v); }))
                    unique.push_back(v);
            return Value::list(unique);
        }
        if (name == "builtins.sorted") {
            bool reverse = false;
            for (auto& [k, v] : args.keywords)
                if (k == "reverse")
                    reverse = truth(v).value_or(false);
            bool ok = true;
            std::stable_sort(items.begin(), items.end(), [&](const Value& x, const Value& y) {
                Value r = compare(ast::CompareKind::Lt, x, y, range);
                if (r.kind != ValueKind::Bool) {
                    ok = false;
                    return false;
                }
                return r.i != 0;
            });
            if (!ok)
                return Value::poison();
            if (reverse)
                std::reverse(items.begin(), items.end());
            return Value::list(items);
        }
        if (name == "builtins.reversed")
            std::reverse(items.begin(), items.end());
        return name == "builtins.tuple" ? Value::tuple(items) : Value::list(items);
    }
    if (name == "builtins.dict") {
        Value d = Value::dictionary();
        if (!pos.empty()) {
            if (pos[0].kind == ValueKind::Dict) {
                d.dict->entries = pos[0].dict->entries;
            } else {
                auto seq = iterate(pos[0], posRange(0));
                if (!seq)
                    return Value::poison();
                for (const Value& pair : *seq) {
                    if (!pair.isSequence() || pair.items->size() != 2)
                        return error("type-error", posRange(0), "dict() needs (key, value) pairs");
                    d.dict->entries.emplace_back((*pair.items)[0], (*pair.items)[1]);
                }
            }
        }
        for (auto& [k, v] : args.keywords)
            d.dict->entries.emplace_back(Value::str(k), v);
        return d;
    }
    if (name == "builtins.isinstance") {
        if (!requireCount(2, 2))
            return Value::poison();
        const Value& v = pos[0];
        std::vector<Value> classes =
            pos[1].kind == ValueKind::Tuple ? *pos[1].items : std::vector<Value>{pos[1]};
        for (const Value& c : classes) {
            if (c.kind != ValueKind::Builtin)
                continue;
            const std::string& n = c.s;
            bool match = (n == "builtins.int" && v.isIntLike()) ||
                         (n == "builtins.float" && v.kind == ValueKind::Float) ||
                         (n == "builtins.bool" && v.kind == ValueKind::Bool) ||
                         (n == "builtins.str" && v.kind == ValueKind::Str) ||
                         (n == "builtins.tuple" && v.kind == ValueKind::Tuple) ||
                         (n == "builtins.list" && v.kind == ValueKind::List) ||
                         (n == "builtins.dict" && v.kind == ValueKind::Dict);
            if (match)
                return Value::boolean(true);
        }
        return Value::boolean(false);
    }
    if (name == "builtins.enumerate") {
        if (pos.empty())
            return error("wrong-arguments", range, "enumerate() missing required argument 'iterable'");
        auto seq = iterate(pos[0], posRange(0));
        if (!seq)
            return Value::poison();
        int64_t start = 0;
        if (pos.size() > 1 && pos[1].isIntLike())
            start = pos[1].i;
        for (auto& [k, v] : args.keywords)
            if (k == "start" && v.isIntLike())
                start = v.i;
        std::vector<Value> out;
        for (size_t k = 0; k < seq->size(); ++k)
            out.push_back(Value::tuple({Value::integer(start + static_cast<int64_t>(k)), (*seq)[k]}));
        return Value::list(out);
    }
    if (name == "builtins.zip") {
        std::vector<std::vector<Value>> seqs;
        size_t n = SIZE_MAX;
        for (size_t k = 0; k < pos.size(); ++k) {
            auto seq = iterate(pos[k], posRange(k));
            if (!seq)
                return Value::poison();
            n = std::min(n, seq->size());
            seqs.push_back(*seq);
        }
        if (seqs.empty())
            n = 0;
        std::vector<Value> out;
        for (size_t i = 0; i < n; ++i) {
            std::vector<Value> row;
            for (auto& s : seqs)
                row.push_back(s[i]);
            out.push_back(Value::tuple(row));
        }
        return Value::list(out);
    }
    if (name == "builtins.any" || name == "builtins.all") {
        if (!requireCount(1, 1))
            return Value::poison();
        auto seq = iterate(pos[0], posRange(0));
        if (!seq)
            return Value::poison();
        bool isAny = name == "builtins.any";
        for (const Value& v : *seq) {
            auto t = truth(v);
            if (!t)
                return error("not-compile-time", posRange(0), name.substr(9) + "() over run-time values");
            if (*t == isAny)
                return Value::boolean(isAny);
        }
        return Value::boolean(!isAny);
    }
    if (name == "builtins.divmod") {
        if (!requireCount(2, 2))
            return Value::poison();
        Value q = binary(ast::BinOpKind::FloorDiv, pos[0], pos[1], range);
        if (q.isInert())
            return q;
        return Value::tuple({q, binary(ast::BinOpKind::Mod, pos[0], pos[1], range)});
    }
    if (name == "builtins.pow") {
        if (!requireCount(2, 3))
            return Value::poison();
        Value p = binary(ast::BinOpKind::Pow, pos[0], pos[1], range);
        if (pos.size() == 3)
            p = binary(ast::BinOpKind::Mod, p, pos[2], range);
        return p;
    }
    if (name == "builtins.getattr" || name == "builtins.hasattr") {
        if (!requireCount(2, 3) || pos[1].kind != ValueKind::Str)
            return pos.size() >= 2 ? error("type-error", range, "attribute name must be a string")
                                   : Value::poison();
        bool lenient = name == "builtins.hasattr" || pos.size() == 3;
        if (lenient)
            ++m_quiet;
        Value v = attribute(pos[0], pos[1].s, range, posRange(0));
        if (lenient)
            --m_quiet;
        bool missing = v.isOpaque() && v.s.rfind("error:", 0) == 0;
        if (name == "builtins.hasattr")
            return Value::boolean(!missing && !v.isPoison());
        if (missing && pos.size() == 3)
            return pos[2];
        return v;
    }
    if (name == "builtins.map" || name == "builtins.filter") {
        if (!requireCount(2, 2))
            return Value::poison();
        auto seq = iterate(pos[1], posRange(1));
        if (!seq)
            return Value::poison();
        std::vector<Value> out;
        for (const Value& v : *seq) {
            CallArgs one;
            one.range = range;
            one.positional = {v};
            one.positionalRanges = {posRange(1)};
            Value r = call(pos[0], one, range);
            if (r.isPoison())
                return r;
            if (name == "builtins.map")
                out.push_back(r);
            else if (truth(r).value_or(false))
                out.push_back(v);
        }
        return Value::list(out);
    }
    if (name == "builtins.type")
        return Value::opaque("type(...)");
    if (name.rfind("builtins.", 0) == 0)
        return Value::opaque(name + "(...)"); // exception classes and object(): host-only

    // ---- math ----------------------------------------------------------------------------------
    if (name.rfind("math.", 0) == 0) {
        std::string f = name.substr(5);
        if (f == "gcd" || f == "lcm") {
            int64_t acc = f == "gcd" ? 0 : 1;
            for (size_t k = 0; k < pos.size(); ++k) {
                if (!pos[k].isIntLike())
                    return error("type-error", posRange(k), "math." + f + "() needs integers");
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
        if (f == "prod") {
            auto seq = pos.empty() ? std::nullopt : iterate(pos[0], posRange(0));
            if (!seq)
                return Value::poison();
            Value total = Value::integer(1);
            for (const Value& v : *seq)
                total = binary(ast::BinOpKind::Mul, total, v, range);
            return total;
        }
        if (f == "factorial" || f == "comb") {
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
            return error("value-error", range, "math." + f + "() argument out of the supported range");
        }
        double x = 0, y = 0;
        if (!numberArg(0, x)) {
            if (!pos.empty() && pos[0].kind == ValueKind::Expr)
                return error("not-compile-time", posRange(0), "math." + f + "() of a run-time value",
                             "use T." + f + " in kernel code");
            return error("type-error", range, "math." + f + "() needs a number");
        }
        bool hasY = numberArg(1, y);
        auto domain = [&] {
            return error("value-error", range, "math domain error in math." + f + "(" + toStr(pos[0]) + ")");
        };
        auto toInt = [&](double v) -> Value {
            if (!std::isfinite(v) || std::fabs(v) >= 9.2e18)
                return error("value-error", range,
                             "cannot convert " + toStr(Value::real(v)) + " to an integer");
            return Value::integer(static_cast<int64_t>(v));
        };
        if (f == "sqrt")
            return x < 0 ? domain() : Value::real(std::sqrt(x));
        if (f == "isqrt") {
            if (!pos[0].isIntLike() || pos[0].i < 0)
                return domain();
            int64_t r = static_cast<int64_t>(std::sqrt(static_cast<double>(pos[0].i)));
            while (r * r > pos[0].i)
                --r;
            while ((r + 1) * (r + 1) <= pos[0].i)
                ++r;
            return Value::integer(r);
        }
        if (f == "log") {
            if (x <= 0 || (hasY && (y <= 0 || y == 1)))
                return domain();
            return Value::real(hasY ? std::log(x) / std::log(y) : std::log(x));
        }
        if (f == "log2")
            return x <= 0 ? domain() : Value::real(std::log2(x));
        if (f == "log10")
            return x <= 0 ? domain() : Value::real(std::log10(x));
        if (f == "exp")
            return Value::real(std::exp(x));
        if (f == "exp2")
            return Value::real(std::exp2(x));
        if (f == "ceil")
            return pos[0].isIntLike() ? Value::integer(pos[0].i) : toInt(std::ceil(x));
        if (f == "floor")
            return pos[0].isIntLike() ? Value::integer(pos[0].i) : toInt(std::floor(x));
        if (f == "trunc")
            return pos[0].isIntLike() ? Value::integer(pos[0].i) : toInt(std::trunc(x));
        if (f == "pow")
            return Value::real(std::pow(x, y));
        if (f == "fabs")
            return Value::real(std::fabs(x));
        if (f == "sin")
            return Value::real(std::sin(x));
        if (f == "cos")
            return Value::real(std::cos(x));
        if (f == "tan")
            return Value::real(std::tan(x));
        if (f == "tanh")
            return Value::real(std::tanh(x));
        if (f == "erf")
            return Value::real(std::erf(x));
        if (f == "isinf")
            return Value::boolean(std::isinf(x));
        if (f == "isnan")
            return Value::boolean(std::isnan(x));
        if (f == "isclose")
            return Value::boolean(std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y)));
        return Value::opaque(name + "(...)");
    }

    // ---- methods -------------------------------------------------------------------------------
    if (self && name.rfind("list.", 0) == 0) {
        std::string m = name.substr(5);
        std::vector<Value>& items = *self->items;
        if (m == "append" && pos.size() == 1) {
            if (items.size() >= (1u << 20))
                return error("value-error", range, "list is too large");
            items.push_back(pos[0]);
            return Value::none();
        }
        if (m == "extend" && pos.size() == 1) {
            auto seq = iterate(pos[0], posRange(0));
            if (seq)
                items.insert(items.end(), seq->begin(), seq->end());
            return Value::none();
        }
        if (m == "insert" && pos.size() == 2 && pos[0].isIntLike()) {
            int64_t k =
                std::clamp<int64_t>(pos[0].i < 0 ? pos[0].i + static_cast<int64_t>(items.size()) : pos[0].i,
                                    0, static_cast<int64_t>(items.size()));
            items.insert(items.begin() + k, pos[1]);
            return Value::none();
        }
        if (m == "pop") {
            if (items.empty())
                return error("index-out-of-range", range, "pop from empty list");
            int64_t k = pos.empty() ? -1 : (pos[0].isIntLike() ? pos[0].i : -1);
            if (k < 0)
                k += static_cast<int64_t>(items.size());
            if (k < 0 || k >= static_cast<int64_t>(items.size()))
                return error("index-out-of-range", range, "pop index out of range");
            Value v = items[static_cast<size_t>(k)];
            items.erase(items.begin() + k);
            return v;
        }
        if (m == "copy")
            return Value::list(items);
        if (m == "clear") {
            items.clear();
            return Value::none();
        }
        if (m == "reverse") {
            std::reverse(items.begin(), items.end());
            return Value::none();
        }
    }
    if (self && (name.rfind("list.", 0) == 0 || name.rfind("tuple.", 0) == 0)) {
        std::string m = name.substr(name.find('.') + 1);
        const std::vector<Value>& items = *self->items;
        if (m == "index" && pos.size() >= 1) {
            for (size_t k = 0; k < items.size(); ++k)
                if (valuesEqual(items[k], pos[0]))
                    return Value::integer(static_cast<int64_t>(k));
            return error("value-error", range, toRepr(pos[0]) + " is not in " + typeName(*self));
        }
        if (m == "count" && pos.size() == 1) {
            int64_t n = 0;
            for (const Value& v : items)
                n += valuesEqual(v, pos[0]);
            return Value::integer(n);
        }
        return error("unknown-attribute", range,
                     "'" + typeName(*self) + "' object has no attribute '" + m + "'");
    }
    if (self && name.rfind("dict.", 0) == 0) {
        std::string m = name.substr(5);
        DictData& d = *self->dict;
        if (m == "get" && !pos.empty()) {
            if (Value* v = dictFind(d, pos[0]))
                return *v;
            return pos.size() > 1 ? pos[1] : Value::none();
        }
        if (m == "keys" || m == "values" || m == "items") {
            std::vector<Value> out;
            for (auto& [k, v] : d.entries)
                out.push_back(m == "keys" ? k : m == "values" ? v : Value::tuple({k, v}));
            return Value::list(out);
        }
        if (m == "update" && pos.size() == 1 && pos[0].kind == ValueKind::Dict) {
            for (auto& [k, v] : pos[0].dict->entries) {
                if (Value* slot = dictFind(d, k))
                    *slot = v;
                else
                    d.entries.emplace_back(k, v);
            }
            for (auto& [k, v] : args.keywords)
                d.entries.emplace_back(Value::str(k), v);
            return Value::none();
        }
        if ((m == "setdefault" || m == "pop") && !pos.empty()) {
            for (size_t k = 0; k < d.entries.size(); ++k) {
                if (valuesEqual(d.entries[k].first, pos[0])) {
                    Value v = d.entries[k].second;
                    if (m == "pop")
                        d.entries.erase(d.entries.begin() + static_cast<long>(k));
                    return v;
                }
            }
            if (m == "setdefault") {
                d.entries.emplace_back(pos[0], pos.size() > 1 ? pos[1] : Value::none());
                return d.entries.back().second;
            }
            if (pos.size() > 1)
                return pos[1];
            return error("key-error", range, "key " + toRepr(pos[0]) + " is not in the dict");
        }
        if (m == "copy") {
            Value c = Value::dictionary();
            c.dict->entries = d.entries;
            return c;
        }
        return error("unknown-attribute", range, "'dict' object has no attribute '" + m + "'");
    }
    if (self && name.rfind("str.", 0) == 0) {
        std::string m = name.substr(4);
        const std::string& s = self->s;
        if (m == "upper" || m == "lower") {
            std::string out = s;
            for (char& c : out)
                c = m == "upper" ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                                 : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return Value::str(out);
        }
        if (m == "strip") {
            size_t b = s.find_first_not_of(" \t\n");
            size_t e = s.find_last_not_of(" \t\n");
            return Value::str(b == std::string::npos ? "" : s.substr(b, e - b + 1));
        }
        if ((m == "startswith" || m == "endswith") && pos.size() == 1 && pos[0].kind == ValueKind::Str) {
            const std::string& p = pos[0].s;
            bool r = p.size() <= s.size() &&
                     (m == "startswith" ? s.compare(0, p.size(), p) == 0
                                        : s.compare(s.size() - p.size(), p.size(), p) == 0);
            return Value::boolean(r);
        }
        if (m == "split") {
            std::vector<Value> out;
            std::string sep = !pos.empty() && pos[0].kind == ValueKind::Str ? pos[0].s : "";
            if (sep.empty()) {
                size_t k = 0;
                while (k < s.size()) {
                    while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k])))
                        ++k;
                    size_t b = k;
                    while (k < s.size() && !std::isspace(static_cast<unsigned char>(s[k])))
                        ++k;
                    if (k > b)
                        out.push_back(Value::str(s.substr(b, k - b)));
                }
            } else {
                size_t b = 0;
                while (true) {
                    size_t e = s.find(sep, b);
                    out.push_back(
                        Value::str(s.substr(b, e == std::string::npos ? std::string::npos : e - b)));
                    if (e == std::string::npos)
                        break;
                    b = e + sep.size();
                }
            }
            return Value::list(out);
        }
        if (m == "join" && pos.size() == 1) {
            auto seq = iterate(pos[0], posRange(0));
            if (!seq)
                return Value::poison();
            std::string out;
            for (size_t k = 0; k < seq->size(); ++k)
                out += (k ? s : "") + toStr((*seq)[k]);
            return Value::str(out);
        }
        if (m == "replace" && pos.size() == 2 && pos[0].kind == ValueKind::Str &&
            pos[1].kind == ValueKind::Str && !pos[0].s.empty()) {
            std::string out;
            size_t b = 0;
            while (true) {
                size_t e = s.find(pos[0].s, b);
                if (e == std::string::npos) {
                    out += s.substr(b);
                    break;
                }
                out += s.substr(b, e - b) + pos[1].s;
                b = e + pos[0].s.size();
            }
            return Value::str(out);
        }
        if (m == "format") {
            std::string out;
            size_t next = 0;
            for (size_t k = 0; k < s.size(); ++k) {
                if (s[k] == '{' && k + 1 < s.size() && s[k + 1] == '}') {
                    out += next < pos.size() ? toStr(pos[next++]) : "";
                    ++k;
                } else {
                    out += s[k];
                }
            }
            return Value::str(out);
        }
        return Value::opaque("str." + m + "(...)");
    }
    if (self && name == "float.is_integer")
        return Value::boolean(std::floor(self->f) == self->f);
    if (self && name == "int.bit_length") {
        uint64_t v = static_cast<uint64_t>(self->i < 0 ? -self->i : self->i);
        int64_t n = 0;
        while (v) {
            ++n;
            v >>= 1;
        }
        return Value::integer(n);
    }

    // ---- argparse ----------------------------------------------------------------------------
    if (name == "argparse.ArgumentParser") {
        Value v;
        v.kind = ValueKind::Object;
        v.object = std::make_shared<ObjectData>();
        v.object->type = "ArgumentParser";
        return v;
    }
    if (self && self->kind == ValueKind::Object && name == "argparse.add_argument") {
        std::string dest;
        for (const Value& p : pos) {
            if (p.kind != ValueKind::Str)
                continue;
            std::string n = p.s;
            bool isLong = n.rfind("--", 0) == 0;
            size_t strip = n.find_first_not_of('-');
            n = strip == std::string::npos ? n : n.substr(strip);
            std::replace(n.begin(), n.end(), '-', '_');
            if (dest.empty() || isLong)
                dest = n;
        }
        Value dflt = Value::none();
        Value type;
        for (auto& [k, v] : args.keywords) {
            if (k == "dest" && v.kind == ValueKind::Str)
                dest = v.s;
            if (k == "default")
                dflt = v;
            if (k == "type")
                type = v;
            if (k == "action" && v.kind == ValueKind::Str && v.s == "store_true" &&
                dflt.kind == ValueKind::None)
                dflt = Value::boolean(false);
            if (k == "action" && v.kind == ValueKind::Str && v.s == "store_false" &&
                dflt.kind == ValueKind::None)
                dflt = Value::boolean(true);
        }
        // argparse applies `type` to string defaults.
        if (dflt.kind == ValueKind::Str && type.kind == ValueKind::Builtin) {
            CallArgs conv;
            conv.range = range;
            conv.positional = {dflt};
            conv.positionalRanges = {range};
            ++m_quiet;
            Value converted = call(type, conv, range);
            --m_quiet;
            if (!converted.isInert())
                dflt = converted;
        }
        if (!dest.empty())
            self->object->entries.emplace_back(dest, dflt);
        return Value::none();
    }
    if (self && self->kind == ValueKind::Object &&
        (name == "argparse.parse_args" || name == "argparse.parse_known_args")) {
        Value ns;
        ns.kind = ValueKind::Object;
        ns.object = std::make_shared<ObjectData>();
        ns.object->type = "Namespace";
        for (auto& [k, v] : self->object->entries)
            ns.object->attrs[k] = v;
        if (name == "argparse.parse_known_args")
            return Value::tuple({ns, Value::list({})});
        return ns;
    }
    if (name.rfind("argparse.", 0) == 0)
        return Value::opaque(name + "(...)");

    // ---- tilelang host side --------------------------------------------------------------------
    if (name == "tilelang.jit") {
        if (pos.size() == 1 && pos[0].kind == ValueKind::Function) {
            pos[0].fn->isJit = true;
            for (auto& [k, v] : args.keywords)
                takeJitOption(*pos[0].fn, k, v);
            return pos[0];
        }
        Value v;
        v.kind = ValueKind::Object;
        v.object = std::make_shared<ObjectData>();
        v.object->type = "jit-decorator";
        for (auto& [k, val] : args.keywords)
            v.object->attrs[k] = val;
        return v;
    }
    if (name == "tilelang.compile") {
        if (!pos.empty() && pos[0].kind == ValueKind::Function && pos[0].fn->isPrimFunc) {
            Value outIdx = pos.size() > 1 ? pos[1] : Value::none();
            for (auto& [k, v] : args.keywords)
                if (k == "out_idx")
                    outIdx = v;
            if (!m_compileOutIdx)
                m_compileOutIdx = std::make_pair(pos[0].fn, outIdx);
            if (m_hostMode && !m_recorded) {
                m_recorded = RecordedCall{pos[0].fn, CallArgs{}, true};
            }
        }
        return Value::opaque("JITKernel");
    }
    if (self && self->kind == ValueKind::Function && name == "jit.compile") {
        if (m_hostMode && !m_recorded && self->fn->isJit) {
            m_recorded = RecordedCall{self->fn, args, true};
            m_halt = true;
        }
        return Value::opaque("JITKernel " + self->fn->name);
    }
    if (name.rfind("jit.", 0) == 0)
        return Value::opaque(name + "(...)");

    // ---- torch tensor constructors: Opaque, but the shape is kept for eager T.const binding -------
    if (name.rfind("torch.", 0) == 0) {
        Value v = Value::opaque(name + "(...)");
        std::vector<Value> shape;
        if (pos.size() == 1 && pos[0].isSequence())
            shape = *pos[0].items;
        else if (name != "torch.randint" && name != "torch.full" && name != "torch.arange")
            shape = pos;
        bool allInts = !shape.empty() &&
                       std::all_of(shape.begin(), shape.end(), [](const Value& d) { return d.isIntLike(); });
        if (allInts)
            v.items = std::make_shared<std::vector<Value>>(shape);
        return v;
    }
    if (name == "functools.partial")
        return Value::opaque("functools.partial(...)");
    handled = false;
    return Value::poison();
}

} // namespace tb::elab
