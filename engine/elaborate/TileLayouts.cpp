// TileLang's layout vocabulary and kernel annotations: the named layout constructors of tilelang.layout
// (make_swizzled_layout, make_wgmma_swizzled_layout, the bank-width swizzles, make_linear_layout,
// make_fully_replicated_layout_fragment), custom T.Layout / T.Fragment built from index functions,
// T.annotate_layout, T.use_swizzle, T.print and the scheduling hints that do not change the Tile IR.
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

// Binds make_<kind>(buffer, ...) to its signature and starts an annotation on that buffer. Returns false
// with `failure` set to the value the handler returns.
bool startBufferLayout(Interpreter& in, PrimitiveCall& call, const char* signature, BoundArgs& b,
                       ir::LayoutAnnotation& ann, Value& failure) {
    if (!in.bind(signature, call.args, b)) {
        failure = Value::poison();
        return false;
    }
    ir::Buffer* buf = b[0].kind == ValueKind::Buffer   ? b[0].buffer
                      : b[0].kind == ValueKind::Region ? b[0].region->buffer
                                                       : nullptr;
    if (!buf) {
        failure = in.error("not-a-buffer", b.at(0), call.op + " needs a buffer, not " + typeName(b[0]));
        return false;
    }
    ann.buffer = buf;
    ann.range = call.range;
    return true;
}

Value layoutValue(ir::LayoutAnnotation ann) {
    Value v;
    v.kind = ValueKind::Layout;
    v.layout = std::make_shared<LayoutData>();
    v.layout->annotation = std::move(ann);
    return v;
}

Value makeSwizzledLayout(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    ir::LayoutAnnotation ann;
    Value failure;
    if (!startBufferLayout(in, call, "make_swizzled_layout(buffer, k_major=True, allow_pad=True)", b, ann,
                           failure))
        return failure;
    ann.kind = ir::LayoutAnnotationKind::Swizzled;
    if (b.given[1])
        ann.kMajor = in.truth(b[1]).value_or(true);
    if (b.given[2])
        ann.allowPad = in.truth(b[2]).value_or(true);
    return layoutValue(std::move(ann));
}

Value makeWgmmaSwizzledLayout(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    ir::LayoutAnnotation ann;
    Value failure;
    if (!startBufferLayout(in, call, "make_wgmma_swizzled_layout(buffer, continuity=None, k_major=True)", b,
                           ann, failure))
        return failure;
    ann.kind = ir::LayoutAnnotationKind::WgmmaSwizzled;
    if (b.given[1] && b[1].kind != ValueKind::None) {
        auto c = in.constInt(b[1], b.at(1), "continuity");
        if (!c)
            return Value::poison();
        ann.continuity = static_cast<int>(*c);
    }
    if (b.given[2])
        ann.kMajor = in.truth(b[2]).value_or(true);
    return layoutValue(std::move(ann));
}

Value makeFullyReplicatedLayout(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    ir::LayoutAnnotation ann;
    Value failure;
    if (!startBufferLayout(in, call, "make_fully_replicated_layout_fragment(buffer, threads)", b, ann,
                           failure))
        return failure;
    ann.kind = ir::LayoutAnnotationKind::FullyReplicated;
    auto t = in.constInt(b[1], b.at(1), "threads");
    if (!t)
        return Value::poison();
    ann.threads = static_cast<int>(*t);
    return layoutValue(std::move(ann));
}

// make_full_bank_swizzled_layout, make_half_bank_swizzled_layout, make_quarter_bank_swizzled_layout and
// make_linear_layout: the buffer is the only argument.
Value makeBankLayout(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    ir::LayoutAnnotation ann;
    Value failure;
    if (!startBufferLayout(in, call, "make_layout(buffer)", b, ann, failure))
        return failure;
    const std::string& op = call.op;
    ann.kind = op == "make_full_bank_swizzled_layout"      ? ir::LayoutAnnotationKind::FullBankSwizzled
               : op == "make_half_bank_swizzled_layout"    ? ir::LayoutAnnotationKind::HalfBankSwizzled
               : op == "make_quarter_bank_swizzled_layout" ? ir::LayoutAnnotationKind::QuarterBankSwizzled
                                                           : ir::LayoutAnnotationKind::Linear;
    return layoutValue(std::move(ann));
}

Value customLayout(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    BoundArgs b;
    bool fragment = op == "Fragment";
    if (!in.bind(fragment ? "T.Fragment(shape, forward_fn=None, forward_thread_fn=None, replicate=1, "
                            "forward_index_fn=None)"
                          : "T.Layout(shape, forward_fn)",
                 args, b))
        return Value::poison();
    auto dims = in.shapeOf(b[0], b.at(0), true);
    if (!dims)
        return Value::poison();
    auto data = std::make_shared<LayoutData>();
    ir::LayoutAnnotation& ann = data->annotation;
    ann.kind = fragment ? ir::LayoutAnnotationKind::CustomFragment : ir::LayoutAnnotationKind::CustomLayout;
    ann.range = range;
    int64_t replicate = 1;
    if (fragment && b.given[3]) {
        auto r = in.constInt(b[3], b.at(3), "replicate");
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
        ann.placeholders.push_back(in.m_out.newVar(n, ir::DType::Int32, ir::VarKind::Placeholder, range));
    }
    auto callIndexFn = [&](size_t slot, bool withRep) -> std::optional<std::vector<ir::ExprPtr>> {
        const Value& fn = b[slot];
        if (fn.isPoison())
            return std::nullopt;
        if (fn.kind != ValueKind::Function && fn.kind != ValueKind::Builtin) {
            in.error("type-error", b.at(slot), "expected an index function (a lambda), not " + typeName(fn));
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
        Value r = in.call(fn, fa, b.at(slot));
        if (r.isPoison())
            return std::nullopt;
        std::vector<Value> parts = r.isSequence() ? *r.items : std::vector<Value>{r};
        std::vector<ir::ExprPtr> out;
        for (const Value& p : parts) {
            ir::ExprPtr e = in.toExpr(p, b.at(slot), "a layout index");
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
                return in.error("wrong-arguments", b.at(1), "forward_fn must return (thread, index)");
            ann.thread = (*both)[0];
            ann.forward.assign(both->begin() + 1, both->end());
        } else if (b.given[2] && b[2].kind != ValueKind::None) {
            auto t = callIndexFn(2, replicate > 1);
            if (!t)
                return Value::poison();
            if (t->size() != 1)
                return in.error("wrong-arguments", b.at(2), "forward_thread_fn must return one thread index");
            ann.thread = (*t)[0];
            if (b.given[4] && b[4].kind != ValueKind::None) {
                auto idx = callIndexFn(4, false);
                if (!idx)
                    return Value::poison();
                ann.forward = *idx;
            }
        } else {
            return in.error("wrong-arguments", range, "T.Fragment needs forward_fn or forward_thread_fn");
        }
    }
    Value v;
    v.kind = ValueKind::Layout;
    v.layout = data;
    return v;
}

Value annotateLayout(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.annotate_layout(layout_map)", args, b))
        return Value::poison();
    if (!in.requireKernel("T.annotate_layout", range))
        return Value::poison();
    if (b[0].kind != ValueKind::Dict)
        return in.error("type-error", b.at(0),
                        "T.annotate_layout takes a dict {buffer: layout}, not " + typeName(b[0]));
    auto s = ir::makeStmt(ir::StmtKind::AnnotateLayout, range);
    for (auto& [key, val] : b[0].dict->entries) {
        if (key.isPoison() || val.isPoison())
            continue;
        if (key.kind != ValueKind::Buffer) {
            in.error("not-a-buffer", b.at(0), "layout map keys must be buffers, not " + typeName(key));
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
            Value layout = in.callTileOp("T.Layout", layoutArgs, range, h);
            if (layout.kind == ValueKind::Layout) {
                ir::LayoutAnnotation ann = layout.layout->annotation;
                ann.buffer = key.buffer;
                s->layouts.push_back(ann);
            }
            continue;
        }
        in.error("type-error", b.at(0),
                 "the layout of '" + key.buffer->name + "' must be a layout, not " + typeName(val),
                 "use tilelang.layout.make_swizzled_layout(buf), T.Layout(...) or T.Fragment(...)");
    }
    in.emit(s);
    return Value::none();
}

Value useSwizzle(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.use_swizzle(panel_size=10, order=row, enable=True)", args, b))
        return Value::poison();
    if (!in.requireKernel("T.use_swizzle", range))
        return Value::poison();
    auto s = ir::makeStmt(ir::StmtKind::UseSwizzle, range);
    s->panelSize = 10;
    if (b.given[0]) {
        auto p = in.constInt(b[0], b.at(0), "panel_size");
        if (!p)
            return Value::poison();
        if (*p <= 0)
            return in.error("value-error", b.at(0), "panel_size must be positive, got " + std::to_string(*p));
        s->panelSize = static_cast<int>(*p);
    }
    if (b.given[1]) {
        if (b[1].kind != ValueKind::Str || (b[1].s != "row" && b[1].s != "col" && b[1].s != "column"))
            return in.error("value-error", b.at(1), "order must be \"row\" or \"col\"");
        s->rowOrder = b[1].s == "row";
    }
    ir::ExprPtr enable = b.given[2] ? in.toExpr(b[2], b.at(2), "enable") : ir::makeBool(true, range);
    if (!enable)
        return Value::poison();
    s->value = in.castTo(enable, ir::DType::Bool);
    in.emit(s);
    return Value::none();
}

Value tilePrint(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.print(obj, msg=, warp_group_id=0, warp_id=0)", args, b))
        return Value::poison();
    if (!in.requireKernel("T.print", range))
        return Value::poison();
    auto s = ir::makeStmt(ir::StmtKind::Print, range);
    if (b.given[1] && b[1].kind == ValueKind::Str)
        s->message = b[1].s;
    if (b[0].kind == ValueKind::Buffer && b[0].buffer->scope != ir::MemoryScope::LocalVar) {
        s->printBuffer = b[0].buffer;
    } else if (b[0].kind == ValueKind::Region) {
        s->printBuffer = b[0].region->buffer;
    } else {
        ir::ExprPtr v = in.toExpr(b[0], b.at(0), "the printed value");
        if (!v)
            return Value::poison();
        s->value = v;
    }
    in.emit(s);
    return Value::none();
}

// Scheduling hints with no meaning in the Tile IR.
Value schedulingHint(Interpreter&, PrimitiveCall&) {
    return Value::none();
}

} // namespace

std::span<const PrimitiveRow> layoutPrimitives() {
    static const PrimitiveRow rows[] = {
        {"Layout", customLayout},
        {"Fragment", customLayout},
        {"annotate_layout", annotateLayout},
        {"use_swizzle", useSwizzle},
        {"print", tilePrint},
        {"annotate_l2_hit_ratio", schedulingHint},
        {"annotate_min_blocks_per_sm", schedulingHint},
        {"annotate_producer_reg_dealloc", schedulingHint},
        {"annotate_consumer_reg_alloc", schedulingHint},
        {"no_set_max_nreg", schedulingHint},
        {"disable_warp_group_reg_alloc", schedulingHint},
    };
    return rows;
}

std::span<const PrimitiveRow> layoutModulePrimitives() {
    static const PrimitiveRow rows[] = {
        {"make_swizzled_layout", makeSwizzledLayout},
        {"make_wgmma_swizzled_layout", makeWgmmaSwizzledLayout},
        {"make_full_bank_swizzled_layout", makeBankLayout},
        {"make_half_bank_swizzled_layout", makeBankLayout},
        {"make_quarter_bank_swizzled_layout", makeBankLayout},
        {"make_linear_layout", makeBankLayout},
        {"make_fully_replicated_layout_fragment", makeFullyReplicatedLayout},
        {"Layout", customLayout},
        {"Fragment", customLayout},
    };
    return rows;
}

} // namespace tb::elab
