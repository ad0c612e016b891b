// torch in host code: tensor constructors (randn, empty, zeros, full, randint, arange, tensor, *_like, cat,
// stack), tensor attributes and methods that keep or change the shape (to, cuda, half, view, permute,
// transpose, unsqueeze, new_zeros, ...), subscripts and element-wise arithmetic with broadcasting. Anything
// that needs the data of a tensor is a host value that says so (HostTensors.h).
// flash-linear-attention's l2norm_fwd is modelled the same way.
#include "engine/elaborate/HostTensors.h"

#include "engine/elaborate/Primitives.h"
#include "engine/target/Target.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

const char* const kDataMethods[] = {"item", "tolist", "numpy", "data_ptr", "__index__", "nonzero", "unique"};

// Methods that return a tensor of the receiver's shape, dtype and device.
const char* const kSameShapeMethods[] = {"contiguous",  "clone",        "detach",       "requires_grad_",
                                         "normal_",     "uniform_",     "zero_",        "fill_",
                                         "random_",     "exponential_", "abs",          "abs_",
                                         "exp",         "exp2",         "log",          "log2",
                                         "sqrt",        "rsqrt",        "neg",          "relu",
                                         "sigmoid",     "tanh",         "softmax",      "log_softmax",
                                         "cumsum",      "masked_fill",  "masked_fill_", "clamp",
                                         "clamp_",      "mul_",         "add_",         "sub_",
                                         "div_",        "copy_",        "pin_memory",   "share_memory_",
                                         "sign",        "square",       "reciprocal",   "cos",
                                         "sin",         "round",        "floor",        "ceil",
                                         "tril",        "triu",         "tril_",        "triu_",
                                         "bernoulli_",  "cauchy_",      "log_normal_",  "geometric_",
                                         "retain_grad", "mul",          "add",          "sub",
                                         "div",         "pow",          "sort_values"};

// The dtype each conversion method gives.
const std::pair<const char*, ir::DType> kDTypeMethods[] = {
    {"half", ir::DType::Float16},      {"float", ir::DType::Float32}, {"double", ir::DType::Float64},
    {"bfloat16", ir::DType::BFloat16}, {"int", ir::DType::Int32},     {"long", ir::DType::Int64},
    {"bool", ir::DType::Bool},         {"short", ir::DType::Int16},   {"byte", ir::DType::UInt8},
    {"char", ir::DType::Int8}};

// Reductions: with a dim they drop (or keep) it, without one they give a 0-d tensor.
const char* const kReductions[] = {"sum",    "mean", "max", "min",  "amax", "amin", "argmax",
                                   "argmin", "any",  "all", "prod", "norm", "std",  "var"};

const char* const kConstructors[] = {"randn", "rand", "empty", "zeros", "ones", "normal"};

const char* const kLikeConstructors[] = {"empty_like", "zeros_like", "ones_like",   "randn_like",
                                         "rand_like",  "full_like",  "randint_like"};

const char* const kNoneFunctions[] = {
    "manual_seed",      "set_default_device", "set_default_dtype",           "seed",
    "set_grad_enabled", "set_printoptions",   "use_deterministic_algorithms"};

bool among(const std::string& name, std::span<const char* const> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
}

// The part of "tensor.view" or "torch.zeros" after the first dot.
std::string opName(const PrimitiveCall& call) {
    return call.name.substr(call.name.find('.') + 1);
}

const Value* keyword(const PrimitiveCall& call, const char* name) {
    for (const auto& [k, v] : call.args.keywords)
        if (k == name)
            return &v;
    return nullptr;
}

Value tensorDType(const Value& t) {
    return t.object->attrs.at("dtype");
}

std::string tensorDevice(const Value& t) {
    const Value& d = t.object->attrs.at("device");
    return d.kind == ValueKind::Str ? d.s : "cpu";
}

Value withShape(const Value& like, std::vector<Value> shape) {
    return makeTensor(std::move(shape), tensorDType(like), tensorDevice(like));
}

Value withDType(const Value& like, Value dtype) {
    return makeTensor(tensorShape(like), std::move(dtype), tensorDevice(like));
}

// Sizes given as f(2, 3), f((2, 3)), f([2, 3]) or f(size=(2, 3)); positional values from `first` on.
std::vector<Value> sizesOf(const PrimitiveCall& call, size_t first) {
    if (const Value* size = keyword(call, "size"))
        return size->isSequence() ? *size->items : std::vector<Value>{*size};
    const auto& pos = call.args.positional;
    if (pos.size() == first + 1 && pos[first].isSequence())
        return *pos[first].items;
    std::vector<Value> out;
    for (size_t k = first; k < pos.size(); ++k)
        if (pos[k].isIntLike() || pos[k].isOpaque())
            out.push_back(pos[k]);
    return out;
}

// dtype= and device= keywords, with the receiver's (or float32 on the CPU) where absent.
Value dtypeArg(const PrimitiveCall& call, Value fallback) {
    if (const Value* d = keyword(call, "dtype"); d && d->kind != ValueKind::None)
        return *d;
    return fallback;
}

std::string deviceArg(const PrimitiveCall& call, std::string fallback) {
    if (const Value* d = keyword(call, "device"); d && d->kind == ValueKind::Str)
        return d->s;
    return fallback;
}

// Python's negative dims: -1 is the last of `rank`.
std::optional<size_t> dimIndex(const Value& v, size_t rank, bool inserting = false) {
    if (!v.isIntLike())
        return std::nullopt;
    int64_t n = static_cast<int64_t>(rank) + (inserting ? 1 : 0);
    int64_t d = v.i < 0 ? v.i + n : v.i;
    if (d < 0 || d >= n)
        return std::nullopt;
    return static_cast<size_t>(d);
}

// topk(t, k, dim=-1): values and indices, as torch.return_types.topk (attributes and a tuple's order).
Value topk(const Value& t, const Value& k, const Value& dim) {
    std::vector<Value> shape = tensorShape(t);
    auto d = dimIndex(dim, shape.size());
    if (!d)
        return Value::opaque("topk over an unknown dim");
    shape[*d] = k;
    Value values = makeTensor(shape, t.object->attrs.at("dtype"), t.object->attrs.at("device").s);
    Value indices = makeTensor(shape, Value::dtypeOf(ir::DType::Int64), t.object->attrs.at("device").s);
    Value result = Value::hostObject("torch.return_types.topk");
    result.object->attrs["values"] = values;
    result.object->attrs["indices"] = indices;
    return result;
}

Value dataOf(const std::string& what) {
    return Value::opaque("the data of a tensor (" + what +
                         "); TileBench models tensors as shape, dtype "
                         "and device only");
}

// Unknown (nullopt) when a dim is not an integer or the product overflows int64: host code may ask for a
// tensor of any size, and its element count is then just not known.
std::optional<int64_t> product(const std::vector<Value>& dims) {
    int64_t n = 1;
    for (const Value& d : dims) {
        if (!d.isIntLike() || __builtin_mul_overflow(n, d.i, &n))
            return std::nullopt;
    }
    return n;
}

// view(2, -1) / reshape((2, -1)): the -1 is what the other sizes leave.
std::vector<Value> reshaped(const std::vector<Value>& from, std::vector<Value> to) {
    auto total = product(from);
    int64_t known = 1;
    bool knownFits = true;
    size_t inferred = to.size();
    for (size_t k = 0; k < to.size(); ++k) {
        if (to[k].isIntLike() && to[k].i == -1)
            inferred = k;
        else if (to[k].isIntLike())
            knownFits = knownFits && !__builtin_mul_overflow(known, to[k].i, &known);
    }
    if (inferred < to.size())
        to[inferred] = total && knownFits && known != 0 && known != -1
                           ? Value::integer(*total / known)
                           : Value::opaque("a size inferred by -1");
    return to;
}

// The shape of one dim indexed by a slice, when its bounds are known.
Value slicedSize(const Value& dim, const Value& slice) {
    const std::vector<Value>& parts = *slice.items;
    if (!dim.isIntLike())
        return dim;
    int64_t n = dim.i;
    int64_t step = parts[2].isIntLike() ? parts[2].i : 1;
    if (step <= 0)
        return Value::opaque("a slice with a negative step");
    auto bound = [&](const Value& v, int64_t dflt) -> std::optional<int64_t> {
        if (v.kind == ValueKind::None)
            return dflt;
        if (!v.isIntLike())
            return std::nullopt;
        int64_t x = v.i < 0 ? v.i + n : v.i;
        return std::clamp<int64_t>(x, 0, n);
    };
    auto lo = bound(parts[0], 0), hi = bound(parts[1], n);
    if (!lo || !hi)
        return Value::opaque("a slice with run-time bounds");
    return Value::integer(*hi > *lo ? (*hi - *lo + step - 1) / step : 0);
}

// Broadcasting (numpy rules): sizes align on the right; a 1 stretches.
std::vector<Value> broadcast(const std::vector<Value>& a, const std::vector<Value>& b) {
    size_t n = std::max(a.size(), b.size());
    std::vector<Value> out(n);
    for (size_t k = 0; k < n; ++k) {
        const Value* x = k < n - a.size() ? nullptr : &a[k - (n - a.size())];
        const Value* y = k < n - b.size() ? nullptr : &b[k - (n - b.size())];
        if (!x || (x->isIntLike() && x->i == 1 && y))
            out[k] = *y;
        else
            out[k] = *x;
    }
    return out;
}

std::vector<Value> shapeFromData(const Value& data) {
    std::vector<Value> shape;
    const Value* level = &data;
    while (level->isSequence()) {
        shape.push_back(Value::integer(static_cast<int64_t>(level->items->size())));
        if (level->items->empty())
            break;
        level = &level->items->front();
    }
    return shape;
}

ir::DType dtypeOfData(const Value& data) {
    const Value* level = &data;
    while (level->isSequence() && !level->items->empty())
        level = &level->items->front();
    if (level->kind == ValueKind::Float)
        return ir::DType::Float32;
    if (level->kind == ValueKind::Bool)
        return ir::DType::Bool;
    return ir::DType::Int64;
}

Value tensorMethod(Interpreter& in, PrimitiveCall& call);

// torch.einsum("bhmk, bhnk -> bhmn", q, k): each output letter's size from the operand that has it.
Value einsum(const PrimitiveCall& call) {
    const auto& pos = call.args.positional;
    if (pos.size() < 2 || pos[0].kind != ValueKind::Str)
        return Value::opaque(call.name + "(...)");
    std::vector<Value> operands(pos.begin() + 1, pos.end());
    if (operands.size() == 1 && operands[0].isSequence())
        operands = *operands[0].items;
    std::string equation;
    for (char c : pos[0].s)
        if (c != ' ')
            equation += c;
    size_t arrow = equation.find("->");
    if (arrow == std::string::npos || equation.find('.') != std::string::npos)
        return Value::opaque("torch.einsum without an explicit '->' output");
    std::map<char, Value> sizes;
    size_t operand = 0, letter = 0;
    for (size_t k = 0; k < arrow; ++k) {
        if (equation[k] == ',') {
            ++operand;
            letter = 0;
            continue;
        }
        if (operand >= operands.size() || !isTensor(operands[operand]))
            return Value::opaque("torch.einsum over a host value");
        std::vector<Value> shape = tensorShape(operands[operand]);
        if (letter < shape.size())
            sizes.emplace(equation[k], shape[letter]);
        ++letter;
    }
    std::vector<Value> out;
    for (char c : equation.substr(arrow + 2)) {
        auto it = sizes.find(c);
        if (it == sizes.end())
            return Value::opaque("torch.einsum with an unknown output index");
        out.push_back(it->second);
    }
    return withShape(operands[0], out);
}

// torch.nn.functional.pad(t, [left, right, top, bottom, ...]): pairs from the last dim backwards.
Value padded(const Value& t, const Value& pads) {
    std::vector<Value> shape = tensorShape(t);
    if (!pads.isSequence())
        return Value::opaque("torch.nn.functional.pad(...)");
    const std::vector<Value>& p = *pads.items;
    for (size_t k = 0; k + 1 < p.size() && k / 2 < shape.size(); k += 2) {
        Value& dim = shape[shape.size() - 1 - k / 2];
        dim = dim.isIntLike() && p[k].isIntLike() && p[k + 1].isIntLike()
                  ? Value::integer(dim.i + p[k].i + p[k + 1].i)
                  : Value::opaque("a padded size");
    }
    return withShape(t, shape);
}

// torch.sum(t, 2), torch.transpose(t, 0, 1), torch.nn.functional.softmax(t, dim=-1): the method of t.
Value asMethod(Interpreter& in, PrimitiveCall& call, const std::string& method) {
    CallArgs args = call.args;
    Value self = args.positional.front();
    args.positional.erase(args.positional.begin());
    if (!args.positionalRanges.empty())
        args.positionalRanges.erase(args.positionalRanges.begin());
    std::string name = "tensor." + method;
    PrimitiveCall methodCall{name, method, &self, args, call.range};
    return tensorMethod(in, methodCall);
}

// ---- torch.<function> ---------------------------------------------------------------------------------

Value torchFunction(Interpreter& in, PrimitiveCall& call) {
    const std::string op = opName(call);
    const auto& pos = call.args.positional;
    const Value f32 = Value::dtypeOf(ir::DType::Float32);
    if (among(op, kConstructors))
        return makeTensor(sizesOf(call, 0), dtypeArg(call, f32), deviceArg(call, "cpu"));
    if (op == "full") {
        std::vector<Value> size = !pos.empty() && pos[0].isSequence() ? *pos[0].items : sizesOf(call, 0);
        return makeTensor(size, dtypeArg(call, f32), deviceArg(call, "cpu"));
    }
    if (op == "randint") {
        // randint(high, size) or randint(low, high, size).
        std::vector<Value> size;
        if (const Value* s = keyword(call, "size"))
            size = s->isSequence() ? *s->items : std::vector<Value>{*s};
        else if (!pos.empty() && pos.back().isSequence())
            size = *pos.back().items;
        return makeTensor(size, dtypeArg(call, Value::dtypeOf(ir::DType::Int64)), deviceArg(call, "cpu"));
    }
    if (op == "randperm" && !pos.empty())
        return makeTensor({pos[0]}, dtypeArg(call, Value::dtypeOf(ir::DType::Int64)), deviceArg(call, "cpu"));
    if (op == "arange" && !pos.empty()) {
        bool ints = std::all_of(pos.begin(), pos.end(), [](const Value& v) { return v.isIntLike(); });
        Value length = Value::opaque("the length of an arange over non-integer bounds");
        if (ints) {
            int64_t start = pos.size() > 1 ? pos[0].i : 0, stop = pos.size() > 1 ? pos[1].i : pos[0].i;
            int64_t step = pos.size() > 2 ? pos[2].i : 1;
            if (step != 0)
                length =
                    Value::integer(std::max<int64_t>(0, (stop - start + step + (step > 0 ? -1 : 1)) / step));
        }
        return makeTensor({length},
                          dtypeArg(call, Value::dtypeOf(ints ? ir::DType::Int64 : ir::DType::Float32)),
                          deviceArg(call, "cpu"));
    }
    if (op == "tensor" || op == "as_tensor") {
        if (pos.empty())
            return Value::opaque(call.name + "()");
        if (isTensor(pos[0]))
            return makeTensor(tensorShape(pos[0]), dtypeArg(call, tensorDType(pos[0])),
                              deviceArg(call, "cpu"));
        Value t = makeTensor(shapeFromData(pos[0]), dtypeArg(call, Value::dtypeOf(dtypeOfData(pos[0]))),
                             deviceArg(call, "cpu"));
        // The one kind of tensor whose values are known: a literal list of numbers.
        if (pos[0].isSequence() && std::all_of(pos[0].items->begin(), pos[0].items->end(),
                                               [](const Value& v) { return v.isNumber(); }))
            t.object->attrs["__values__"] = Value::list(*pos[0].items);
        return t;
    }
    if (among(op, kLikeConstructors) && !pos.empty() && isTensor(pos[0]))
        return makeTensor(tensorShape(pos[0]), dtypeArg(call, tensorDType(pos[0])),
                          deviceArg(call, tensorDevice(pos[0])));
    if ((op == "cat" || op == "concat" || op == "stack") && !pos.empty() && pos[0].isSequence() &&
        !pos[0].items->empty() && isTensor(pos[0].items->front())) {
        const Value& first = pos[0].items->front();
        std::vector<Value> shape = tensorShape(first);
        Value dim = pos.size() > 1 ? pos[1] : Value::integer(0);
        if (const Value* d = keyword(call, "dim"))
            dim = *d;
        auto d = dimIndex(dim, shape.size(), op == "stack");
        if (!d)
            return Value::opaque(call.name + "(...)");
        if (op == "stack") {
            shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(*d),
                         Value::integer(static_cast<int64_t>(pos[0].items->size())));
            return withShape(first, shape);
        }
        int64_t total = 0;
        for (const Value& t : *pos[0].items) {
            std::vector<Value> s = isTensor(t) ? tensorShape(t) : std::vector<Value>{};
            if (*d >= s.size() || !s[*d].isIntLike())
                return Value::opaque(call.name + "(...)");
            total += s[*d].i;
        }
        shape[*d] = Value::integer(total);
        return withShape(first, shape);
    }
    if (op == "topk" && pos.size() >= 2 && isTensor(pos[0])) {
        const Value* dim = keyword(call, "dim");
        return topk(pos[0], pos[1], dim ? *dim : pos.size() > 2 ? pos[2] : Value::integer(-1));
    }
    if ((op == "matmul" || op == "mm" || op == "bmm") && pos.size() == 2)
        return tensorArithmetic(pos[0], pos[1], true);
    if (op == "device" && !pos.empty() && pos[0].kind == ValueKind::Str)
        return Value::str(pos[0].s);
    if (op == "einsum")
        return einsum(call);
    if (op == "where" && pos.size() == 3) {
        Value cond = isTensor(pos[0]) ? pos[0] : Value::none();
        Value a = tensorArithmetic(pos[1], pos[2], false);
        if (!isTensor(a))
            return Value::opaque(call.name + "(...)");
        return isTensor(cond) ? withShape(a, broadcast(tensorShape(cond), tensorShape(a))) : a;
    }
    std::string method = op.rfind("nn.functional.", 0) == 0 ? op.substr(14) : op;
    if (method == "pad" && pos.size() >= 2 && isTensor(pos[0]))
        return padded(pos[0], pos[1]);
    if (!pos.empty() && isTensor(pos[0]) && method != op &&
        (method == "gelu" || method == "silu" || method == "dropout" || method == "normalize" ||
         method == "layer_norm"))
        return pos[0];
    if (!pos.empty() && isTensor(pos[0]))
        return asMethod(in, call, method);
    if (among(op, kNoneFunctions))
        return Value::none();
    return Value::opaque(call.name + "(...)");
}

// torch.cuda: the device is the target compiled for.
Value torchCuda(Interpreter& in, PrimitiveCall& call) {
    const Target& target = in.m_options && in.m_options->target ? *in.m_options->target : targetSm90a();
    const std::string op = call.name.substr(std::string("torch.cuda.").size());
    if (op == "get_device_capability")
        return Value::tuple({Value::integer(target.smVersion / 10), Value::integer(target.smVersion % 10)});
    if (op == "is_available")
        return Value::boolean(true);
    if (op == "device_count")
        return Value::integer(1);
    if (op == "current_device")
        return Value::integer(0);
    if (op == "get_device_properties") {
        // The fields programs read to pick a path or a config, from the target's reference part.
        Value props = Value::hostObject("torch.cuda._CudaDeviceProperties");
        auto& attrs = props.object->attrs;
        attrs["major"] = Value::integer(target.smVersion / 10);
        attrs["minor"] = Value::integer(target.smVersion % 10);
        attrs["name"] = Value::str(target.smVersion >= 90 ? "NVIDIA H100" : "NVIDIA A100");
        attrs["multi_processor_count"] = Value::integer(target.smCount);
        attrs["warp_size"] = Value::integer(target.warpSize);
        attrs["max_threads_per_multi_processor"] = Value::integer(target.maxThreadsPerSm);
        attrs["shared_memory_per_block_optin"] = Value::integer(target.maxSharedMemoryPerBlock);
        attrs["shared_memory_per_multiprocessor"] = Value::integer(target.sharedMemoryPerSm);
        attrs["regs_per_multiprocessor"] = Value::integer(target.registersPerSm);
        return props;
    }
    return Value::none(); // synchronize, manual_seed
}

// ---- tensor.<method> ----------------------------------------------------------------------------------

Value shapeMethod(const Value& self, const std::string& op, const PrimitiveCall& call, bool& handled) {
    handled = true;
    const auto& pos = call.args.positional;
    std::vector<Value> shape = tensorShape(self);
    auto dimArg = [&](size_t k, bool inserting = false) {
        return k < pos.size() ? dimIndex(pos[k], shape.size(), inserting) : std::nullopt;
    };
    if (op == "size" || op == "stride") {
        std::vector<Value> values = shape;
        if (op == "stride") {
            Value stride = Value::integer(1);
            for (size_t k = shape.size(); k-- > 0;) {
                values[k] = stride;
                stride = stride.isIntLike() && shape[k].isIntLike() ? Value::integer(stride.i * shape[k].i)
                                                                    : Value::opaque("a stride");
            }
        }
        const Value* dim = pos.empty() ? keyword(call, "dim") : &pos[0];
        if (!dim)
            return Value::tuple(values);
        auto d = dimIndex(*dim, shape.size());
        return d ? values[*d] : Value::opaque("tensor." + op + "(" + toStr(*dim) + ")");
    }
    if (op == "dim" || op == "ndimension")
        return Value::integer(static_cast<int64_t>(shape.size()));
    if (op == "numel" || op == "nelement") {
        auto n = product(shape);
        return n ? Value::integer(*n) : Value::opaque("the number of elements of a tensor of unknown shape");
    }
    if (op == "element_size") {
        Value dtype = tensorDType(self);
        return dtype.kind == ValueKind::DType ? Value::integer(ir::dtypeBytes(dtype.dtype))
                                              : Value::opaque("the element size of a tensor");
    }
    std::vector<Value> args = pos.size() == 1 && pos[0].isSequence() ? *pos[0].items : pos;
    if (op == "view" || op == "reshape") {
        if (args.size() == 1 && args[0].kind == ValueKind::DType)
            return withDType(self, args[0]);
        return withShape(self, reshaped(shape, args));
    }
    if ((op == "view_as" || op == "reshape_as" || op == "expand_as") && !pos.empty() && isTensor(pos[0]))
        return withShape(self, tensorShape(pos[0]));
    if (op == "permute") {
        std::vector<Value> out;
        for (const Value& a : args) {
            auto d = dimIndex(a, shape.size());
            if (!d)
                return Value::opaque("tensor.permute(...)");
            out.push_back(shape[*d]);
        }
        return withShape(self, out);
    }
    if (op == "transpose" || op == "swapaxes") {
        auto a = dimArg(0), b = dimArg(1);
        if (!a || !b)
            return Value::opaque("tensor.transpose(...)");
        std::swap(shape[*a], shape[*b]);
        return withShape(self, shape);
    }
    if (op == "t") {
        std::reverse(shape.begin(), shape.end());
        return withShape(self, shape);
    }
    if (op == "unsqueeze") {
        auto d = dimArg(0, true);
        if (!d)
            return Value::opaque("tensor.unsqueeze(...)");
        shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(*d), Value::integer(1));
        return withShape(self, shape);
    }
    if (op == "squeeze") {
        std::vector<Value> out;
        auto d = dimArg(0);
        for (size_t k = 0; k < shape.size(); ++k)
            if (!(shape[k].isIntLike() && shape[k].i == 1 && (pos.empty() || (d && *d == k))))
                out.push_back(shape[k]);
        return withShape(self, out);
    }
    if (op == "flatten") {
        size_t start = pos.size() > 0 ? dimIndex(pos[0], shape.size()).value_or(0) : 0;
        size_t end =
            pos.size() > 1 ? dimIndex(pos[1], shape.size()).value_or(shape.size() - 1) : shape.size() - 1;
        if (shape.empty() || start > end)
            return withShape(self, shape);
        std::vector<Value> merged(shape.begin() + static_cast<std::ptrdiff_t>(start),
                                  shape.begin() + static_cast<std::ptrdiff_t>(end) + 1);
        auto n = product(merged);
        std::vector<Value> out(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(start));
        out.push_back(n ? Value::integer(*n) : Value::opaque("a flattened size"));
        out.insert(out.end(), shape.begin() + static_cast<std::ptrdiff_t>(end) + 1, shape.end());
        return withShape(self, out);
    }
    if (op == "expand") {
        std::vector<Value> out = args;
        for (size_t k = 0; k < out.size(); ++k) {
            size_t from = k + shape.size() - std::min(shape.size(), out.size());
            if (out[k].isIntLike() && out[k].i == -1 && from < shape.size() && k >= out.size() - shape.size())
                out[k] = shape[from];
        }
        return withShape(self, out);
    }
    if (op == "repeat" && args.size() >= shape.size()) {
        std::vector<Value> out = args;
        size_t offset = args.size() - shape.size();
        for (size_t k = 0; k < shape.size(); ++k)
            out[k + offset] = shape[k].isIntLike() && args[k + offset].isIntLike()
                                  ? Value::integer(shape[k].i * args[k + offset].i)
                                  : Value::opaque("a repeated size");
        return withShape(self, out);
    }
    if (op == "as_strided" && !pos.empty() && pos[0].isSequence())
        return withShape(self, *pos[0].items);
    if (op == "narrow" && pos.size() == 3) {
        auto d = dimArg(0);
        if (!d)
            return Value::opaque("tensor.narrow(...)");
        shape[*d] = pos[2];
        return withShape(self, shape);
    }
    handled = false;
    return Value::none();
}

Value conversionMethod(const Value& self, const std::string& op, const PrimitiveCall& call, bool& handled) {
    handled = true;
    const auto& pos = call.args.positional;
    for (const auto& [name, dtype] : kDTypeMethods)
        if (op == name)
            return withDType(self, Value::dtypeOf(dtype));
    if (op == "cuda" || op == "cpu")
        return makeTensor(tensorShape(self), tensorDType(self), op);
    if (op == "to" || op == "type") {
        Value dtype = tensorDType(self);
        std::string device = tensorDevice(self);
        for (const Value& a : pos) {
            if (a.kind == ValueKind::DType || (a.isOpaque() && op == "to"))
                dtype = a;
            else if (a.kind == ValueKind::Str)
                device = a.s;
            else if (isTensor(a)) {
                dtype = tensorDType(a);
                device = tensorDevice(a);
            }
        }
        return makeTensor(tensorShape(self), dtypeArg(call, dtype), deviceArg(call, device));
    }
    if (op == "new_zeros" || op == "new_ones" || op == "new_empty" || op == "new_full" ||
        op == "new_tensor") {
        std::vector<Value> size =
            op == "new_tensor" && !pos.empty() ? shapeFromData(pos[0]) : sizesOf(call, 0);
        if (op == "new_full" && !pos.empty() && pos[0].isSequence())
            size = *pos[0].items;
        return makeTensor(size, dtypeArg(call, tensorDType(self)), deviceArg(call, tensorDevice(self)));
    }
    handled = false;
    return Value::none();
}

// max(), min(), sum() of a tensor whose values are known (torch.tensor of a literal list): the number.
std::optional<Value> knownReduction(const Value& self, const std::string& op) {
    auto it = self.object->attrs.find("__values__");
    if (it == self.object->attrs.end() || it->second.items->empty())
        return std::nullopt;
    const std::vector<Value>& values = *it->second.items;
    bool ints = std::all_of(values.begin(), values.end(), [](const Value& v) { return v.isIntLike(); });
    auto number = [](const Value& v) { return v.isIntLike() ? static_cast<double>(v.i) : v.f; };
    bool isMax = op == "max" || op == "amax", isMin = op == "min" || op == "amin";
    if (!isMax && !isMin && op != "sum")
        return std::nullopt;
    if (ints) {
        int64_t acc = op == "sum" ? 0 : values[0].i;
        for (const Value& v : values)
            acc = op == "sum" ? acc + v.i : isMax ? std::max(acc, v.i) : std::min(acc, v.i);
        return Value::integer(acc);
    }
    double acc = op == "sum" ? 0 : number(values[0]);
    for (const Value& v : values)
        acc = op == "sum" ? acc + number(v) : isMax ? std::max(acc, number(v)) : std::min(acc, number(v));
    return Value::real(acc);
}

Value reduction(const Value& self, const std::string& op, const PrimitiveCall& call) {
    const auto& pos = call.args.positional;
    std::vector<Value> shape = tensorShape(self);
    const Value* dim = !pos.empty() ? &pos[0] : keyword(call, "dim");
    if (!dim || dim->kind == ValueKind::None) {
        if (auto known = knownReduction(self, op))
            return *known;
        return withShape(self, {}); // a 0-d tensor: its value is data
    }
    const Value* keep = keyword(call, "keepdim");
    auto d = dimIndex(*dim, shape.size());
    if (!d)
        return Value::opaque(call.name + "(...)");
    if (keep && keep->isIntLike() && keep->i)
        shape[*d] = Value::integer(1);
    else
        shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(*d));
    return withShape(self, shape);
}

Value tensorMethod(Interpreter& in, PrimitiveCall& call) {
    if (!call.self || !isTensor(*call.self))
        return Value::opaque(call.name + "(...)");
    const Value& self = *call.self;
    const std::string op = opName(call);
    if (op == "tolist") {
        auto it = self.object->attrs.find("__values__");
        if (it != self.object->attrs.end())
            return Value::list(*it->second.items);
    }
    if (among(op, kDataMethods))
        return dataOf(op + "()");
    if (among(op, kSameShapeMethods))
        return self;
    if (among(op, kReductions))
        return reduction(self, op, call);
    bool handled = false;
    Value v = shapeMethod(self, op, call, handled);
    if (handled)
        return v;
    v = conversionMethod(self, op, call, handled);
    if (handled)
        return v;
    if (op == "sort")
        return Value::tuple({self, withDType(self, Value::dtypeOf(ir::DType::Int64))});
    if (op == "topk" && !call.args.positional.empty()) {
        const auto& pos = call.args.positional;
        const Value* dim = keyword(call, "dim");
        return topk(self, pos[0], dim ? *dim : pos.size() > 1 ? pos[1] : Value::integer(-1));
    }
    return Value::opaque(call.name + "(...)");
}

// fla.modules.l2norm.l2norm_fwd(x, eps=1e-6, output_dtype=None) from flash-linear-attention, which linear
// attention programs call on q and k before the kernel: (y, rstd), y of x's shape (in output_dtype when
// given) and rstd of x's shape without its last dim, in float32.
Value flaL2normForward(Interpreter& in, PrimitiveCall& call) {
    if (call.args.positional.empty() || !isTensor(call.args.positional[0]))
        return Value::opaque(call.name + "(...)");
    const Value& x = call.args.positional[0];
    Value dtype = tensorDType(x);
    if (const Value* out = keyword(call, "output_dtype"); out && out->kind != ValueKind::None)
        dtype = *out;
    else if (call.args.positional.size() > 2 && call.args.positional[2].kind != ValueKind::None)
        dtype = call.args.positional[2];
    std::vector<Value> rows = tensorShape(x);
    if (rows.empty())
        return in.error("value-error", call.at(0), "l2norm_fwd() needs a tensor of at least one dim");
    rows.pop_back();
    return Value::tuple(
        {withDType(x, dtype), makeTensor(rows, Value::dtypeOf(ir::DType::Float32), tensorDevice(x))});
}

} // namespace

bool isTensor(const Value& v) {
    return v.kind == ValueKind::Object && v.object && v.object->type == "Tensor";
}

Value makeTensor(std::vector<Value> shape, Value dtype, std::string device) {
    Value v = Value::hostObject("Tensor");
    v.object->attrs["shape"] = Value::tuple(std::move(shape));
    v.object->attrs["dtype"] = std::move(dtype);
    v.object->attrs["device"] = Value::str(std::move(device));
    return v;
}

std::vector<Value> tensorShape(const Value& tensor) {
    const Value& shape = tensor.object->attrs.at("shape");
    return shape.items ? *shape.items : std::vector<Value>{};
}

Value tensorAttribute(const Value& tensor, const std::string& attr) {
    std::vector<Value> shape = tensorShape(tensor);
    if (attr == "T" || attr == "mT") {
        if (attr == "T")
            std::reverse(shape.begin(), shape.end());
        else if (shape.size() >= 2)
            std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
        return withShape(tensor, shape);
    }
    if (attr == "ndim")
        return Value::integer(static_cast<int64_t>(shape.size()));
    if (attr == "is_cuda")
        return Value::boolean(tensorDevice(tensor) != "cpu");
    if (attr == "requires_grad")
        return Value::boolean(false);
    if (attr == "grad" || attr == "data")
        return attr == "data" ? tensor : Value::opaque("the gradient of a tensor");
    return Value::builtin("tensor." + attr, std::make_shared<Value>(tensor));
}

Value tensorSubscript(const Value& tensor, const Value& index) {
    std::vector<Value> parts = index.kind == ValueKind::Tuple ? *index.items : std::vector<Value>{index};
    std::vector<Value> shape = tensorShape(tensor);
    size_t consumed = 0;
    for (const Value& p : parts)
        consumed += p.kind != ValueKind::None && p.kind != ValueKind::Ellipsis;
    std::vector<Value> out;
    size_t d = 0;
    for (const Value& p : parts) {
        if (p.kind == ValueKind::None) {
            out.push_back(Value::integer(1));
        } else if (p.kind == ValueKind::Ellipsis) {
            for (size_t k = 0; k + consumed < shape.size(); ++k)
                out.push_back(shape[d++]);
        } else if (d >= shape.size()) {
            return Value::opaque("an index past the last dimension of a tensor");
        } else if (p.isIntLike()) {
            ++d;
        } else if (p.kind == ValueKind::Slice) {
            out.push_back(slicedSize(shape[d++], p));
        } else {
            return dataOf("indexing with " + typeName(p));
        }
    }
    out.insert(out.end(), shape.begin() + static_cast<std::ptrdiff_t>(std::min(d, shape.size())),
               shape.end());
    return withShape(tensor, out);
}

Value tensorArithmetic(const Value& a, const Value& b, bool matmul) {
    const Value& like = isTensor(a) ? a : b;
    std::vector<Value> x = isTensor(a) ? tensorShape(a) : std::vector<Value>{};
    std::vector<Value> y = isTensor(b) ? tensorShape(b) : std::vector<Value>{};
    if (!matmul)
        return withShape(like, broadcast(x, y));
    if (x.empty() || y.empty())
        return Value::opaque("a matrix product of a 0-d tensor");
    // (..., n, m) @ (..., m, k) -> (..., n, k); a 1-d operand loses its dim.
    Value n = x.size() >= 2 ? x[x.size() - 2] : Value::none();
    Value k = y.size() >= 2 ? y.back() : Value::none();
    std::vector<Value> batchX(x.begin(),
                              x.end() - std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(x.size())));
    std::vector<Value> batchY(y.begin(),
                              y.end() - std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(y.size())));
    std::vector<Value> out = broadcast(batchX, batchY);
    if (n.kind != ValueKind::None)
        out.push_back(n);
    if (k.kind != ValueKind::None)
        out.push_back(k);
    return withShape(like, out);
}

bool isTorchFunction(const std::string& name) {
    static const char* const others[] = {"full",      "randint", "randperm", "arange",       "tensor",
                                         "as_tensor", "cat",     "concat",   "stack",        "matmul",
                                         "mm",        "bmm",     "device",   "empty_strided"};
    static const char* const functionForms[] = {"einsum",     "where",     "transpose", "permute", "reshape",
                                                "flatten",    "unsqueeze", "squeeze",   "t",       "narrow",
                                                "as_strided", "sort",      "topk"};
    return among(name, kConstructors) || among(name, kLikeConstructors) || among(name, others) ||
           among(name, kNoneFunctions) || among(name, functionForms) || among(name, kReductions) ||
           among(name, kSameShapeMethods);
}

std::span<const PrimitiveRow> torchTensors() {
    static const PrimitiveRow rows[] = {
        {"torch.", torchFunction},
        {"torch.cuda.get_device_capability", torchCuda},
        {"torch.cuda.is_available", torchCuda},
        {"torch.cuda.current_device", torchCuda},
        {"torch.cuda.get_device_properties", torchCuda},
        {"torch.cuda.device_count", torchCuda},
        {"torch.cuda.synchronize", torchCuda},
        {"torch.cuda.manual_seed", torchCuda},
        {"tensor.", tensorMethod},
        {"fla.modules.l2norm.l2norm_fwd", flaL2normForward},
    };
    return rows;
}

} // namespace tb::elab
