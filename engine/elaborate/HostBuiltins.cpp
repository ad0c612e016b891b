// Python's builtins at compile time: range (a tile loop over run-time bounds), len, the conversions int,
// float, bool, str and repr, abs, round, min/max, sum, the sequence constructors, dict, isinstance,
// enumerate, zip, any/all, divmod, pow, getattr/hasattr, map/filter and print. Builtins the elaborator does
// not model (exception classes, object(), type()) are host values.
#include "engine/elaborate/Primitives.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace tb::elab {

namespace {

Value builtinPrint(Interpreter&, PrimitiveCall&) {
    return Value::none();
}

Value builtinType(Interpreter&, PrimitiveCall&) {
    return Value::opaque("type(...)");
}

// Exception classes and object(): host-only.
Value builtinFallback(Interpreter&, PrimitiveCall& call) {
    return Value::opaque(call.name + "(...)");
}

Value builtinRange(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 1, 3))
        return Value::poison();
    bool symbolic = false;
    for (const Value& v : pos)
        symbolic = symbolic || v.kind == ValueKind::Expr ||
                   (v.kind == ValueKind::Buffer && v.buffer->scope == ir::MemoryScope::LocalVar);
    if (symbolic) {
        // range() over run-time bounds is a serial loop in kernel code (TVMScript semantics).
        CallArgs serialArgs = args;
        bool handled = false;
        return in.callTileOp("T.serial", serialArgs, range, handled);
    }
    int64_t v[3] = {0, 0, 1};
    for (size_t k = 0; k < pos.size(); ++k) {
        if (!pos[k].isIntLike())
            return in.error("type-error", call.at(k),
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
        return in.error("value-error", call.at(2), "range() arg 3 must not be zero");
    return r;
}

Value builtinLen(Interpreter& in, PrimitiveCall& call) {
    SourceRange range = call.range;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 1, 1))
        return Value::poison();
    const Value& v = pos[0];
    if (v.kind == ValueKind::Str)
        return Value::integer(static_cast<int64_t>(v.s.size()));
    if (v.isSequence())
        return Value::integer(static_cast<int64_t>(v.items->size()));
    if (v.kind == ValueKind::Dict)
        return Value::integer(static_cast<int64_t>(v.dict->entries.size()));
    if (v.kind == ValueKind::Range) {
        auto items = in.iterate(v, range);
        return items ? Value::integer(static_cast<int64_t>(items->size())) : Value::poison();
    }
    if (v.kind == ValueKind::Buffer) {
        auto e = v.buffer->constantExtent(0);
        if (e)
            return Value::integer(*e);
    }
    return in.error("type-error", call.at(0), "object of type '" + typeName(v) + "' has no len()");
}

Value conversion(Interpreter& in, PrimitiveCall& call) {
    const std::string& name = call.name;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 0, 2))
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
        auto t = in.truth(v, &inert);
        if (inert)
            return v;
        if (!t)
            return in.error("not-compile-time", call.at(0), "bool() of a run-time value");
        return Value::boolean(*t);
    }
    if (v.kind == ValueKind::Expr) {
        ir::ExprPtr s = ir::simplify(v.expr);
        if (s->kind == ir::ExprKind::IntImm)
            v = Value::integer(s->intValue);
        else if (s->kind == ir::ExprKind::FloatImm)
            v = Value::real(s->floatValue);
        else
            return in.error("not-compile-time", call.at(0),
                            name.substr(9) + "() of the run-time value " + ir::printExpr(v.expr) +
                                " is not known at compile time",
                            "use T.cast(x, dtype) in kernel code");
    }
    if (name == "builtins.int") {
        if (v.isIntLike())
            return Value::integer(v.i);
        if (v.kind == ValueKind::Float) {
            if (!std::isfinite(v.f) || std::fabs(v.f) >= 9.2e18)
                return in.error("value-error", call.at(0), "cannot convert " + toStr(v) + " to an integer");
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
                return in.error("value-error", call.at(0), "invalid literal for int(): " + toRepr(v));
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
                return in.error("value-error", call.at(0), "could not convert string to float: " + toRepr(v));
            return Value::real(x);
        }
    }
    return in.error("type-error", call.at(0),
                    name.substr(9) + "() argument must be a number or string, not " + typeName(v));
}

Value builtinAbs(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 1, 1))
        return Value::poison();
    if (pos[0].kind == ValueKind::Float)
        return Value::real(std::fabs(pos[0].f));
    if (pos[0].isIntLike()) {
        if (pos[0].i == std::numeric_limits<int64_t>::min())
            return in.error("integer-overflow", range, "integer overflow in abs()");
        return Value::integer(pos[0].i < 0 ? -pos[0].i : pos[0].i);
    }
    bool handled = false;
    return in.callTileOp("T.abs", args, range, handled);
}

Value builtinRound(Interpreter& in, PrimitiveCall& call) {
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 1, 2))
        return Value::poison();
    double x;
    if (!numberArg(call, 0, x))
        return in.error("type-error", call.at(0), "round() needs a number, not " + typeName(pos[0]));
    if (pos.size() == 2 && pos[1].kind != ValueKind::None) {
        if (!pos[1].isIntLike())
            return in.error("type-error", call.at(1), "round() digits must be an integer");
        double scale = std::pow(10.0, static_cast<double>(pos[1].i));
        return Value::real(std::nearbyint(x * scale) / scale);
    }
    if (pos[0].isIntLike())
        return Value::integer(pos[0].i);
    if (!std::isfinite(x) || std::fabs(x) >= 9.2e18)
        return in.error("value-error", call.at(0), "cannot round " + toStr(pos[0]) + " to an integer");
    return Value::integer(static_cast<int64_t>(std::nearbyint(x)));
}

Value builtinMinMax(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& name = call.name;
    auto& pos = call.args.positional;
    bool isMin = name == "builtins.min";
    std::vector<Value> items;
    if (pos.size() == 1) {
        auto seq = in.iterate(pos[0], call.at(0));
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
        return in.error("value-error", range, name.substr(9) + "() arg is an empty sequence");
    }
    Value best = items[0];
    for (size_t k = 1; k < items.size(); ++k) {
        const Value& v = items[k];
        if (best.kind == ValueKind::Expr || v.kind == ValueKind::Expr) {
            best = in.symbolicBinary(isMin ? ir::BinaryOp::Min : ir::BinaryOp::Max, best, v, range);
            if (best.isPoison())
                return best;
            continue;
        }
        Value less = in.compare(ast::CompareKind::Lt, v, best, range);
        Value more = in.compare(ast::CompareKind::Gt, v, best, range);
        if (less.isInert())
            return less;
        if (isMin ? less.i : more.i)
            best = v;
    }
    return best;
}

Value builtinSum(Interpreter& in, PrimitiveCall& call) {
    SourceRange range = call.range;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 1, 2))
        return Value::poison();
    auto seq = in.iterate(pos[0], call.at(0));
    if (!seq)
        return Value::poison();
    Value total = pos.size() == 2 ? pos[1] : Value::integer(0);
    for (const Value& v : *seq)
        total = in.binary(ast::BinOpKind::Add, total, v, range);
    return total;
}

Value sequence(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& name = call.name;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 0, 1))
        return Value::poison();
    std::vector<Value> items;
    if (!pos.empty()) {
        auto seq = in.iterate(pos[0], call.at(0));
        if (!seq)
            return Value::poison();
        items = *seq;
    }
    if (name == "builtins.set") {
        std::vector<Value> unique;
        for (const Value& v : items)
            if (std::none_of(unique.begin(), unique.end(), [&](const Value& u) { return valuesEqual(u, v); }))
                unique.push_back(v);
        return Value::list(unique);
    }
    if (name == "builtins.sorted") {
        bool reverse = false;
        for (auto& [k, v] : args.keywords)
            if (k == "reverse")
                reverse = in.truth(v).value_or(false);
        bool ok = true;
        std::stable_sort(items.begin(), items.end(), [&](const Value& x, const Value& y) {
            Value r = in.compare(ast::CompareKind::Lt, x, y, range);
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

Value builtinDict(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    auto& pos = call.args.positional;
    Value d = Value::dictionary();
    if (!pos.empty()) {
        if (pos[0].kind == ValueKind::Dict) {
            d.dict->entries = pos[0].dict->entries;
        } else {
            auto seq = in.iterate(pos[0], call.at(0));
            if (!seq)
                return Value::poison();
            for (const Value& pair : *seq) {
                if (!pair.isSequence() || pair.items->size() != 2)
                    return in.error("type-error", call.at(0), "dict() needs (key, value) pairs");
                d.dict->entries.emplace_back((*pair.items)[0], (*pair.items)[1]);
            }
        }
    }
    for (auto& [k, v] : args.keywords)
        d.dict->entries.emplace_back(Value::str(k), v);
    return d;
}

Value builtinIsinstance(Interpreter& in, PrimitiveCall& call) {
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 2, 2))
        return Value::poison();
    const Value& v = pos[0];
    std::vector<Value> classes = pos[1].kind == ValueKind::Tuple ? *pos[1].items : std::vector<Value>{pos[1]};
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

Value builtinEnumerate(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    auto& pos = call.args.positional;
    if (pos.empty())
        return in.error("wrong-arguments", range, "enumerate() missing required argument 'iterable'");
    auto seq = in.iterate(pos[0], call.at(0));
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

Value builtinZip(Interpreter& in, PrimitiveCall& call) {
    auto& pos = call.args.positional;
    std::vector<std::vector<Value>> seqs;
    size_t n = SIZE_MAX;
    for (size_t k = 0; k < pos.size(); ++k) {
        auto seq = in.iterate(pos[k], call.at(k));
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

Value anyAll(Interpreter& in, PrimitiveCall& call) {
    const std::string& name = call.name;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 1, 1))
        return Value::poison();
    auto seq = in.iterate(pos[0], call.at(0));
    if (!seq)
        return Value::poison();
    bool isAny = name == "builtins.any";
    for (const Value& v : *seq) {
        auto t = in.truth(v);
        if (!t)
            return in.error("not-compile-time", call.at(0), name.substr(9) + "() over run-time values");
        if (*t == isAny)
            return Value::boolean(isAny);
    }
    return Value::boolean(!isAny);
}

Value builtinDivmod(Interpreter& in, PrimitiveCall& call) {
    SourceRange range = call.range;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 2, 2))
        return Value::poison();
    Value q = in.binary(ast::BinOpKind::FloorDiv, pos[0], pos[1], range);
    if (q.isInert())
        return q;
    return Value::tuple({q, in.binary(ast::BinOpKind::Mod, pos[0], pos[1], range)});
}

Value builtinPow(Interpreter& in, PrimitiveCall& call) {
    SourceRange range = call.range;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 2, 3))
        return Value::poison();
    Value p = in.binary(ast::BinOpKind::Pow, pos[0], pos[1], range);
    if (pos.size() == 3)
        p = in.binary(ast::BinOpKind::Mod, p, pos[2], range);
    return p;
}

Value attributeQuery(Interpreter& in, PrimitiveCall& call) {
    SourceRange range = call.range;
    const std::string& name = call.name;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 2, 3) || pos[1].kind != ValueKind::Str)
        return pos.size() >= 2 ? in.error("type-error", range, "attribute name must be a string")
                               : Value::poison();
    bool lenient = name == "builtins.hasattr" || pos.size() == 3;
    if (lenient)
        ++in.m_quiet;
    Value v = in.attribute(pos[0], pos[1].s, range, call.at(0));
    if (lenient)
        --in.m_quiet;
    bool missing = v.isOpaque() && v.s.rfind("error:", 0) == 0;
    if (name == "builtins.hasattr")
        return Value::boolean(!missing && !v.isPoison());
    if (missing && pos.size() == 3)
        return pos[2];
    return v;
}

Value mapFilter(Interpreter& in, PrimitiveCall& call) {
    SourceRange range = call.range;
    const std::string& name = call.name;
    auto& pos = call.args.positional;
    if (!requirePositionalCount(in, call, 2, 2))
        return Value::poison();
    auto seq = in.iterate(pos[1], call.at(1));
    if (!seq)
        return Value::poison();
    std::vector<Value> out;
    for (const Value& v : *seq) {
        CallArgs one;
        one.range = range;
        one.positional = {v};
        one.positionalRanges = {call.at(1)};
        Value r = in.call(pos[0], one, range);
        if (r.isPoison())
            return r;
        if (name == "builtins.map")
            out.push_back(r);
        else if (in.truth(r).value_or(false))
            out.push_back(v);
    }
    return Value::list(out);
}

} // namespace

std::span<const PrimitiveRow> pythonBuiltins() {
    static const PrimitiveRow rows[] = {
        {"builtins.print", builtinPrint},
        {"builtins.range", builtinRange},
        {"builtins.len", builtinLen},
        {"builtins.int", conversion},
        {"builtins.float", conversion},
        {"builtins.bool", conversion},
        {"builtins.str", conversion},
        {"builtins.repr", conversion},
        {"builtins.abs", builtinAbs},
        {"builtins.round", builtinRound},
        {"builtins.min", builtinMinMax},
        {"builtins.max", builtinMinMax},
        {"builtins.sum", builtinSum},
        {"builtins.tuple", sequence},
        {"builtins.list", sequence},
        {"builtins.set", sequence},
        {"builtins.sorted", sequence},
        {"builtins.reversed", sequence},
        {"builtins.dict", builtinDict},
        {"builtins.isinstance", builtinIsinstance},
        {"builtins.enumerate", builtinEnumerate},
        {"builtins.zip", builtinZip},
        {"builtins.any", anyAll},
        {"builtins.all", anyAll},
        {"builtins.divmod", builtinDivmod},
        {"builtins.pow", builtinPow},
        {"builtins.getattr", attributeQuery},
        {"builtins.hasattr", attributeQuery},
        {"builtins.map", mapFilter},
        {"builtins.filter", mapFilter},
        {"builtins.type", builtinType},
        {"builtins.", builtinFallback},
    };
    return rows;
}

} // namespace tb::elab
