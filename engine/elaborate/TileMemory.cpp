// TileLang's memory vocabulary: allocations in shared memory, register fragments, local and global memory
// (T.alloc_shared, T.alloc_fragment, T.alloc_local, T.alloc_global, T.alloc_var), and the tile data
// movement operations T.copy (in all its region and corner forms), T.fill / T.clear and T.atomic_add.
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tb::elab {

namespace {

// A copy between regions of fragments of different shapes (`T.copy(lse_local[k, :], lse_local_split)`) is
// what TileLang lowers every fragment copy to: an element-wise T.Parallel loop over the region's non-unit
// dims (one loop of extent 1 when there are none), each element cast to the destination's dtype. Layout
// inference then plans it like the loop the program could have written. (A copy between fragments of one
// shape stays a Copy node, whose plan is the same.)
void emitFragmentCopyLoop(Interpreter& in, const Operand& src, const Operand& dst, SourceRange range) {
    std::vector<ir::ExprPtr> extents = nonUnit(src.extents);
    if (extents.empty())
        extents.push_back(ir::makeInt(1, ir::DType::Int32, range));
    std::vector<const ir::Var*> vars;
    for (size_t k = 0; k < extents.size(); ++k)
        vars.push_back(in.m_out.newVar(in.uniqueName(std::string(1, char('i' + k % 18))), ir::DType::Int32,
                                       ir::VarKind::LoopVar, range));
    // Each side's indices: its start, plus the next loop var along a non-unit dim.
    auto indicesOf = [&](const Operand& side) {
        std::vector<ir::ExprPtr> indices;
        size_t next = 0;
        for (size_t d = 0; d < side.mins.size(); ++d) {
            if (ir::constantInt(side.extents[d]) == 1 || next >= vars.size()) {
                indices.push_back(side.mins[d]);
                continue;
            }
            ir::ExprPtr var = ir::makeVarRef(vars[next++], range);
            indices.push_back(ir::constantInt(side.mins[d]) == 0
                                  ? var
                                  : ir::makeBinary(ir::BinaryOp::Add, side.mins[d], var, range));
        }
        return indices;
    };
    auto store = ir::makeStmt(ir::StmtKind::Store, range);
    store->buffer = dst.buffer;
    store->indices = indicesOf(dst);
    store->value = in.castTo(ir::makeLoad(src.buffer, indicesOf(src), range), dst.buffer->dtype);
    ir::StmtPtr inner = store;
    for (size_t k = vars.size(); k-- > 0;) {
        auto loop = ir::makeStmt(ir::StmtKind::For, range);
        loop->loopVar = vars[k];
        loop->min = ir::makeInt(0, ir::DType::Int32, range);
        loop->extent = extents[k];
        loop->loopKind = ir::LoopKind::Parallel;
        loop->body = ir::makeSeq({inner}, range);
        inner = loop;
    }
    in.emit(inner);
}

} // namespace

std::shared_ptr<ir::Stmt> buildCopy(Interpreter& in, const BoundArgs& b, SourceRange range,
                                    bool* storeEmitted) {
    *storeEmitted = false;
    auto src = resolveOperand(in, b[0], b.at(0), "the T.copy source", true);
    auto dst = resolveOperand(in, b[1], b.at(1), "the T.copy destination", true);
    if (!src || !dst)
        return nullptr;
    if (src->corner && dst->corner) {
        // Two elements: a plain store.
        auto s = ir::makeStmt(ir::StmtKind::Store, range);
        s->buffer = dst->buffer;
        s->indices = dst->mins;
        s->value = in.castTo(ir::makeLoad(src->buffer, src->mins, b.at(0)), dst->buffer->dtype);
        in.emit(s);
        *storeEmitted = true;
        return nullptr;
    }
    if (src->corner && !fillCorner(in, *src, *dst, range))
        return nullptr;
    if (dst->corner && !fillCorner(in, *dst, *src, range))
        return nullptr;
    std::vector<ir::ExprPtr> a = nonUnit(src->extents), c = nonUnit(dst->extents);
    bool mismatch = a.size() != c.size();
    for (size_t k = 0; !mismatch && k < a.size(); ++k)
        mismatch = differ(a[k], c[k]);
    bool bothFragments =
        src->buffer->scope == ir::MemoryScope::Fragment && dst->buffer->scope == ir::MemoryScope::Fragment;
    if (mismatch && bothFragments) {
        in.error("copy-fragment-shape", range,
                 "T.copy between fragments of different shapes: '" + src->buffer->name + "' is " +
                     shapeText(src->extents) + " but '" + dst->buffer->name + "' is " +
                     shapeText(dst->extents),
                 "a fragment-to-fragment copy is an element-wise cast; allocate both with the same shape");
        return nullptr;
    }
    if (mismatch) {
        in.error("copy-extent-mismatch", range,
                 "T.copy extents do not match: the source '" + src->buffer->name + "' region has shape " +
                     shapeText(src->extents) + " but the destination '" + dst->buffer->name +
                     "' region has shape " + shapeText(dst->extents),
                 "the non-unit extents of both sides must agree in order; slice the larger side");
        return nullptr;
    }
    if (!regionInBounds(in, *src, "T.copy") || !regionInBounds(in, *dst, "T.copy"))
        return nullptr;
    if (bothFragments) {
        bool same = src->buffer->rank() == dst->buffer->rank();
        for (size_t d = 0; same && d < src->buffer->rank(); ++d)
            same = !differ(src->buffer->shape[d], dst->buffer->shape[d]);
        if (!same) {
            emitFragmentCopyLoop(in, *src, *dst, range);
            *storeEmitted = true;
            return nullptr;
        }
    }
    auto s = ir::makeStmt(ir::StmtKind::Copy, range);
    s->src = src->region();
    s->dst = dst->region();
    return s;
}

bool readEvictionPolicy(Interpreter& in, const BoundArgs& b, size_t k, ir::Stmt& copy) {
    if (!b.given[k] || b[k].kind == ValueKind::None)
        return true;
    std::optional<ir::EvictionPolicy> policy;
    for (ir::EvictionPolicy p :
         {ir::EvictionPolicy::Normal, ir::EvictionPolicy::First, ir::EvictionPolicy::Last})
        if (b[k].kind == ValueKind::Str && b[k].s == ir::evictionPolicyName(p))
            policy = p;
    if (!policy) {
        in.error("value-error", b.at(k),
                 "eviction_policy must be \"evict_first\", \"evict_last\" or \"evict_normal\"",
                 "evict_last keeps data that a later loop reads again in L2; evict_first streams "
                 "data read or written once past it");
        return false;
    }
    copy.evictionPolicy = *policy;
    if (copy.evictionPolicy != ir::EvictionPolicy::Normal &&
        copy.src.buffer->scope != ir::MemoryScope::Global &&
        copy.dst.buffer->scope != ir::MemoryScope::Global)
        in.m_diagnostics.warning("eviction-policy-unused", b.at(k),
                                 "eviction_policy has no effect on a copy with no global side",
                                 "it steers how long global lines stay in L2; drop it here");
    return true;
}

namespace {

Value allocation(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    BoundArgs b;
    if (!in.bind(op == "alloc_shared" ? "T.alloc_shared(shape, dtype, scope=shared.dyn)"
                                      : (std::string("T.") + op + "(shape, dtype, scope=None)").c_str(),
                 args, b))
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
            return in.error("unsupported-construct", b.at(2), "memory scope '" + s + "' is not supported");
    }
    // A global workspace may be allocated in the prim_func before its kernels (TileLang's split/combine
    // programs); on-chip memory belongs to a kernel.
    if (!(scope == ir::MemoryScope::Global && in.tracing()) && !in.requireKernel("T." + op, range))
        return Value::poison();
    return in.allocate(scope, b[0], b[1], range, b.at(0));
}

Value allocVar(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.alloc_var(dtype, init=None, scope=local.var)", args, b))
        return Value::poison();
    if (!in.requireKernel("T.alloc_var", range))
        return Value::poison();
    Value buf = in.allocate(ir::MemoryScope::LocalVar, Value::integer(1), b[0], range, range);
    if (buf.kind == ValueKind::Buffer && b.given[1] && b[1].kind != ValueKind::None) {
        ir::ExprPtr init = in.toExpr(b[1], b.at(1), "the initial value");
        if (!init)
            return Value::poison();
        buf.buffer->initValue = in.castTo(init, buf.buffer->dtype);
    }
    return buf;
}

Value tileCopy(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    if (!in.bind("T.copy(src, dst, coalesced_width=None, disable_tma=False, eviction_policy=None, "
                 "annotations=None, "
                 "loop_layout=None, prefer_instruction=None)",
                 call.args, b))
        return Value::poison();
    if (!in.requireKernel("T.copy", call.range))
        return Value::poison();
    bool storeEmitted = false;
    std::shared_ptr<ir::Stmt> s = buildCopy(in, b, call.range, &storeEmitted);
    if (!s)
        return storeEmitted ? Value::none() : Value::poison();
    s->disableTma = b.given[3] && in.truth(b[3]).value_or(false);
    if (!readEvictionPolicy(in, b, 4, *s))
        return Value::poison();
    in.emit(s);
    return Value::none();
}

Value fillOrClear(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    BoundArgs b;
    if (!in.bind(op == "fill" ? "T.fill(buffer, value)" : "T.clear(buffer)", args, b))
        return Value::poison();
    if (!in.requireKernel("T." + op, range))
        return Value::poison();
    auto dst = resolveOperand(in, b[0], b.at(0), "the T." + op + " target", true);
    if (!dst)
        return Value::poison();
    if (dst->corner)
        dst->extents.assign(dst->mins.size(), ir::makeInt(1, ir::DType::Int32, range));
    ir::ExprPtr v =
        op == "fill" ? in.toExpr(b[1], b.at(1), "the fill value") : ir::makeInt(0, ir::DType::Int32, range);
    if (!v)
        return Value::poison();
    auto s = ir::makeStmt(ir::StmtKind::Fill, range);
    s->dst = dst->region();
    s->value = in.castTo(v, dst->buffer->dtype);
    in.emit(s);
    return Value::none();
}

Value atomicAdd(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.atomic_add(dst, value, memory_order=None, return_prev=False, use_tma=False)", args, b))
        return Value::poison();
    if (!in.requireKernel("T.atomic_add", range))
        return Value::poison();
    auto dst = resolveOperand(in, b[0], b.at(0), "the T.atomic_add destination", true);
    if (!dst)
        return Value::poison();
    auto s = ir::makeStmt(ir::StmtKind::AtomicAdd, range);
    bool valueIsTile = b[1].kind == ValueKind::Buffer || b[1].kind == ValueKind::Region;
    if (dst->corner && !valueIsTile) {
        dst->extents.assign(dst->mins.size(), ir::makeInt(1, ir::DType::Int32, range));
        ir::ExprPtr v = in.toExpr(b[1], b.at(1), "the added value");
        if (!v)
            return Value::poison();
        s->dst = dst->region();
        s->value = in.castTo(v, dst->buffer->dtype);
        in.emit(s);
        return Value::none();
    }
    auto src = resolveOperand(in, b[1], b.at(1), "the T.atomic_add value", true);
    if (!src)
        return Value::poison();
    if (src->corner && !fillCorner(in, *src, *dst, range))
        return Value::poison();
    if (dst->corner && !fillCorner(in, *dst, *src, range))
        return Value::poison();
    std::vector<ir::ExprPtr> a = nonUnit(src->extents), c = nonUnit(dst->extents);
    bool mismatch = a.size() != c.size();
    for (size_t k = 0; !mismatch && k < a.size(); ++k)
        mismatch = differ(a[k], c[k]);
    if (mismatch)
        return in.error("copy-extent-mismatch", range,
                        "T.atomic_add extents do not match: the value '" + src->buffer->name +
                            "' has shape " + shapeText(src->extents) + " but the destination '" +
                            dst->buffer->name + "' region has shape " + shapeText(dst->extents));
    s->src = src->region();
    s->dst = dst->region();
    in.emit(s);
    return Value::none();
}

} // namespace

std::span<const PrimitiveRow> memoryPrimitives() {
    static const PrimitiveRow rows[] = {
        {"alloc_shared", allocation}, {"alloc_fragment", allocation}, {"alloc_local", allocation},
        {"alloc_global", allocation}, {"alloc_var", allocVar},        {"copy", tileCopy},
        {"fill", fillOrClear},        {"clear", fillOrClear},         {"atomic_add", atomicAdd},
    };
    return rows;
}

} // namespace tb::elab
