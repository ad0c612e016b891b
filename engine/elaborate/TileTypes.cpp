// TileLang's type and symbol vocabulary: T.Tensor / T.Buffer / T.StridedTensor parameter annotations,
// T.dynamic / T.symbolic / T.dyn symbolic dims, T.const names of an eager kernel, T.empty outputs and
// T.dtype.
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tb::elab {

namespace {

Value tensorType(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    BoundArgs b;
    if (!in.bind("T.Tensor(shape, dtype=float32, strides=None, data=None, scope=None, elem_offset=None, "
                 "offset_factor=None, buffer_type=None, axis_separators=None)",
                 args, b))
        return Value::poison();
    ir::DType t = ir::DType::Float32;
    if (b.given[1]) {
        auto d = in.toDType(b[1], b.at(1));
        if (!d)
            return Value::poison();
        t = *d;
    }
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
