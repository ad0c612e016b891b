// The interpreter core: scopes and name lookup, expression evaluation, statements, function calls and
// argument binding. Arithmetic lives in Operators.cpp, primitives in the family files of Primitives.h.
#include "engine/elaborate/Interpreter.h"

#include "engine/elaborate/HostTensors.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

std::string joinWords(const std::vector<std::string>& words) {
    std::string out;
    for (size_t k = 0; k < words.size(); ++k)
        out += (k ? ", " : "") + words[k];
    return out;
}

// Nested eval/exec/call frames (1-2.5 KB of stack each): deep enough for any real program, shallow
// enough for a worker thread's stack.
constexpr int kMaxDepth = 600;
// Ranges longer than this are iterated lazily by for loops but not materialized as lists.
constexpr int64_t kMaxMaterialized = 1 << 18;
constexpr int kMaxCallDepth = 100;

const char* const kBuiltinNames[] = {
    "range",
    "len",
    "int",
    "float",
    "bool",
    "str",
    "abs",
    "round",
    "min",
    "max",
    "sum",
    "tuple",
    "list",
    "dict",
    "isinstance",
    "print",
    "enumerate",
    "zip",
    "sorted",
    "reversed",
    "any",
    "all",
    "divmod",
    "pow",
    "getattr",
    "hasattr",
    "map",
    "filter",
    "repr",
    "type",
    "set",
    "object",
    "Exception",
    "ValueError",
    "RuntimeError",
    "NotImplementedError",
    "AssertionError",
};

// A hashed copy for lookup: a name that is not defined is looked up on every step of a host loop, and a
// scan of the list with string compares made such loops (fuzz_elaborate's timeouts) several times slower.
bool isBuiltinName(const std::string& name) {
    static const std::unordered_set<std::string_view> names(std::begin(kBuiltinNames),
                                                            std::end(kBuiltinNames));
    return names.count(name) != 0;
}

// Edit distance with doubled costs, where a substitution that only changes letter case costs 1, so that
// "transpose_b" is closer to "transpose_B" than to "transpose_A".
size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = 2 * j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = 2 * i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t up = row[j];
            char x = a[i - 1], y = b[j - 1];
            size_t subst = x == y ? 0
                                  : (std::tolower(static_cast<unsigned char>(x)) ==
                                             std::tolower(static_cast<unsigned char>(y))
                                         ? 1
                                         : 2);
            row[j] = std::min({row[j] + 2, row[j - 1] + 2, diag + subst});
            diag = up;
        }
    }
    return row[b.size()];
}

std::string signatureText(const FunctionData& fn) {
    std::string out = fn.name + "(";
    if (fn.params) {
        for (size_t k = 0; k < fn.params->size(); ++k) {
            const ast::Param& p = (*fn.params)[k];
            if (k)
                out += ", ";
            if (p.kind == ast::ParamKind::VarArgs)
                out += "*";
            if (p.kind == ast::ParamKind::VarKeywords)
                out += "**";
            out += p.name;
            if (k < fn.defaults.size() && fn.defaults[k])
                out += "=" + toRepr(*fn.defaults[k]);
        }
    }
    return out + ")";
}

} // namespace

std::string closestName(const std::string& name, const std::vector<std::string>& candidates) {
    std::string best;
    size_t bestDistance = 2 * std::max<size_t>(1, name.size() / 3) + 1; // costs are doubled
    for (const std::string& c : candidates) {
        if (c == name || c.empty())
            continue;
        size_t d = editDistance(name, c);
        if (d < bestDistance || (d == bestDistance && !best.empty() && c < best)) {
            bestDistance = d;
            best = c;
        }
    }
    return best;
}

Interpreter::Interpreter(const SourceManager& sources, DiagnosticEngine& diagnostics, ir::Module& out,
                         FileId file)
    : m_sources(sources), m_diagnostics(diagnostics), m_out(out), m_file(file) {
    m_globals = newEnv(nullptr);
    m_globals->captured = true;
    m_env = m_globals;
}

Interpreter::~Interpreter() = default;

Env* Interpreter::newEnv(Env* parent) {
    m_envs.push_back(std::make_unique<Env>());
    m_envs.back()->parent = parent;
    return m_envs.back().get();
}

namespace {

// Every diagnostic carries a hint; where the call site has nothing more specific, the code's general advice.
std::string defaultHint(const std::string& code) {
    if (code == "division-by-zero")
        return "the divisor is 0 with the current parameter values (`tilec params FILE` lists them); "
               "guard the division or change the parameters";
    if (code == "type-error")
        return "convert one side explicitly, e.g. int(x), float(x) or str(x)";
    if (code == "value-error" || code == "key-error")
        return "check the value against what the call accepts";
    if (code == "integer-overflow")
        return "compile-time integers are 64-bit; use smaller values";
    if (code == "invalid-shape")
        return "shapes are tuples of positive integers, e.g. (block_M, block_K)";
    return {};
}

} // namespace

Value Interpreter::error(const std::string& code, SourceRange range, const std::string& message,
                         const std::string& hint) {
    if (m_quiet > 0) {
        if (m_hostMode && !m_hostStop && (code == "iteration-limit" || code == "recursion-limit"))
            m_hostStop = DiagnosticNote{range, "host code stopped here: " + message};
        return Value::opaque("error: " + message);
    }
    m_diagnostics.error(code, range, message, hint.empty() ? defaultHint(code) : hint);
    return Value::poison();
}

std::string Interpreter::sourceText(SourceRange range) const {
    if (!range.valid || range.file >= m_sources.fileCount())
        return {};
    const std::string& text = m_sources.file(range.file).text();
    if (range.begin > range.end || range.end > text.size())
        return {};
    return text.substr(range.begin, range.end - range.begin);
}

bool Interpreter::step(SourceRange range) {
    if (m_aborted)
        return false;
    if (++m_steps > m_stepLimit) {
        error("iteration-limit", range,
              "elaboration stopped after " + std::to_string(m_stepLimit) + " interpreter steps",
              "a compile-time loop or recursion does not terminate; loops over run-time values must use "
              "T.serial / T.Pipelined inside T.Kernel");
        m_aborted = true;
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------
// Names

Value Interpreter::lookup(const std::string& name, SourceRange range) {
    for (Env* env = m_env; env; env = env->parent) {
        auto it = env->vars.find(name);
        if (it != env->vars.end())
            return it->second;
    }
    if (m_env != m_globals) {
        auto it = m_globals->vars.find(name);
        if (it != m_globals->vars.end())
            return it->second;
    }
    if (isBuiltinName(name))
        return Value::builtin("builtins." + name);
    if (name == "__name__")
        return Value::str("__main__");
    if (m_hostMode)
        return Value::opaque(name);
    std::vector<std::string> candidates;
    for (Env* env = m_env; env; env = env->parent)
        for (const auto& [k, v] : env->vars)
            candidates.push_back(k);
    for (const auto& [k, v] : m_globals->vars)
        candidates.push_back(k);
    for (const char* b : kBuiltinNames)
        candidates.push_back(b);
    std::sort(candidates.begin(), candidates.end());
    std::string best = closestName(name, candidates);
    return error("unknown-name", range, "name '" + name + "' is not defined",
                 best.empty() ? "define it before this line, or pass it as a parameter"
                              : "did you mean '" + best + "'?");
}

void Interpreter::bindName(const std::string& name, const Value& value) {
    if (m_env->globalNames.count(name)) {
        for (Env* env = m_env->parent; env; env = env->parent) {
            auto it = env->vars.find(name);
            if (it != env->vars.end()) {
                it->second = value;
                return;
            }
        }
        m_globals->vars[name] = value;
        return;
    }
    m_env->vars[name] = value;
}

// ---------------------------------------------------------------------------------------------------
// Expressions

Value Interpreter::eval(const ast::Expr& e) {
    if (m_aborted || m_halt)
        return Value::poison();
    if (m_depth >= kMaxDepth) {
        error("recursion-limit", e.range,
              "expressions or calls are nested more than " + std::to_string(kMaxDepth) + " levels deep",
              "simplify the expression or the recursion");
        m_aborted = true;
        return Value::poison();
    }
    ++m_depth;
    Value v = evalImpl(e);
    --m_depth;
    // The innermost expression that produced a host value is where a diagnostic about it points.
    if (v.isOpaque() && !v.origin.valid)
        v.origin = e.range;
    return v;
}

Value Interpreter::evalImpl(const ast::Expr& e) {
    switch (e.kind) {
    case ast::ExprKind::Name:
        return lookup(e.name, e.range);
    case ast::ExprKind::Constant:
        switch (e.constantKind) {
        case ast::ConstantKind::Int:
            if (e.intOverflow)
                return error("integer-overflow", e.range, "integer literal does not fit in 64 bits",
                             "compile-time integers are 64-bit");
            return Value::integer(e.intValue);
        case ast::ConstantKind::Float:
            return Value::real(e.floatValue);
        case ast::ConstantKind::String:
        case ast::ConstantKind::Bytes:
            return Value::str(e.stringValue);
        case ast::ConstantKind::Bool:
            return Value::boolean(e.intValue != 0);
        case ast::ConstantKind::None:
            return Value::none();
        case ast::ConstantKind::Ellipsis: {
            Value v;
            v.kind = ValueKind::Ellipsis;
            return v;
        }
        }
        return Value::none();
    case ast::ExprKind::FString:
        return evalFString(e);
    case ast::ExprKind::Attribute: {
        if (!e.a)
            return Value::poison();
        Value base = eval(*e.a);
        return attribute(base, e.name, e.range, e.a->range);
    }
    case ast::ExprKind::Subscript: {
        if (!e.a || !e.b)
            return Value::poison();
        Value base = eval(*e.a);
        if (base.isPoison())
            return base;
        Value index = eval(*e.b);
        return subscript(base, index, e.range);
    }
    case ast::ExprKind::Slice:
        return evalSlice(e);
    case ast::ExprKind::Call:
        return evalCall(e);
    case ast::ExprKind::BinOp: {
        if (!e.a || !e.b)
            return Value::poison();
        Value a = eval(*e.a);
        Value b = eval(*e.b);
        return binary(e.binOp, a, b, e.range);
    }
    case ast::ExprKind::UnaryOp: {
        if (!e.a)
            return Value::poison();
        return unary(e.unaryOp, eval(*e.a), e.range);
    }
    case ast::ExprKind::BoolOp:
        return evalBoolOp(e);
    case ast::ExprKind::Compare:
        return evalCompare(e);
    case ast::ExprKind::IfExp: {
        if (!e.a || !e.b || !e.c)
            return Value::poison();
        Value test = eval(*e.b);
        bool inert = false;
        std::optional<bool> t = truth(test, &inert);
        if (inert)
            return test;
        if (t)
            return eval(*t ? *e.a : *e.c);
        if (!tracing())
            return error("not-compile-time", e.b->range, "condition must be known at compile time",
                         "use T.if_then_else inside kernel code");
        Value a = eval(*e.a);
        Value c = eval(*e.c);
        if (a.isInert() || c.isInert())
            return a.isInert() ? a : c;
        ir::ExprPtr cond = toExpr(test, e.b->range, "condition");
        ir::ExprPtr x, y;
        if (!cond || !promote(a, c, x, y, e.range))
            return Value::poison();
        return Value::symbolic(ir::makeSelect(castTo(cond, ir::DType::Bool), x, y, e.range));
    }
    case ast::ExprKind::Lambda:
        return [&] {
            Value v;
            v.kind = ValueKind::Function;
            v.fn = makeFunction(nullptr, &e);
            return v;
        }();
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List: {
        std::vector<Value> items;
        for (const ast::ExprPtr& el : e.elements) {
            if (!el)
                continue;
            if (el->kind == ast::ExprKind::Starred && el->a) {
                Value inner = eval(*el->a);
                if (inner.isInert())
                    return inner;
                auto seq = iterate(inner, el->range);
                if (!seq)
                    return Value::poison();
                items.insert(items.end(), seq->begin(), seq->end());
                continue;
            }
            items.push_back(eval(*el));
        }
        return e.kind == ast::ExprKind::Tuple ? Value::tuple(std::move(items))
                                              : Value::list(std::move(items));
    }
    case ast::ExprKind::Dict: {
        Value d = Value::dictionary();
        for (size_t k = 0; k < e.elements.size(); ++k) {
            const ast::Expr* key = e.elements[k].get();
            if (key && key->kind == ast::ExprKind::Starred && key->a) {
                Value other = eval(*key->a);
                if (other.kind == ValueKind::Dict)
                    for (auto& entry : other.dict->entries)
                        d.dict->entries.push_back(entry);
                continue;
            }
            if (!key || k >= e.values.size() || !e.values[k])
                continue;
            Value kv = eval(*key);
            Value vv = eval(*e.values[k]);
            if (Value* slot = dictFind(*d.dict, kv))
                *slot = vv;
            else
                d.dict->entries.emplace_back(kv, vv);
        }
        return d;
    }
    case ast::ExprKind::ListComp:
        return evalListComp(e);
    case ast::ExprKind::Starred:
        return error("unsupported-construct", e.range, "a starred expression is not allowed here");
    case ast::ExprKind::Unsupported:
        if (m_hostMode && e.name == "set display") { // `x in {80, 90}` in host code: a list will do
            std::vector<Value> items;
            for (const ast::ExprPtr& el : e.elements) {
                Value v = el ? eval(*el) : Value::poison();
                if (std::none_of(items.begin(), items.end(),
                                 [&](const Value& x) { return valuesEqual(x, v); }))
                    items.push_back(v);
            }
            return Value::list(std::move(items));
        }
        return error("unsupported-construct", e.range, e.name + " is not supported in tile programs",
                     "rewrite it with the supported Python subset");
    }
    return Value::poison();
}

Value Interpreter::evalSlice(const ast::Expr& e) {
    Value v;
    v.kind = ValueKind::Slice;
    std::vector<Value> parts;
    parts.push_back(e.a ? eval(*e.a) : Value::none());
    parts.push_back(e.b ? eval(*e.b) : Value::none());
    parts.push_back(e.c ? eval(*e.c) : Value::none());
    v.items = std::make_shared<std::vector<Value>>(std::move(parts));
    return v;
}

Value Interpreter::evalFString(const ast::Expr& e) {
    // Interpolates {name} and {a.b}; other replacement fields stay as written (messages only).
    const std::string& raw = e.stringValue;
    std::string out;
    for (size_t k = 0; k < raw.size(); ++k) {
        char c = raw[k];
        if (c == '{' && k + 1 < raw.size() && raw[k + 1] == '{') {
            out += '{';
            ++k;
            continue;
        }
        if (c == '}' && k + 1 < raw.size() && raw[k + 1] == '}') {
            out += '}';
            ++k;
            continue;
        }
        if (c != '{') {
            out += c;
            continue;
        }
        size_t close = raw.find('}', k);
        if (close == std::string::npos) {
            out += raw.substr(k);
            break;
        }
        std::string field = raw.substr(k + 1, close - k - 1);
        std::string expr = field.substr(0, field.find_first_of(":!="));
        while (!expr.empty() && expr.back() == ' ')
            expr.pop_back();
        bool simple = !expr.empty() && !std::isdigit(static_cast<unsigned char>(expr[0]));
        for (char ch : expr)
            simple = simple && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.');
        std::string replacement = "{" + field + "}";
        if (simple) {
            ++m_quiet;
            bool host = m_hostMode;
            m_hostMode = true;
            size_t dot = expr.find('.');
            Value v = lookup(expr.substr(0, dot), e.range);
            while (dot != std::string::npos && !v.isInert()) {
                size_t next = expr.find('.', dot + 1);
                v = attribute(v, expr.substr(dot + 1, next - dot - 1), e.range, e.range);
                dot = next;
            }
            m_hostMode = host;
            --m_quiet;
            if (!v.isInert())
                replacement = toStr(v);
        }
        out += replacement;
        k = close;
    }
    return Value::str(out);
}

Value Interpreter::evalBoolOp(const ast::Expr& e) {
    bool isAnd = e.boolOp == ast::BoolOpKind::And;
    Value current;
    ir::ExprPtr symbolic; // accumulated run-time part
    for (size_t k = 0; k < e.elements.size(); ++k) {
        if (!e.elements[k])
            return Value::poison();
        current = eval(*e.elements[k]);
        bool inert = false;
        std::optional<bool> t = truth(current, &inert);
        if (inert)
            return current;
        if (t) {
            if (*t != isAnd) // and: a false operand decides; or: a true one
                return symbolic
                           ? Value::symbolic(castTo(toExpr(Value::boolean(!isAnd), e.range), ir::DType::Bool))
                           : current;
            continue;
        }
        ir::ExprPtr x = toExpr(current, e.elements[k]->range, "operand");
        if (!x)
            return Value::poison();
        x = castTo(x, ir::DType::Bool);
        symbolic = symbolic ? ir::makeBinary(isAnd ? ir::BinaryOp::LogicalAnd : ir::BinaryOp::LogicalOr,
                                             symbolic, x, e.range)
                            : x;
    }
    if (symbolic)
        return Value::symbolic(symbolic);
    return current;
}

Value Interpreter::evalCompare(const ast::Expr& e) {
    if (e.elements.size() < 2 || e.compareOps.size() + 1 != e.elements.size() || !e.elements[0])
        return Value::poison();
    Value left = eval(*e.elements[0]);
    ir::ExprPtr symbolic;
    Value result = Value::boolean(true);
    for (size_t k = 0; k < e.compareOps.size(); ++k) {
        if (!e.elements[k + 1])
            return Value::poison();
        Value right = eval(*e.elements[k + 1]);
        Value r = compare(e.compareOps[k], left, right, e.range);
        if (r.isInert())
            return r;
        if (r.kind == ValueKind::Expr) {
            symbolic =
                symbolic ? ir::makeBinary(ir::BinaryOp::LogicalAnd, symbolic, r.expr, e.range) : r.expr;
        } else if (!truth(r).value_or(false)) {
            return Value::boolean(false);
        }
        left = right;
    }
    if (symbolic)
        return Value::symbolic(symbolic);
    return result;
}

void Interpreter::compGenerators(const ast::Expr& e, size_t level, std::vector<Value>& out) {
    if (m_aborted)
        return;
    if (level == e.generators.size()) {
        if (e.a)
            out.push_back(eval(*e.a));
        return;
    }
    const ast::Comprehension& gen = e.generators[level];
    if (!gen.iter || !gen.target)
        return;
    Value iter = eval(*gen.iter);
    if (iter.isInert())
        return;
    auto items = iterate(iter, gen.iter->range);
    if (!items)
        return;
    for (const Value& item : *items) {
        if (!step(gen.iter->range))
            return;
        assign(*gen.target, item, gen.iter->range);
        bool keep = true;
        for (const ast::ExprPtr& cond : gen.ifs) {
            if (!cond)
                continue;
            std::optional<bool> t = truth(eval(*cond));
            if (!t.value_or(false)) {
                keep = false;
                break;
            }
        }
        if (keep)
            compGenerators(e, level + 1, out);
    }
}

Value Interpreter::evalListComp(const ast::Expr& e) {
    Env* saved = m_env;
    m_env = newEnv(saved);
    std::vector<Value> out;
    compGenerators(e, 0, out);
    Env* scope = m_env;
    m_env = saved;
    if (!scope->captured && m_envs.back().get() == scope)
        m_envs.pop_back();
    for (const Value& v : out)
        if (v.isPoison())
            return v;
    return Value::list(std::move(out));
}

Value Interpreter::evalCall(const ast::Expr& e) {
    if (!e.a)
        return Value::poison();
    Value callee = eval(*e.a);
    if (callee.isPoison())
        return callee;
    CallArgs args;
    args.range = e.range;
    for (const ast::ExprPtr& el : e.elements) {
        if (!el)
            continue;
        if (el->kind == ast::ExprKind::Starred && el->a) {
            Value inner = eval(*el->a);
            if (inner.isInert())
                return inner;
            auto seq = iterate(inner, el->range);
            if (!seq)
                return Value::poison();
            for (const Value& v : *seq) {
                args.positional.push_back(v);
                args.positionalRanges.push_back(el->range);
            }
            continue;
        }
        args.positional.push_back(eval(*el));
        args.positionalRanges.push_back(el->range);
    }
    for (const ast::Keyword& kw : e.keywords) {
        if (!kw.value)
            continue;
        Value v = eval(*kw.value);
        if (kw.name.empty()) {
            if (v.kind == ValueKind::Dict) {
                for (auto& [k, val] : v.dict->entries) {
                    if (k.kind != ValueKind::Str)
                        return error("type-error", kw.range, "keywords must be strings");
                    args.keywords.emplace_back(k.s, val);
                    args.keywordRanges.push_back(kw.range);
                    args.keywordNameRanges.push_back(kw.range);
                }
            } else if (!v.isInert()) {
                return error("type-error", kw.range,
                             "argument after ** must be a mapping, not " + typeName(v));
            }
            continue;
        }
        args.keywords.emplace_back(kw.name, v);
        args.keywordRanges.push_back(kw.value->range);
        args.keywordNameRanges.push_back(kw.range);
    }
    for (const Value& v : args.positional)
        if (v.isPoison())
            return v;
    for (const auto& kw : args.keywords)
        if (kw.second.isPoison())
            return kw.second;
    return call(callee, args, e.range);
}

// ---------------------------------------------------------------------------------------------------
// Calls

std::shared_ptr<FunctionData> Interpreter::makeFunction(const ast::Stmt* def, const ast::Expr* lambda) {
    auto fn = std::make_shared<FunctionData>();
    fn->def = def;
    fn->lambda = lambda;
    fn->params = def ? &def->params : &lambda->params;
    fn->name = def ? def->name : "<lambda>";
    fn->range = def ? def->range : lambda->range;
    fn->closure = m_env;
    for (Env* env = m_env; env; env = env->parent)
        env->captured = true;
    for (const ast::Param& p : *fn->params) {
        if (p.defaultValue)
            fn->defaults.push_back(eval(*p.defaultValue));
        else
            fn->defaults.push_back(std::nullopt);
    }
    return fn;
}

bool Interpreter::bindParams(const std::shared_ptr<FunctionData>& fn, CallArgs& args, Env* env,
                             SourceRange range) {
    const std::vector<ast::Param>& params = *fn->params;
    std::vector<bool> bound(params.size(), false);
    std::string sig = "signature: " + signatureText(*fn);
    size_t nextPositional = 0;
    std::vector<Value> extra;
    for (size_t k = 0; k < args.positional.size(); ++k) {
        if (nextPositional < params.size() && params[nextPositional].kind == ast::ParamKind::Positional) {
            env->vars[params[nextPositional].name] = args.positional[k];
            bound[nextPositional] = true;
            ++nextPositional;
        } else {
            extra.push_back(args.positional[k]);
        }
    }
    int varArgs = -1, varKw = -1;
    for (size_t k = 0; k < params.size(); ++k) {
        if (params[k].kind == ast::ParamKind::VarArgs)
            varArgs = static_cast<int>(k);
        if (params[k].kind == ast::ParamKind::VarKeywords)
            varKw = static_cast<int>(k);
    }
    if (!extra.empty()) {
        if (varArgs < 0) {
            error("wrong-arguments", range,
                  fn->name + "() takes " + std::to_string(nextPositional) + " positional arguments but " +
                      std::to_string(args.positional.size()) + " were given",
                  sig);
            return false;
        }
    }
    if (varArgs >= 0) {
        env->vars[params[varArgs].name] = Value::tuple(extra);
        bound[varArgs] = true;
    }
    Value kwDict = Value::dictionary();
    for (size_t k = 0; k < args.keywords.size(); ++k) {
        const std::string& name = args.keywords[k].first;
        bool matched = false;
        for (size_t p = 0; p < params.size(); ++p) {
            if (params[p].name != name || params[p].kind == ast::ParamKind::VarArgs ||
                params[p].kind == ast::ParamKind::VarKeywords)
                continue;
            if (bound[p]) {
                error("wrong-arguments", args.keywordRanges[k],
                      fn->name + "() got multiple values for argument '" + name + "'", sig);
                return false;
            }
            env->vars[name] = args.keywords[k].second;
            bound[p] = true;
            matched = true;
            break;
        }
        if (matched)
            continue;
        if (varKw >= 0) {
            kwDict.dict->entries.emplace_back(Value::str(name), args.keywords[k].second);
            continue;
        }
        std::vector<std::string> names;
        for (const ast::Param& p : params)
            names.push_back(p.name);
        std::string best = closestName(name, names);
        error("wrong-arguments", args.keywordName(k),
              fn->name + "() got an unexpected keyword argument '" + name + "'",
              (best.empty() ? "" : "did you mean '" + best + "'? ") + sig);
        return false;
    }
    if (varKw >= 0) {
        env->vars[params[varKw].name] = kwDict;
        bound[varKw] = true;
    }
    std::vector<std::string> missing;
    for (size_t p = 0; p < params.size(); ++p) {
        if (bound[p])
            continue;
        if (p < fn->defaults.size() && fn->defaults[p]) {
            env->vars[params[p].name] = *fn->defaults[p];
            continue;
        }
        missing.push_back("'" + params[p].name + "'");
    }
    if (!missing.empty()) {
        std::string list;
        for (size_t k = 0; k < missing.size(); ++k)
            list += (k ? (k + 1 == missing.size() ? " and " : ", ") : "") + missing[k];
        error("wrong-arguments", range,
              fn->name + "() missing " + std::to_string(missing.size()) + " required argument" +
                  (missing.size() > 1 ? "s" : "") + ": " + list,
              sig);
        return false;
    }
    return true;
}

Value Interpreter::callFunction(const std::shared_ptr<FunctionData>& fn, CallArgs& args, SourceRange range) {
    if (fn->isJit) {
        if (m_hostMode && !m_recorded) {
            m_recorded = RecordedCall{fn, args, false};
            m_halt = true;
        }
        return Value::opaque("JITKernel " + fn->name);
    }
    if (fn->isPrimFunc) {
        if (m_hostMode) {
            if (!m_recorded)
                m_recorded = RecordedCall{fn, args, false};
            return Value::opaque("kernel call " + fn->name);
        }
        return error("unsupported-construct", range,
                     "calling the @T.prim_func '" + fn->name + "' from tile code is not supported",
                     "make it a @T.macro to expand it inline");
    }
    if (m_callDepth >= kMaxCallDepth) {
        error("recursion-limit", range,
              "maximum recursion depth " + std::to_string(kMaxCallDepth) + " exceeded calling '" + fn->name +
                  "'",
              "compile-time recursion must terminate");
        m_aborted = true;
        return Value::poison();
    }
    if (!step(range))
        return Value::poison();
    Env* env = newEnv(fn->closure);
    if (!bindParams(fn, args, env, range)) {
        if (!env->captured && m_envs.back().get() == env)
            m_envs.pop_back();
        return Value::poison();
    }
    Env* saved = m_env;
    m_env = env;
    ++m_callDepth;
    ++m_depth;
    Value result = Value::none();
    auto savedLoops = std::move(m_loopIsKernel);
    m_loopIsKernel.clear();
    int savedIf = m_symbolicIfDepth;
    m_symbolicIfDepth = 0;
    if (fn->def) {
        Flow flow = execBlock(fn->def->body);
        if (flow == Flow::Return)
            result = m_returnValue;
        else if (flow == Flow::Halt)
            result = Value::poison();
    } else if (fn->lambda && fn->lambda->a) {
        result = eval(*fn->lambda->a);
    }
    m_symbolicIfDepth = savedIf;
    m_loopIsKernel = std::move(savedLoops);
    m_returnValue = Value::none();
    --m_depth;
    --m_callDepth;
    m_env = saved;
    if (!env->captured && !m_envs.empty() && m_envs.back().get() == env)
        m_envs.pop_back();
    return result;
}

Value Interpreter::call(const Value& callee, CallArgs& args, SourceRange range) {
    switch (callee.kind) {
    case ValueKind::Function:
        return callFunction(callee.fn, args, range);
    case ValueKind::Builtin:
        return callBuiltin(callee, args, range);
    case ValueKind::DType: {
        // T.float32(x): a cast; T.float32() with no argument is the dtype itself.
        if (args.positional.empty())
            return callee;
        CallArgs castArgs;
        castArgs.range = range;
        castArgs.positional = {args.positional[0], callee};
        castArgs.positionalRanges = {args.positionalRanges[0], range};
        return callBuiltin(Value::builtin("T.cast"), castArgs, range);
    }
    case ValueKind::Object:
        if (callee.object && callee.object->type == "jit-decorator" && args.positional.size() == 1 &&
            args.positional[0].kind == ValueKind::Function) {
            Value f = args.positional[0];
            f.fn->isJit = true;
            for (const auto& [k, v] : callee.object->attrs)
                takeJitOption(*f.fn, k, v);
            return f;
        }
        if (callee.object && callee.object->type == "autotune-decorator" && args.positional.size() == 1 &&
            args.positional[0].kind == ValueKind::Function) {
            applyAutotune(*args.positional[0].fn, callee);
            return args.positional[0];
        }
        if (callee.object && callee.object->type == "class")
            return m_hostMode ? Value::opaque("an instance of " + callee.object->attrs["__name__"].s)
                              : error("type-error", range, "classes cannot be instantiated at compile time");
        return error("type-error", range, "'" + typeName(callee) + "' object is not callable");
    case ValueKind::Opaque: {
        Value result = Value::opaque(callee.s + "(...)");
        result.origin = callee.origin;
        return result;
    }
    case ValueKind::Poison:
        return callee;
    case ValueKind::None:
    case ValueKind::Bool:
    case ValueKind::Int:
    case ValueKind::Float:
    case ValueKind::Str:
    case ValueKind::Tuple:
    case ValueKind::List:
    case ValueKind::Dict:
    case ValueKind::Range:
    case ValueKind::Slice:
    case ValueKind::Ellipsis:
    case ValueKind::Namespace:
    case ValueKind::Enum:
    case ValueKind::Expr:
    case ValueKind::Buffer:
    case ValueKind::Region:
    case ValueKind::TensorType:
    case ValueKind::LoopSpec:
    case ValueKind::KernelSpec:
    case ValueKind::Layout:
        break;
    }
    return error("type-error", range, "'" + typeName(callee) + "' object is not callable");
}

// ---------------------------------------------------------------------------------------------------
// Attributes and subscripts of plain Python values

Value Interpreter::attribute(const Value& base, const std::string& attr, SourceRange range,
                             SourceRange baseRange) {
    auto method = [&](const std::string& type) {
        return Value::builtin(type + "." + attr, std::make_shared<Value>(base));
    };
    auto unknown = [&](std::vector<std::string> candidates) {
        std::string best = closestName(attr, candidates);
        return error("unknown-attribute", range,
                     "'" + typeName(base) + "' object has no attribute '" + attr + "'",
                     !best.empty()        ? "did you mean '" + best + "'?"
                     : candidates.empty() ? std::string("it has no attributes in tile programs")
                                          : "its attributes are: " + joinWords(candidates));
    };
    switch (base.kind) {
    case ValueKind::Poison:
    case ValueKind::Opaque: {
        if (base.isPoison())
            return base;
        Value derived = Value::opaque(base.s + "." + attr);
        derived.origin = base.origin;
        return derived;
    }
    case ValueKind::Namespace: {
        std::string shown = sourceText(baseRange);
        if (shown.empty() || shown.size() > 40)
            shown = base.s;
        return namespaceAttr(base.s, attr, range, shown);
    }
    case ValueKind::Buffer:
    case ValueKind::Region: {
        ir::Buffer* b = base.kind == ValueKind::Buffer ? base.buffer : base.region->buffer;
        if (attr == "shape") {
            std::vector<Value> dims;
            if (base.kind == ValueKind::Region) {
                for (const ir::ExprPtr& e : base.region->extents) {
                    auto c = ir::constantInt(e);
                    dims.push_back(c ? Value::integer(*c) : Value::symbolic(e));
                }
            } else {
                for (size_t d = 0; d < b->rank(); ++d) {
                    auto c = b->constantExtent(d);
                    dims.push_back(c ? Value::integer(*c) : Value::symbolic(b->shape[d]));
                }
            }
            return Value::tuple(std::move(dims));
        }
        if (attr == "dtype")
            return Value::dtypeOf(b->dtype);
        if (attr == "name")
            return Value::str(b->name);
        if (attr == "ndim")
            return Value::integer(static_cast<int64_t>(b->rank()));
        if (attr == "scope")
            return Value::str(ir::scopeName(b->scope));
        if (attr == "data" && base.kind == ValueKind::Buffer) {
            // The buffer's storage, for T.Tensor(shape, dtype, buf.data): a view of it (TileTypes.cpp).
            Value data = Value::hostObject("Buffer.data");
            data.object->attrs["buffer"] = base;
            return data;
        }
        return unknown({"shape", "dtype", "name", "ndim", "scope", "data"});
    }
    case ValueKind::Expr:
        if (attr == "dtype")
            return Value::dtypeOf(base.expr->dtype);
        return unknown({"dtype"});
    case ValueKind::DType:
        if (attr == "as_torch")
            return Value::builtin("dtype.as_torch", std::make_shared<Value>(base));
        if (attr == "bits")
            return Value::integer(ir::dtypeBits(base.dtype));
        if (attr == "itemsize")
            return Value::integer(ir::dtypeBytes(base.dtype));
        return unknown({"bits", "itemsize"});
    case ValueKind::Str:
        return method("str");
    case ValueKind::List:
        return method("list");
    case ValueKind::Tuple:
        return method("tuple");
    case ValueKind::Dict:
        return method("dict");
    case ValueKind::Object: {
        auto it = base.object->attrs.find(attr);
        if (it != base.object->attrs.end())
            return it->second;
        if (base.object->type == "ArgumentParser")
            return method("argparse");
        if (isTensor(base))
            return tensorAttribute(base, attr);
        if (base.object->type == "class")
            return classAttribute(base, attr);
        if (base.object->type == "FunctionCtx")
            return method("FunctionCtx");
        if (base.object->type == "TensorCoreIntrinEmitter") // its methods (TileIntrinsics.cpp)
            return method("TensorCoreIntrinEmitter");
        std::vector<std::string> names;
        for (const auto& [k, v] : base.object->attrs)
            names.push_back(k);
        return unknown(names);
    }
    case ValueKind::Function:
        if (attr == "compile" || attr == "get_kernel_source" || attr == "get_profiler")
            return method("jit");
        if (attr == "__name__")
            return Value::str(base.fn->name);
        if (m_hostMode)
            return Value::opaque(base.fn->name + "." + attr);
        return unknown({"compile", "__name__"});
    case ValueKind::Float:
        if (attr == "is_integer")
            return method("float");
        return unknown({"is_integer"});
    case ValueKind::Int:
    case ValueKind::Bool:
        if (attr == "bit_length")
            return method("int");
        return unknown({"bit_length"});
    case ValueKind::Layout:
    case ValueKind::None:
    case ValueKind::Range:
    case ValueKind::Slice:
    case ValueKind::Ellipsis:
    case ValueKind::Builtin:
    case ValueKind::Enum:
    case ValueKind::TensorType:
    case ValueKind::LoopSpec:
    case ValueKind::KernelSpec:
        break;
    }
    if (m_hostMode)
        return Value::opaque(toStr(base) + "." + attr);
    return unknown({});
}

namespace {

bool normalizeIndex(int64_t& index, size_t size) {
    if (index < 0)
        index += static_cast<int64_t>(size);
    return index >= 0 && index < static_cast<int64_t>(size);
}

} // namespace

Value Interpreter::subscript(const Value& base, const Value& index, SourceRange range) {
    if (base.isPoison() || index.isPoison())
        return Value::poison();
    if (base.isOpaque()) {
        Value derived = Value::opaque(base.s + "[...]");
        derived.origin = base.origin;
        return derived;
    }
    if (isTensor(base))
        return tensorSubscript(base, index);
    if (base.kind == ValueKind::Buffer)
        return bufferSubscript(base.buffer, index, range);
    if (base.kind == ValueKind::Builtin &&
        (base.s == "T.Tensor" || base.s == "T.Buffer" || base.s == "T.StridedTensor" || base.s == "T.dyn")) {
        CallArgs args;
        args.range = range;
        if (index.kind == ValueKind::Tuple) {
            for (const Value& v : *index.items) {
                args.positional.push_back(v);
                args.positionalRanges.push_back(range);
            }
        } else {
            args.positional.push_back(index);
            args.positionalRanges.push_back(range);
        }
        return call(base.s == "T.dyn" ? Value::builtin("T.dynamic") : Value::builtin("T.Tensor"), args,
                    range);
    }
    if (base.kind == ValueKind::Dict) {
        if (Value* v = dictFind(*base.dict, index))
            return *v;
        return error("key-error", range, "key " + toRepr(index) + " is not in the dict");
    }
    if (base.kind == ValueKind::Tuple || base.kind == ValueKind::List || base.kind == ValueKind::Str) {
        size_t size = base.kind == ValueKind::Str ? base.s.size() : base.items->size();
        if (index.kind == ValueKind::Slice) {
            const std::vector<Value>& parts = *index.items;
            int64_t stepValue = 1;
            if (parts[2].isIntLike())
                stepValue = parts[2].i;
            else if (parts[2].kind != ValueKind::None)
                return error("type-error", range, "slice indices must be integers");
            if (stepValue == 0)
                return error("value-error", range, "slice step cannot be zero");
            int64_t n = static_cast<int64_t>(size);
            auto bound = [&](const Value& v, int64_t dflt, bool& ok) -> int64_t {
                if (v.kind == ValueKind::None)
                    return dflt;
                if (!v.isIntLike()) {
                    ok = false;
                    return 0;
                }
                int64_t x = v.i;
                if (x < 0)
                    x += n;
                if (stepValue > 0)
                    return std::clamp<int64_t>(x, 0, n);
                return std::clamp<int64_t>(x, -1, n - 1);
            };
            bool ok = true;
            int64_t lo = bound(parts[0], stepValue > 0 ? 0 : n - 1, ok);
            int64_t hi = bound(parts[1], stepValue > 0 ? n : -1, ok);
            if (!ok)
                return error("type-error", range, "slice indices must be integers");
            std::vector<Value> items;
            std::string text;
            for (int64_t k = lo; stepValue > 0 ? k < hi : k > hi; k += stepValue) {
                if (base.kind == ValueKind::Str)
                    text += base.s[static_cast<size_t>(k)];
                else
                    items.push_back((*base.items)[static_cast<size_t>(k)]);
            }
            if (base.kind == ValueKind::Str)
                return Value::str(text);
            return base.kind == ValueKind::Tuple ? Value::tuple(items) : Value::list(items);
        }
        if (!index.isIntLike()) {
            if (index.kind == ValueKind::Expr)
                return error(
                    "not-compile-time", range,
                    "index into a " + typeName(base) + " must be known at compile time",
                    "Python sequences are indexed at compile time; use a buffer for run-time indexing");
            return error("type-error", range,
                         typeName(base) + " indices must be integers or slices, not " + typeName(index));
        }
        int64_t k = index.i;
        if (!normalizeIndex(k, size))
            return error("index-out-of-range", range,
                         typeName(base) + " index " + std::to_string(index.i) +
                             " is out of range for length " + std::to_string(size));
        if (base.kind == ValueKind::Str)
            return Value::str(std::string(1, base.s[static_cast<size_t>(k)]));
        return (*base.items)[static_cast<size_t>(k)];
    }
    if (base.kind == ValueKind::Range) {
        if (!index.isIntLike())
            return error("type-error", range, "range indices must be integers");
        int64_t len =
            base.range[2] > 0
                ? std::max<int64_t>(0, (base.range[1] - base.range[0] + base.range[2] - 1) / base.range[2])
                : std::max<int64_t>(0, (base.range[0] - base.range[1] - base.range[2] - 1) / -base.range[2]);
        int64_t k = index.i;
        if (!normalizeIndex(k, static_cast<size_t>(len)))
            return error("index-out-of-range", range,
                         "range index " + std::to_string(index.i) + " is out of range");
        return Value::integer(base.range[0] + k * base.range[2]);
    }
    if (m_hostMode)
        return Value::opaque(typeName(base) + "[...]");
    return error("type-error", range, "'" + typeName(base) + "' object is not subscriptable");
}

std::optional<std::vector<Value>> Interpreter::iterate(const Value& v, SourceRange range) {
    switch (v.kind) {
    case ValueKind::Tuple:
    case ValueKind::List:
        return *v.items;
    case ValueKind::Str: {
        std::vector<Value> out;
        for (char c : v.s)
            out.push_back(Value::str(std::string(1, c)));
        return out;
    }
    case ValueKind::Dict: {
        std::vector<Value> out;
        for (auto& entry : v.dict->entries)
            out.push_back(entry.first);
        return out;
    }
    case ValueKind::Range: {
        int64_t start = v.range[0], stop = v.range[1], stepValue = v.range[2];
        // Length first, so that a huge range is refused before it is built.
        long double len = stepValue > 0 ? std::ceil(((long double)stop - start) / stepValue)
                                        : std::ceil(((long double)start - stop) / -stepValue);
        if (len < 0)
            len = 0;
        if (len > static_cast<long double>(m_stepLimit - m_steps)) {
            m_steps = m_stepLimit;
            step(range);
            return std::nullopt;
        }
        if (len > kMaxMaterialized) {
            error("value-error", range,
                  "range of " + std::to_string(static_cast<int64_t>(len)) +
                      " elements is too large to build a list from",
                  "iterate over it with a for loop instead");
            return std::nullopt;
        }
        std::vector<Value> out;
        out.reserve(static_cast<size_t>(len));
        for (int64_t x = start; stepValue > 0 ? x < stop : x > stop; x += stepValue)
            out.push_back(Value::integer(x));
        return out;
    }
    case ValueKind::Opaque:
        if (m_hostMode)
            return std::vector<Value>{}; // host loops over tensors and profilers: skipped
        error("not-compile-time", range, "cannot iterate over the host value '" + v.s + "' at compile time");
        return std::nullopt;
    case ValueKind::Poison:
        return std::nullopt;
    case ValueKind::Expr:
        error("not-compile-time", range, "cannot iterate over the run-time value " + ir::printExpr(v.expr),
              "loops over run-time bounds must use T.serial, T.Pipelined or T.Parallel inside T.Kernel");
        return std::nullopt;
    case ValueKind::LoopSpec:
        error("kernel-outside-kernel", range, "a tile loop can only be used inside T.Kernel",
              "open a `with T.Kernel(...)` block first");
        return std::nullopt;
    case ValueKind::None:
    case ValueKind::Bool:
    case ValueKind::Int:
    case ValueKind::Float:
    case ValueKind::Slice:
    case ValueKind::Ellipsis:
    case ValueKind::Function:
    case ValueKind::Builtin:
    case ValueKind::DType: { // TileLang's dtypes are strings: "int8" iterates over its characters
        std::vector<Value> out;
        for (char c : std::string(ir::dtypeName(v.dtype)))
            out.push_back(Value::str(std::string(1, c)));
        return out;
    }
    case ValueKind::Namespace:
    case ValueKind::Enum:
    case ValueKind::Buffer:
    case ValueKind::Region:
    case ValueKind::TensorType:
    case ValueKind::KernelSpec:
    case ValueKind::Layout:
    case ValueKind::Object:
        break;
    }
    error("type-error", range, "'" + typeName(v) + "' object is not iterable");
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------------
// Assignment

void Interpreter::assign(const ast::Expr& target, const Value& value, SourceRange valueRange) {
    switch (target.kind) {
    case ast::ExprKind::Name: {
        // A name bound to a T.alloc_var scalar in this scope: assignment stores into it.
        auto it = m_env->vars.find(target.name);
        if (inKernel() && it != m_env->vars.end() && it->second.kind == ValueKind::Buffer &&
            it->second.buffer->scope == ir::MemoryScope::LocalVar && value.kind != ValueKind::Buffer) {
            storeElement(it->second, Value::integer(0), value, target.range);
            return;
        }
        if (inKernel() && value.kind == ValueKind::Buffer && value.buffer &&
            value.buffer->name != target.name) {
            std::vector<std::string>& aliases = value.buffer->aliases;
            if (std::find(aliases.begin(), aliases.end(), target.name) == aliases.end())
                aliases.push_back(target.name);
        }
        bindName(target.name, value);
        return;
    }
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List: {
        if (value.isInert()) {
            for (const ast::ExprPtr& el : target.elements)
                if (el)
                    assign(el->kind == ast::ExprKind::Starred && el->a ? *el->a : *el, value, valueRange);
            return;
        }
        if (value.kind == ValueKind::Expr || value.kind == ValueKind::Buffer) {
            error("type-error", valueRange, "cannot unpack non-iterable " + typeName(value) + " object");
            for (const ast::ExprPtr& el : target.elements)
                if (el)
                    assign(*el, Value::poison(), valueRange);
            return;
        }
        auto items = iterate(value, valueRange);
        if (!items) {
            for (const ast::ExprPtr& el : target.elements)
                if (el && el->kind != ast::ExprKind::Starred)
                    assign(*el, Value::poison(), valueRange);
            return;
        }
        int star = -1;
        for (size_t k = 0; k < target.elements.size(); ++k)
            if (target.elements[k] && target.elements[k]->kind == ast::ExprKind::Starred)
                star = static_cast<int>(k);
        size_t n = target.elements.size();
        bool ok = star < 0 ? items->size() == n : items->size() + 1 >= n;
        if (!ok) {
            error("value-error", valueRange,
                  items->size() > n ? "too many values to unpack (expected " + std::to_string(n) + ", got " +
                                          std::to_string(items->size()) + ")"
                                    : "not enough values to unpack (expected " + std::to_string(n) +
                                          ", got " + std::to_string(items->size()) + ")");
            for (const ast::ExprPtr& el : target.elements)
                if (el && el->kind != ast::ExprKind::Starred)
                    assign(*el, Value::poison(), valueRange);
            return;
        }
        size_t src = 0;
        for (size_t k = 0; k < n; ++k) {
            if (!target.elements[k])
                continue;
            if (static_cast<int>(k) == star) {
                size_t take = items->size() - (n - 1);
                std::vector<Value> rest(items->begin() + src, items->begin() + src + take);
                src += take;
                if (target.elements[k]->a)
                    assign(*target.elements[k]->a, Value::list(rest), valueRange);
                continue;
            }
            assign(*target.elements[k], (*items)[src++], valueRange);
        }
        return;
    }
    case ast::ExprKind::Subscript: {
        if (!target.a || !target.b)
            return;
        Value base = eval(*target.a);
        Value index = eval(*target.b);
        if (base.isInert() || index.isPoison() || value.isPoison())
            return;
        if (base.kind == ValueKind::Buffer) {
            storeElement(base, index, value, target.range);
            return;
        }
        if (base.kind == ValueKind::List) {
            if (!index.isIntLike()) {
                error("type-error", target.b->range, "list indices must be integers");
                return;
            }
            int64_t k = index.i;
            if (!normalizeIndex(k, base.items->size())) {
                error("index-out-of-range", target.range, "list assignment index out of range");
                return;
            }
            (*base.items)[static_cast<size_t>(k)] = value;
            return;
        }
        if (base.kind == ValueKind::Dict) {
            if (Value* slot = dictFind(*base.dict, index))
                *slot = value;
            else
                base.dict->entries.emplace_back(index, value);
            return;
        }
        if (base.kind == ValueKind::Region) {
            error("unsupported-construct", target.range, "assigning to a buffer slice is not supported",
                  "use T.fill for a constant or T.copy / T.Parallel for values");
            return;
        }
        error("type-error", target.range, "'" + typeName(base) + "' object does not support item assignment");
        return;
    }
    case ast::ExprKind::Attribute: {
        if (!target.a)
            return;
        Value base = eval(*target.a);
        if (base.kind == ValueKind::Object) {
            base.object->attrs[target.name] = value;
            return;
        }
        if (base.isInert())
            return;
        error("unsupported-construct", target.range,
              "assigning to an attribute of a " + typeName(base) + " is not supported");
        return;
    }
    case ast::ExprKind::Starred:
        if (target.a)
            assign(*target.a, value, valueRange);
        return;
    case ast::ExprKind::Constant:
    case ast::ExprKind::FString:
    case ast::ExprKind::Slice:
    case ast::ExprKind::Call:
    case ast::ExprKind::BinOp:
    case ast::ExprKind::UnaryOp:
    case ast::ExprKind::BoolOp:
    case ast::ExprKind::Compare:
    case ast::ExprKind::IfExp:
    case ast::ExprKind::Lambda:
    case ast::ExprKind::Dict:
    case ast::ExprKind::ListComp:
    case ast::ExprKind::Unsupported:
        break;
    }
    error("unsupported-construct", target.range, "cannot assign to this expression");
}

// ---------------------------------------------------------------------------------------------------
// Statements

Flow Interpreter::execBlock(const std::vector<ast::StmtPtr>& body) {
    for (const ast::StmtPtr& s : body) {
        if (!s)
            continue;
        Flow flow = exec(*s);
        if (flow != Flow::Normal)
            return flow;
    }
    return Flow::Normal;
}

Flow Interpreter::exec(const ast::Stmt& s) {
    if (m_aborted || m_halt)
        return Flow::Halt;
    if (!step(s.range))
        return Flow::Halt;
    if (m_depth >= kMaxDepth) {
        error("recursion-limit", s.range, "statements are nested too deeply", "simplify the program");
        m_aborted = true;
        return Flow::Halt;
    }
    ++m_depth;
    Flow flow = execImpl(s);
    --m_depth;
    if (m_aborted || m_halt)
        return Flow::Halt;
    return flow;
}

Flow Interpreter::execImpl(const ast::Stmt& s) {
    switch (s.kind) {
    case ast::StmtKind::Expr:
        if (s.value)
            eval(*s.value);
        return Flow::Normal;
    case ast::StmtKind::Assign:
        return execAssign(s);
    case ast::StmtKind::AugAssign:
        return execAugAssign(s);
    case ast::StmtKind::AnnAssign:
        return execAnnAssign(s);
    case ast::StmtKind::FunctionDef:
        return execFunctionDef(s);
    case ast::StmtKind::Return:
        if (m_symbolicIfDepth > 0 || (!m_loopIsKernel.empty() && m_loopIsKernel.back())) {
            error("unsupported-construct", s.range,
                  "return inside a run-time condition or tile loop is not supported",
                  "compute the value with T.if_then_else or restructure the loop");
            return Flow::Normal;
        }
        m_returnValue = s.value ? eval(*s.value) : Value::none();
        return Flow::Return;
    case ast::StmtKind::If:
        return execIf(s);
    case ast::StmtKind::For:
        return execFor(s);
    case ast::StmtKind::While:
        return execWhile(s);
    case ast::StmtKind::With:
        return execWith(s);
    case ast::StmtKind::Assert:
        return execAssert(s);
    case ast::StmtKind::Pass:
        return Flow::Normal;
    case ast::StmtKind::Break:
    case ast::StmtKind::Continue:
        if (m_loopIsKernel.empty()) {
            error("unsupported-construct", s.range,
                  std::string(s.kind == ast::StmtKind::Break ? "'break'" : "'continue'") + " outside a loop");
            return Flow::Normal;
        }
        if (m_loopIsKernel.back() || m_symbolicIfDepth > 0) {
            error("unsupported-construct", s.range,
                  std::string(s.kind == ast::StmtKind::Break ? "break" : "continue") +
                      " is not supported in tile loops or under a run-time condition",
                  "guard the loop body with an if instead");
            return Flow::Normal;
        }
        return s.kind == ast::StmtKind::Break ? Flow::Break : Flow::Continue;
    case ast::StmtKind::Import:
    case ast::StmtKind::ImportFrom:
        return execImport(s);
    case ast::StmtKind::Global:
        for (const std::string& n : s.names)
            m_env->globalNames.insert(n);
        return Flow::Normal;
    case ast::StmtKind::ClassDef:
        return execClassDef(s);
    case ast::StmtKind::Unsupported: {
        // The parser names the construct ("class definition", "try statement"): pluralize it.
        std::string what = (s.name.empty() ? std::string("this statement") : s.name + "s") + " are";
        error("unsupported-construct", s.range,
              what + (tracing() ? " not supported in kernel code" : " not supported in tile programs"),
              "move host-only code out of the jit function");
        return Flow::Normal;
    }
    }
    return Flow::Normal;
}

Flow Interpreter::execAssign(const ast::Stmt& s) {
    if (!s.value)
        return Flow::Normal;
    std::string saved = std::move(m_pendingName);
    m_pendingName.clear();
    if (s.targets.size() == 1 && s.targets[0] && s.targets[0]->kind == ast::ExprKind::Name)
        m_pendingName = s.targets[0]->name;
    Value v = eval(*s.value);
    m_pendingName = std::move(saved);
    for (const ast::ExprPtr& t : s.targets)
        if (t)
            assign(*t, v, s.value->range);
    return Flow::Normal;
}

Flow Interpreter::execAugAssign(const ast::Stmt& s) {
    if (s.targets.empty() || !s.targets[0] || !s.value)
        return Flow::Normal;
    const ast::Expr& target = *s.targets[0];
    Value rhs = eval(*s.value);
    switch (target.kind) {
    case ast::ExprKind::Name: {
        Value current = lookup(target.name, target.range);
        if (current.kind == ValueKind::Buffer && current.buffer->scope == ir::MemoryScope::LocalVar) {
            Value loaded = loadElement(current.buffer, {Value::integer(0)}, target.range);
            storeElement(current, Value::integer(0), binary(s.binOp, loaded, rhs, s.range), target.range);
            return Flow::Normal;
        }
        if (current.kind == ValueKind::List && s.binOp == ast::BinOpKind::Add) {
            auto items = iterate(rhs, s.value->range);
            if (items)
                current.items->insert(current.items->end(), items->begin(), items->end());
            return Flow::Normal;
        }
        bindName(target.name, binary(s.binOp, current, rhs, s.range));
        return Flow::Normal;
    }
    case ast::ExprKind::Subscript: {
        if (!target.a || !target.b)
            return Flow::Normal;
        Value base = eval(*target.a);
        Value index = eval(*target.b);
        if (base.isInert() || index.isPoison())
            return Flow::Normal;
        if (base.kind == ValueKind::Buffer) {
            Value current = bufferSubscript(base.buffer, index, target.range);
            if (current.isPoison())
                return Flow::Normal;
            if (current.kind == ValueKind::Region) {
                error("unsupported-construct", target.range,
                      "augmented assignment to a buffer slice is not supported",
                      "use a T.Parallel loop over the elements");
                return Flow::Normal;
            }
            storeElement(base, index, binary(s.binOp, current, rhs, s.range), target.range);
            return Flow::Normal;
        }
        Value current = subscript(base, index, target.range);
        if (current.isPoison())
            return Flow::Normal;
        Value updated = binary(s.binOp, current, rhs, s.range);
        if (base.kind == ValueKind::List && index.isIntLike()) {
            int64_t k = index.i;
            if (normalizeIndex(k, base.items->size()))
                (*base.items)[static_cast<size_t>(k)] = updated;
        } else if (base.kind == ValueKind::Dict) {
            if (Value* slot = dictFind(*base.dict, index))
                *slot = updated;
        } else {
            error("type-error", target.range,
                  "'" + typeName(base) + "' object does not support item assignment");
        }
        return Flow::Normal;
    }
    case ast::ExprKind::Attribute: {
        if (!target.a)
            return Flow::Normal;
        Value base = eval(*target.a);
        if (base.kind == ValueKind::Object) {
            Value current = attribute(base, target.name, target.range, target.a->range);
            base.object->attrs[target.name] = binary(s.binOp, current, rhs, s.range);
        }
        return Flow::Normal;
    }
    case ast::ExprKind::Constant:
    case ast::ExprKind::FString:
    case ast::ExprKind::Slice:
    case ast::ExprKind::Call:
    case ast::ExprKind::BinOp:
    case ast::ExprKind::UnaryOp:
    case ast::ExprKind::BoolOp:
    case ast::ExprKind::Compare:
    case ast::ExprKind::IfExp:
    case ast::ExprKind::Lambda:
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List:
    case ast::ExprKind::Dict:
    case ast::ExprKind::ListComp:
    case ast::ExprKind::Starred:
    case ast::ExprKind::Unsupported:
        break;
    }
    error("unsupported-construct", target.range, "cannot assign to this expression");
    return Flow::Normal;
}

Flow Interpreter::execAnnAssign(const ast::Stmt& s) {
    if (s.targets.empty() || !s.targets[0])
        return Flow::Normal;
    const ast::Expr& target = *s.targets[0];
    if (s.value) {
        if (target.kind == ast::ExprKind::Name)
            m_pendingName = target.name;
        Value v = eval(*s.value);
        m_pendingName.clear();
        assign(target, v, s.value->range);
        return Flow::Normal;
    }
    // `A: T.Tensor((M, K), dtype)` inside an eager jit body declares a tensor parameter.
    if (m_trace && m_trace->eager && target.kind == ast::ExprKind::Name && s.annotation) {
        Value type = eval(*s.annotation);
        if (type.kind == ValueKind::TensorType) {
            Value buffer = makeTensorParam(type, target.name, target.range);
            if (buffer.kind == ValueKind::Buffer) {
                int position = 1 << 20;
                const std::vector<std::string>& names = m_trace->eagerParamNames;
                for (size_t k = 0; k < names.size(); ++k)
                    if (names[k] == target.name)
                        position = static_cast<int>(k);
                m_trace->eagerParams.emplace_back(position, buffer.buffer);
            }
            bindName(target.name, buffer);
        }
    }
    return Flow::Normal;
}

Flow Interpreter::execFunctionDef(const ast::Stmt& s) {
    Value f;
    f.kind = ValueKind::Function;
    f.fn = makeFunction(&s, nullptr);
    for (size_t k = s.decorators.size(); k-- > 0;) {
        if (!s.decorators[k])
            continue;
        Value d = eval(*s.decorators[k]);
        if (d.kind == ValueKind::Builtin) {
            if (d.s == "tilelang.jit")
                f.fn->isJit = true;
            else if (d.s == "T.prim_func")
                f.fn->isPrimFunc = true;
            else if (d.s == "T.macro")
                f.fn->isMacro = true;
        } else if (d.kind == ValueKind::Object && d.object->type == "jit-decorator") {
            f.fn->isJit = true;
            for (const auto& [k, v] : d.object->attrs)
                takeJitOption(*f.fn, k, v);
        } else if (d.kind == ValueKind::Object && d.object->type == "autotune-decorator") {
            applyAutotune(*f.fn, d);
        }
        // Other decorators (torch.no_grad, user wrappers) do not change what is elaborated.
    }
    bindName(s.name, f);
    if (m_env == m_globals && (f.fn->isJit || f.fn->isPrimFunc))
        m_definedKernels.push_back(f.fn);
    return Flow::Normal;
}

Flow Interpreter::execImport(const ast::Stmt& s) {
    auto canonical = [](std::string path) {
        if (path == "tilelang.language")
            return std::string("T");
        if (path == "tilelang.layout" || path == "T.layout")
            return std::string("layout");
        if (path == "tilelang.language.layout")
            return std::string("layout");
        return path;
    };
    if (s.kind == ast::StmtKind::Import) {
        for (const ast::Alias& a : s.aliases) {
            if (!a.asName.empty()) {
                bindName(a.asName, Value::ns(canonical(a.name)));
            } else {
                std::string root = a.name.substr(0, a.name.find('.'));
                bindName(root, Value::ns(canonical(root)));
            }
        }
        return Flow::Normal;
    }
    for (const ast::Alias& a : s.aliases) {
        if (a.name == "*")
            continue;
        std::string bound = a.asName.empty() ? a.name : a.asName;
        if (s.level > 0) {
            Value imported = Value::opaque(a.name);
            imported.origin = a.range;
            bindName(bound, imported);
            continue;
        }
        std::string module = canonical(s.name);
        std::string sub = canonical(s.name + "." + a.name);
        Value v;
        if (sub == "T" || sub == "layout") {
            v = Value::ns(sub);
        } else {
            ++m_quiet;
            v = namespaceAttr(module, a.name, a.range, s.name);
            --m_quiet;
            if (v.isInert())
                v = Value::opaque(s.name + "." + a.name);
        }
        if (v.isOpaque())
            v.origin = a.range; // a diagnostic about a value computed from it points at the import
        bindName(bound, v);
    }
    return Flow::Normal;
}

Flow Interpreter::execAssert(const ast::Stmt& s) {
    if (!s.test)
        return Flow::Normal;
    Value test = eval(*s.test);
    bool inert = false;
    std::optional<bool> t = truth(test, &inert);
    if (inert || !t)
        return Flow::Normal; // a run-time condition: not checked at elaboration time
    if (*t)
        return Flow::Normal;
    std::string message = "assertion failed";
    if (s.msg) {
        Value m = eval(*s.msg);
        if (!m.isInert())
            message += ": " + toStr(m);
    }
    std::string text = sourceText(s.test->range);
    error("assertion-failed", s.range, message,
          text.empty() ? "the assertion is false for the current parameters"
                       : "`" + text + "` is false for the current parameters");
    return Flow::Normal;
}

Flow Interpreter::execIf(const ast::Stmt& s) {
    if (!s.test)
        return Flow::Normal;
    Value test = eval(*s.test);
    bool inert = false;
    std::optional<bool> t = truth(test, &inert);
    if (inert)
        return Flow::Normal;
    if (t)
        return execBlock(*t ? s.body : s.orelse);
    if (!tracing()) {
        error("not-compile-time", s.test->range, "condition must be known at compile time",
              "run-time conditions are only allowed in kernel code");
        return Flow::Normal;
    }
    ir::ExprPtr cond = toExpr(test, s.test->range, "condition");
    if (!cond)
        return Flow::Normal;
    if (Flow flow; execThreadRangeIf(s, cond, flow))
        return flow;
    ++m_symbolicIfDepth;
    m_trace->emit.emplace_back();
    Flow f1 = execBlock(s.body);
    std::vector<ir::StmtPtr> thenStmts = std::move(m_trace->emit.back());
    m_trace->emit.pop_back();
    std::vector<ir::StmtPtr> elseStmts;
    Flow f2 = Flow::Normal;
    if (!s.orelse.empty()) {
        m_trace->emit.emplace_back();
        f2 = execBlock(s.orelse);
        elseStmts = std::move(m_trace->emit.back());
        m_trace->emit.pop_back();
    }
    --m_symbolicIfDepth;
    auto node = ir::makeStmt(ir::StmtKind::IfThenElse, s.range);
    node->cond = castTo(cond, ir::DType::Bool);
    node->body = ir::makeSeq(std::move(thenStmts), s.range);
    if (!s.orelse.empty())
        node->elseBody = ir::makeSeq(std::move(elseStmts), s.range);
    emit(node);
    if (f1 == Flow::Halt || f2 == Flow::Halt)
        return Flow::Halt;
    return Flow::Normal;
}

Flow Interpreter::execFor(const ast::Stmt& s) {
    if (!s.iter || !s.target)
        return Flow::Normal;
    Value iter = eval(*s.iter);
    if (iter.isInert())
        return Flow::Normal;
    if (iter.kind == ValueKind::LoopSpec || (iter.kind == ValueKind::Range && inKernel()))
        return execKernelFor(s, iter);
    // A range is walked lazily; other iterables are materialized first (Python iterates a snapshot too).
    std::optional<std::vector<Value>> items;
    int64_t count = 0;
    if (iter.kind == ValueKind::Range) {
        int64_t start = iter.range[0], stop = iter.range[1], st = iter.range[2];
        long double len = st > 0 ? std::ceil(((long double)stop - start) / st)
                                 : std::ceil(((long double)start - stop) / -st);
        count = len > 0 ? static_cast<int64_t>(std::min<long double>(len, 4e18L)) : 0;
    } else {
        items = iterate(iter, s.iter->range);
        if (!items)
            return Flow::Normal;
        count = static_cast<int64_t>(items->size());
    }
    m_loopIsKernel.push_back(false);
    Flow result = Flow::Normal;
    bool broke = false;
    for (int64_t n = 0; n < count; ++n) {
        if (!step(s.range)) {
            result = Flow::Halt;
            break;
        }
        Value item =
            items ? (*items)[static_cast<size_t>(n)] : Value::integer(iter.range[0] + n * iter.range[2]);
        assign(*s.target, item, s.iter->range);
        Flow flow = execBlock(s.body);
        if (flow == Flow::Break) {
            broke = true;
            break;
        }
        if (flow == Flow::Return || flow == Flow::Halt) {
            result = flow;
            break;
        }
    }
    m_loopIsKernel.pop_back();
    if (result == Flow::Normal && !broke && !s.orelse.empty())
        return execBlock(s.orelse);
    return result;
}

Flow Interpreter::execWhile(const ast::Stmt& s) {
    if (!s.test)
        return Flow::Normal;
    m_loopIsKernel.push_back(false);
    Flow result = Flow::Normal;
    bool broke = false;
    while (true) {
        if (!step(s.range)) {
            result = Flow::Halt;
            break;
        }
        Value test = eval(*s.test);
        bool inert = false;
        std::optional<bool> t = truth(test, &inert);
        if (inert)
            break;
        if (!t) {
            error("not-compile-time", s.test->range, "while condition must be known at compile time",
                  "use T.serial with a bound, or T.if_then_else, for run-time control flow");
            break;
        }
        if (!*t)
            break;
        Flow flow = execBlock(s.body);
        if (flow == Flow::Break) {
            broke = true;
            break;
        }
        if (flow == Flow::Return || flow == Flow::Halt) {
            result = flow;
            break;
        }
    }
    m_loopIsKernel.pop_back();
    if (result == Flow::Normal && !broke && !s.orelse.empty())
        return execBlock(s.orelse);
    return result;
}

} // namespace tb::elab
