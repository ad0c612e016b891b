// The primitive tables put together: Interpreter::callTileOp and Interpreter::callHostBuiltin look a name up
// in the rows of the families (Primitives.h) and call its handler. The names of `T` and tilelang.layout that
// attribute lookup accepts are the tables' names, so a new row is all a new primitive needs.
#include "engine/elaborate/HostTensors.h"
#include "engine/elaborate/Primitives.h"

#include <algorithm>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tb::elab {

namespace {

using Index = std::unordered_map<std::string_view, PrimitiveHandler>;

// An index over several families; the first row of a name wins (tests check that names are unique).
Index indexOf(std::initializer_list<std::span<const PrimitiveRow>> families) {
    Index index;
    for (std::span<const PrimitiveRow> family : families)
        for (const PrimitiveRow& row : family)
            index.emplace(row.name, row.handler);
    return index;
}

const std::vector<std::span<const PrimitiveRow>>& tileFamilies() {
    static const std::vector<std::span<const PrimitiveRow>> families = {
        loopAndKernelPrimitives(), memoryPrimitives(), computePrimitives(),         elementMathPrimitives(),
        layoutPrimitives(),        typePrimitives(),   synchronizationPrimitives(), scanPrimitives(),
        asyncCopyPrimitives(),     im2colPrimitives()};
    return families;
}

const Index& tileIndex() {
    static const Index index = [] {
        Index out;
        for (std::span<const PrimitiveRow> family : tileFamilies())
            for (const PrimitiveRow& row : family)
                out.emplace(row.name, row.handler);
        return out;
    }();
    return index;
}

const Index& layoutModuleIndex() {
    static const Index index = indexOf({layoutModulePrimitives()});
    return index;
}

const Index& hostIndex() {
    static const Index index = indexOf({pythonBuiltins(), mathModule(), valueMethods(), hostLibraries(),
                                        torchTensors(), hostClasses(), intrinsicsModule()});
    return index;
}

PrimitiveHandler find(const Index& index, std::string_view name) {
    auto it = index.find(name);
    return it == index.end() ? nullptr : it->second;
}

} // namespace

Value Interpreter::callTileOp(const std::string& name, CallArgs& args, SourceRange range, bool& handled) {
    std::string op = name.substr(name.find('.') + 1);
    bool layoutModule = name.rfind("layout.", 0) == 0;
    PrimitiveHandler handler = find(layoutModule ? layoutModuleIndex() : tileIndex(), op);
    handled = handler != nullptr;
    if (!handler)
        return Value::poison();
    PrimitiveCall call{name, op, nullptr, args, range};
    return handler(*this, call);
}

Value Interpreter::callHostBuiltin(const std::string& name, const Value* self, CallArgs& args,
                                   SourceRange range, bool& handled) {
    handled = true;
    // A Python builtin of a host value the elaborator does not model is such a value too.
    if (name.rfind("builtins.", 0) == 0 && name != "builtins.print" && name != "builtins.isinstance")
        for (const Value& v : args.positional)
            if (v.isOpaque())
                return Value::opaque(name + "(...)");
    // len() of a tensor is its first size; int(), float(), bool() and round() read its data.
    if (name == "builtins.len" && args.positional.size() == 1 && isTensor(args.positional[0])) {
        std::vector<Value> shape = tensorShape(args.positional[0]);
        return shape.empty() ? Value::opaque("len() of a 0-d tensor") : shape[0];
    }
    if ((name == "builtins.int" || name == "builtins.float" || name == "builtins.bool" ||
         name == "builtins.round") &&
        !args.positional.empty() && isTensor(args.positional[0]))
        return Value::opaque("the data of a tensor (" + name.substr(9) +
                             "()); TileBench models tensors as shape, dtype and device only");
    PrimitiveHandler handler = find(hostIndex(), name);
    if (!handler && name.find('.') != std::string::npos)
        handler = find(hostIndex(), std::string_view(name).substr(0, name.find('.') + 1));
    if (!handler) {
        handled = false;
        return Value::poison();
    }
    std::string op = name.substr(name.find('.') + 1);
    PrimitiveCall call{name, op, self, args, range};
    return handler(*this, call);
}

const std::vector<std::string>& tileOpNames() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (std::span<const PrimitiveRow> family : tileFamilies())
            for (const PrimitiveRow& row : family)
                if (std::find(out.begin(), out.end(), row.name) == out.end())
                    out.push_back(row.name);
        // Not calls, but attributes of T all the same (namespaceAttr resolves them first).
        out.push_back("GemmWarpPolicy");
        out.push_back("layout");
        return out;
    }();
    return names;
}

const std::vector<std::string>& layoutNames() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const PrimitiveRow& row : layoutModulePrimitives())
            out.push_back(row.name);
        return out;
    }();
    return names;
}

const std::vector<std::string>& unsupportedTileNames() {
    static const std::vector<std::string> names = {"alloc_tmem",   "alloc_reducer",  "alloc_wgmma_desc",
                                                   "async_copy",   "copy_cluster",   "transpose",
                                                   "atomic_max",   "atomic_min",     "atomic_load",
                                                   "atomic_store", "atomic_addx2",   "atomic_addx4",
                                                   "Persistent",   "device_assert",  "annotate_safe_value",
                                                   "call_extern",  "sync_threads",   "reshape",
                                                   "view",         "thread_binding", "launch_thread",
                                                   "gemm_sp",      "reduce",         "finalize_reducer"};
    return names;
}

bool requirePositionalCount(Interpreter& in, const PrimitiveCall& call, size_t lo, size_t hi) {
    size_t n = call.args.positional.size();
    if (n < lo || n > hi) {
        in.error("wrong-arguments", call.range,
                 call.op + "() takes " +
                     (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                     " positional arguments but " + std::to_string(n) + " were given");
        return false;
    }
    return true;
}

bool numberArg(const PrimitiveCall& call, size_t k, double& out) {
    const auto& pos = call.args.positional;
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
}

} // namespace tb::elab
