// The elaboration driver. Steps, in order:
//   1. run the module's host code leniently (imports, defs, constants, main()) until the first call of a
//      @tilelang.jit function (or f.compile(...), or tilelang.compile(prim_func)), which is recorded;
//   2. pick the entry: ElaborateOptions::entry, else the recorded callee, else the first jit function,
//      else the first module-level @T.prim_func;
//   3. bind the jit parameters: override > module call > the def's default; record each with its origin;
//   4. run the jit body (lazy style: it returns a @T.prim_func, which is traced with tensor parameters
//      from its annotations) or trace the body itself (eager style: T.const / annotations / T.empty).
#include "engine/elaborate/Elaborator.h"

#include "engine/elaborate/HostTensors.h"
#include "engine/elaborate/Interpreter.h"
#include "engine/frontend/Parser.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tb {

namespace elab {

namespace {

bool containsWith(const std::vector<ast::StmtPtr>& body) {
    for (const ast::StmtPtr& s : body) {
        if (!s)
            continue;
        switch (s->kind) {
        case ast::StmtKind::With:
            return true;
        case ast::StmtKind::If:
        case ast::StmtKind::For:
        case ast::StmtKind::While:
            if (containsWith(s->body) || containsWith(s->orelse))
                return true;
            break;
        case ast::StmtKind::Expr:
        case ast::StmtKind::Assign:
        case ast::StmtKind::AugAssign:
        case ast::StmtKind::AnnAssign:
        case ast::StmtKind::FunctionDef:
        case ast::StmtKind::ClassDef:
        case ast::StmtKind::Return:
        case ast::StmtKind::Assert:
        case ast::StmtKind::Pass:
        case ast::StmtKind::Break:
        case ast::StmtKind::Continue:
        case ast::StmtKind::Import:
        case ast::StmtKind::ImportFrom:
        case ast::StmtKind::Global:
        case ast::StmtKind::Unsupported:
            break;
        }
    }
    return false;
}

std::string floatLiteral(double x) {
    if (std::isinf(x))
        return x > 0 ? "float('inf')" : "float('-inf')";
    return toStr(Value::real(x));
}

// The Python literal text and typed value recorded for a specialization parameter.
void describeParam(const Value& v, ir::SpecializationParam& p) {
    switch (v.kind) {
    case ValueKind::Int:
        p.value = v.i;
        p.text = std::to_string(v.i);
        return;
    case ValueKind::Bool:
        p.value = v.i != 0;
        p.text = v.i ? "True" : "False";
        return;
    case ValueKind::Float:
        p.value = v.f;
        p.text = floatLiteral(v.f);
        return;
    case ValueKind::Str:
        p.value = v.s;
        p.text = toRepr(v);
        return;
    case ValueKind::DType:
        p.value = std::string(ir::dtypeName(v.dtype));
        p.text = std::string("T.") + ir::dtypeName(v.dtype);
        return;
    case ValueKind::Enum:
        p.value = v.s;
        p.text = v.s;
        return;
    default:
        p.value = std::monostate{};
        p.text = toRepr(v);
        return;
    }
}

// Names declared by `X: T.Tensor(...)` annotations at the top of an eager jit body, with the dims' names.
// `decide` picks the branch of a conditional shape (`(N, K) if trans_b else (K, N)`): true, false or unknown.
using ConditionDecider = std::function<std::optional<bool>(const ast::Expr&)>;

std::map<std::string, std::vector<std::string>> eagerAnnotations(const std::vector<ast::StmtPtr>& body,
                                                                 const ConditionDecider& decide = {}) {
    std::map<std::string, std::vector<std::string>> out;
    // Shapes named by a variable (`q_shape = [batch, 1, heads, dim]` then `Q: T.Tensor(q_shape, dtype)`).
    std::map<std::string, const ast::Expr*> shapeVariables;
    for (const ast::StmtPtr& s : body) {
        if (s && s->kind == ast::StmtKind::Assign && s->value && s->targets.size() == 1 && s->targets[0] &&
            s->targets[0]->kind == ast::ExprKind::Name) {
            const ast::Expr* value = s->value.get();
            if (value->kind == ast::ExprKind::IfExp && value->a && value->b && value->c && decide)
                if (std::optional<bool> branch = decide(*value->b))
                    value = *branch ? value->a.get() : value->c.get();
            if (value->kind == ast::ExprKind::Tuple || value->kind == ast::ExprKind::List) {
                shapeVariables[s->targets[0]->name] = value;
                continue;
            }
        }
        if (!s || s->kind != ast::StmtKind::AnnAssign || s->value || s->targets.empty() || !s->targets[0] ||
            s->targets[0]->kind != ast::ExprKind::Name || !s->annotation)
            continue;
        const ast::Expr& ann = *s->annotation;
        const ast::Expr* shape = nullptr;
        if (ann.kind == ast::ExprKind::Call && !ann.elements.empty())
            shape = ann.elements[0].get();
        else if (ann.kind == ast::ExprKind::Subscript && ann.b) {
            shape = ann.b.get();
            if (shape->kind == ast::ExprKind::Tuple && !shape->elements.empty() && !shape->parenthesized)
                shape = shape->elements[0].get();
        }
        if (shape && shape->kind == ast::ExprKind::Name && shapeVariables.count(shape->name))
            shape = shapeVariables[shape->name];
        std::vector<std::string> dims;
        if (shape && (shape->kind == ast::ExprKind::Tuple || shape->kind == ast::ExprKind::List))
            for (const ast::ExprPtr& d : shape->elements)
                dims.push_back(d && d->kind == ast::ExprKind::Name ? d->name : std::string());
        out[s->targets[0]->name] = dims;
    }
    return out;
}

} // namespace

Value Interpreter::constDims(const std::string& spec, SourceRange range) {
    std::vector<std::string> names;
    std::string current;
    for (char c : spec + ",") {
        if (c == ',' || c == ' ' || c == '\t') {
            if (!current.empty())
                names.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    if (names.empty())
        return error("wrong-arguments", range, "T.const needs at least one name");
    std::vector<Value> values;
    for (const std::string& n : names) {
        ir::SpecializationParam p;
        p.name = n;
        p.range = range;
        Value v;
        bool found = false;
        if (auto it = m_overrideValues.find(n); it != m_overrideValues.end()) {
            v = it->second;
            p.origin = ir::ParamOrigin::Override;
            found = true;
        }
        std::optional<std::pair<Value, SourceRange>> undetermined; // passed, but not known
        if (!found && m_recorded) {
            const CallArgs& call = m_recorded->args;
            for (size_t kw = 0; kw < call.keywords.size(); ++kw) {
                if (call.keywords[kw].first != n)
                    continue;
                if (!call.keywords[kw].second.isInert()) {
                    v = call.keywords[kw].second;
                    found = true;
                } else if (call.keywords[kw].second.isOpaque()) {
                    undetermined =
                        std::make_pair(call.keywords[kw].second,
                                       kw < call.keywordRanges.size() ? call.keywordRanges[kw] : call.range);
                }
            }
            if (!found && m_recorded->fn && m_recorded->fn->def) {
                // From the shape of a host tensor passed for an annotated parameter: A: T.Tensor((M, K),
                // ...).
                // The jit parameters are bound by now: a conditional shape's test can be evaluated.
                auto decide = [this](const ast::Expr& test) -> std::optional<bool> {
                    ++m_quiet;
                    Value t = eval(test);
                    --m_quiet;
                    bool inert = false;
                    std::optional<bool> known = truth(t, &inert);
                    return inert ? std::nullopt : known;
                };
                auto annotations = eagerAnnotations(m_recorded->fn->def->body, decide);
                const auto& params = *m_recorded->fn->params;
                for (size_t k = 0; k < params.size() && !found; ++k) {
                    auto it = annotations.find(params[k].name);
                    if (it == annotations.end())
                        continue;
                    const Value* arg =
                        k < m_recorded->args.positional.size() ? &m_recorded->args.positional[k] : nullptr;
                    for (auto& [kw, val] : m_recorded->args.keywords)
                        if (kw == params[k].name)
                            arg = &val;
                    if (!arg || !isTensor(*arg))
                        continue;
                    std::vector<Value> shape = tensorShape(*arg);
                    for (size_t d = 0; d < it->second.size() && d < shape.size(); ++d)
                        if (it->second[d] == n && shape[d].isIntLike()) {
                            v = shape[d];
                            found = true;
                        }
                }
            }
            if (found)
                p.origin = ir::ParamOrigin::ModuleCall;
        }
        if (!found) {
            p.origin = ir::ParamOrigin::Required;
            describeParam(Value::none(), p);
            p.text.clear();
            if (m_spec)
                m_spec->push_back(p);
            if (undetermined && m_recorded->fn)
                reportUndetermined("compile-time dim '" + n + "' of '" + m_recorded->fn->name + "'", n, range,
                                   undetermined->first, undetermined->second);
            else
                error("missing-parameter", range, "compile-time dim '" + n + "' has no value",
                      "pass -p " + n + "=VALUE, or call the kernel with tensors whose shapes give it");
            values.push_back(Value::poison());
            continue;
        }
        describeParam(v, p);
        if (m_spec &&
            std::none_of(m_spec->begin(), m_spec->end(), [&](const auto& q) { return q.name == n; }))
            m_spec->push_back(p);
        values.push_back(v);
    }
    if (values.size() == 1)
        return values[0];
    return Value::tuple(values);
}

std::optional<ir::PrimFunc> Interpreter::tracePrimFunc(const std::shared_ptr<FunctionData>& fn,
                                                       const Value* outIdx) {
    m_trace = std::make_unique<TraceState>();
    m_trace->emit.emplace_back();
    ir::PrimFunc pf;
    pf.name = fn->name;
    pf.range = fn->range;
    Env* env = newEnv(fn->closure);
    Env* saved = m_env;
    m_env = env;
    bool ok = true;
    std::vector<const ir::Var*> scalarParams;
    // out_idx counts every parameter, scalars too (as TileLang's adapters do): the tensor index of each, or
    // -1.
    std::vector<int> tensorIndexOfParam;
    if (fn->params) {
        for (const ast::Param& p : *fn->params) {
            if (!p.annotation) {
                error("not-a-buffer", p.range,
                      "parameter '" + p.name + "' of @T.prim_func '" + fn->name +
                          "' has no T.Tensor annotation",
                      "annotate it, e.g. " + p.name + ": T.Tensor((M, K), \"float16\")");
                ok = false;
                env->vars[p.name] = Value::poison();
                continue;
            }
            Value type = eval(*p.annotation);
            tensorIndexOfParam.push_back(
                type.kind == ValueKind::TensorType ? static_cast<int>(pf.params.size()) : -1);
            if (type.kind == ValueKind::TensorType) {
                Value buf = makeTensorParam(type, p.name, p.range);
                if (buf.kind == ValueKind::Buffer) {
                    buf.buffer->paramIndex = static_cast<int>(pf.params.size());
                    pf.params.push_back(buf.buffer);
                } else {
                    ok = false;
                }
                env->vars[p.name] = buf;
            } else if (type.kind == ValueKind::DType) {
                ir::Var* v = m_out.newVar(uniqueName(p.name), type.dtype, ir::VarKind::DynamicDim, p.range);
                scalarParams.push_back(v);
                env->vars[p.name] = Value::symbolic(ir::makeVarRef(v, p.range));
            } else {
                if (!type.isPoison())
                    error("not-a-buffer", p.annotation->range,
                          "parameter '" + p.name + "' must be annotated with T.Tensor(shape, dtype), not " +
                              typeName(type));
                ok = false;
                env->vars[p.name] = Value::poison();
            }
        }
    }
    if (fn->def)
        execBlock(fn->def->body);
    m_env = saved;
    pf.body = ir::makeSeq(std::move(m_trace->emit.front()), fn->range);
    std::vector<const ir::Buffer*> workspaces = std::move(m_trace->workspaces);
    m_trace.reset();
    if (outIdx && outIdx->kind != ValueKind::None) {
        std::vector<Value> indices = outIdx->isSequence() ? *outIdx->items : std::vector<Value>{*outIdx};
        for (const Value& v : indices) {
            if (!v.isIntLike()) {
                error("type-error", fn->range, "out_idx entries must be integers, not " + typeName(v));
                continue;
            }
            int64_t count = static_cast<int64_t>(tensorIndexOfParam.size());
            int64_t k = v.i < 0 ? v.i + count : v.i;
            if (k < 0 || k >= count) {
                error("index-out-of-range", fn->range,
                      "out_idx " + std::to_string(v.i) + " is out of range for '" + fn->name + "' with " +
                          std::to_string(count) + " parameters");
                continue;
            }
            int tensor = tensorIndexOfParam[static_cast<size_t>(k)];
            if (tensor < 0) {
                error("type-error", fn->range,
                      "out_idx " + std::to_string(v.i) + " names parameter '" + (*fn->params)[k].name +
                          "' of '" + fn->name + "', which is a scalar, not a tensor",
                      "out_idx lists the positions of output tensors among all of the kernel's parameters");
                continue;
            }
            const_cast<ir::Buffer*>(pf.params[static_cast<size_t>(tensor)])->isOutput = true;
        }
    }
    pf.dynamicDims = m_dynamicDims;
    pf.dynamicDims.insert(pf.dynamicDims.end(), scalarParams.begin(), scalarParams.end());
    pf.workspaces = std::move(workspaces);
    if (!ok)
        return std::nullopt;
    return pf;
}

std::optional<ir::PrimFunc> Interpreter::traceEager(const std::shared_ptr<FunctionData>& fn, Env* env) {
    m_trace = std::make_unique<TraceState>();
    m_trace->eager = true;
    m_trace->emit.emplace_back();
    for (const ast::Param& p : *fn->params)
        m_trace->eagerParamNames.push_back(p.name);
    ir::PrimFunc pf;
    pf.name = fn->name;
    pf.range = fn->range;
    Env* saved = m_env;
    m_env = env;
    execBlock(fn->def->body);
    m_env = saved;
    pf.body = ir::makeSeq(std::move(m_trace->emit.front()), fn->range);
    std::stable_sort(m_trace->eagerParams.begin(), m_trace->eagerParams.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [position, buffer] : m_trace->eagerParams) {
        buffer->paramIndex = static_cast<int>(pf.params.size());
        pf.params.push_back(buffer);
    }
    for (ir::Buffer* buffer : m_trace->eagerOutputs) {
        buffer->paramIndex = static_cast<int>(pf.params.size());
        pf.params.push_back(buffer);
    }
    pf.dynamicDims = m_dynamicDims;
    pf.workspaces = std::move(m_trace->workspaces);
    m_trace.reset();
    return pf;
}

// 1. Host code, leniently: the module body, then main() unless a kernel call was already recorded.
void Interpreter::runHostCode(const ast::Module& module) {
    m_hostMode = true;
    ++m_quiet;
    execBlock(module.body);
    if (!m_recorded && !m_aborted) {
        m_halt = false;
        auto it = m_globals->vars.find("main");
        if (it != m_globals->vars.end() && it->second.kind == ValueKind::Function && !it->second.fn->isJit &&
            !it->second.fn->isPrimFunc) {
            CallArgs none;
            none.range = it->second.fn->range;
            callFunction(it->second.fn, none, none.range);
        }
    }
    --m_quiet;
    m_hostMode = false;
    m_halt = false;
    m_aborted = false;
    m_steps = 0;
    m_callDepth = 0;
    m_depth = 0;
    m_env = m_globals;
}

// 2. The entry: ElaborateOptions::entry, else the recorded callee, else the first jit function, else the
// first module-level @T.prim_func. Null after a diagnostic.
std::shared_ptr<FunctionData> Interpreter::chooseEntry(const ElaborateOptions& options,
                                                       SourceRange fileStart) {
    std::shared_ptr<FunctionData> entry;
    if (!options.entry.empty()) {
        auto it = m_globals->vars.find(options.entry);
        if (it != m_globals->vars.end() && it->second.kind == ValueKind::Function)
            entry = it->second.fn;
        if (!entry || (!entry->isJit && !entry->isPrimFunc)) {
            std::vector<std::string> names;
            for (const auto& fn : m_definedKernels)
                names.push_back(fn->name);
            std::string best = closestName(options.entry, names);
            std::string defined;
            for (size_t k = 0; k < names.size(); ++k)
                defined += (k ? ", " : "") + names[k];
            m_diagnostics.error("no-kernel", fileStart,
                                "no @tilelang.jit function or @T.prim_func named '" + options.entry + "'",
                                best.empty() ? "the module defines: " + (defined.empty() ? "none" : defined)
                                             : "did you mean '" + best + "'?");
            return nullptr;
        }
        return entry;
    }
    if (m_recorded && m_recorded->fn)
        return m_recorded->fn;
    for (const auto& fn : m_definedKernels)
        if (fn->isJit)
            return fn;
    if (!m_definedKernels.empty())
        return m_definedKernels.front();
    Diagnostic& d = m_diagnostics.error(
        "no-kernel", fileStart, "no @tilelang.jit function or @T.prim_func found",
        "decorate the kernel with @tilelang.jit (returning a @T.prim_func) or @T.prim_func");
    // A module body cut short by the step or recursion limit never reached its kernel's definition.
    if (m_hostStop)
        d.notes.push_back(*m_hostStop);
    return nullptr;
}

// Overrides, each parsed as a Python expression and evaluated in the module scope.
bool Interpreter::evaluateOverrides(const ElaborateOptions& options, SourceRange fileStart) {
    for (const auto& [name, text] : options.overrides) {
        SourceManager local;
        FileId file = local.addFile("<-p " + name + ">", text);
        DiagnosticEngine localDiagnostics;
        auto parsed = std::make_unique<ast::Module>(parseModule(local, file, localDiagnostics));
        Value v = Value::poison();
        if (!localDiagnostics.hasErrors() && parsed->body.size() == 1 && parsed->body[0] &&
            parsed->body[0]->kind == ast::StmtKind::Expr && parsed->body[0]->value) {
            ++m_quiet;
            v = eval(*parsed->body[0]->value);
            --m_quiet;
        }
        m_overrideAsts.push_back(std::move(parsed));
        if (v.isInert()) {
            m_diagnostics.error("invalid-override", fileStart,
                                "override " + name + "=" + text + " is not a valid Python value",
                                "write VALUE as a Python literal, e.g. -p " + name +
                                    "=128 or -p dtype='float16'");
            return false;
        }
        m_overrideValues[name] = v;
    }
    return true;
}

// The first config of @autotune(configs=...) (a list of dicts, or a function of the call's arguments that
// returns one): TileLang tunes over them, TileBench compiles the first. Null when there is none.
std::shared_ptr<DictData> Interpreter::firstAutotuneConfig(const std::shared_ptr<FunctionData>& entry) {
    if (!entry->autotuneConfigs)
        return nullptr;
    Value configs = *entry->autotuneConfigs;
    if (configs.kind == ValueKind::Function) {
        CallArgs args = m_recorded && m_recorded->fn == entry ? m_recorded->args : CallArgs{};
        bool host = m_hostMode;
        m_hostMode = true;
        ++m_quiet;
        configs = callFunction(configs.fn, args, configs.fn->range);
        --m_quiet;
        m_hostMode = host;
    }
    if (!configs.isSequence() || configs.items->empty() || configs.items->front().kind != ValueKind::Dict)
        return nullptr;
    return configs.items->front().dict;
}

// A parameter (or T.const dim) that host code passes but the host evaluator could not determine: the
// message names it, the argument as written and where its value stopped being known.
void Interpreter::reportUndetermined(const std::string& what, const std::string& name, SourceRange declared,
                                     const Value& passed, SourceRange argumentRange) {
    std::string argument = sourceText(argumentRange);
    std::string origin = passed.origin.valid ? sourceText(passed.origin) : std::string();
    std::string message = "cannot determine " + what + ": ";
    message += argument.empty() ? "the value passed" : "`" + argument + "`";
    if (!origin.empty() && origin != argument)
        message += " depends on `" + origin + "`";
    message += ", which TileBench's host evaluator does not model";
    if (!passed.s.empty() && passed.s.rfind("error:", 0) != 0)
        message += " (" + passed.s + ")";
    Diagnostic& d = m_diagnostics.error("missing-parameter", argumentRange.valid ? argumentRange : declared,
                                        message, "pass -p " + name + "=VALUE");
    if (passed.origin.valid && passed.origin.begin != argumentRange.begin)
        d.notes.push_back({passed.origin, "the value is not known from here on"});
    d.notes.push_back({declared, what});
}

// A size of a tensor that host code made with a function the evaluator does not model
// (`generate_qkv(q, ...)[0].shape[0]`, the unpadded token count of a varlen batch): an integer, but one that
// depends on the data.
bool Interpreter::isUnmodelledTensorSize(const Value& passed) const {
    if (passed.isPoison() || passed.s.rfind("error:", 0) == 0)
        return false;
    return passed.s.find(".shape") != std::string::npos || passed.s.find(".size(") != std::string::npos;
}

// Such a size passed as a jit parameter becomes a dynamic dim of the kernel (as if written T.dynamic(name)),
// so the kernel is checked for every value it can take; a warning says so, and -p gives it one value.
Value Interpreter::dataDependentDim(const std::string& name, const std::string& function, const Value& passed,
                                    SourceRange argumentRange) {
    std::string origin = passed.origin.valid ? sourceText(passed.origin) : std::string();
    std::string message = "parameter '" + name + "' of '" + function + "' depends on data (";
    message += passed.s + (origin.empty() ? "" : ", through `" + origin + "`");
    message += "); it is compiled as a dynamic dim, valid for every value";
    m_diagnostics.warning("data-dependent-parameter", argumentRange, message,
                          "pass -p " + name +
                              "=VALUE to compile it for one value, as TileLang does on each call");
    return dynamicDimNamed(name, ir::DType::Int32, argumentRange);
}

// The kernel's dynamic dim of that name, made on first use (T.dynamic("M") twice is one dim).
Value Interpreter::dynamicDimNamed(const std::string& name, ir::DType type, SourceRange range) {
    for (const ir::Var* v : m_dynamicDims)
        if (v->name == name)
            return Value::symbolic(ir::makeVarRef(v, range));
    ir::Var* dim = m_out.newVar(name, type, ir::VarKind::DynamicDim, range);
    m_dynamicDims.push_back(dim);
    return Value::symbolic(ir::makeVarRef(dim, range));
}

// 3. The jit parameters, into env: override > module call > the first autotune config > the def's
// default > a dynamic dim for a data-dependent size; each is recorded with its origin. Tensor parameters of
// an eager body (annotated) are bound later by their annotations. Returns false when a parameter has no
// value (after a diagnostic).
bool Interpreter::bindJitParameters(const std::shared_ptr<FunctionData>& entry,
                                    const std::map<std::string, std::vector<std::string>>& annotated,
                                    Env* env, std::set<std::string>& usedOverrides) {
    bool fromRecorded = m_recorded && m_recorded->fn == entry;
    std::shared_ptr<DictData> config = firstAutotuneConfig(entry);
    const std::vector<ast::Param>& params = *entry->params;
    bool missing = false;
    size_t positional = 0;
    for (size_t k = 0; k < params.size(); ++k) {
        const ast::Param& p = params[k];
        if (p.kind == ast::ParamKind::VarArgs) {
            env->vars[p.name] = Value::tuple({});
            continue;
        }
        if (p.kind == ast::ParamKind::VarKeywords) {
            env->vars[p.name] = Value::dictionary();
            continue;
        }
        size_t position = p.kind == ast::ParamKind::Positional ? positional++ : SIZE_MAX;
        if (annotated.count(p.name)) {
            env->vars[p.name] = Value::none(); // a tensor: bound by its annotation in the body
            continue;
        }
        ir::SpecializationParam sp;
        sp.name = p.name;
        sp.range = p.range;
        std::optional<Value> value;
        std::optional<std::pair<Value, SourceRange>> undetermined; // passed, but not known
        if (auto it = m_overrideValues.find(p.name); it != m_overrideValues.end()) {
            value = it->second;
            sp.origin = ir::ParamOrigin::Override;
            usedOverrides.insert(p.name);
        }
        if (!value && fromRecorded) {
            const CallArgs& call = m_recorded->args;
            auto take = [&](const Value& v, SourceRange r) {
                if (v.isInert())
                    undetermined = std::make_pair(v, r);
                else
                    value = v;
            };
            if (position < call.positional.size())
                take(call.positional[position],
                     position < call.positionalRanges.size() ? call.positionalRanges[position] : call.range);
            for (size_t kw = 0; kw < call.keywords.size(); ++kw)
                if (call.keywords[kw].first == p.name)
                    take(call.keywords[kw].second,
                         kw < call.keywordRanges.size() ? call.keywordRanges[kw] : call.range);
            if (value)
                sp.origin = ir::ParamOrigin::ModuleCall;
        }
        if (!value && config) {
            if (Value* v = dictFind(*config, Value::str(p.name)); v && !v->isInert()) {
                value = *v;
                sp.origin = ir::ParamOrigin::Autotune;
            }
        }
        if (!value && k < entry->defaults.size() && entry->defaults[k] && !entry->defaults[k]->isInert()) {
            value = *entry->defaults[k];
            sp.origin = ir::ParamOrigin::Default;
        }
        if (!value && undetermined && isUnmodelledTensorSize(undetermined->first)) {
            value = dataDependentDim(p.name, entry->name, undetermined->first, undetermined->second);
            sp.origin = ir::ParamOrigin::DataDependent;
        }
        if (!value) {
            sp.origin = ir::ParamOrigin::Required;
            m_out.specialization.push_back(sp);
            if (undetermined && !undetermined->first.isPoison())
                reportUndetermined("parameter '" + p.name + "' of '" + entry->name + "'", p.name, p.range,
                                   undetermined->first, undetermined->second);
            else
                m_diagnostics.error("missing-parameter", p.range,
                                    "parameter '" + p.name + "' of '" + entry->name + "' has no value",
                                    "pass -p " + p.name + "=VALUE");
            missing = true;
            continue;
        }
        describeParam(*value, sp);
        m_out.specialization.push_back(sp);
        env->vars[p.name] = *value;
    }
    return !missing;
}

// 4. The kernel of a jit function: run the body (lazy style: it returns a @T.prim_func, which is traced
// with tensor parameters from its annotations) or trace the body itself (eager style). Returns false when
// elaboration stops before the kernel exists; `func` stays empty when tracing failed.
bool Interpreter::elaborateJit(const std::shared_ptr<FunctionData>& entry,
                               std::set<std::string>& usedOverrides, size_t errorsBefore,
                               std::optional<ir::PrimFunc>& func) {
    bool eager = containsWith(entry->def->body);
    auto annotated =
        eager ? eagerAnnotations(entry->def->body) : std::map<std::string, std::vector<std::string>>{};
    Env* env = newEnv(entry->closure);
    env->captured = true;
    if (!bindJitParameters(entry, annotated, env, usedOverrides))
        return false;
    if (eager) {
        func = traceEager(entry, env);
        return true;
    }
    Env* saved = m_env;
    m_env = env;
    ++m_callDepth;
    Flow flow = execBlock(entry->def->body);
    --m_callDepth;
    m_env = saved;
    Value result = flow == Flow::Return ? m_returnValue : Value::none();
    m_returnValue = Value::none();
    if (result.isPoison() || m_aborted)
        return false;
    if (result.kind != ValueKind::Function) {
        if (m_diagnostics.errorCount() == errorsBefore)
            m_diagnostics.error(
                "no-kernel", entry->range,
                "jit function '" + entry->name + "' returned " + typeName(result) + ", not a @T.prim_func",
                "return the inner @T.prim_func, or write the kernel in the jit body (eager style)");
        return false;
    }
    func = tracePrimFunc(result.fn, entry->outIdx.get());
    return true;
}

bool Interpreter::elaborateModule(const ast::Module& module, const ElaborateOptions& options) {
    m_options = &options;
    m_spec = &m_out.specialization;
    m_globals->vars["__name__"] = Value::str("__main__");
    runHostCode(module);

    SourceRange fileStart = SourceRange::make(module.file, 0, 0);
    std::shared_ptr<FunctionData> entry = chooseEntry(options, fileStart);
    if (!entry || !evaluateOverrides(options, fileStart))
        return false;

    m_out.jitFunction = entry->isJit ? entry->name : std::string();
    size_t errorsBefore = m_diagnostics.errorCount();
    std::set<std::string> usedOverrides;
    std::optional<ir::PrimFunc> func;
    if (entry->isJit && entry->def) {
        if (!elaborateJit(entry, usedOverrides, errorsBefore, func))
            return false;
    } else {
        Value outIdx = Value::none();
        if (m_compileOutIdx && m_compileOutIdx->first == entry)
            outIdx = m_compileOutIdx->second;
        func = tracePrimFunc(entry, &outIdx);
    }
    for (const auto& given : m_overrideValues) {
        const std::string& name = given.first; // not a structured binding: clang 14 cannot capture those
        bool used = usedOverrides.count(name) ||
                    std::any_of(m_out.specialization.begin(), m_out.specialization.end(), [&](const auto& p) {
                        return p.name == name && p.origin == ir::ParamOrigin::Override;
                    });
        if (!used)
            m_diagnostics.warning("unused-override", fileStart,
                                  "override '" + name + "' does not name a parameter of '" + entry->name +
                                      "'");
    }
    if (!func || m_aborted)
        return false;
    func->fastMath =
        passConfigEnabled(entry->passConfigs.get(), "tl.enable_fast_math", "TL_ENABLE_FAST_MATH");
    m_out.funcs.push_back(std::move(*func));
    return m_diagnostics.errorCount() == errorsBefore;
}

} // namespace elab

std::unique_ptr<ir::Module> elaborate(const SourceManager& sources, const ast::Module& module,
                                      const ElaborateOptions& options, DiagnosticEngine& diagnostics) {
    auto out = std::make_unique<ir::Module>();
    if (module.file < sources.fileCount())
        out->sourceName = sources.file(module.file).name();
    size_t errorsBefore = diagnostics.errorCount();
    bool ok = false;
    try {
        elab::Interpreter interpreter(sources, diagnostics, *out, module.file);
        ok = interpreter.elaborateModule(module, options);
    } catch (const std::exception& e) {
        // Never let an internal failure escape the engine API.
        diagnostics.error("internal-error", SourceRange::make(module.file, 0, 0),
                          std::string("elaboration failed internally: ") + e.what(),
                          "please report this program to the TileBench developers");
        return nullptr;
    }
    if (!ok || diagnostics.errorCount() > errorsBefore)
        return nullptr;
    return out;
}

} // namespace tb
