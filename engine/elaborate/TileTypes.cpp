// TileLang's type and symbol vocabulary: T.Tensor / T.Buffer / T.StridedTensor parameter annotations and
// views (T.Tensor(shape, dtype, buf.data)), T.dynamic / T.symbolic / T.dyn symbolic dims, T.const names of
// an eager kernel, T.empty outputs and T.dtype.
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tb::elab {

namespace {

constexpr size_t kAbsent = SIZE_MAX;

bool given(const BoundArgs& b, size_t k) {
    return k != kAbsent && b.given[k] && b[k].kind != ValueKind::None;
}

// TileLang's three global-buffer proxies take their arguments in different orders (language/proxy.py).
struct TensorSignature {
    const char* text;
    size_t dtype, data, strides, scope, elemOffset;
};

const TensorSignature& signatureOf(const std::string& op) {
    static const TensorSignature tensor{.text = "T.Tensor(shape, dtype=float32, data=None, scope=None)",
                                        .dtype = 1,
                                        .data = 2,
                                        .strides = kAbsent,
                                        .scope = 3,
                                        .elemOffset = kAbsent};
    static const TensorSignature buffer{.text = "T.Buffer(shape, dtype=float32, data=None, strides=None, "
                                                "elem_offset=None, scope=global, align=0, offset_factor=0, "
                                                "buffer_type=, axis_separators=None)",
                                        .dtype = 1,
                                        .data = 2,
                                        .strides = 3,
                                        .scope = 5,
                                        .elemOffset = 4};
    static const TensorSignature strided{
        .text = "T.StridedTensor(shape, strides, dtype=float32, scope=None, data=None)",
        .dtype = 2,
        .data = 4,
        .strides = 1,
        .scope = 3,
        .elemOffset = kAbsent};
    return op == "Buffer" ? buffer : op == "StridedTensor" ? strided : tensor;
}

// Strides that are the row-major ones of `shape` (known when both are constants).
bool rowMajorStrides(Interpreter& in, const Value& strides, const std::vector<ir::ExprPtr>& shape) {
    if (!strides.isSequence() || strides.items->size() != shape.size())
        return false;
    int64_t expected = 1;
    for (size_t d = shape.size(); d-- > 0;) {
        auto stride = in.constInt((*strides.items)[d], {}, "a stride", false);
        auto extent = ir::constantInt(shape[d]);
        if (!stride || !extent || *stride != expected)
            return false;
        expected *= *extent;
    }
    return true;
}

// T.Tensor(shape, dtype, base.data) in a kernel: a view of a global buffer's storage with another shape
// (a reshape of the same contiguous memory). Whether it fits its base and shares its dtype is
// check::checkModule's (view-exceeds-base, view-dtype-mismatch), so that every way of building the IR is
// checked alike.
Value bufferView(Interpreter& in, const BoundArgs& b, const TensorSignature& sig, ir::DType t,
                 SourceRange range) {
    const Value& data = b[sig.data];
    if (data.isInert())
        return data.isPoison() ? data : Value::poison();
    if (data.kind != ValueKind::Object || data.object->type != "Buffer.data")
        return in.error("type-error", b.at(sig.data),
                        "the data of a T.Tensor must be a buffer's storage, not " + typeName(data),
                        "write T.Tensor(shape, dtype, buf.data) to view buf with another shape");
    const ir::Buffer* source = data.object->attrs.at("buffer").buffer;
    const ir::Buffer* base = ir::storageOf(source);
    if (!in.inKernel())
        return in.error("unsupported-construct", range,
                        "a view of '" + source->name + "' outside T.Kernel is not supported",
                        "declare the view inside `with T.Kernel(...)`, where it is used");
    if (base->scope != ir::MemoryScope::Global)
        return in.error("unsupported-construct", b.at(sig.data),
                        std::string("a view of ") + ir::scopeName(base->scope) + " buffer '" + base->name +
                            "' is not supported; views address global memory",
                        "allocate a buffer of the shape you need instead");
    auto dims = in.shapeOf(b[0], b.at(0), true);
    if (!dims)
        return Value::poison();
    if (given(b, sig.elemOffset) || (given(b, sig.strides) && !rowMajorStrides(in, b[sig.strides], *dims)))
        return in.error(
            "unsupported-construct", b.at(given(b, sig.elemOffset) ? sig.elemOffset : sig.strides),
            std::string("a view with ") +
                (given(b, sig.elemOffset) ? "an element offset" : "strides other than row-major") +
                " is not supported; a view reshapes its base's storage from its first element",
            "drop the argument, or copy the part you need");
    if (given(b, sig.scope) && !(b[sig.scope].kind == ValueKind::Str && b[sig.scope].s == "global"))
        return in.error("unsupported-construct", b.at(sig.scope), "a view's scope must be \"global\"",
                        "drop the scope argument");
    std::string name = in.m_pendingName.empty() ? base->name + "_view" : in.m_pendingName;
    in.m_pendingName.clear();
    ir::Buffer* view = in.m_out.newBuffer(in.uniqueName(name), ir::MemoryScope::Global, t, *dims, range);
    view->viewOf = base;
    in.m_trace->kernels.back().allocations.push_back(view);
    return Value::bufferOf(view);
}

Value tensorType(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    const TensorSignature& sig = signatureOf(call.op);
    BoundArgs b;
    if (!in.bind(sig.text, args, b))
        return Value::poison();
    ir::DType t = ir::DType::Float32;
    if (b.given[sig.dtype]) {
        auto d = in.toDType(b[sig.dtype], b.at(sig.dtype));
        if (!d)
            return Value::poison();
        t = *d;
    }
    if (given(b, sig.data))
        return bufferView(in, b, sig, t, call.range);
    Value v;
    v.kind = ValueKind::TensorType;
    v.dtype = t;
    if (b[0].isSequence())
        v.items = std::make_shared<std::vector<Value>>(*b[0].items);
    else
        v.items = std::make_shared<std::vector<Value>>(std::vector<Value>{b[0]});
    if (!in.shapeOf(Value::tuple(*v.items), b.at(0), true))
        return Value::poison();
    return v;
}

Value dynamicDim(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.dynamic(name, dtype=int32)", args, b))
        return Value::poison();
    if (b[0].kind != ValueKind::Str)
        return in.error("type-error", b.at(0), "T.dynamic takes the dim's name as a string");
    ir::DType t = ir::DType::Int32;
    if (b.given[1]) {
        auto d = in.toDType(b[1], b.at(1));
        if (!d)
            return Value::poison();
        t = *d;
    }
    return in.dynamicDimNamed(b[0].s, t, range);
}

Value constNames(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.const(names)", args, b))
        return Value::poison();
    if (b[0].kind != ValueKind::Str)
        return in.error("type-error", b.at(0),
                        "T.const takes the names as a string, e.g. T.const(\"M, N, K\")");
    return in.constDims(b[0].s, range);
}

Value emptyOutput(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.empty(shape, dtype=float32)", args, b))
        return Value::poison();
    if (!in.m_trace || !in.m_trace->eager || in.inKernel())
        return in.error("unsupported-construct", range,
                        "T.empty declares an output of an eager @tilelang.jit kernel",
                        "use it in the jit function body, before `with T.Kernel`");
    std::string n = in.m_pendingName.empty() ? "out" : in.m_pendingName;
    in.m_pendingName.clear();
    auto dims = in.shapeOf(b[0], b.at(0), true);
    ir::DType t = ir::DType::Float32;
    if (b.given[1]) {
        auto d = in.toDType(b[1], b.at(1));
        if (!d)
            return Value::poison();
        t = *d;
    }
    if (!dims)
        return Value::poison();
    ir::Buffer* buf = in.m_out.newBuffer(in.uniqueName(n), ir::MemoryScope::Global, t, *dims, range);
    buf->isOutput = true;
    in.m_trace->eagerOutputs.push_back(buf);
    return Value::bufferOf(buf);
}

Value dtypeCall(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    if (args.positional.size() != 1)
        return in.error("wrong-arguments", range, "T.dtype takes one argument");
    auto t = in.toDType(args.positional[0], args.positionalRanges[0]);
    return t ? Value::dtypeOf(*t) : Value::poison();
}

} // namespace

std::span<const PrimitiveRow> typePrimitives() {
    static const PrimitiveRow rows[] = {
        {"Tensor", tensorType},  {"Buffer", tensorType},   {"StridedTensor", tensorType},
        {"dynamic", dynamicDim}, {"symbolic", dynamicDim}, {"dyn", dynamicDim},
        {"const", constNames},   {"empty", emptyOutput},   {"dtype", dtypeCall},
    };
    return rows;
}

} // namespace tb::elab
