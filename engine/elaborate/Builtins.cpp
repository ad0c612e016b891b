// Calls of builtins and module attributes: binding call arguments to a signature written as text,
// compile-time int and dtype arguments, the dispatch of a builtin call to the tile or host primitive tables
// (PrimitiveTable.cpp), and module attribute resolution (T, tilelang.layout, math, torch, ...) with
// suggestions.
#include "engine/elaborate/HostTensors.h"
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
                     best.empty()
                         ? "TileBench does not model it; see the TileBench language reference for the "
                           "supported subset"
                         : "did you mean '" + shownBase + "." + best + "'?");
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
    // TileLang's host helpers: the SM count of the target (tilelang.carver.arch.driver.get_num_sms) and
    // the autotuner, whose first config stands for the tuned parameters.
    if (attr == "get_num_sms" && path.rfind("tilelang", 0) == 0)
        return Value::builtin("tilelang.get_num_sms");
    if (attr == "autotune" && (path == "tilelang" || path.rfind("tilelang.autotuner", 0) == 0))
        return Value::builtin("tilelang.autotune");
    if (full == "tilelang.carver" || full == "tilelang.carver.arch" ||
        full == "tilelang.carver.arch.driver" || full == "tilelang.autotuner" || full == "tilelang.utils" ||
        full == "tilelang.utils.target")
        return Value::ns(full);
    if (attr == "determine_fp8_type" && path.rfind("tilelang", 0) == 0)
        return Value::builtin("tilelang.determine_fp8_type");
    // tilelang.intrinsics (tilelang.cuda.intrinsics in newer releases) and its submodules: the swizzle index
    // function and the mma emitter (TileIntrinsics.cpp).
    if (full == "tilelang.cuda" || full == "tilelang.intrinsics" || full == "tilelang.cuda.intrinsics")
        return Value::ns(full);
    if (path.rfind("tilelang.intrinsics", 0) == 0 || path.rfind("tilelang.cuda.intrinsics", 0) == 0) {
        if (attr == "get_swizzle_layout" || attr == "TensorCoreIntrinEmitter")
            return Value::builtin("tilelang.intrinsics." + attr);
        if (attr == "macro" || attr == "layout" || attr == "mma_macro_generator" || attr == "mma_layout" ||
            attr == "utils")
            return Value::ns(full);
        return Value::opaque(full);
    }
    if (full == "tvm.DataType" || full == "tilelang.DataType")
        return Value::builtin("T.dtype");
    if (full == "tilelang.cdiv")
        return Value::builtin("T.ceildiv");
    if (full == "tilelang.math")
        return Value::ns(full);
    if ((path == "tilelang.math" || path == "tilelang") && attr == "next_power_of_2")
        return Value::builtin("tilelang.next_power_of_2");
    if (path == "tilelang") {
        if (attr == "jit" || attr == "compile")
            return Value::builtin(full);
        if (attr == "language")
            return Value::ns("T");
        if (attr == "layout")
            return Value::ns("layout");
        return Value::opaque(full);
    }
    if (path == "torch" && (attr == "cuda" || attr == "version" || attr == "random" || attr == "nn"))
        return Value::ns(full);
    if (full == "torch.nn.functional")
        return Value::ns(full);
    if (path == "torch.nn.functional") // F.softmax(t, dim), F.pad(t, pads), ...: shapes (HostTensors.cpp)
        return Value::builtin(full);
    if (full == "torch.inf")
        return Value::real(std::numeric_limits<double>::infinity());
    if (path == "torch" || path == "numpy") {
        if (auto t = ir::parseDType(attr))
            return Value::dtypeOf(*t);
        if (path == "torch" && isTorchFunction(attr))
            return Value::builtin("torch." + attr);
        return Value::opaque(full);
    }
    // The device queries answer from the target; torch.version.hip is None on CUDA.
    if (path == "torch.cuda" || path == "torch.random") {
        if (attr == "get_device_capability" || attr == "is_available" || attr == "current_device" ||
            attr == "get_device_properties" || attr == "device_count" || attr == "manual_seed" ||
            attr == "synchronize")
            return Value::builtin(full);
        return Value::opaque(full);
    }
    if (path == "torch.version")
        return attr == "hip" ? Value::none() : Value::opaque(full);
    // flash-linear-attention's l2norm_fwd, by shape (HostTensors.cpp).
    if (full == "fla.modules.l2norm.l2norm_fwd")
        return Value::builtin(full);
    if (path == "itertools" && (attr == "product" || attr == "chain"))
        return Value::builtin(full);
    if (path == "argparse" && attr == "ArgumentParser")
        return Value::builtin(full);
    if (path == "functools" && attr == "partial")
        return Value::builtin(full);
    return Value::opaque(full);
}

} // namespace tb::elab
