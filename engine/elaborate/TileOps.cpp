// TileLang's kernel vocabulary: T.Kernel and the tile loops (which open IR scopes), allocations, buffer
// element access, the tile operations (copy in all its region forms, gemm, fill, reduce, atomic add),
// layout annotations and constructors, element math and casts. Every operation checks what can be checked
// at elaboration time (extents, gemm shapes, accumulator scope, constant indices) and reports a diagnostic
// at the call instead of building a bad IR node.
#include "engine/elaborate/Interpreter.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

const std::vector<std::string>& tileOpNames() {
    static const std::vector<std::string> names = {"Kernel",
                                                   "alloc_shared",
                                                   "alloc_fragment",
                                                   "alloc_local",
                                                   "alloc_var",
                                                   "alloc_global",
                                                   "copy",
                                                   "gemm",
                                                   "clear",
                                                   "fill",
                                                   "reduce_max",
                                                   "reduce_min",
                                                   "reduce_sum",
                                                   "reduce_abssum",
                                                   "reduce_absmax",
                                                   "reduce_bitand",
                                                   "reduce_bitor",
                                                   "reduce_bitxor",
                                                   "Parallel",
                                                   "Pipelined",
                                                   "serial",
                                                   "Serial",
                                                   "unroll",
                                                   "vectorized",
                                                   "atomic_add",
                                                   "use_swizzle",
                                                   "annotate_layout",
                                                   "print",
                                                   "get_thread_binding",
                                                   "exp",
                                                   "exp2",
                                                   "exp10",
                                                   "log",
                                                   "log2",
                                                   "log10",
                                                   "sqrt",
                                                   "rsqrt",
                                                   "abs",
                                                   "sigmoid",
                                                   "tanh",
                                                   "sin",
                                                   "cos",
                                                   "floor",
                                                   "ceil",
                                                   "round",
                                                   "trunc",
                                                   "erf",
                                                   "fma",
                                                   "isnan",
                                                   "isinf",
                                                   "__exp",
                                                   "__exp2",
                                                   "__exp10",
                                                   "__log",
                                                   "__log2",
                                                   "__log10",
                                                   "__sin",
                                                   "__cos",
                                                   "max",
                                                   "min",
                                                   "if_then_else",
                                                   "Select",
                                                   "infinity",
                                                   "min_value",
                                                   "max_value",
                                                   "cast",
                                                   "Cast",
                                                   "ceildiv",
                                                   "floordiv",
                                                   "floormod",
                                                   "truncdiv",
                                                   "pow",
                                                   "clamp",
                                                   "dynamic",
                                                   "symbolic",
                                                   "dyn",
                                                   "const",
                                                   "empty",
                                                   "Tensor",
                                                   "Buffer",
                                                   "StridedTensor",
                                                   "Layout",
                                                   "Fragment",
                                                   "prim_func",
                                                   "macro",
                                                   "annotate_l2_hit_ratio",
                                                   "annotate_min_blocks_per_sm",
                                                   "annotate_producer_reg_dealloc",
                                                   "annotate_consumer_reg_alloc",
                                                   "no_set_max_nreg",
                                                   "disable_warp_group_reg_alloc",
                                                   "GemmWarpPolicy",
                                                   "layout"};
    return names;
}

const std::vector<std::string>& layoutNames() {
    static const std::vector<std::string> names = {"make_swizzled_layout",
                                                   "make_wgmma_swizzled_layout",
                                                   "make_full_bank_swizzled_layout",
                                                   "make_half_bank_swizzled_layout",
                                                   "make_quarter_bank_swizzled_layout",
                                                   "make_linear_layout",
                                                   "make_fully_replicated_layout_fragment",
                                                   "Layout",
                                                   "Fragment"};
    return names;
}

const std::vector<std::string>& unsupportedTileNames() {
    static const std::vector<std::string> names = {"alloc_barrier",
                                                   "alloc_tmem",
                                                   "alloc_reducer",
                                                   "alloc_wgmma_desc",
                                                   "async_copy",
                                                   "tma_copy",
                                                   "copy_cluster",
                                                   "c2d_im2col",
                                                   "transpose",
                                                   "atomic_max",
                                                   "atomic_min",
                                                   "atomic_load",
                                                   "atomic_store",
                                                   "atomic_addx2",
                                                   "atomic_addx4",
                                                   "wgmma_gemm",
                                                   "wait_wgmma",
                                                   "Persistent",
                                                   "device_assert",
                                                   "annotate_safe_value",
                                                   "call_extern",
                                                   "sync_threads",
                                                   "barrier_wait",
                                                   "barrier_arrive",
                                                   "mbarrier_wait_parity",
                                                   "cumsum",
                                                   "reshape",
                                                   "view",
                                                   "thread_binding",
                                                   "launch_thread",
                                                   "ws",
                                                   "gemm_sp",
                                                   "reduce",
                                                   "finalize_reducer"};
    return names;
}

namespace {

std::string shapeText(const std::vector<ir::ExprPtr>& dims) {
    std::string out = "[";
    for (size_t k = 0; k < dims.size(); ++k)
        out += (k ? ", " : "") + ir::printExpr(ir::simplify(dims[k]));
    return out + "]";
}

bool isUnit(const ir::ExprPtr& e) {
    auto c = ir::constantInt(e);
    return c && *c == 1;
}

std::vector<ir::ExprPtr> nonUnit(const std::vector<ir::ExprPtr>& extents) {
    std::vector<ir::ExprPtr> out;
    for (const ir::ExprPtr& e : extents)
        if (!isUnit(e))
            out.push_back(e);
    return out;
}

// Two extents that are provably different (both constant and unequal).
bool differ(const ir::ExprPtr& a, const ir::ExprPtr& b) {
    auto x = ir::constantInt(a);
    auto y = ir::constantInt(b);
    return x && y && *x != *y;
}

struct Operand {
    ir::Buffer* buffer = nullptr;
    std::vector<ir::ExprPtr> mins;
    std::vector<ir::ExprPtr> extents;
    bool corner = false; // a BufferLoad: a start corner whose extents come from the other side
    SourceRange range;

    ir::Region region() const { return ir::Region{buffer, mins, extents, range}; }
};

ir::ExprPtr asInt32(ir::ExprPtr e) {
    if (!e || e->dtype == ir::DType::Int32)
        return e;
    if (e->kind == ir::ExprKind::IntImm)
        return ir::makeInt(e->intValue, ir::DType::Int32, e->range);
    return ir::makeCast(ir::DType::Int32, e, e->range);
}

ir::ExprPtr sub(const ir::ExprPtr& a, const ir::ExprPtr& b, SourceRange range) {
    return ir::simplify(ir::makeBinary(ir::BinaryOp::Sub, asInt32(a), asInt32(b), range));
}

std::optional<ir::Intrinsic> intrinsicFor(const std::string& name) {
    struct Entry {
        const char* name;
        ir::Intrinsic fn;
    };
    static const Entry table[] = {
        {"exp", ir::Intrinsic::Exp},       {"exp2", ir::Intrinsic::Exp2},
        {"exp10", ir::Intrinsic::Exp10},   {"log", ir::Intrinsic::Log},
        {"log2", ir::Intrinsic::Log2},     {"log10", ir::Intrinsic::Log10},
        {"sqrt", ir::Intrinsic::Sqrt},     {"rsqrt", ir::Intrinsic::Rsqrt},
        {"abs", ir::Intrinsic::Abs},       {"sigmoid", ir::Intrinsic::Sigmoid},
        {"tanh", ir::Intrinsic::Tanh},     {"sin", ir::Intrinsic::Sin},
        {"cos", ir::Intrinsic::Cos},       {"floor", ir::Intrinsic::Floor},
        {"ceil", ir::Intrinsic::Ceil},     {"round", ir::Intrinsic::Round},
        {"trunc", ir::Intrinsic::Trunc},   {"erf", ir::Intrinsic::Erf},
        {"fma", ir::Intrinsic::Fma},       {"isnan", ir::Intrinsic::IsNan},
        {"isinf", ir::Intrinsic::IsInf},   {"__exp", ir::Intrinsic::Exp},
        {"__exp2", ir::Intrinsic::Exp2},   {"__exp10", ir::Intrinsic::Exp10},
        {"__log", ir::Intrinsic::Log},     {"__log2", ir::Intrinsic::Log2},
        {"__log10", ir::Intrinsic::Log10}, {"__sin", ir::Intrinsic::Sin},
        {"__cos", ir::Intrinsic::Cos},
    };
    for (const Entry& e : table)
        if (name == e.name)
            return e.fn;
    return std::nullopt;
}

double dtypeMax(ir::DType t) {
    switch (t) {
    case ir::DType::Float16:
        return 65504.0;
    case ir::DType::BFloat16:
        return 3.38953139e38;
    case ir::DType::Float32:
        return FLT_MAX;
    case ir::DType::Float64:
        return DBL_MAX;
    case ir::DType::Float8E4M3:
        return 448.0;
    case ir::DType::Float8E5M2:
        return 57344.0;
    case ir::DType::Bool:
    case ir::DType::Int8:
    case ir::DType::Int16:
    case ir::DType::Int32:
    case ir::DType::Int64:
    case ir::DType::UInt8:
    case ir::DType::UInt16:
    case ir::DType::UInt32:
    case ir::DType::UInt64:
        break;
    }
    return 0;
}

} // namespace

// ---------------------------------------------------------------------------------------------------
// Scopes and names

void Interpreter::emit(ir::StmtPtr s) {
    if (m_trace && !m_trace->emit.empty())
        m_trace->emit.back().push_back(std::move(s));
}

bool Interpreter::requireKernel(const std::string& what, SourceRange range) {
    if (inKernel())
        return true;
    error("kernel-outside-kernel", range, what + " can only be used inside a T.Kernel block",
          tracing() ? "move it into the body of `with T.Kernel(...)`"
                    : "tile code belongs in a @T.prim_func or @T.macro, inside `with T.Kernel(...)`");
    return false;
}

std::string Interpreter::uniqueName(const std::string& base) {
    if (!m_trace)
        return base;
    std::string name = base.empty() ? "v" : base;
    if (m_trace->usedNames.insert(name).second)
        return name;
    for (int k = 1;; ++k) {
        std::string candidate = name + "_" + std::to_string(k);
        if (m_trace->usedNames.insert(candidate).second)
            return candidate;
    }
}

// ---------------------------------------------------------------------------------------------------
// Shapes, allocations, parameters

std::optional<std::vector<ir::ExprPtr>> Interpreter::shapeOf(const Value& shape, SourceRange range,
                                                             bool allowSymbolic) {
    std::vector<Value> dims;
    if (shape.isPoison())
        return std::nullopt;
    if (shape.isSequence())
        dims = *shape.items;
    else if (shape.isIntLike() || shape.kind == ValueKind::Expr)
        dims = {shape};
    else {
        error("type-error", range, "a shape must be an int or a tuple of ints, not " + typeName(shape));
        return std::nullopt;
    }
    std::vector<ir::ExprPtr> out;
    for (size_t k = 0; k < dims.size(); ++k) {
        const Value& d = dims[k];
        if (d.isPoison())
            return std::nullopt;
        std::optional<int64_t> c;
        if (d.isIntLike())
            c = d.i;
        else if (d.kind == ValueKind::Expr)
            c = ir::constantInt(d.expr);
        if (c) {
            if (*c <= 0) {
                error("invalid-shape", range,
                      "dimension " + std::to_string(k) + " of the shape is " + std::to_string(*c) +
                          "; extents must be positive");
                return std::nullopt;
            }
            out.push_back(ir::makeInt(*c, ir::DType::Int32, range));
            continue;
        }
        if (d.kind == ValueKind::Expr && allowSymbolic && ir::isInteger(d.expr->dtype)) {
            out.push_back(d.expr);
            continue;
        }
        if (d.kind == ValueKind::Expr || d.isOpaque()) {
            error("not-compile-time", range,
                  "shape must be known at compile time, but dimension " + std::to_string(k) + " is " +
                      (d.kind == ValueKind::Expr ? ir::printExpr(d.expr) : "a host value"),
                  allowSymbolic ? "use a jit parameter, a constant or T.dynamic"
                                : "use a jit parameter or a constant");
            return std::nullopt;
        }
        error("type-error", range,
              "dimension " + std::to_string(k) + " of the shape must be an int, not " + typeName(d));
        return std::nullopt;
    }
    if (out.empty()) {
        error("invalid-shape", range, "a shape needs at least one dimension");
        return std::nullopt;
    }
    return out;
}

Value Interpreter::allocate(ir::MemoryScope scope, const Value& shape, const Value& dtype, SourceRange range,
                            SourceRange shapeRange) {
    std::string name = m_pendingName.empty() ? "buf" : m_pendingName;
    m_pendingName.clear();
    auto dims = shapeOf(shape, shapeRange, false);
    auto t = toDType(dtype, range);
    if (!dims || !t)
        return Value::poison();
    ir::Buffer* b = m_out.newBuffer(uniqueName(name), scope, *t, *dims, range);
    m_trace->kernels.back().allocations.push_back(b);
    return Value::bufferOf(b);
}

Value Interpreter::makeTensorParam(const Value& type, const std::string& name, SourceRange range) {
    auto dims = shapeOf(Value::tuple(*type.items), range, true);
    if (!dims)
        return Value::poison();
    ir::Buffer* b = m_out.newBuffer(uniqueName(name), ir::MemoryScope::Global, type.dtype, *dims, range);
    return Value::bufferOf(b);
}

// ---------------------------------------------------------------------------------------------------
// Element access

bool Interpreter::checkIndex(const ir::Buffer* buffer, size_t dim, const ir::ExprPtr& index,
                             SourceRange range) {
    auto v = ir::constantInt(index);
    auto extent = buffer->constantExtent(dim);
    if (v && extent && (*v < 0 || *v >= *extent)) {
        error("index-out-of-range", range,
              "index " + std::to_string(*v) + " is out of range for dimension " + std::to_string(dim) +
                  " of '" + buffer->name + "' with extent " + std::to_string(*extent),
              "valid indices are 0 to " + std::to_string(*extent - 1));
        return false;
    }
    return true;
}

namespace {

std::vector<Value> indexList(const Value& index) {
    if (index.kind == ValueKind::Tuple)
        return *index.items;
    return {index};
}

} // namespace

Value Interpreter::loadElement(ir::Buffer* buffer, const std::vector<Value>& indices, SourceRange range) {
    if (!requireKernel("reading buffer '" + buffer->name + "'", range))
        return Value::poison();
    std::vector<ir::ExprPtr> exprs;
    bool ok = true;
    for (size_t d = 0; d < indices.size(); ++d) {
        ir::ExprPtr e = toExpr(indices[d], range, "a buffer index");
        if (!e)
            return Value::poison();
        if (ir::isFloat(e->dtype))
            return error("type-error", range,
                         "buffer indices must be integers, but index " + std::to_string(d) + " of '" +
                             buffer->name + "' is " + ir::dtypeName(e->dtype));
        ok = checkIndex(buffer, d, e, range) && ok;
        exprs.push_back(e);
    }
    if (!ok)
        return Value::poison();
    return Value::symbolic(ir::makeLoad(buffer, std::move(exprs), range));
}

Value Interpreter::bufferSubscript(ir::Buffer* buffer, const Value& index, SourceRange range) {
    std::vector<Value> idx = indexList(index);
    for (const Value& v : idx)
        if (v.isPoison())
            return v;
    if (idx.size() > buffer->rank())
        return error("index-out-of-range", range,
                     "buffer '" + buffer->name + "' has " + std::to_string(buffer->rank()) + " dimension" +
                         (buffer->rank() == 1 ? "" : "s") + " but " + std::to_string(idx.size()) +
                         " indices were given");
    bool anySlice =
        std::any_of(idx.begin(), idx.end(), [](const Value& v) { return v.kind == ValueKind::Slice; });
    if (!anySlice && idx.size() == buffer->rank())
        return loadElement(buffer, idx, range);
    auto region = std::make_shared<RegionData>();
    region->buffer = buffer;
    for (size_t d = 0; d < buffer->rank(); ++d) {
        if (d >= idx.size()) {
            region->mins.push_back(ir::makeInt(0, ir::DType::Int32, range));
            region->extents.push_back(buffer->shape[d]);
            continue;
        }
        const Value& v = idx[d];
        if (v.kind == ValueKind::Slice) {
            const std::vector<Value>& parts = *v.items;
            if (parts[2].kind != ValueKind::None && !(parts[2].isIntLike() && parts[2].i == 1))
                return error("unsupported-construct", range, "buffer slices with a step are not supported");
            ir::ExprPtr lo = parts[0].kind == ValueKind::None ? ir::makeInt(0, ir::DType::Int32, range)
                                                              : toExpr(parts[0], range, "a slice bound");
            ir::ExprPtr hi = parts[1].kind == ValueKind::None ? buffer->shape[d]
                                                              : toExpr(parts[1], range, "a slice bound");
            if (!lo || !hi)
                return Value::poison();
            ir::ExprPtr extent = sub(hi, lo, range);
            auto c = ir::constantInt(extent);
            if (c && *c <= 0)
                return error("index-out-of-range", range,
                             "the slice of dimension " + std::to_string(d) + " of '" + buffer->name +
                                 "' is empty (" + ir::printExpr(lo) + ":" + ir::printExpr(hi) + ")");
            auto loC = ir::constantInt(lo);
            auto hiC = ir::constantInt(hi);
            auto dimC = buffer->constantExtent(d);
            if (dimC && ((loC && *loC < 0) || (hiC && *hiC > *dimC)))
                return error("index-out-of-range", range,
                             "slice " + ir::printExpr(lo) + ":" + ir::printExpr(hi) +
                                 " is out of range for dimension " + std::to_string(d) + " of '" +
                                 buffer->name + "' with extent " + std::to_string(*dimC));
            region->mins.push_back(asInt32(ir::simplify(lo)));
            region->extents.push_back(asInt32(extent));
            continue;
        }
        ir::ExprPtr e = toExpr(v, range, "a buffer index");
        if (!e)
            return Value::poison();
        if (!checkIndex(buffer, d, e, range))
            return Value::poison();
        region->mins.push_back(e);
        region->extents.push_back(ir::makeInt(1, ir::DType::Int32, range));
    }
    Value r;
    r.kind = ValueKind::Region;
    r.region = region;
    return r;
}

void Interpreter::storeElement(const Value& base, const Value& index, const Value& value, SourceRange range) {
    ir::Buffer* buffer = base.buffer;
    if (value.isPoison())
        return;
    if (!requireKernel("storing to buffer '" + buffer->name + "'", range))
        return;
    std::vector<Value> idx = indexList(index);
    for (const Value& v : idx) {
        if (v.isPoison())
            return;
        if (v.kind == ValueKind::Slice) {
            error("unsupported-construct", range, "assigning to a buffer slice is not supported",
                  "use T.fill for a constant, or a T.Parallel loop over the elements");
            return;
        }
    }
    if (idx.size() != buffer->rank()) {
        error("index-out-of-range", range,
              "buffer '" + buffer->name + "' has " + std::to_string(buffer->rank()) + " dimension" +
                  (buffer->rank() == 1 ? "" : "s") + " but the store gives " + std::to_string(idx.size()) +
                  " ind" + (idx.size() == 1 ? "ex" : "ices"));
        return;
    }
    std::vector<ir::ExprPtr> exprs;
    bool ok = true;
    for (size_t d = 0; d < idx.size(); ++d) {
        ir::ExprPtr e = toExpr(idx[d], range, "a buffer index");
        if (!e)
            return;
        ok = checkIndex(buffer, d, e, range) && ok;
        exprs.push_back(e);
    }
    if (!ok)
        return;
    ir::ExprPtr v = toExpr(value, range, "the stored value");
    if (!v)
        return;
    auto s = ir::makeStmt(ir::StmtKind::Store, range);
    s->buffer = buffer;
    s->indices = std::move(exprs);
    s->value = castTo(v, buffer->dtype);
    emit(s);
}

// ---------------------------------------------------------------------------------------------------
// with T.Kernel(...) and tile loops

Flow Interpreter::execWith(const ast::Stmt& s) {
    const ast::WithItem* kernelItem = nullptr;
    Value spec;
    for (const ast::WithItem& item : s.items) {
        if (!item.context)
            continue;
        Value v = eval(*item.context);
        if (v.isPoison())
            return Flow::Normal; // the error is reported; skipping the body avoids a cascade
        if (v.kind == ValueKind::KernelSpec) {
            kernelItem = &item;
            spec = v;
        } else if (!v.isOpaque() && v.kind != ValueKind::None) {
            error("unsupported-construct", item.context->range,
                  "a " + typeName(v) + " cannot be used as a context manager in tile programs");
            return Flow::Normal;
        }
    }
    if (!kernelItem)
        return execBlock(s.body);
    if (!tracing()) {
        error("kernel-outside-kernel", kernelItem->context->range,
              "T.Kernel can only be used inside a @T.prim_func or @T.macro body",
              "return the @T.prim_func from the jit function and open the kernel inside it");
        return Flow::Normal;
    }
    if (inKernel()) {
        error("unsupported-construct", kernelItem->context->range,
              "T.Kernel cannot be nested inside another T.Kernel");
        return Flow::Normal;
    }
    const KernelData& k = *spec.kernel;
    std::vector<std::string> names;
    const ast::Expr* target = kernelItem->target.get();
    if (target && target->kind == ast::ExprKind::Tuple) {
        if (target->elements.size() > k.grid.size()) {
            error("wrong-arguments", target->range,
                  "T.Kernel has " + std::to_string(k.grid.size()) + " grid dimension" +
                      (k.grid.size() == 1 ? "" : "s") + " but " + std::to_string(target->elements.size()) +
                      " block indices are bound");
            return Flow::Normal;
        }
        for (const ast::ExprPtr& el : target->elements)
            names.push_back(el && el->kind == ast::ExprKind::Name ? el->name : std::string());
    } else if (target && target->kind == ast::ExprKind::Name && k.grid.size() == 1) {
        names.push_back(target->name);
    }
    static const char* const defaults[] = {"bx", "by", "bz"};
    std::vector<const ir::Var*> vars;
    std::vector<Value> varValues;
    for (size_t d = 0; d < k.grid.size(); ++d) {
        std::string n = d < names.size() && !names[d].empty() ? names[d] : defaults[d];
        ir::Var* v = m_out.newVar(uniqueName(n), ir::DType::Int32, ir::VarKind::BlockIndex,
                                  target ? target->range : s.range);
        vars.push_back(v);
        varValues.push_back(Value::symbolic(ir::makeVarRef(v, target ? target->range : s.range)));
    }
    if (target) {
        if (target->kind == ast::ExprKind::Tuple) {
            for (size_t d = 0; d < target->elements.size(); ++d)
                if (target->elements[d])
                    assign(*target->elements[d], varValues[d], target->range);
        } else {
            assign(*target, varValues.size() == 1 ? varValues[0] : Value::tuple(varValues), target->range);
        }
    }
    KernelFrame frame;
    frame.threadCount = 1;
    for (int64_t t : k.threads)
        frame.threadCount *= t;
    m_trace->kernels.push_back(frame);
    m_trace->emit.emplace_back();
    auto savedLoops = std::move(m_loopIsKernel);
    m_loopIsKernel.clear();
    Flow flow = execBlock(s.body);
    m_loopIsKernel = std::move(savedLoops);
    std::vector<ir::StmtPtr> body = std::move(m_trace->emit.back());
    m_trace->emit.pop_back();
    KernelFrame done = std::move(m_trace->kernels.back());
    m_trace->kernels.pop_back();
    auto node = ir::makeStmt(ir::StmtKind::Kernel, s.range);
    node->grid = k.grid;
    node->blockVars = vars;
    node->threads = k.threads;
    node->allocations = done.allocations;
    node->body = ir::makeSeq(std::move(body), s.range);
    emit(node);
    return flow;
}

Flow Interpreter::execKernelFor(const ast::Stmt& s, const Value& iter) {
    LoopData spec;
    if (iter.kind == ValueKind::Range) {
        int64_t start = iter.range[0], stop = iter.range[1], st = iter.range[2];
        int64_t count = st > 0 ? std::max<int64_t>(0, (stop - start + st - 1) / st)
                               : std::max<int64_t>(0, (start - stop - st - 1) / -st);
        spec.kind = ir::LoopKind::Serial;
        spec.mins = {ir::makeInt(start, ir::DType::Int32, s.iter->range)};
        spec.extents = {ir::makeInt(count, ir::DType::Int32, s.iter->range)};
        spec.step = st;
    } else {
        spec = *iter.loop;
    }
    if (!requireKernel(std::string("a T.") + ir::loopKindName(spec.kind) + " loop", s.iter->range))
        return Flow::Normal;
    if (!s.orelse.empty())
        error("unsupported-construct", s.range, "for-else is not supported on tile loops");
    std::vector<const ast::Expr*> targets;
    if (s.target->kind == ast::ExprKind::Tuple || s.target->kind == ast::ExprKind::List) {
        for (const ast::ExprPtr& el : s.target->elements)
            targets.push_back(el.get());
    } else {
        targets.push_back(s.target.get());
    }
    if (targets.size() != spec.extents.size()) {
        error("wrong-arguments", s.target->range,
              std::string("the ") + ir::loopKindName(spec.kind) + " loop has " +
                  std::to_string(spec.extents.size()) + " dimension" + (spec.extents.size() == 1 ? "" : "s") +
                  " but binds " + std::to_string(targets.size()) + " name" +
                  (targets.size() == 1 ? "" : "s"));
        return Flow::Normal;
    }
    std::vector<const ir::Var*> vars;
    for (size_t d = 0; d < targets.size(); ++d) {
        const ast::Expr* t = targets[d];
        if (!t || t->kind != ast::ExprKind::Name) {
            error("unsupported-construct", t ? t->range : s.target->range,
                  "a tile loop variable must be a plain name");
            return Flow::Normal;
        }
        ir::Var* v = m_out.newVar(uniqueName(t->name), ir::DType::Int32, ir::VarKind::LoopVar, t->range);
        vars.push_back(v);
        ir::ExprPtr ref = ir::makeVarRef(v, t->range);
        if (spec.step != 1) {
            ref = ir::makeBinary(
                ir::BinaryOp::Add, asInt32(spec.mins[d]),
                ir::makeBinary(ir::BinaryOp::Mul, ref, ir::makeInt(spec.step, ir::DType::Int32), t->range),
                t->range);
        }
        bindName(t->name, Value::symbolic(ref));
    }
    m_trace->emit.emplace_back();
    m_loopIsKernel.push_back(true);
    Flow flow = execBlock(s.body);
    m_loopIsKernel.pop_back();
    std::vector<ir::StmtPtr> body = std::move(m_trace->emit.back());
    m_trace->emit.pop_back();
    ir::StmtPtr inner = ir::makeSeq(std::move(body), s.range);
    for (size_t d = vars.size(); d-- > 0;) {
        auto loop = ir::makeStmt(ir::StmtKind::For, s.range);
        loop->loopVar = vars[d];
        loop->min = spec.step != 1 ? ir::makeInt(0, ir::DType::Int32, s.range) : asInt32(spec.mins[d]);
        loop->extent = asInt32(spec.extents[d]);
        loop->loopKind = spec.kind;
        if (d == 0)
            loop->pipeline = spec.pipeline;
        if (d + 1 == vars.size())
            loop->coalescedWidth = spec.coalescedWidth;
        loop->body = inner;
        inner = loop;
    }
    emit(inner);
    return flow == Flow::Halt ? Flow::Halt : Flow::Normal;
}

// ---------------------------------------------------------------------------------------------------
// Tile operations

namespace {

struct OperandResolver {
    Interpreter& in;

    std::optional<Operand> operator()(const Value& v, SourceRange range, const std::string& what,
                                      bool allowCorner) {
        Operand op;
        op.range = range;
        switch (v.kind) {
        case ValueKind::Buffer:
            op.buffer = v.buffer;
            for (size_t d = 0; d < v.buffer->rank(); ++d) {
                op.mins.push_back(ir::makeInt(0, ir::DType::Int32, range));
                op.extents.push_back(v.buffer->shape[d]);
            }
            return op;
        case ValueKind::Region:
            op.buffer = v.region->buffer;
            op.mins = v.region->mins;
            op.extents = v.region->extents;
            return op;
        case ValueKind::Expr:
            if (v.expr->kind == ir::ExprKind::BufferLoad && allowCorner) {
                op.buffer = const_cast<ir::Buffer*>(v.expr->buffer);
                op.mins = v.expr->operands;
                op.corner = true;
                return op;
            }
            in.error(
                "not-a-buffer", range,
                what + " must be a buffer or a buffer region, but it is the scalar " + ir::printExpr(v.expr),
                "pass the buffer, a slice such as A[i, 0:64], or a start corner such as A[by * 128, k * 32]");
            return std::nullopt;
        case ValueKind::Poison:
            return std::nullopt;
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
        case ValueKind::Function:
        case ValueKind::Builtin:
        case ValueKind::Namespace:
        case ValueKind::DType:
        case ValueKind::Enum:
        case ValueKind::TensorType:
        case ValueKind::LoopSpec:
        case ValueKind::KernelSpec:
        case ValueKind::Layout:
        case ValueKind::Object:
        case ValueKind::Opaque:
            break;
        }
        in.error("not-a-buffer", range, what + " must be a buffer or a buffer region, not " + typeName(v),
                 "pass a tensor parameter or a buffer from T.alloc_shared / T.alloc_fragment");
        return std::nullopt;
    }
};

} // namespace

namespace {

// Region bounds that are provably outside the buffer.
bool regionInBounds(Interpreter& in, const Operand& op, const std::string& what) {
    for (size_t d = 0; d < op.mins.size() && d < op.buffer->rank(); ++d) {
        auto lo = ir::constantInt(op.mins[d]);
        auto ext = ir::constantInt(op.extents[d]);
        auto dim = op.buffer->constantExtent(d);
        if (lo && ext && dim && (*lo < 0 || *lo + *ext > *dim)) {
            in.error("index-out-of-range", op.range,
                     what + " reads [" + std::to_string(*lo) + ", " + std::to_string(*lo + *ext) +
                         ") of dimension " + std::to_string(d) + " of '" + op.buffer->name +
                         "', which has extent " + std::to_string(*dim));
            return false;
        }
    }
    return true;
}

} // namespace

namespace {

// Extents for a start corner: the other side's non-unit extents, right-aligned, leading dims extent 1.
bool fillCorner(Interpreter& in, Operand& corner, const Operand& other, SourceRange range) {
    std::vector<ir::ExprPtr> shape = nonUnit(other.extents);
    size_t rank = corner.buffer->rank();
    if (shape.size() > rank) {
        in.error("copy-extent-mismatch", range,
                 "T.copy cannot place a tile of shape " + shapeText(other.extents) + " at a corner of '" +
                     corner.buffer->name + "', which has only " + std::to_string(rank) + " dimensions",
                 "slice the destination explicitly, e.g. " + corner.buffer->name + "[i, 0:64]");
        return false;
    }
    corner.extents.assign(rank - shape.size(), ir::makeInt(1, ir::DType::Int32, range));
    corner.extents.insert(corner.extents.end(), shape.begin(), shape.end());
    return true;
}

} // namespace

Value Interpreter::callTileOp(const std::string& name, CallArgs& args, SourceRange range, bool& handled) {
    handled = true;
    OperandResolver operand{*this};
    BoundArgs b;
    auto noneValue = Value::none();
    std::string op = name.substr(name.find('.') + 1);
    bool isLayoutNs = name.rfind("layout.", 0) == 0;

    // ---- decorators used as calls ----
    if (!isLayoutNs && (op == "prim_func" || op == "macro")) {
        if (args.positional.size() == 1 && args.positional[0].kind == ValueKind::Function) {
            if (op == "prim_func")
                args.positional[0].fn->isPrimFunc = true;
            else
                args.positional[0].fn->isMacro = true;
            return args.positional[0];
        }
        // @T.prim_func(...) with options: a decorator factory.
        return Value::builtin(name);
    }

    // ---- launch ----
    if (op == "Kernel" && !isLayoutNs) {
        if (!bind("T.Kernel(*blocks, threads=128, prelude=None, is_cpu=False, cluster_dims=None)", args, b))
            return Value::poison();
        if (b.varargs.empty() || b.varargs.size() > 3)
            return error("wrong-arguments", range,
                         "T.Kernel takes 1 to 3 grid extents, got " + std::to_string(b.varargs.size()),
                         "signature: T.Kernel(*blocks, threads=128, prelude=None)");
        auto data = std::make_shared<KernelData>();
        for (size_t k = 0; k < b.varargs.size(); ++k) {
            ir::ExprPtr e = toExpr(b.varargs[k], b.varargRanges[k], "a grid extent");
            if (!e)
                return Value::poison();
            if (ir::isFloat(e->dtype))
                return error("type-error", b.varargRanges[k],
                             "grid extents must be integers, not " + std::string(ir::dtypeName(e->dtype)));
            auto c = ir::constantInt(e);
            if (c && *c <= 0)
                return error("invalid-shape", b.varargRanges[k],
                             "grid extent " + std::to_string(k) + " is " + std::to_string(*c) +
                                 "; it must be positive");
            data->grid.push_back(c ? ir::makeInt(*c, ir::DType::Int32, b.varargRanges[k]) : asInt32(e));
        }
        std::vector<Value> threadValues = b.given[0]
                                              ? (b[0].isSequence() ? *b[0].items : std::vector<Value>{b[0]})
                                              : std::vector<Value>{Value::integer(128)};
        if (threadValues.empty() || threadValues.size() > 3)
            return error("wrong-arguments", b.at(0), "threads must be an int or a list of 1 to 3 ints");
        int64_t total = 1;
        for (const Value& t : threadValues) {
            auto c = constInt(t, b.at(0), "threads");
            if (!c)
                return Value::poison();
            if (*c <= 0)
                return error("invalid-shape", b.at(0), "threads=" + std::to_string(*c) + " must be positive");
            data->threads.push_back(*c);
            total *= *c;
        }
        if (total % 32 != 0)
            return error("threads-not-multiple-of-32", b.at(0),
                         "threads=" + std::to_string(total) + " is not a multiple of the warp size 32",
                         "use a multiple of 32, e.g. threads=" +
                             std::to_string(std::max<int64_t>(32, (total + 31) / 32 * 32)));
        if (total > 1024)
            return error("too-many-threads", b.at(0),
                         "threads=" + std::to_string(total) + " exceeds the CUDA limit of 1024 per block",
                         "use fewer threads (128 or 256 is typical) and give each thread more work");
        Value v;
        v.kind = ValueKind::KernelSpec;
        v.kernel = data;
        return v;
    }

    // ---- loops ----
    if (!isLayoutNs && (op == "Parallel" || op == "Pipelined" || op == "serial" || op == "Serial" ||
                        op == "unroll" || op == "vectorized")) {
        auto loop = std::make_shared<LoopData>();
        if (op == "Parallel") {
            if (!bind("T.Parallel(*extents, coalesced_width=None, loop_layout=None, prefer_async=None, "
                      "annotations=None)",
                      args, b))
                return Value::poison();
            if (b.varargs.empty())
                return error("wrong-arguments", range, "T.Parallel needs at least one extent");
            loop->kind = ir::LoopKind::Parallel;
            for (size_t k = 0; k < b.varargs.size(); ++k) {
                ir::ExprPtr e = toExpr(b.varargs[k], b.varargRanges[k], "a loop extent");
                if (!e)
                    return Value::poison();
                loop->mins.push_back(ir::makeInt(0, ir::DType::Int32, range));
                loop->extents.push_back(asInt32(ir::simplify(e)));
            }
            if (b.given[0] && b[0].kind != ValueKind::None) {
                auto c = constInt(b[0], b.at(0), "coalesced_width");
                if (!c)
                    return Value::poison();
                loop->coalescedWidth = static_cast<int>(*c);
            }
        } else {
            const char* sig =
                op == "Pipelined"
                    ? "T.Pipelined(start, stop=None, num_stages=0, order=None, stage=None, "
                      "sync=None, group=None, annotations=None)"
                    : "T.serial(start, stop=None, step=None, annotations=None, unroll_factor=None)";
            if (!bind(sig, args, b))
                return Value::poison();
            loop->kind = op == "Pipelined"    ? ir::LoopKind::Pipelined
                         : op == "unroll"     ? ir::LoopKind::Unroll
                         : op == "vectorized" ? ir::LoopKind::Vectorized
                                              : ir::LoopKind::Serial;
            ir::ExprPtr start = toExpr(b[0], b.at(0), "a loop bound");
            if (!start)
                return Value::poison();
            ir::ExprPtr lo = ir::makeInt(0, ir::DType::Int32, range), hi = start;
            if (b.given[1] && b[1].kind != ValueKind::None) {
                lo = start;
                hi = toExpr(b[1], b.at(1), "a loop bound");
                if (!hi)
                    return Value::poison();
            }
            if (ir::isFloat(lo->dtype) || ir::isFloat(hi->dtype))
                return error("type-error", range, "loop bounds must be integers");
            ir::ExprPtr extent = sub(hi, lo, range);
            if (op != "Pipelined" && b.given[2] && b[2].kind != ValueKind::None) {
                auto st = constInt(b[2], b.at(2), "the loop step");
                if (!st)
                    return Value::poison();
                if (*st <= 0)
                    return error("value-error", b.at(2),
                                 "the loop step must be positive, got " + std::to_string(*st));
                loop->step = *st;
                if (*st != 1)
                    extent = ir::simplify(
                        ir::makeBinary(ir::BinaryOp::FloorDiv,
                                       ir::makeBinary(ir::BinaryOp::Add, extent, ir::makeInt(*st - 1)),
                                       ir::makeInt(*st), range));
            }
            if (auto c = ir::constantInt(extent); c && *c < 0)
                extent = ir::makeInt(0, ir::DType::Int32, range);
            loop->mins = {asInt32(ir::simplify(lo))};
            loop->extents = {asInt32(extent)};
            if (op == "Pipelined") {
                if (b.given[2] && b[2].kind != ValueKind::None) {
                    auto c = constInt(b[2], b.at(2), "num_stages");
                    if (!c)
                        return Value::poison();
                    if (*c < 0)
                        return error("value-error", b.at(2),
                                     "num_stages must not be negative, got " + std::to_string(*c));
                    loop->pipeline.numStages = static_cast<int>(*c);
                }
                auto intList = [&](size_t slot, std::vector<int>& out) -> bool {
                    if (!b.given[slot] || b[slot].kind == ValueKind::None)
                        return true;
                    if (!b[slot].isSequence()) {
                        error("type-error", b.at(slot), "expected a list of ints, got " + typeName(b[slot]));
                        return false;
                    }
                    for (const Value& v : *b[slot].items) {
                        auto c = constInt(v, b.at(slot), "a schedule entry");
                        if (!c)
                            return false;
                        out.push_back(static_cast<int>(*c));
                    }
                    return true;
                };
                if (!intList(3, loop->pipeline.order) || !intList(4, loop->pipeline.stage))
                    return Value::poison();
                if (b.given[6] && b[6].isSequence()) {
                    for (const Value& g : *b[6].items) {
                        std::vector<int> ids;
                        if (!g.isSequence())
                            return error("type-error", b.at(6),
                                         "group must be a list of lists of statement ids");
                        for (const Value& v : *g.items) {
                            auto c = constInt(v, b.at(6), "a group entry");
                            if (!c)
                                return Value::poison();
                            ids.push_back(static_cast<int>(*c));
                        }
                        loop->pipeline.group.push_back(ids);
                    }
                }
                if (!loop->pipeline.order.empty() && !loop->pipeline.stage.empty() &&
                    loop->pipeline.order.size() != loop->pipeline.stage.size())
                    return error("wrong-arguments", range,
                                 "T.Pipelined order has " + std::to_string(loop->pipeline.order.size()) +
                                     " entries but stage has " + std::to_string(loop->pipeline.stage.size()));
            }
        }
        Value v;
        v.kind = ValueKind::LoopSpec;
        v.loop = loop;
        return v;
    }

    // ---- allocation ----
    if (!isLayoutNs &&
        (op == "alloc_shared" || op == "alloc_fragment" || op == "alloc_local" || op == "alloc_global")) {
        if (!bind(op == "alloc_shared" ? "T.alloc_shared(shape, dtype, scope=shared.dyn)"
                                       : (std::string("T.") + op + "(shape, dtype, scope=None)").c_str(),
                  args, b))
            return Value::poison();
        if (!requireKernel("T." + op, range))
            return Value::poison();
        ir::MemoryScope scope = op == "alloc_shared"     ? ir::MemoryScope::Shared
                                : op == "alloc_fragment" ? ir::MemoryScope::Fragment
                                : op == "alloc_local"    ? ir::MemoryScope::Local
                                                         : ir::MemoryScope::Global;
        if (b.given[2] && b[2].kind == ValueKind::Str) {
            const std::string& s = b[2].s;
            if (s == "shared" || s == "shared.dyn")
                scope = ir::MemoryScope::Shared;
            else if (s == "local.fragment")
                scope = ir::MemoryScope::Fragment;
            else if (s == "local")
                scope = ir::MemoryScope::Local;
            else if (s == "local.var")
                scope = ir::MemoryScope::LocalVar;
            else if (s == "global")
                scope = ir::MemoryScope::Global;
            else
                return error("unsupported-construct", b.at(2), "memory scope '" + s + "' is not supported");
        }
        return allocate(scope, b[0], b[1], range, b.at(0));
    }
    if (!isLayoutNs && op == "alloc_var") {
        if (!bind("T.alloc_var(dtype, init=None, scope=local.var)", args, b))
            return Value::poison();
        if (!requireKernel("T.alloc_var", range))
            return Value::poison();
        Value buf = allocate(ir::MemoryScope::LocalVar, Value::integer(1), b[0], range, range);
        if (buf.kind == ValueKind::Buffer && b.given[1] && b[1].kind != ValueKind::None) {
            ir::ExprPtr init = toExpr(b[1], b.at(1), "the initial value");
            if (!init)
                return Value::poison();
            buf.buffer->initValue = castTo(init, buf.buffer->dtype);
        }
        return buf;
    }

    // ---- data movement and compute ----
    if (!isLayoutNs && op == "copy") {
        if (!bind("T.copy(src, dst, coalesced_width=None, disable_tma=False, eviction_policy=None, "
                  "annotations=None, "
                  "loop_layout=None, prefer_instruction=None)",
                  args, b))
            return Value::poison();
        if (!requireKernel("T.copy", range))
            return Value::poison();
        auto src = operand(b[0], b.at(0), "the T.copy source", true);
        auto dst = operand(b[1], b.at(1), "the T.copy destination", true);
        if (!src || !dst)
            return Value::poison();
        if (src->corner && dst->corner) {
            // Two elements: a plain store.
            auto s = ir::makeStmt(ir::StmtKind::Store, range);
            s->buffer = dst->buffer;
            s->indices = dst->mins;
            s->value = castTo(ir::makeLoad(src->buffer, src->mins, b.at(0)), dst->buffer->dtype);
            emit(s);
            return noneValue;
        }
        if (src->corner && !fillCorner(*this, *src, *dst, range))
            return Value::poison();
        if (dst->corner && !fillCorner(*this, *dst, *src, range))
            return Value::poison();
        std::vector<ir::ExprPtr> a = nonUnit(src->extents), c = nonUnit(dst->extents);
        bool mismatch = a.size() != c.size();
        for (size_t k = 0; !mismatch && k < a.size(); ++k)
            mismatch = differ(a[k], c[k]);
        bool bothFragments = src->buffer->scope == ir::MemoryScope::Fragment &&
                             dst->buffer->scope == ir::MemoryScope::Fragment;
        if (mismatch && bothFragments)
            return error(
                "copy-fragment-shape", range,
                "T.copy between fragments of different shapes: '" + src->buffer->name + "' is " +
                    shapeText(src->extents) + " but '" + dst->buffer->name + "' is " +
                    shapeText(dst->extents),
                "a fragment-to-fragment copy is an element-wise cast; allocate both with the same shape");
        if (mismatch)
            return error("copy-extent-mismatch", range,
                         "T.copy extents do not match: the source '" + src->buffer->name +
                             "' region has shape " + shapeText(src->extents) + " but the destination '" +
                             dst->buffer->name + "' region has shape " + shapeText(dst->extents),
                         "the non-unit extents of both sides must agree in order; slice the larger side");
        if (!regionInBounds(*this, *src, "T.copy") || !regionInBounds(*this, *dst, "T.copy"))
            return Value::poison();
        if (src->buffer->scope == ir::MemoryScope::Fragment &&
            dst->buffer->scope == ir::MemoryScope::Fragment) {
            bool same = src->buffer->rank() == dst->buffer->rank();
            for (size_t d = 0; same && d < src->buffer->rank(); ++d)
                same = !differ(src->buffer->shape[d], dst->buffer->shape[d]);
            if (!same)
                return error(
                    "copy-fragment-shape", range,
                    "T.copy between fragments of different shapes: '" + src->buffer->name + "' is " +
                        shapeText(src->buffer->shape) + " but '" + dst->buffer->name + "' is " +
                        shapeText(dst->buffer->shape),
                    "fragments are distributed over the threads by shape; copy through a shared buffer");
        }
        auto s = ir::makeStmt(ir::StmtKind::Copy, range);
        s->src = src->region();
        s->dst = dst->region();
        s->disableTma = b.given[3] && truth(b[3]).value_or(false);
        if (b.given[4] && b[4].kind != ValueKind::None) {
            std::optional<ir::EvictionPolicy> policy;
            for (ir::EvictionPolicy p :
                 {ir::EvictionPolicy::Normal, ir::EvictionPolicy::First, ir::EvictionPolicy::Last})
                if (b[4].kind == ValueKind::Str && b[4].s == ir::evictionPolicyName(p))
                    policy = p;
            if (!policy)
                return error("value-error", b.at(4),
                             "eviction_policy must be \"evict_first\", \"evict_last\" or \"evict_normal\"",
                             "evict_last keeps data that a later loop reads again in L2; evict_first streams "
                             "data read or written once past it");
            s->evictionPolicy = *policy;
            if (s->evictionPolicy != ir::EvictionPolicy::Normal &&
                s->src.buffer->scope != ir::MemoryScope::Global &&
                s->dst.buffer->scope != ir::MemoryScope::Global)
                m_diagnostics.warning("eviction-policy-unused", b.at(4),
                                      "eviction_policy has no effect on a copy with no global side",
                                      "it steers how long global lines stay in L2; drop it here");
        }
        emit(s);
        return noneValue;
    }
    if (!isLayoutNs && op == "gemm") {
        if (!bind("T.gemm(A, B, C, transpose_A=False, transpose_B=False, policy=Square, clear_accum=False, "
                  "k_pack=1, "
                  "wg_wait=0, mbar=None, annotations=None)",
                  args, b))
            return Value::poison();
        if (!requireKernel("T.gemm", range))
            return Value::poison();
        auto A = operand(b[0], b.at(0), "gemm operand A", false);
        auto B = operand(b[1], b.at(1), "gemm operand B", false);
        auto C = operand(b[2], b.at(2), "gemm accumulator C", false);
        if (!A || !B || !C)
            return Value::poison();
        bool transA = b.given[3] && truth(b[3]).value_or(false);
        bool transB = b.given[4] && truth(b[4]).value_or(false);
        std::string shapes = "A '" + A->buffer->name + "' is " + shapeText(A->extents) + ", B '" +
                             B->buffer->name + "' is " + shapeText(B->extents) + ", C '" + C->buffer->name +
                             "' is " + shapeText(C->extents);
        std::string layoutHint = std::string("with transpose_A=") + (transA ? "True" : "False") +
                                 " and transpose_B=" + (transB ? "True" : "False") + ", A must be " +
                                 (transA ? "[K, M]" : "[M, K]") + ", B " + (transB ? "[N, K]" : "[K, N]") +
                                 " and C [M, N]";
        for (const Operand* o : {&*A, &*B, &*C}) {
            if (o->extents.size() < 2)
                return error("gemm-shape-mismatch", range, "gemm operands need 2 dimensions: " + shapes,
                             layoutHint);
            for (size_t d = 0; d + 2 < o->extents.size(); ++d)
                if (!isUnit(o->extents[d]))
                    return error("gemm-shape-mismatch", range,
                                 "gemm operand '" + o->buffer->name +
                                     "' has a leading extent other than 1: " + shapes,
                                 "slice one stage, e.g. " + o->buffer->name + "[stage, :, :]");
        }
        auto last2 = [](const Operand& o, bool trans) {
            size_t n = o.extents.size();
            return trans ? std::make_pair(o.extents[n - 1], o.extents[n - 2])
                         : std::make_pair(o.extents[n - 2], o.extents[n - 1]);
        };
        auto [M, Ka] = last2(*A, transA);
        auto [Kb, N] = last2(*B, transB);
        auto [Mc, Nc] = last2(*C, false);
        std::string what;
        if (differ(Ka, Kb))
            what = "K is " + ir::printExpr(ir::simplify(Ka)) + " for A but " +
                   ir::printExpr(ir::simplify(Kb)) + " for B";
        else if (differ(M, Mc))
            what = "M is " + ir::printExpr(ir::simplify(M)) + " for A but " +
                   ir::printExpr(ir::simplify(Mc)) + " for C";
        else if (differ(N, Nc))
            what = "N is " + ir::printExpr(ir::simplify(N)) + " for B but " +
                   ir::printExpr(ir::simplify(Nc)) + " for C";
        if (!what.empty())
            return error("gemm-shape-mismatch", range, "gemm shapes disagree (" + what + "): " + shapes,
                         layoutHint);
        if (C->buffer->scope != ir::MemoryScope::Fragment)
            return error("gemm-accumulator-scope", b.at(2),
                         "the gemm accumulator '" + C->buffer->name + "' must be a fragment, but it is " +
                             ir::scopeName(C->buffer->scope),
                         "allocate it with T.alloc_fragment");
        auto s = ir::makeStmt(ir::StmtKind::Gemm, range);
        s->a = A->region();
        s->b = B->region();
        s->c = C->region();
        s->transposeA = transA;
        s->transposeB = transB;
        if (b.given[5]) {
            const Value& p = b[5];
            if (p.kind == ValueKind::Enum || p.kind == ValueKind::Str) {
                std::string n = p.s.substr(p.s.rfind('.') + 1);
                s->policy = n == "FullRow"   ? ir::GemmWarpPolicy::FullRow
                            : n == "FullCol" ? ir::GemmWarpPolicy::FullCol
                                             : ir::GemmWarpPolicy::Square;
            } else if (p.isIntLike() && p.i >= 0 && p.i <= 2) {
                s->policy = static_cast<ir::GemmWarpPolicy>(p.i);
            } else if (p.kind != ValueKind::None) {
                return error("type-error", b.at(5), "policy must be a T.GemmWarpPolicy, not " + typeName(p));
            }
        }
        s->clearAccum = ir::makeBool(false, range);
        if (b.given[6]) {
            ir::ExprPtr ca = toExpr(b[6], b.at(6), "clear_accum");
            if (!ca)
                return Value::poison();
            s->clearAccum = castTo(ca, ir::DType::Bool);
        }
        if (b.given[7]) {
            auto k = constInt(b[7], b.at(7), "k_pack");
            if (!k)
                return Value::poison();
            s->kPack = static_cast<int>(*k);
        }
        if (b.given[8]) {
            auto w = constInt(b[8], b.at(8), "wg_wait");
            if (!w)
                return Value::poison();
            s->wgWait = static_cast<int>(*w);
        }
        emit(s);
        return noneValue;
    }
    if (!isLayoutNs && (op == "fill" || op == "clear")) {
        if (!bind(op == "fill" ? "T.fill(buffer, value)" : "T.clear(buffer)", args, b))
            return Value::poison();
        if (!requireKernel("T." + op, range))
            return Value::poison();
        auto dst = operand(b[0], b.at(0), "the T." + op + " target", true);
        if (!dst)
            return Value::poison();
        if (dst->corner)
            dst->extents.assign(dst->mins.size(), ir::makeInt(1, ir::DType::Int32, range));
        ir::ExprPtr v =
            op == "fill" ? toExpr(b[1], b.at(1), "the fill value") : ir::makeInt(0, ir::DType::Int32, range);
        if (!v)
            return Value::poison();
        auto s = ir::makeStmt(ir::StmtKind::Fill, range);
        s->dst = dst->region();
        s->value = castTo(v, dst->buffer->dtype);
        emit(s);
        return noneValue;
    }
    if (!isLayoutNs && op.rfind("reduce_", 0) == 0) {
        static const std::pair<const char*, ir::ReduceKind> kinds[] = {
            {"reduce_max", ir::ReduceKind::Max},       {"reduce_min", ir::ReduceKind::Min},
            {"reduce_sum", ir::ReduceKind::Sum},       {"reduce_abssum", ir::ReduceKind::AbsSum},
            {"reduce_absmax", ir::ReduceKind::AbsMax}, {"reduce_bitand", ir::ReduceKind::BitAnd},
            {"reduce_bitor", ir::ReduceKind::BitOr},   {"reduce_bitxor", ir::ReduceKind::BitXor}};
        std::optional<ir::ReduceKind> kind;
        for (auto& [n, k] : kinds)
            if (op == n)
                kind = k;
        if (!kind) {
            handled = false;
            return Value::poison();
        }
        if (!bind(("T." + op + "(buffer, out, dim=-1, clear=True, batch=1, nan_propagate=False)").c_str(),
                  args, b))
            return Value::poison();
        if (!requireKernel("T." + op, range))
            return Value::poison();
        auto toBuffer = [&](size_t k, const char* role) -> ir::Buffer* {
            const Value& v = b[k];
            if (v.kind == ValueKind::Buffer)
                return v.buffer;
            if (v.kind == ValueKind::Region)
                return v.region->buffer;
            if (!v.isPoison())
                error("not-a-buffer", b.at(k),
                      std::string("the ") + role + " of T." + op + " must be a buffer, not " +
                          (v.kind == ValueKind::Expr ? "the scalar " + ir::printExpr(v.expr) : typeName(v)));
            return nullptr;
        };
        ir::Buffer* src = toBuffer(0, "source");
        ir::Buffer* dst = toBuffer(1, "output");
        if (!src || !dst)
            return Value::poison();
        int64_t dim = -1;
        if (b.given[2]) {
            auto d = constInt(b[2], b.at(2), "dim");
            if (!d)
                return Value::poison();
            dim = *d;
        }
        int64_t rank = static_cast<int64_t>(src->rank());
        int64_t normalized = dim < 0 ? dim + rank : dim;
        if (normalized < 0 || normalized >= rank)
            return error("reduce-dim", b.at(2),
                         "dim=" + std::to_string(dim) + " is out of range for '" + src->name + "' with " +
                             std::to_string(rank) + " dimension" + (rank == 1 ? "" : "s"),
                         "dim counts from 0 (or from the end when negative): use dim=" +
                             std::to_string(rank - 1) + " to reduce along the last dimension");
        std::vector<ir::ExprPtr> expected;
        for (int64_t d = 0; d < rank; ++d)
            if (d != normalized)
                expected.push_back(src->shape[static_cast<size_t>(d)]);
        std::vector<ir::ExprPtr> want = nonUnit(expected), got = nonUnit(dst->shape);
        bool mismatch = want.size() != got.size();
        for (size_t k = 0; !mismatch && k < want.size(); ++k)
            mismatch = differ(want[k], got[k]);
        if (mismatch)
            return error("reduce-shape-mismatch", range,
                         "T." + op + " of '" + src->name + "' " + shapeText(src->shape) + " along dim " +
                             std::to_string(normalized) + " gives shape " + shapeText(expected) + ", but '" +
                             dst->name + "' is " + shapeText(dst->shape),
                         "the output keeps every dimension except `dim`");
        auto s = ir::makeStmt(ir::StmtKind::Reduce, range);
        s->reduceKind = *kind;
        s->srcBuffer = src;
        s->dstBuffer = dst;
        s->dim = static_cast<int>(normalized);
        s->clear = true;
        if (b.given[3]) {
            auto t = truth(b[3]);
            if (!t)
                return error("not-compile-time", b.at(3), "clear must be known at compile time");
            s->clear = *t;
        }
        emit(s);
        return noneValue;
    }
    if (!isLayoutNs && op == "atomic_add") {
        if (!bind("T.atomic_add(dst, value, memory_order=None, return_prev=False, use_tma=False)", args, b))
            return Value::poison();
        if (!requireKernel("T.atomic_add", range))
            return Value::poison();
        auto dst = operand(b[0], b.at(0), "the T.atomic_add destination", true);
        if (!dst)
            return Value::poison();
        auto s = ir::makeStmt(ir::StmtKind::AtomicAdd, range);
        bool valueIsTile = b[1].kind == ValueKind::Buffer || b[1].kind == ValueKind::Region;
        if (dst->corner && !valueIsTile) {
            dst->extents.assign(dst->mins.size(), ir::makeInt(1, ir::DType::Int32, range));
            ir::ExprPtr v = toExpr(b[1], b.at(1), "the added value");
            if (!v)
                return Value::poison();
            s->dst = dst->region();
            s->value = castTo(v, dst->buffer->dtype);
            emit(s);
            return noneValue;
        }
        auto src = operand(b[1], b.at(1), "the T.atomic_add value", true);
        if (!src)
            return Value::poison();
        if (src->corner && !fillCorner(*this, *src, *dst, range))
            return Value::poison();
        if (dst->corner && !fillCorner(*this, *dst, *src, range))
            return Value::poison();
        std::vector<ir::ExprPtr> a = nonUnit(src->extents), c = nonUnit(dst->extents);
        bool mismatch = a.size() != c.size();
        for (size_t k = 0; !mismatch && k < a.size(); ++k)
            mismatch = differ(a[k], c[k]);
        if (mismatch)
            return error("copy-extent-mismatch", range,
                         "T.atomic_add extents do not match: the value '" + src->buffer->name +
                             "' has shape " + shapeText(src->extents) + " but the destination '" +
                             dst->buffer->name + "' region has shape " + shapeText(dst->extents));
        s->src = src->region();
        s->dst = dst->region();
        emit(s);
        return noneValue;
    }
    if (!isLayoutNs && op == "use_swizzle") {
        if (!bind("T.use_swizzle(panel_size=10, order=row, enable=True)", args, b))
            return Value::poison();
        if (!requireKernel("T.use_swizzle", range))
            return Value::poison();
        auto s = ir::makeStmt(ir::StmtKind::UseSwizzle, range);
        s->panelSize = 10;
        if (b.given[0]) {
            auto p = constInt(b[0], b.at(0), "panel_size");
            if (!p)
                return Value::poison();
            if (*p <= 0)
                return error("value-error", b.at(0),
                             "panel_size must be positive, got " + std::to_string(*p));
            s->panelSize = static_cast<int>(*p);
        }
        if (b.given[1]) {
            if (b[1].kind != ValueKind::Str || (b[1].s != "row" && b[1].s != "col" && b[1].s != "column"))
                return error("value-error", b.at(1), "order must be \"row\" or \"col\"");
            s->rowOrder = b[1].s == "row";
        }
        ir::ExprPtr enable = b.given[2] ? toExpr(b[2], b.at(2), "enable") : ir::makeBool(true, range);
        if (!enable)
            return Value::poison();
        s->value = castTo(enable, ir::DType::Bool);
        emit(s);
        return noneValue;
    }
    if (!isLayoutNs && op == "print") {
        if (!bind("T.print(obj, msg=, warp_group_id=0, warp_id=0)", args, b))
            return Value::poison();
        if (!requireKernel("T.print", range))
            return Value::poison();
        auto s = ir::makeStmt(ir::StmtKind::Print, range);
        if (b.given[1] && b[1].kind == ValueKind::Str)
            s->message = b[1].s;
        if (b[0].kind == ValueKind::Buffer && b[0].buffer->scope != ir::MemoryScope::LocalVar) {
            s->printBuffer = b[0].buffer;
        } else if (b[0].kind == ValueKind::Region) {
            s->printBuffer = b[0].region->buffer;
        } else {
            ir::ExprPtr v = toExpr(b[0], b.at(0), "the printed value");
            if (!v)
                return Value::poison();
            s->value = v;
        }
        emit(s);
        return noneValue;
    }
    if (!isLayoutNs && op == "get_thread_binding") {
        if (!bind("T.get_thread_binding(dim=0)", args, b))
            return Value::poison();
        if (!requireKernel("T.get_thread_binding", range))
            return Value::poison();
        int64_t dim = 0;
        if (b.given[0]) {
            auto d = constInt(b[0], b.at(0), "dim");
            if (!d)
                return Value::poison();
            dim = *d;
        }
        if (dim < 0 || dim > 2)
            return error("index-out-of-range", b.at(0),
                         "thread dimension " + std::to_string(dim) + " must be 0, 1 or 2");
        KernelFrame& frame = m_trace->kernels.back();
        frame.threadVars.resize(3, nullptr);
        if (!frame.threadVars[dim]) {
            static const char* const names[] = {"tx", "ty", "tz"};
            std::string n = m_pendingName.empty() ? names[dim] : m_pendingName;
            frame.threadVars[dim] =
                m_out.newVar(uniqueName(n), ir::DType::Int32, ir::VarKind::ThreadIndex, range);
        }
        return Value::symbolic(ir::makeVarRef(frame.threadVars[dim], range));
    }
    if (!isLayoutNs && op == "annotate_layout") {
        if (!bind("T.annotate_layout(layout_map)", args, b))
            return Value::poison();
        if (!requireKernel("T.annotate_layout", range))
            return Value::poison();
        if (b[0].kind != ValueKind::Dict)
            return error("type-error", b.at(0),
                         "T.annotate_layout takes a dict {buffer: layout}, not " + typeName(b[0]));
        auto s = ir::makeStmt(ir::StmtKind::AnnotateLayout, range);
        for (auto& [key, val] : b[0].dict->entries) {
            if (key.isPoison() || val.isPoison())
                continue;
            if (key.kind != ValueKind::Buffer) {
                error("not-a-buffer", b.at(0), "layout map keys must be buffers, not " + typeName(key));
                continue;
            }
            if (val.kind == ValueKind::Layout) {
                ir::LayoutAnnotation ann = val.layout->annotation;
                ann.buffer = key.buffer;
                if (ann.range.valid == false)
                    ann.range = range;
                s->layouts.push_back(ann);
                continue;
            }
            if (val.kind == ValueKind::Function) {
                // A bare index function: T.Layout over the buffer's shape.
                std::vector<Value> dims;
                for (size_t d = 0; d < key.buffer->rank(); ++d)
                    dims.push_back(Value::symbolic(key.buffer->shape[d]));
                CallArgs layoutArgs;
                layoutArgs.range = range;
                layoutArgs.positional = {Value::tuple(dims), val};
                layoutArgs.positionalRanges = {range, range};
                bool h = false;
                Value layout = callTileOp("T.Layout", layoutArgs, range, h);
                if (layout.kind == ValueKind::Layout) {
                    ir::LayoutAnnotation ann = layout.layout->annotation;
                    ann.buffer = key.buffer;
                    s->layouts.push_back(ann);
                }
                continue;
            }
            error("type-error", b.at(0),
                  "the layout of '" + key.buffer->name + "' must be a layout, not " + typeName(val),
                  "use tilelang.layout.make_swizzled_layout(buf), T.Layout(...) or T.Fragment(...)");
        }
        emit(s);
        return noneValue;
    }
    if (!isLayoutNs && (op == "annotate_l2_hit_ratio" || op == "annotate_min_blocks_per_sm" ||
                        op == "annotate_producer_reg_dealloc" || op == "annotate_consumer_reg_alloc" ||
                        op == "no_set_max_nreg" || op == "disable_warp_group_reg_alloc"))
        return noneValue; // scheduling hints with no meaning in the Tile IR

    // ---- layouts ----
    if (op == "make_swizzled_layout" || op == "make_wgmma_swizzled_layout" ||
        op == "make_full_bank_swizzled_layout" || op == "make_half_bank_swizzled_layout" ||
        op == "make_quarter_bank_swizzled_layout" || op == "make_linear_layout" ||
        op == "make_fully_replicated_layout_fragment") {
        const char* sig = op == "make_swizzled_layout"
                              ? "make_swizzled_layout(buffer, k_major=True, allow_pad=True)"
                          : op == "make_wgmma_swizzled_layout"
                              ? "make_wgmma_swizzled_layout(buffer, continuity=None, k_major=True)"
                          : op == "make_fully_replicated_layout_fragment"
                              ? "make_fully_replicated_layout_fragment(buffer, threads)"
                              : "make_layout(buffer)";
        if (!bind(sig, args, b))
            return Value::poison();
        ir::Buffer* buf = b[0].kind == ValueKind::Buffer   ? b[0].buffer
                          : b[0].kind == ValueKind::Region ? b[0].region->buffer
                                                           : nullptr;
        if (!buf)
            return error("not-a-buffer", b.at(0), op + " needs a buffer, not " + typeName(b[0]));
        auto data = std::make_shared<LayoutData>();
        ir::LayoutAnnotation& ann = data->annotation;
        ann.buffer = buf;
        ann.range = range;
        if (op == "make_swizzled_layout") {
            ann.kind = ir::LayoutAnnotationKind::Swizzled;
            if (b.given[1])
                ann.kMajor = truth(b[1]).value_or(true);
            if (b.given[2])
                ann.allowPad = truth(b[2]).value_or(true);
        } else if (op == "make_wgmma_swizzled_layout") {
            ann.kind = ir::LayoutAnnotationKind::WgmmaSwizzled;
            if (b.given[1] && b[1].kind != ValueKind::None) {
                auto c = constInt(b[1], b.at(1), "continuity");
                if (!c)
                    return Value::poison();
                ann.continuity = static_cast<int>(*c);
            }
            if (b.given[2])
                ann.kMajor = truth(b[2]).value_or(true);
        } else if (op == "make_fully_replicated_layout_fragment") {
            ann.kind = ir::LayoutAnnotationKind::FullyReplicated;
            auto t = constInt(b[1], b.at(1), "threads");
            if (!t)
                return Value::poison();
            ann.threads = static_cast<int>(*t);
        } else {
            ann.kind = op == "make_full_bank_swizzled_layout"   ? ir::LayoutAnnotationKind::FullBankSwizzled
                       : op == "make_half_bank_swizzled_layout" ? ir::LayoutAnnotationKind::HalfBankSwizzled
                       : op == "make_quarter_bank_swizzled_layout"
                           ? ir::LayoutAnnotationKind::QuarterBankSwizzled
                           : ir::LayoutAnnotationKind::Linear;
        }
        Value v;
        v.kind = ValueKind::Layout;
        v.layout = data;
        return v;
    }
    if (op == "Layout" || op == "Fragment") {
        bool fragment = op == "Fragment";
        if (!bind(fragment ? "T.Fragment(shape, forward_fn=None, forward_thread_fn=None, replicate=1, "
                             "forward_index_fn=None)"
                           : "T.Layout(shape, forward_fn)",
                  args, b))
            return Value::poison();
        auto dims = shapeOf(b[0], b.at(0), true);
        if (!dims)
            return Value::poison();
        auto data = std::make_shared<LayoutData>();
        ir::LayoutAnnotation& ann = data->annotation;
        ann.kind =
            fragment ? ir::LayoutAnnotationKind::CustomFragment : ir::LayoutAnnotationKind::CustomLayout;
        ann.range = range;
        int64_t replicate = 1;
        if (fragment && b.given[3]) {
            auto r = constInt(b[3], b.at(3), "replicate");
            if (!r)
                return Value::poison();
            replicate = *r;
            ann.replicate = static_cast<int>(*r);
        }
        // Placeholder vars named after the index function's parameters.
        const Value* fnValue = nullptr;
        for (size_t k : {size_t(1), size_t(2), size_t(4)})
            if (k < b.values.size() && b.given[k] && b[k].kind == ValueKind::Function && !fnValue)
                fnValue = &b[k];
        for (size_t d = 0; d < dims->size(); ++d) {
            std::string n = "i" + std::to_string(d);
            if (fnValue && fnValue->fn->params && d < fnValue->fn->params->size())
                n = (*fnValue->fn->params)[d].name;
            ann.placeholders.push_back(m_out.newVar(n, ir::DType::Int32, ir::VarKind::Placeholder, range));
        }
        auto callIndexFn = [&](size_t slot, bool withRep) -> std::optional<std::vector<ir::ExprPtr>> {
            const Value& fn = b[slot];
            if (fn.isPoison())
                return std::nullopt;
            if (fn.kind != ValueKind::Function && fn.kind != ValueKind::Builtin) {
                error("type-error", b.at(slot), "expected an index function (a lambda), not " + typeName(fn));
                return std::nullopt;
            }
            CallArgs fa;
            fa.range = b.at(slot);
            for (const ir::Var* p : ann.placeholders) {
                fa.positional.push_back(Value::symbolic(ir::makeVarRef(p, range)));
                fa.positionalRanges.push_back(b.at(slot));
            }
            if (withRep && fn.kind == ValueKind::Function && fn.fn->params &&
                fn.fn->params->size() == ann.placeholders.size() + 1) {
                fa.positional.push_back(Value::integer(0));
                fa.positionalRanges.push_back(b.at(slot));
            }
            Value r = call(fn, fa, b.at(slot));
            if (r.isPoison())
                return std::nullopt;
            std::vector<Value> parts = r.isSequence() ? *r.items : std::vector<Value>{r};
            std::vector<ir::ExprPtr> out;
            for (const Value& p : parts) {
                ir::ExprPtr e = toExpr(p, b.at(slot), "a layout index");
                if (!e)
                    return std::nullopt;
                out.push_back(e);
            }
            return out;
        };
        if (!fragment) {
            auto fwd = callIndexFn(1, false);
            if (!fwd)
                return Value::poison();
            ann.forward = *fwd;
        } else {
            if (b.given[1] && b[1].kind != ValueKind::None) {
                auto both = callIndexFn(1, replicate > 1);
                if (!both)
                    return Value::poison();
                if (both->size() < 2)
                    return error("wrong-arguments", b.at(1), "forward_fn must return (thread, index)");
                ann.thread = (*both)[0];
                ann.forward.assign(both->begin() + 1, both->end());
            } else if (b.given[2] && b[2].kind != ValueKind::None) {
                auto t = callIndexFn(2, replicate > 1);
                if (!t)
                    return Value::poison();
                if (t->size() != 1)
                    return error("wrong-arguments", b.at(2),
                                 "forward_thread_fn must return one thread index");
                ann.thread = (*t)[0];
                if (b.given[4] && b[4].kind != ValueKind::None) {
                    auto idx = callIndexFn(4, false);
                    if (!idx)
                        return Value::poison();
                    ann.forward = *idx;
                }
            } else {
                return error("wrong-arguments", range, "T.Fragment needs forward_fn or forward_thread_fn");
            }
        }
        Value v;
        v.kind = ValueKind::Layout;
        v.layout = data;
        return v;
    }
    if (isLayoutNs) {
        handled = false;
        return Value::poison();
    }

    // ---- types, parameters, symbols ----
    if (op == "Tensor" || op == "Buffer" || op == "StridedTensor") {
        if (!bind("T.Tensor(shape, dtype=float32, strides=None, data=None, scope=None, elem_offset=None, "
                  "offset_factor=None, buffer_type=None, axis_separators=None)",
                  args, b))
            return Value::poison();
        ir::DType t = ir::DType::Float32;
        if (b.given[1]) {
            auto d = toDType(b[1], b.at(1));
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
        if (!shapeOf(Value::tuple(*v.items), b.at(0), true))
            return Value::poison();
        return v;
    }
    if (op == "dynamic" || op == "symbolic" || op == "dyn") {
        if (!bind("T.dynamic(name, dtype=int32)", args, b))
            return Value::poison();
        if (b[0].kind != ValueKind::Str)
            return error("type-error", b.at(0), "T.dynamic takes the dim's name as a string");
        ir::DType t = ir::DType::Int32;
        if (b.given[1]) {
            auto d = toDType(b[1], b.at(1));
            if (!d)
                return Value::poison();
            t = *d;
        }
        for (const ir::Var* v : m_dynamicDims)
            if (v->name == b[0].s)
                return Value::symbolic(ir::makeVarRef(v, range));
        ir::Var* v = m_out.newVar(b[0].s, t, ir::VarKind::DynamicDim, range);
        m_dynamicDims.push_back(v);
        return Value::symbolic(ir::makeVarRef(v, range));
    }
    if (op == "const") {
        if (!bind("T.const(names)", args, b))
            return Value::poison();
        if (b[0].kind != ValueKind::Str)
            return error("type-error", b.at(0),
                         "T.const takes the names as a string, e.g. T.const(\"M, N, K\")");
        return constDims(b[0].s, range);
    }
    if (op == "empty") {
        if (!bind("T.empty(shape, dtype=float32)", args, b))
            return Value::poison();
        if (!m_trace || !m_trace->eager || inKernel())
            return error("unsupported-construct", range,
                         "T.empty declares an output of an eager @tilelang.jit kernel",
                         "use it in the jit function body, before `with T.Kernel`");
        std::string n = m_pendingName.empty() ? "out" : m_pendingName;
        m_pendingName.clear();
        auto dims = shapeOf(b[0], b.at(0), true);
        ir::DType t = ir::DType::Float32;
        if (b.given[1]) {
            auto d = toDType(b[1], b.at(1));
            if (!d)
                return Value::poison();
            t = *d;
        }
        if (!dims)
            return Value::poison();
        ir::Buffer* buf = m_out.newBuffer(uniqueName(n), ir::MemoryScope::Global, t, *dims, range);
        buf->isOutput = true;
        m_trace->eagerOutputs.push_back(buf);
        return Value::bufferOf(buf);
    }
    if (op == "dtype") {
        if (args.positional.size() != 1)
            return error("wrong-arguments", range, "T.dtype takes one argument");
        auto t = toDType(args.positional[0], args.positionalRanges[0]);
        return t ? Value::dtypeOf(*t) : Value::poison();
    }

    // ---- element math ----
    if (op == "cast" || op == "Cast") {
        if (!bind(op == "cast" ? "T.cast(value, dtype)" : "T.Cast(dtype, value)", args, b))
            return Value::poison();
        size_t vi = op == "cast" ? 0 : 1, ti = 1 - vi;
        auto t = toDType(b[ti], b.at(ti));
        if (!t)
            return Value::poison();
        const Value& v = b[vi];
        if (v.isNumber()) {
            if (ir::isFloat(*t))
                return Value::symbolic(
                    ir::makeFloat(v.kind == ValueKind::Float ? v.f : static_cast<double>(v.i), *t, range));
            if (*t == ir::DType::Bool)
                return Value::symbolic(ir::makeBool(truth(v).value_or(false), range));
            return Value::symbolic(
                ir::makeInt(v.kind == ValueKind::Float ? static_cast<int64_t>(v.f) : v.i, *t, range));
        }
        ir::ExprPtr e = toExpr(v, b.at(vi), "the cast operand");
        if (!e)
            return Value::poison();
        return Value::symbolic(e->dtype == *t ? e : ir::makeCast(*t, e, range));
    }
    if (op == "infinity" || op == "min_value" || op == "max_value") {
        if (!bind(("T." + op + "(dtype)").c_str(), args, b))
            return Value::poison();
        auto t = toDType(b[0], b.at(0));
        if (!t)
            return Value::poison();
        if (ir::isFloat(*t)) {
            double v = op == "infinity" ? std::numeric_limits<double>::infinity()
                                        : (op == "max_value" ? dtypeMax(*t) : -dtypeMax(*t));
            return Value::symbolic(ir::makeFloat(v, *t, range));
        }
        if (op == "infinity")
            return error("type-error", b.at(0),
                         std::string("T.infinity needs a float dtype, not ") + ir::dtypeName(*t));
        int bits = ir::dtypeBits(*t);
        int64_t lo = 0, hi = 0;
        if (*t == ir::DType::Bool) {
            hi = 1;
        } else if (ir::isSignedInt(*t)) {
            hi = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (bits - 1)) - 1;
            lo = -hi - 1;
        } else {
            hi = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << bits) - 1;
        }
        return Value::symbolic(ir::makeInt(op == "max_value" ? hi : lo, *t, range));
    }
    if (op == "max" || op == "min") {
        if (args.positional.size() != 2 || !args.keywords.empty())
            return error("wrong-arguments", range, "T." + op + " takes 2 arguments",
                         "signature: T." + op + "(a, b)");
        const Value& x = args.positional[0];
        const Value& y = args.positional[1];
        if (x.isNumber() && y.isNumber()) {
            Value less = compare(ast::CompareKind::Lt, x, y, range);
            bool pickX = op == "min" ? less.i != 0 : less.i == 0;
            return pickX ? x : y;
        }
        return symbolicBinary(op == "max" ? ir::BinaryOp::Max : ir::BinaryOp::Min, x, y, range);
    }
    if (op == "ceildiv" || op == "floordiv" || op == "floormod" || op == "truncdiv" || op == "pow") {
        if (!bind(("T." + op + "(a, b)").c_str(), args, b))
            return Value::poison();
        const Value& x = b[0];
        const Value& y = b[1];
        if (op == "ceildiv") {
            if (x.isIntLike() && y.isIntLike()) {
                if (y.i == 0)
                    return error("division-by-zero", range,
                                 "T.ceildiv(" + std::to_string(x.i) + ", 0) divides by zero");
                Value sum = binary(ast::BinOpKind::Add, x,
                                   binary(ast::BinOpKind::Sub, y, Value::integer(1), range), range);
                return binary(ast::BinOpKind::FloorDiv, sum, y, range);
            }
            Value sum = binary(ast::BinOpKind::Sub, binary(ast::BinOpKind::Add, x, y, range),
                               Value::integer(1), range);
            return binary(ast::BinOpKind::FloorDiv, sum, y, range);
        }
        if (op == "truncdiv") {
            if (x.isIntLike() && y.isIntLike()) {
                if (y.i == 0)
                    return error("division-by-zero", range, "T.truncdiv by zero");
                return Value::integer(x.i / y.i);
            }
            return symbolicBinary(ir::BinaryOp::Div, x, y, range);
        }
        ast::BinOpKind k = op == "floordiv"   ? ast::BinOpKind::FloorDiv
                           : op == "floormod" ? ast::BinOpKind::Mod
                                              : ast::BinOpKind::Pow;
        return binary(k, x, y, range);
    }
    if (op == "clamp") {
        if (!bind("T.clamp(value, min_value, max_value)", args, b))
            return Value::poison();
        Value lo = symbolicBinary(ir::BinaryOp::Max, b[0], b[1], range);
        if (lo.isPoison())
            return lo;
        return symbolicBinary(ir::BinaryOp::Min, lo, b[2], range);
    }
    if (op == "if_then_else" || op == "Select") {
        if (!bind(("T." + op + "(cond, true_value, false_value)").c_str(), args, b))
            return Value::poison();
        bool inert = false;
        auto t = truth(b[0], &inert);
        if (inert)
            return b[0];
        if (t)
            return *t ? b[1] : b[2];
        ir::ExprPtr c = toExpr(b[0], b.at(0), "the condition");
        ir::ExprPtr x, y;
        if (!c || !promote(b[1], b[2], x, y, range))
            return Value::poison();
        return Value::symbolic(ir::makeSelect(castTo(c, ir::DType::Bool), x, y, range));
    }
    if (auto fn = intrinsicFor(op)) {
        size_t arity = *fn == ir::Intrinsic::Fma ? 3 : 1;
        if (args.positional.size() != arity || !args.keywords.empty())
            return error("wrong-arguments", range,
                         "T." + op + " takes " + std::to_string(arity) + " argument" +
                             (arity == 1 ? "" : "s") + ", got " +
                             std::to_string(args.positional.size() + args.keywords.size()));
        std::vector<ir::ExprPtr> operands;
        for (size_t k = 0; k < arity; ++k) {
            ir::ExprPtr e = toExpr(args.positional[k], args.positionalRanges[k], "a math operand");
            if (!e)
                return Value::poison();
            operands.push_back(e);
        }
        bool keepsInt = *fn == ir::Intrinsic::Abs;
        ir::DType t = operands[0]->dtype;
        for (const ir::ExprPtr& e : operands)
            if (ir::isFloat(e->dtype) && (!ir::isFloat(t) || ir::dtypeBits(e->dtype) > ir::dtypeBits(t)))
                t = e->dtype;
        if (!ir::isFloat(t) && !keepsInt)
            t = ir::DType::Float32;
        for (ir::ExprPtr& e : operands)
            e = castTo(e, t);
        ir::DType result = (*fn == ir::Intrinsic::IsNan || *fn == ir::Intrinsic::IsInf) ? ir::DType::Bool : t;
        return Value::symbolic(ir::makeCall(*fn, result, std::move(operands), range));
    }
    handled = false;
    return Value::poison();
}

} // namespace tb::elab
