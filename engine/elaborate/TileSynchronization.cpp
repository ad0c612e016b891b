// TileLang's explicit warp specialization and mbarriers, as Hopper programs write them by hand:
// `with T.ws(i):` (the body runs on warpgroup i only), T.alloc_barrier, T.mbarrier_wait_parity /
// T.barrier_wait, T.mbarrier_arrive / T.barrier_arrive, T.mbarrier_expect_tx, T.cp_async_barrier_noinc (an
// arrive made when the thread's T.ptx_cp_async copies land), T.tma_copy (a copy whose bytes arrive on an
// mbarrier), and T.sync_grid (a barrier of the whole grid). Tile semantics run the block's statements in
// program order, which a correct producer/consumer protocol allows; the CUDA backend turns each T.ws body
// into a branch over its threads.
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

constexpr int64_t kWarpGroupThreads = 128; // TileLang's warp_group_size for T.ws

struct BarrierRef {
    const ir::Buffer* buffer = nullptr;
    ir::ExprPtr index;
};

// One mbarrier: `bars[i]`, or a whole barrier buffer (its first mbarrier, as TileLang takes it).
std::optional<BarrierRef> resolveBarrier(Interpreter& in, const Value& v, SourceRange range,
                                         const std::string& what) {
    auto isBarrier = [](const ir::Buffer* b) { return b && b->scope == ir::MemoryScope::Barrier; };
    if (v.kind == ValueKind::Buffer && isBarrier(v.buffer))
        return BarrierRef{v.buffer, ir::makeInt(0, ir::DType::Int32, range)};
    if (v.kind == ValueKind::Expr && v.expr && v.expr->kind == ir::ExprKind::BufferLoad &&
        isBarrier(v.expr->buffer) && v.expr->operands.size() == 1)
        return BarrierRef{v.expr->buffer, asInt32(v.expr->operands[0])};
    if (v.kind == ValueKind::Region && v.region && isBarrier(v.region->buffer) &&
        v.region->mins.size() == 1 && isUnit(v.region->extents[0]))
        return BarrierRef{v.region->buffer, asInt32(v.region->mins[0])};
    in.error("type-error", range, what + " must be an mbarrier from T.alloc_barrier, not " + typeName(v),
             "allocate it with `bars = T.alloc_barrier([128] * n)` and pass `bars[i]`");
    return std::nullopt;
}

Value barrierStmt(Interpreter& in, const BoundArgs& b, SourceRange range, ir::BarrierOp op,
                  const std::string& name) {
    auto ref = resolveBarrier(in, b[0], b.at(0), "the mbarrier of T." + name);
    if (!ref)
        return Value::poison();
    auto s = ir::makeStmt(ir::StmtKind::Barrier, range);
    s->barrierOp = op;
    s->barrier = ref->buffer;
    s->barrierIndex = ref->index;
    if (op == ir::BarrierOp::WaitParity || op == ir::BarrierOp::ExpectTx) {
        s->value =
            in.toExpr(b[1], b.at(1), op == ir::BarrierOp::WaitParity ? "the parity" : "the byte count");
        if (!s->value)
            return Value::poison();
        s->value = asInt32(s->value);
    }
    in.emit(s);
    return Value::none();
}

Value allocBarrier(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    if (!in.bind("T.alloc_barrier(arrive_count)", call.args, b) ||
        !in.requireKernel("T.alloc_barrier", call.range))
        return Value::poison();
    std::vector<Value> given;
    if (b[0].kind == ValueKind::List || b[0].kind == ValueKind::Tuple)
        given = *b[0].items;
    else
        given.push_back(b[0]);
    std::vector<int64_t> counts;
    for (const Value& c : given) {
        auto n = in.constInt(c, b.at(0), "arrive_count");
        if (!n)
            return Value::poison();
        if (*n < 1)
            return in.error("value-error", b.at(0),
                            "arrive_count must be at least 1, got " + std::to_string(*n),
                            "it is the number of threads that arrive on the mbarrier per phase (128 for a "
                            "warpgroup)");
        counts.push_back(*n);
    }
    if (counts.empty())
        return in.error("value-error", b.at(0), "T.alloc_barrier needs at least one arrive count");
    Value v = in.allocate(ir::MemoryScope::Barrier, Value::tuple({Value::integer(int64_t(counts.size()))}),
                          Value::dtypeOf(ir::DType::UInt64), call.range, b.at(0));
    if (v.kind == ValueKind::Buffer)
        v.buffer->arriveCounts = counts;
    return v;
}

Value waitParity(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    std::string signature = "T." + call.op + "(mbarrier, parity)";
    if (!in.bind(signature.c_str(), call.args, b) || !in.requireKernel("T." + call.op, call.range))
        return Value::poison();
    return barrierStmt(in, b, call.range, ir::BarrierOp::WaitParity, call.op);
}

Value arrive(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    std::string signature = "T." + call.op + "(mbarrier, cta_id=None)";
    if (!in.bind(signature.c_str(), call.args, b) || !in.requireKernel("T." + call.op, call.range))
        return Value::poison();
    if (b.given[1] && b[1].kind != ValueKind::None)
        return in.error("unsupported-construct", b.at(1),
                        "T." + call.op +
                            "(cta_id=...) arrives on another CTA's barrier of a thread-block "
                            "cluster; clusters are not supported",
                        "arrive on this CTA's barrier: drop cta_id");
    return barrierStmt(in, b, call.range, ir::BarrierOp::Arrive, call.op);
}

// T.cp_async_barrier_noinc(mbarrier): this thread arrives when its earlier T.ptx_cp_async copies land.
Value cpAsyncArrive(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    if (!in.bind("T.cp_async_barrier_noinc(barrier)", call.args, b) ||
        !in.requireKernel("T.cp_async_barrier_noinc", call.range))
        return Value::poison();
    return barrierStmt(in, b, call.range, ir::BarrierOp::CpAsyncArrive, call.op);
}

Value expectTx(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    if (!in.bind("T.mbarrier_expect_tx(mbarrier, tx)", call.args, b) ||
        !in.requireKernel("T.mbarrier_expect_tx", call.range))
        return Value::poison();
    return barrierStmt(in, b, call.range, ir::BarrierOp::ExpectTx, call.op);
}

Value tmaCopy(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    if (!in.bind("T.tma_copy(src, dst, barrier=None, cluster_mask=None, leader_scope_threads=None, "
                 "eviction_policy=None, annotations=None)",
                 call.args, b) ||
        !in.requireKernel("T.tma_copy", call.range))
        return Value::poison();
    if (b.given[3] && b[3].kind != ValueKind::None)
        return in.error(
            "unsupported-construct", b.at(3),
            "T.tma_copy(cluster_mask=...) multicasts over a thread-block cluster; clusters are not "
            "supported",
            "drop cluster_mask: each block loads its own tile");
    bool storeEmitted = false;
    std::shared_ptr<ir::Stmt> s = buildCopy(in, b, call.range, &storeEmitted);
    if (!s)
        return storeEmitted ? in.error("value-error", call.range, "T.tma_copy moves a tile, not one element")
                            : Value::poison();
    const bool load =
        s->src.buffer->scope == ir::MemoryScope::Global && s->dst.buffer->scope == ir::MemoryScope::Shared;
    const bool store =
        s->src.buffer->scope == ir::MemoryScope::Shared && s->dst.buffer->scope == ir::MemoryScope::Global;
    if (!load && !store)
        return in.error("value-error", call.range,
                        "T.tma_copy moves between global and shared memory, not " +
                            std::string(ir::scopeName(s->src.buffer->scope)) + " to " +
                            ir::scopeName(s->dst.buffer->scope),
                        "use T.copy for other copies");
    if (load) {
        if (!b.given[2] || b[2].kind == ValueKind::None)
            return in.error("wrong-arguments", call.range,
                            "a T.tma_copy load needs barrier=: its bytes arrive on that mbarrier",
                            "pass the mbarrier the consumer waits on: T.tma_copy(src, dst, barrier=bars[i])");
        auto ref = resolveBarrier(in, b[2], b.at(2), "barrier=");
        if (!ref)
            return Value::poison();
        s->barrier = ref->buffer;
        s->barrierIndex = ref->index;
    }
    if (!readEvictionPolicy(in, b, 5, *s))
        return Value::poison();
    in.emit(s);
    return Value::none();
}

// Ordering and register hints that a statement-by-statement tile program already satisfies: the
// backend emits the fences, waits and register budgets its own lowering needs.
Value orderingHint(Interpreter& in, PrimitiveCall& call) {
    if (!in.requireKernel("T." + call.op, call.range))
        return Value::poison();
    return Value::none();
}

// T.sync_grid(): a barrier of the whole grid (TileLang's tl.sync_grid, cooperative_groups' grid.sync()).
// Where it may stand (every thread of every block must reach it) is a semantic check (engine/check).
Value syncGrid(Interpreter& in, PrimitiveCall& call) {
    if (!in.requireKernel("T.sync_grid", call.range))
        return Value::poison();
    if (!call.args.positional.empty() || !call.args.keywords.empty())
        return in.error("wrong-arguments", call.range, "T.sync_grid() takes no arguments",
                        "write T.sync_grid(): every thread of every block waits there for all the others");
    in.emit(ir::makeStmt(ir::StmtKind::GridSync, call.range));
    return Value::none();
}

// T.ws(i, ...): a context manager; execWith turns its body into a WarpGroups statement.
Value warpSpecialize(Interpreter& in, PrimitiveCall& call) {
    if (!in.requireKernel("T.ws", call.range))
        return Value::poison();
    std::vector<Value> groups;
    for (size_t k = 0; k < call.args.positional.size(); ++k) {
        auto g = in.constInt(call.args.positional[k], call.at(k), "a warpgroup index");
        if (!g)
            return Value::poison();
        groups.push_back(Value::integer(*g));
    }
    if (groups.empty() || !call.args.keywords.empty())
        return in.error("wrong-arguments", call.range, "T.ws takes one or more warpgroup indices",
                        "T.ws(0) runs its body on threads 0..127, T.ws(1) on 128..255");
    Value v = Value::hostObject("WarpSpecialize");
    v.object->attrs["groups"] = Value::list(groups);
    return v;
}

} // namespace

std::optional<WarpGroupScope> Interpreter::warpGroupScope(const Value& v, SourceRange range) {
    if (v.kind != ValueKind::Object || !v.object || v.object->type != "WarpSpecialize")
        return std::nullopt;
    WarpGroupScope scope;
    for (const Value& g : *v.object->attrs.at("groups").items)
        scope.groups.push_back(g.i);
    std::sort(scope.groups.begin(), scope.groups.end());
    const int64_t threads = m_trace->kernels.back().threadCount;
    for (size_t k = 1; k < scope.groups.size(); ++k)
        if (scope.groups[k] != scope.groups[k - 1] + 1) {
            error("unsupported-construct", range,
                  "T.ws over warpgroups that are not consecutive is not supported",
                  "name consecutive warpgroups (T.ws(0, 1)), or write one T.ws scope per group");
            return WarpGroupScope{};
        }
    for (int64_t g : scope.groups) {
        if (g < 0 || (g + 1) * kWarpGroupThreads > threads) {
            error("index-out-of-range", range,
                  "T.ws(" + std::to_string(g) + ") names threads " + std::to_string(g * kWarpGroupThreads) +
                      ".." + std::to_string((g + 1) * kWarpGroupThreads - 1) + " but the kernel has " +
                      std::to_string(threads) + " threads",
                  "each warpgroup is 128 threads: give the T.Kernel threads=" +
                      std::to_string((g + 1) * kWarpGroupThreads) + " or more");
            return WarpGroupScope{};
        }
    }
    scope.firstThread = scope.groups.front() * kWarpGroupThreads;
    scope.threadCount = int64_t(scope.groups.size()) * kWarpGroupThreads;
    return scope;
}

namespace {

// The threads [first, last) of the block that a condition over T.get_thread_binding() admits, when it is a
// comparison of the thread index with a constant or a conjunction of such (`128 <= tx < 256`).
std::optional<std::pair<int64_t, int64_t>> threadInterval(const ir::ExprPtr& e, int64_t threads) {
    if (!e)
        return std::nullopt;
    if (e->kind == ir::ExprKind::Cast)
        return threadInterval(e->operands[0], threads);
    if (e->kind != ir::ExprKind::Binary)
        return std::nullopt;
    if (e->binaryOp == ir::BinaryOp::LogicalAnd) {
        auto a = threadInterval(e->operands[0], threads);
        auto b = threadInterval(e->operands[1], threads);
        if (!a || !b)
            return std::nullopt;
        return std::make_pair(std::max(a->first, b->first), std::min(a->second, b->second));
    }
    const ir::BinaryOp op = e->binaryOp;
    if (!ir::isComparison(op) || op == ir::BinaryOp::Eq || op == ir::BinaryOp::Ne)
        return std::nullopt;
    auto isThread = [](const ir::ExprPtr& x) {
        return x->kind == ir::ExprKind::VarRef && x->var->kind == ir::VarKind::ThreadIndex;
    };
    // tx < c or c > tx: the threads below c; tx >= c or c <= tx: those from c on; and so on.
    const bool txLeft = isThread(e->operands[0]);
    const ir::ExprPtr& bound = txLeft ? e->operands[1] : e->operands[0];
    std::optional<int64_t> c = ir::constantInt(bound);
    if (!isThread(txLeft ? e->operands[0] : e->operands[1]) || !c)
        return std::nullopt;
    const bool below = txLeft ? (op == ir::BinaryOp::Lt || op == ir::BinaryOp::Le)
                              : (op == ir::BinaryOp::Gt || op == ir::BinaryOp::Ge);
    const bool inclusive = op == ir::BinaryOp::Le || op == ir::BinaryOp::Ge;
    if (below)
        return std::make_pair(int64_t(0), inclusive ? *c + 1 : *c);
    return std::make_pair(inclusive ? *c : *c + 1, threads);
}

WarpGroupScope scopeOfThreads(int64_t first, int64_t last) {
    WarpGroupScope scope;
    for (int64_t g = first / kWarpGroupThreads; g < last / kWarpGroupThreads; ++g)
        scope.groups.push_back(g);
    scope.firstThread = first;
    scope.threadCount = last - first;
    return scope;
}

} // namespace

// TileLang infers the threads a branch over the thread index runs on and lays out the tile ops inside for
// those threads alone (a gemm under `if tx < 128` of a 256-thread kernel is partitioned over 4 warps). When
// the branch's threads are whole warpgroups, that is exactly a T.ws scope, so the branches become WarpGroups
// statements: `if tx >= 128: A else: B` is `T.ws(1): A` then `T.ws(0): B`, and an elif chain splits the
// threads the same way (`if tx < 128: A elif tx < 256: B else: C` is three scopes). Other conditions stay an
// if.
bool Interpreter::execThreadRangeIf(const ast::Stmt& s, const ir::ExprPtr& cond, Flow& flow) {
    if (m_trace->kernels.empty() || m_trace->kernels.back().inWarpGroups)
        return false;
    return execThreadRangeBranch(s, cond, 0, m_trace->kernels.back().threadCount, flow);
}

bool Interpreter::execThreadRangeBranch(const ast::Stmt& s, const ir::ExprPtr& cond, int64_t lo, int64_t hi,
                                        Flow& flow) {
    const int64_t threads = m_trace->kernels.back().threadCount;
    auto interval = threadInterval(cond, threads);
    if (!interval)
        return false;
    const int64_t first = std::max(interval->first, lo);
    const int64_t last = std::min(interval->second, hi);
    const bool aligned = first % kWarpGroupThreads == 0 && last % kWarpGroupThreads == 0;
    // The else branch must be one range of threads too: the branch takes a prefix or a suffix of [lo, hi).
    const bool complementIsOneRange = first == lo || last == hi;
    // A first branch over every thread is no scope; an elif over all the threads left is the last one.
    const bool whole = first == lo && last == hi;
    if (!aligned || first >= last || (whole && lo == 0 && hi == threads) || !complementIsOneRange)
        return false;
    Flow thenFlow = execWarpGroups(s.body, s.range, scopeOfThreads(first, last));
    Flow elseFlow = Flow::Normal;
    const int64_t restLo = first == lo ? last : lo;
    const int64_t restHi = first == lo ? hi : first;
    if (!s.orelse.empty() && restLo < restHi) {
        // elif: a branch over the threads this one leaves, when its condition is a thread range too.
        bool chained = false;
        const ast::Stmt* elif =
            s.orelse.size() == 1 && s.orelse[0]->kind == ast::StmtKind::If && s.orelse[0]->test
                ? s.orelse[0].get()
                : nullptr;
        if (elif) {
            ++m_quiet; // looked at again, and reported, where it is no thread range
            Value test = eval(*elif->test);
            ir::ExprPtr elifCond = test.kind == ValueKind::Expr ? test.expr : nullptr;
            --m_quiet;
            chained = elifCond && execThreadRangeBranch(*elif, elifCond, restLo, restHi, elseFlow);
        }
        if (!chained)
            elseFlow = execWarpGroups(s.orelse, s.range, scopeOfThreads(restLo, restHi));
    }
    flow = thenFlow == Flow::Halt || elseFlow == Flow::Halt ? Flow::Halt : Flow::Normal;
    return true;
}

std::span<const PrimitiveRow> synchronizationPrimitives() {
    static const PrimitiveRow rows[] = {
        {"ws", warpSpecialize},
        {"alloc_barrier", allocBarrier},
        {"mbarrier_wait_parity", waitParity},
        {"barrier_wait", waitParity},
        {"mbarrier_arrive", arrive},
        {"barrier_arrive", arrive},
        {"mbarrier_expect_tx", expectTx},
        {"cp_async_barrier_noinc", cpAsyncArrive},
        {"tma_copy", tmaCopy},
        {"sync_grid", syncGrid},
        {"wait_wgmma", orderingHint},
        {"warpgroup_arrive", orderingHint},
        {"warpgroup_commit_batch", orderingHint},
        {"warpgroup_wait", orderingHint},
        {"fence_proxy_async", orderingHint},
        {"set_max_nreg", orderingHint},
        {"ptx_commit_group", orderingHint},
        {"ptx_wait_group", orderingHint},
    };
    return rows;
}

} // namespace tb::elab
