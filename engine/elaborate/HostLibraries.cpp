// The host libraries real tile programs call around their kernels: argparse (so that main() functions
// that read their sizes from command-line defaults work), tilelang's host side (tilelang.jit as a call,
// tilelang.compile, f.compile(...), which record the first call of the kernel), torch tensor constructors
// (Opaque, but with their shape, for eager T.const binding) and functools.partial.
#include "engine/elaborate/Primitives.h"

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

Value argumentParser(Interpreter& in, PrimitiveCall& call) {
    Value v;
    v.kind = ValueKind::Object;
    v.object = std::make_shared<ObjectData>();
    v.object->type = "ArgumentParser";
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
    Value v;
    v.kind = ValueKind::Object;
    v.object = std::make_shared<ObjectData>();
    v.object->type = "jit-decorator";
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

Value jitCompile(Interpreter& in, PrimitiveCall& call) {
    if (!call.self || call.self->kind != ValueKind::Function)
        return Value::opaque(call.name + "(...)");
    auto& args = call.args;
    const Value* self = call.self;
    if (in.m_hostMode && !in.m_recorded && self->fn->isJit) {
        in.m_recorded = RecordedCall{self->fn, args, true};
        in.m_halt = true;
    }
    return Value::opaque("JITKernel " + self->fn->name);
}

Value torchConstructor(Interpreter& in, PrimitiveCall& call) {
    const std::string& name = call.name;
    auto& pos = call.args.positional;
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
        {"jit.", jitFallback},
        {"torch.", torchConstructor},
        {"functools.partial", functoolsPartial},
    };
    return rows;
}

} // namespace tb::elab
