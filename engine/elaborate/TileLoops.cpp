// TileLang's launch and loop vocabulary: `with T.Kernel(...)` (which opens a kernel scope with block
// indices), the tile loops (T.Parallel, T.Pipelined, T.serial, T.unroll, T.vectorized, and range() over
// run-time bounds), T.get_thread_binding, and @T.prim_func / @T.macro used as calls. The loop calls return a
// LoopSpec that the for statement turns into IR loops (execKernelFor).
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"
#include "engine/ir/IrQueries.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

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
        if (std::optional<WarpGroupScope> scope = warpGroupScope(v, item.context->range)) {
            if (s.items.size() != 1) {
                error("unsupported-construct", item.context->range, "T.ws opens a scope of its own",
                      "write `with T.ws(i):` on a line of its own");
                return Flow::Normal;
            }
            return execWarpGroups(s, *scope);
        }
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

// The body of `with T.ws(...)`, as a WarpGroups statement over the scope's threads.
Flow Interpreter::execWarpGroups(const ast::Stmt& s, const WarpGroupScope& scope) {
    return execWarpGroups(s.body, s.range, scope);
}

Flow Interpreter::execWarpGroups(const std::vector<ast::StmtPtr>& statements, SourceRange range,
                                 const WarpGroupScope& scope) {
    if (scope.groups.empty())
        return Flow::Normal; // reported
    KernelFrame& frame = m_trace->kernels.back();
    if (frame.inWarpGroups) {
        error("unsupported-construct", range, "T.ws scopes cannot be nested",
              "close the outer T.ws scope first; one scope may name several warpgroups: T.ws(0, 1)");
        return Flow::Normal;
    }
    frame.inWarpGroups = true;
    m_trace->emit.emplace_back();
    Flow flow = execBlock(statements);
    std::vector<ir::StmtPtr> body = std::move(m_trace->emit.back());
    m_trace->emit.pop_back();
    m_trace->kernels.back().inWarpGroups = false;
    auto node = ir::makeStmt(ir::StmtKind::WarpGroups, range);
    node->warpGroups = scope.groups;
    node->firstThread = scope.firstThread;
    node->threadCount = scope.threadCount;
    node->body = ir::makeSeq(std::move(body), range);
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
    if (spec.kind == ir::LoopKind::Pipelined && !ir::warpGroupScopes(*inner).empty()) {
        // The program synchronizes this loop itself (T.ws scopes with their mbarriers): software
        // pipelining would reorder what its barriers order.
        if (spec.pipeline.numStages > 0)
            m_diagnostics.warning(
                "pipeline-over-warp-groups", s.iter->range,
                "T.Pipelined(num_stages=" + std::to_string(spec.pipeline.numStages) +
                    ") runs as a serial loop: its body is warp-specialized with T.ws, and the "
                    "program's own barriers order its copies",
                "multi-buffer the shared tiles yourself (a stage dimension indexed by ko % "
                "num_stages, one mbarrier pair per stage), as the barrierpipe example does");
        spec.kind = ir::LoopKind::Serial;
        spec.pipeline = {};
    }
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

namespace {

Value decoratorCall(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    const std::string& op = call.op;
    const std::string& name = call.name;
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

Value kernelLaunch(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.Kernel(*blocks, threads=128, prelude=None, is_cpu=False, cluster_dims=None)", args, b))
        return Value::poison();
    if (b.varargs.empty() || b.varargs.size() > 3)
        return in.error("wrong-arguments", range,
                        "T.Kernel takes 1 to 3 grid extents, got " + std::to_string(b.varargs.size()),
                        "signature: T.Kernel(*blocks, threads=128, prelude=None)");
    auto data = std::make_shared<KernelData>();
    for (size_t k = 0; k < b.varargs.size(); ++k) {
        ir::ExprPtr e = in.toExpr(b.varargs[k], b.varargRanges[k], "a grid extent");
        if (!e)
            return Value::poison();
        if (ir::isFloat(e->dtype))
            return in.error("type-error", b.varargRanges[k],
                            "grid extents must be integers, not " + std::string(ir::dtypeName(e->dtype)));
        auto c = ir::constantInt(e);
        if (c && *c <= 0)
            return in.error("invalid-shape", b.varargRanges[k],
                            "grid extent " + std::to_string(k) + " is " + std::to_string(*c) +
                                "; it must be positive");
        data->grid.push_back(c ? ir::makeInt(*c, ir::DType::Int32, b.varargRanges[k]) : asInt32(e));
    }
    std::vector<Value> threadValues = b.given[0]
                                          ? (b[0].isSequence() ? *b[0].items : std::vector<Value>{b[0]})
                                          : std::vector<Value>{Value::integer(128)};
    if (threadValues.empty() || threadValues.size() > 3)
        return in.error("wrong-arguments", b.at(0), "threads must be an int or a list of 1 to 3 ints");
    int64_t total = 1;
    for (const Value& t : threadValues) {
        auto c = in.constInt(t, b.at(0), "threads");
        if (!c)
            return Value::poison();
        if (*c <= 0)
            return in.error("invalid-shape", b.at(0), "threads=" + std::to_string(*c) + " must be positive");
        data->threads.push_back(*c);
        total *= *c;
    }
    if (total % 32 != 0)
        return in.error("threads-not-multiple-of-32", b.at(0),
                        "threads=" + std::to_string(total) + " is not a multiple of the warp size 32",
                        "use a multiple of 32, e.g. threads=" +
                            std::to_string(std::max<int64_t>(32, (total + 31) / 32 * 32)));
    if (total > 1024)
        return in.error("too-many-threads", b.at(0),
                        "threads=" + std::to_string(total) + " exceeds the CUDA limit of 1024 per block",
                        "use fewer threads (128 or 256 is typical) and give each thread more work");
    Value v;
    v.kind = ValueKind::KernelSpec;
    v.kernel = data;
    return v;
}

Value parallelLoop(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    auto loop = std::make_shared<LoopData>();
    if (!in.bind("T.Parallel(*extents, coalesced_width=None, loop_layout=None, prefer_async=None, "
                 "annotations=None)",
                 args, b))
        return Value::poison();
    if (b.varargs.empty())
        return in.error("wrong-arguments", range, "T.Parallel needs at least one extent");
    loop->kind = ir::LoopKind::Parallel;
    for (size_t k = 0; k < b.varargs.size(); ++k) {
        ir::ExprPtr e = in.toExpr(b.varargs[k], b.varargRanges[k], "a loop extent");
        if (!e)
            return Value::poison();
        loop->mins.push_back(ir::makeInt(0, ir::DType::Int32, range));
        loop->extents.push_back(asInt32(ir::simplify(e)));
    }
    if (b.given[0] && b[0].kind != ValueKind::None) {
        auto c = in.constInt(b[0], b.at(0), "coalesced_width");
        if (!c)
            return Value::poison();
        loop->coalescedWidth = static_cast<int>(*c);
    }
    Value v;
    v.kind = ValueKind::LoopSpec;
    v.loop = loop;
    return v;
}

// The Pipelined schedule options: num_stages, order, stage and group. Returns the value to return on an
// error.
std::optional<Value> pipelineOptions(Interpreter& in, const BoundArgs& b, SourceRange range, LoopData& loop) {
    if (b.given[2] && b[2].kind != ValueKind::None) {
        auto c = in.constInt(b[2], b.at(2), "num_stages");
        if (!c)
            return Value::poison();
        if (*c < 0)
            return in.error("value-error", b.at(2),
                            "num_stages must not be negative, got " + std::to_string(*c));
        loop.pipeline.numStages = static_cast<int>(*c);
    }
    auto intList = [&](size_t slot, std::vector<int>& out) -> bool {
        if (!b.given[slot] || b[slot].kind == ValueKind::None)
            return true;
        if (!b[slot].isSequence()) {
            in.error("type-error", b.at(slot), "expected a list of ints, got " + typeName(b[slot]));
            return false;
        }
        for (const Value& v : *b[slot].items) {
            auto c = in.constInt(v, b.at(slot), "a schedule entry");
            if (!c)
                return false;
            out.push_back(static_cast<int>(*c));
        }
        return true;
    };
    if (!intList(3, loop.pipeline.order) || !intList(4, loop.pipeline.stage))
        return Value::poison();
    if (b.given[6] && b[6].isSequence()) {
        for (const Value& g : *b[6].items) {
            std::vector<int> ids;
            if (!g.isSequence())
                return in.error("type-error", b.at(6), "group must be a list of lists of statement ids");
            for (const Value& v : *g.items) {
                auto c = in.constInt(v, b.at(6), "a group entry");
                if (!c)
                    return Value::poison();
                ids.push_back(static_cast<int>(*c));
            }
            loop.pipeline.group.push_back(ids);
        }
    }
    if (!loop.pipeline.order.empty() && !loop.pipeline.stage.empty() &&
        loop.pipeline.order.size() != loop.pipeline.stage.size())
        return in.error("wrong-arguments", range,
                        "T.Pipelined order has " + std::to_string(loop.pipeline.order.size()) +
                            " entries but stage has " + std::to_string(loop.pipeline.stage.size()));
    return std::nullopt;
}

Value rangeLoop(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    const std::string& op = call.op;
    BoundArgs b;
    auto loop = std::make_shared<LoopData>();
    const char* sig = op == "Pipelined"
                          ? "T.Pipelined(start, stop=None, num_stages=0, order=None, stage=None, "
                            "sync=None, group=None, annotations=None)"
                          : "T.serial(start, stop=None, step=None, annotations=None, unroll_factor=None)";
    if (!in.bind(sig, args, b))
        return Value::poison();
    loop->kind = op == "Pipelined"    ? ir::LoopKind::Pipelined
                 : op == "unroll"     ? ir::LoopKind::Unroll
                 : op == "vectorized" ? ir::LoopKind::Vectorized
                                      : ir::LoopKind::Serial;
    ir::ExprPtr start = in.toExpr(b[0], b.at(0), "a loop bound");
    if (!start)
        return Value::poison();
    ir::ExprPtr lo = ir::makeInt(0, ir::DType::Int32, range), hi = start;
    if (b.given[1] && b[1].kind != ValueKind::None) {
        lo = start;
        hi = in.toExpr(b[1], b.at(1), "a loop bound");
        if (!hi)
            return Value::poison();
    }
    if (ir::isFloat(lo->dtype) || ir::isFloat(hi->dtype))
        return in.error("type-error", range, "loop bounds must be integers");
    ir::ExprPtr extent = sub(hi, lo, range);
    if (op != "Pipelined" && b.given[2] && b[2].kind != ValueKind::None) {
        auto st = in.constInt(b[2], b.at(2), "the loop step");
        if (!st)
            return Value::poison();
        if (*st <= 0)
            return in.error("value-error", b.at(2),
                            "the loop step must be positive, got " + std::to_string(*st));
        loop->step = *st;
        if (*st != 1)
            extent = ir::simplify(ir::makeBinary(
                ir::BinaryOp::FloorDiv, ir::makeBinary(ir::BinaryOp::Add, extent, ir::makeInt(*st - 1)),
                ir::makeInt(*st), range));
    }
    if (auto c = ir::constantInt(extent); c && *c < 0)
        extent = ir::makeInt(0, ir::DType::Int32, range);
    loop->mins = {asInt32(ir::simplify(lo))};
    loop->extents = {asInt32(extent)};
    if (op == "Pipelined") {
        if (auto failed = pipelineOptions(in, b, range, *loop))
            return *failed;
    }
    Value v;
    v.kind = ValueKind::LoopSpec;
    v.loop = loop;
    return v;
}

Value threadBinding(Interpreter& in, PrimitiveCall& call) {
    auto& args = call.args;
    SourceRange range = call.range;
    BoundArgs b;
    if (!in.bind("T.get_thread_binding(dim=0)", args, b))
        return Value::poison();
    if (!in.requireKernel("T.get_thread_binding", range))
        return Value::poison();
    int64_t dim = 0;
    if (b.given[0]) {
        auto d = in.constInt(b[0], b.at(0), "dim");
        if (!d)
            return Value::poison();
        dim = *d;
    }
    if (dim < 0 || dim > 2)
        return in.error("index-out-of-range", b.at(0),
                        "thread dimension " + std::to_string(dim) + " must be 0, 1 or 2");
    KernelFrame& frame = in.m_trace->kernels.back();
    frame.threadVars.resize(3, nullptr);
    if (!frame.threadVars[dim]) {
        static const char* const names[] = {"tx", "ty", "tz"};
        std::string n = in.m_pendingName.empty() ? names[dim] : in.m_pendingName;
        frame.threadVars[dim] =
            in.m_out.newVar(in.uniqueName(n), ir::DType::Int32, ir::VarKind::ThreadIndex, range);
    }
    return Value::symbolic(ir::makeVarRef(frame.threadVars[dim], range));
}

} // namespace

std::span<const PrimitiveRow> loopAndKernelPrimitives() {
    static const PrimitiveRow rows[] = {
        {"prim_func", decoratorCall}, {"macro", decoratorCall},
        {"Kernel", kernelLaunch},     {"Parallel", parallelLoop},
        {"Pipelined", rangeLoop},     {"serial", rangeLoop},
        {"Serial", rangeLoop},        {"unroll", rangeLoop},
        {"vectorized", rangeLoop},    {"get_thread_binding", threadBinding},
    };
    return rows;
}

} // namespace tb::elab
