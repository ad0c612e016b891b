// The host libraries real tile programs call around their kernels: argparse (so that main() functions
// that read their sizes from command-line defaults work), tilelang's host side (tilelang.jit as a call,
// tilelang.compile, f.compile(...), which record the first call of the kernel; the autotuner; get_num_sms
// from the target) and functools.partial. torch is HostTensors.cpp.
#include "engine/elaborate/Primitives.h"
#include "engine/target/Target.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

Value argumentParser(Interpreter& in, PrimitiveCall& call) {
    Value v = Value::hostObject("ArgumentParser");
    return v;
}

Value addArgument(Interpreter& in, PrimitiveCall& call) {
    if (!call.self || call.self->kind != ValueKind::Object)
        return Value::opaque(call.name + "(...)");
    auto& args = call.args;
    SourceRange range = call.range;
    const Value* self = call.self;
    auto& pos = call.args.positional;
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
        if (k == "action" && v.kind == ValueKind::Str && v.s == "store_true" && dflt.kind == ValueKind::None)
            dflt = Value::boolean(false);
        if (k == "action" && v.kind == ValueKind::Str && v.s == "store_false" && dflt.kind == ValueKind::None)
            dflt = Value::boolean(true);
    }
    // argparse applies `type` to string defaults.
    if (dflt.kind == ValueKind::Str && type.kind == ValueKind::Builtin) {
        CallArgs conv;
        conv.range = range;
        conv.positional = {dflt};
        conv.positionalRanges = {range};
        ++in.m_quiet;
        Value converted = in.call(type, conv, range);
        --in.m_quiet;
        if (!converted.isInert())
            dflt = converted;
    }
    if (!dest.empty())
        self->object->entries.emplace_back(dest, dflt);
    return Value::none();
}

Value parseArgs(Interpreter& in, PrimitiveCall& call) {
    if (!call.self || call.self->kind != ValueKind::Object)
        return Value::opaque(call.name + "(...)");
    const std::string& name = call.name;
    const Value* self = call.self;
    Value ns = Value::hostObject("Namespace");
    for (auto& [k, v] : self->object->entries)
        ns.object->attrs[k] = v;
    if (name == "argparse.parse_known_args")
        return Value::tuple({ns, Value::list({})});
    return ns;
}

// Other argparse calls (add_mutually_exclusive_group, print_help, ...): host values.
Value argparseFallback(Interpreter&, PrimitiveCall& call) {
    return Value::opaque(call.name + "(...)");
}

// get_kernel_source, get_profiler and the other methods of a jit function: host values.
Value jitFallback(Interpreter&, PrimitiveCall& call) {
    return Value::opaque(call.name + "(...)");
}

Value functoolsPartial(Interpreter&, PrimitiveCall&) {
    return Value::opaque("functools.partial(...)");
}

Value tilelangJit(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    auto& pos = call.args.positional;
    if (pos.size() == 1 && pos[0].kind == ValueKind::Function) {
        pos[0].fn->isJit = true;
        for (auto& [k, v] : args.keywords)
            takeJitOption(*pos[0].fn, k, v);
        return pos[0];
    }
    Value v = Value::hostObject("jit-decorator");
    for (auto& [k, val] : args.keywords)
        v.object->attrs[k] = val;
    return v;
}

Value tilelangCompile(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    auto& pos = call.args.positional;
    if (!pos.empty() && pos[0].kind == ValueKind::Function && pos[0].fn->isPrimFunc) {
        Value outIdx = pos.size() > 1 ? pos[1] : Value::none();
        for (auto& [k, v] : args.keywords)
            if (k == "out_idx")
                outIdx = v;
        if (!in.m_compileOutIdx)
            in.m_compileOutIdx = std::make_pair(pos[0].fn, outIdx);
        if (in.m_hostMode && !in.m_recorded) {
            in.m_recorded = RecordedCall{pos[0].fn, CallArgs{}, true};
        }
    }
    return Value::opaque("JITKernel");
}

// f.compile(M=...) and f.get_kernel_source(M=...) compile the kernel for these arguments: the first call.
Value jitCompile(Interpreter& in, PrimitiveCall& call) {
    if (!call.self || call.self->kind != ValueKind::Function)
        return Value::opaque(call.name + "(...)");
    if (call.name == "jit.get_kernel_source" && call.args.positional.empty() && call.args.keywords.empty())
        return Value::opaque(call.name + "(...)");
    auto& args = call.args;
    const Value* self = call.self;
    if (in.m_hostMode && !in.m_recorded && self->fn->isJit) {
        in.m_recorded = RecordedCall{self->fn, args, true};
        in.m_halt = true;
    }
    return Value::opaque("JITKernel " + self->fn->name);
}

// tilelang.carver.arch.driver.get_num_sms(): the SM count of the target compiled for.
Value getNumSms(Interpreter& in, PrimitiveCall&) {
    const Target& target = in.m_options && in.m_options->target ? *in.m_options->target : targetSm90a();
    return Value::integer(target.smCount);
}

// @tilelang.autotune(configs=...) / @autotune(...): the configs, for the decorated jit function.
Value tilelangAutotune(Interpreter& in, PrimitiveCall& call) {
    Value v = Value::hostObject("autotune-decorator");
    for (auto& [k, val] : call.args.keywords)
        v.object->attrs[k] = val;
    if (!call.args.positional.empty() && call.args.positional[0].kind == ValueKind::Function) {
        Value f = call.args.positional[0];
        applyAutotune(*f.fn, v);
        return f;
    }
    return v;
}

// itertools.product(*iterables) and itertools.chain(*iterables), as lists (autotune config grids).
Value itertoolsCall(Interpreter& in, PrimitiveCall& call) {
    std::vector<std::vector<Value>> pools;
    for (size_t k = 0; k < call.args.positional.size(); ++k) {
        auto items = in.iterate(call.args.positional[k], call.at(k));
        if (!items)
            return Value::opaque(call.name + "(...)");
        pools.push_back(std::move(*items));
    }
    std::vector<Value> out;
    if (call.name == "itertools.chain") {
        for (auto& pool : pools)
            out.insert(out.end(), pool.begin(), pool.end());
        return Value::list(std::move(out));
    }
    std::vector<std::vector<Value>> tuples{{}};
    for (const auto& pool : pools) {
        std::vector<std::vector<Value>> next;
        for (const auto& prefix : tuples)
            for (const Value& v : pool) {
                if (next.size() >= (1u << 16))
                    return in.error("value-error", call.range, "itertools.product() has too many elements",
                                    "use fewer or shorter iterables");
                next.push_back(prefix);
                next.back().push_back(v);
            }
        tuples = std::move(next);
    }
    for (auto& t : tuples)
        out.push_back(Value::tuple(std::move(t)));
    return Value::list(std::move(out));
}

// tilelang.math.next_power_of_2(n): the smallest power of two >= n (1 for n <= 1).
Value nextPowerOfTwo(Interpreter& in, PrimitiveCall& call) {
    if (!requirePositionalCount(in, call, 1, 1))
        return Value::poison();
    const Value& n = call.args.positional[0];
    if (!n.isIntLike())
        return n.isInert() ? n : in.error("type-error", call.at(0), "next_power_of_2() needs an integer");
    int64_t p = 1;
    while (p < n.i && p < (int64_t(1) << 62))
        p <<= 1;
    return Value::integer(p);
}

// tilelang.language.fp8.determine_fp8_type(fmt="e4m3"): on CUDA, float8_e4m3fn or float8_e5m2.
Value determineFp8Type(Interpreter& in, PrimitiveCall& call) {
    Value format = call.args.positional.empty() ? Value::str("e4m3") : call.args.positional[0];
    for (auto& [k, v] : call.args.keywords)
        if (k == "fp8_format")
            format = v;
    if (format.kind != ValueKind::Str || (format.s != "e4m3" && format.s != "e5m2"))
        return in.error("value-error", call.range, "unsupported FP8 format " + toRepr(format),
                        "use \"e4m3\" or \"e5m2\"");
    return Value::dtypeOf(format.s == "e4m3" ? ir::DType::Float8E4M3 : ir::DType::Float8E5M2);
}

// T.dtype(...).as_torch(): the same dtype, as torch names it.
Value dtypeAsTorch(Interpreter&, PrimitiveCall& call) {
    return call.self ? *call.self : Value::opaque(call.name + "(...)");
}

} // namespace

std::span<const PrimitiveRow> hostLibraries() {
    static const PrimitiveRow rows[] = {
        {"argparse.ArgumentParser", argumentParser},
        {"argparse.add_argument", addArgument},
        {"argparse.parse_args", parseArgs},
        {"argparse.parse_known_args", parseArgs},
        {"argparse.", argparseFallback},
        {"tilelang.jit", tilelangJit},
        {"tilelang.compile", tilelangCompile},
        {"jit.compile", jitCompile},
        {"jit.get_kernel_source", jitCompile},
        {"jit.", jitFallback},
        {"tilelang.get_num_sms", getNumSms},
        {"tilelang.autotune", tilelangAutotune},
        {"dtype.as_torch", dtypeAsTorch},
        {"itertools.product", itertoolsCall},
        {"tilelang.next_power_of_2", nextPowerOfTwo},
        {"tilelang.determine_fp8_type", determineFp8Type},
        {"itertools.chain", itertoolsCall},
        {"functools.partial", functoolsPartial},
    };
    return rows;
}

} // namespace tb::elab
