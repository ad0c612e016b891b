// Lowering of the tile operations (T.copy, T.gemm, T.reduce_*, T.fill, T.atomic_add) to per-thread CUDA,
// following the layout plan and docs/bank-analysis.md's instruction rules: global->shared copies become
// cp.async 16 B (or 16-byte vector ld/st) over the copy plan's thread map; fragment-side copies walk the
// fragment's registers (T.gemm is in GemmLowering.cpp); reductions fold thread-locally, then run
// the plan's XOR butterfly (shuffles below 32, a shared scratch round at 32 and above).
#include "engine/codegen/DeviceHeader.h"
#include "engine/codegen/KernelEmitter.h"
#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tb::codegen {

using ir::Buffer;
using ir::DType;
using ir::ExprPtr;
using ir::MemoryScope;
using ir::Stmt;
using ir::StmtKind;

std::string indexExprToC(const layout::IndexExpr& e, const std::map<std::string, std::string>& vars);

namespace {

std::vector<int64_t> nonUnitExtents(const ir::Region& r, bool& constant) {
    std::vector<int64_t> out;
    constant = true;
    for (const auto& e : r.extents) {
        auto c = ir::constantInt(e);
        if (!c) {
            constant = false;
            continue;
        }
        if (*c != 1)
            out.push_back(*c);
    }
    return out;
}

ExprPtr castTo(ExprPtr e, DType t) {
    return e->dtype == t ? e : ir::makeCast(t, e);
}

} // namespace

std::string describeRegion(const ir::Region& r) {
    return r.buffer ? r.buffer->name : "?";
}

const layout::CopyPlan* KernelEmitter::copyPlanOf(const Stmt& s) const {
    if (!m_plan)
        return nullptr;
    for (const auto& c : m_plan->copies)
        if (c.copy == &s)
            return &c;
    return nullptr;
}

KernelEmitter::TileLoopVars KernelEmitter::makeTileVars(size_t count) {
    static const char* bases[] = {"ti", "tj", "tk", "tl", "tm", "tn"};
    while (m_tileVars.size() < count) {
        size_t d = m_tileVars.size();
        ir::Var& v = m_syntheticVars.emplace_back();
        v.name = d < 6 ? bases[d] : "t" + std::to_string(d);
        v.dtype = DType::Int32;
        v.kind = ir::VarKind::LoopVar;
        v.id = -1 - int(d);
        m_varNames[&v] = unique(v.name);
        m_tileVars.push_back(&v);
    }
    TileLoopVars vars;
    vars.vars.assign(m_tileVars.begin(), m_tileVars.begin() + long(count));
    return vars;
}

std::vector<ExprPtr> KernelEmitter::regionIndices(const ir::Region& region, const TileLoopVars& vars) const {
    std::vector<ExprPtr> idx;
    size_t k = 0;
    for (size_t d = 0; d < region.mins.size(); ++d) {
        auto c = ir::constantInt(region.extents[d]);
        if (c && *c == 1) {
            idx.push_back(region.mins[d]);
            continue;
        }
        ExprPtr v = ir::makeVarRef(vars.vars[k++]);
        ExprPtr m = castTo(region.mins[d], DType::Int32);
        idx.push_back(ir::constantInt(m) == 0 ? v : ir::makeBinary(ir::BinaryOp::Add, m, v));
    }
    return idx;
}

ExprPtr KernelEmitter::inBounds(const Buffer* buffer, const std::vector<ExprPtr>& indices) const {
    ExprPtr cond;
    for (size_t d = 0; d < indices.size() && d < buffer->shape.size(); ++d) {
        ExprPtr c = ir::makeBinary(ir::BinaryOp::Lt, castTo(indices[d], DType::Int32),
                                   castTo(buffer->shape[d], DType::Int32));
        cond = cond ? ir::makeBinary(ir::BinaryOp::LogicalAnd, cond, c) : c;
    }
    return cond;
}

// ------------------------------------------------------------------------------------------------ copy

void KernelEmitter::lowerCopy(const Stmt& s) {
    const ir::Region& src = s.src;
    const ir::Region& dst = s.dst;
    if (!src.buffer || !dst.buffer)
        return;
    bool c1 = true, c2 = true;
    std::vector<int64_t> tile = nonUnitExtents(src, c1);
    std::vector<int64_t> dtile = nonUnitExtents(dst, c2);
    if (!c1 || !c2 || tile != dtile) {
        error("codegen-copy-shape", s.range,
              "T.copy " + describeRegion(src) + " -> " + describeRegion(dst) +
                  ": the CUDA backend needs equal compile-time tile shapes on both sides");
        return;
    }
    if (tile.empty())
        tile.push_back(1);
    const layout::CopyPlan* plan = copyPlanOf(s);
    bool fragSide = src.buffer->scope == MemoryScope::Fragment || dst.buffer->scope == MemoryScope::Fragment;
    layout::Fragment map;
    int vector = 1;
    if (plan && plan->threadMap.inputShape() == tile) {
        map = plan->threadMap;
        vector = std::max(1, plan->vectorWidth);
    } else if (fragSide) {
        const Buffer* fb = src.buffer->scope == MemoryScope::Fragment ? src.buffer : dst.buffer;
        const layout::FragmentPlan* fp = m_plan ? m_plan->fragmentOf(fb) : nullptr;
        map = fp && fp->fragment.inputShape() == tile ? fp->fragment : defaultPartition(tile, m_threads, 1);
    } else {
        map = defaultPartition(tile, m_threads, 1);
    }
    bool async = plan ? plan->instruction == layout::CopyInstruction::CpAsync
                      : (m_target.hasCpAsync && src.buffer->scope == MemoryScope::Global &&
                         dst.buffer->scope == MemoryScope::Shared && m_pipelineStages.count(dst.buffer));
    async = async && m_target.hasCpAsync;
    bool memSides = (src.buffer->scope == MemoryScope::Global || src.buffer->scope == MemoryScope::Shared) &&
                    (dst.buffer->scope == MemoryScope::Global || dst.buffer->scope == MemoryScope::Shared);
    if (memSides && vector > 1 && src.buffer->dtype == dst.buffer->dtype &&
        lowerVectorCopy(s, map, tile, vector, async))
        return;

    TileLoopVars vars = makeTileVars(tile.size());
    std::vector<ExprPtr> srcIdx = regionIndices(src, vars);
    std::vector<ExprPtr> dstIdx = regionIndices(dst, vars);
    ExprPtr load = ir::makeLoad(src.buffer, srcIdx, src.range);
    ExprPtr value = load;
    if (src.buffer->scope == MemoryScope::Global) {
        ExprPtr zero = ir::isFloat(src.buffer->dtype) ? ir::makeFloat(0, src.buffer->dtype)
                                                      : ir::makeInt(0, src.buffer->dtype);
        if (ExprPtr ok = regionGuard(src, srcIdx))
            value = ir::makeSelect(ok, value, zero);
    }
    value = castTo(value, dst.buffer->dtype);
    auto store = ir::makeStmt(StmtKind::Store, s.range);
    store->buffer = dst.buffer;
    store->indices = dstIdx;
    store->value = value;
    ir::StmtPtr body = store;
    if (dst.buffer->scope == MemoryScope::Global) {
        if (ExprPtr ok = regionGuard(dst, dstIdx)) {
            auto guard = ir::makeStmt(StmtKind::IfThenElse, s.range);
            guard->cond = ok;
            guard->body = store;
            body = guard;
        }
    }
    m_syntheticStmts.push_back(body);

    // A fragment-side copy moves the memory side as V-element vectors (the copy plan's width) when its
    // elements are consecutive and aligned there; the registers take them one by one.
    std::vector<VectorAccess> vectors;
    const ir::Region& memory = src.buffer->scope == MemoryScope::Fragment ? dst : src;
    bool memoryIsDst = &memory == &dst;
    int64_t vectorBytes = int64_t(vector) * ir::dtypeBytes(memory.buffer->dtype);
    if (fragSide && vector > 1 && memory.buffer->scope != MemoryScope::Fragment &&
        (vectorBytes == 4 || vectorBytes == 8 || vectorBytes == 16)) {
        const ThreadMap* built = cachedThreadMap(map);
        if (built && built->fitted && built->regs % vector == 0 && !(memoryIsDst && built->replicate > 1)) {
            bool contiguous = false;
            if (memory.buffer->scope == MemoryScope::Global) {
                contiguous = globalCopyRunContiguous(memory, *built, vector);
            } else if (memory.buffer->scope == MemoryScope::Shared) {
                std::vector<std::optional<int64_t>> mins;
                for (const ExprPtr& m : memory.mins)
                    mins.push_back(ir::constantInt(m));
                auto pointOf = [&](int64_t t, int64_t r) -> std::optional<std::vector<int64_t>> {
                    std::vector<int64_t> p = built->point(t, r);
                    if (p.empty())
                        return std::nullopt;
                    std::vector<int64_t> q;
                    size_t k = 0;
                    for (size_t d = 0; d < memory.mins.size(); ++d) {
                        if (!mins[d])
                            return std::nullopt;
                        auto ext = ir::constantInt(memory.extents[d]);
                        bool unit = ext && *ext == 1;
                        q.push_back(*mins[d] + (unit || k >= p.size() ? 0 : p[k++]));
                    }
                    return q;
                };
                contiguous = sharedRunContiguous(memory.buffer, *built, vector, pointOf);
            }
            if (contiguous)
                vectors.push_back({memory.buffer, memoryIsDst ? &store->indices : &load->operands,
                                   memoryIsDst, internalName(memoryIsDst ? "st" : "ld"), s.range,
                                   memory.buffer->scope == MemoryScope::Global ? l2PolicyOf(s) : ""});
        }
    }
    emitSimtLoop(map, vars.vars, *body, s.range,
                 "T.copy(" + describeRegion(src) + " -> " + describeRegion(dst) + ")" +
                     (vectors.empty() ? ", element by element" : "") +
                     (vectors.empty() && !l2PolicyOf(s).empty()
                          ? " (no L2 hint: only vector accesses carry one)"
                          : ""),
                 true, vectors.empty() ? 1 : vector, vectors);
}

ir::ExprPtr KernelEmitter::regionGuard(const ir::Region& region, const std::vector<ExprPtr>& indices) const {
    ExprPtr cond;
    const Buffer* buffer = region.buffer;
    for (size_t d = 0; d < indices.size() && d < buffer->shape.size(); ++d) {
        auto ext = d < region.extents.size() ? ir::constantInt(region.extents[d]) : std::nullopt;
        if (ext && d < region.mins.size() && provablyWithin(region.mins[d], *ext, buffer->shape[d]))
            continue;
        ExprPtr c = ir::makeBinary(ir::BinaryOp::Lt, castTo(indices[d], DType::Int32),
                                   castTo(buffer->shape[d], DType::Int32));
        cond = cond ? ir::makeBinary(ir::BinaryOp::LogicalAnd, cond, c) : c;
    }
    return cond;
}

// ---------------------------------------------------------------------------------------------- reduce

void KernelEmitter::lowerReduce(const Stmt& s) {
    const Buffer* src = s.srcBuffer;
    const Buffer* dst = s.dstBuffer;
    if (!src || !dst)
        return;
    const layout::ReducePlan* rp = nullptr;
    if (m_plan)
        for (const auto& r : m_plan->reduces)
            if (r.reduce == &s)
                rp = &r;
    const layout::FragmentPlan* sp = m_plan ? m_plan->fragmentOf(src) : nullptr;
    const layout::FragmentPlan* dp = m_plan ? m_plan->fragmentOf(dst) : nullptr;
    if (!rp || !sp || !dp || src->scope != MemoryScope::Fragment || dst->scope != MemoryScope::Fragment) {
        error("codegen-reduce-unsupported", s.range,
              "T.reduce needs fragment source and destination with a reduce plan in the CUDA backend");
        return;
    }
    const ThreadMap* smap = threadMapOf(sp->fragment, s.range);
    const ThreadMap* dmap = threadMapOf(dp->fragment, s.range);
    if (!smap || !dmap)
        return;
    size_t dim = size_t(s.dim);
    size_t srank = sp->fragment.inputShape().size(), drank = dp->fragment.inputShape().size();
    auto project = [&](const std::vector<int64_t>& p) {
        std::vector<int64_t> q;
        for (size_t d = 0; d < p.size(); ++d) {
            if (d == dim) {
                if (drank == srank)
                    q.push_back(0);
                continue;
            }
            q.push_back(p[d]);
        }
        return q;
    };
    std::vector<int> offsets(rp->shuffleOffsets.begin(), rp->shuffleOffsets.end());
    std::vector<int> sharedOffsets(rp->sharedOffsets.begin(), rp->sharedOffsets.end());
    // For each destination register: the source registers each thread folds (the same for every thread).
    std::vector<std::vector<int64_t>> folds(size_t(dmap->regs));
    std::vector<bool> known(size_t(dmap->regs), false);
    for (int64_t t = 0; t < m_threads; ++t)
        for (int64_t rd = 0; rd < dmap->regs; ++rd) {
            std::vector<int64_t> pd = t < dmap->threads ? dmap->point(t, rd) : std::vector<int64_t>{};
            if (pd.empty())
                continue;
            std::vector<int64_t> list;
            if (t < smap->threads)
                for (int64_t r = 0; r < smap->regs; ++r) {
                    std::vector<int64_t> ps = smap->point(t, r);
                    if (!ps.empty() && project(ps) == pd)
                        list.push_back(r);
                }
            if (!known[size_t(rd)]) {
                folds[size_t(rd)] = list;
                known[size_t(rd)] = true;
            } else if (folds[size_t(rd)] != list) {
                error("codegen-reduce-layout", s.range,
                      "threads fold different registers of '" + src->name + "' into register " +
                          std::to_string(rd) + " of '" + dst->name + "'",
                      "check `tilec plan` for the reduce's source and destination layouts");
                return;
            }
            for (int off : offsets) {
                int64_t partner = t ^ off;
                if (partner >= dmap->threads || dmap->point(partner, rd) != pd) {
                    error("codegen-reduce-layout", s.range,
                          "thread " + std::to_string(t) + " and its butterfly partner " +
                              std::to_string(partner) + " hold different elements of '" + dst->name + "'");
                    return;
                }
            }
        }
    DType t = src->dtype;
    bool fl = ir::isFloat(t);
    std::string ct = cudaComputeType(dst->dtype);
    std::string identity, fold, comb;
    auto combine = [&](const std::string& a, const std::string& b) -> std::string {
        switch (s.reduceKind) {
        case ir::ReduceKind::Sum:
        case ir::ReduceKind::AbsSum:
            return a + " + " + b;
        case ir::ReduceKind::Max:
        case ir::ReduceKind::AbsMax:
            return "tb_max(" + a + ", " + b + ")";
        case ir::ReduceKind::Min:
            return "tb_min(" + a + ", " + b + ")";
        case ir::ReduceKind::BitAnd:
            return a + " & " + b;
        case ir::ReduceKind::BitOr:
            return a + " | " + b;
        case ir::ReduceKind::BitXor:
            return a + " ^ " + b;
        }
        return a;
    };
    switch (s.reduceKind) {
    case ir::ReduceKind::Sum:
    case ir::ReduceKind::AbsSum:
    case ir::ReduceKind::AbsMax:
    case ir::ReduceKind::BitOr:
    case ir::ReduceKind::BitXor:
        identity = fl ? "0.0f" : "0";
        break;
    case ir::ReduceKind::Max:
        identity = fl ? "(-tb_inf())" : "(-2147483647 - 1)";
        break;
    case ir::ReduceKind::Min:
        identity = fl ? "tb_inf()" : "2147483647";
        break;
    case ir::ReduceKind::BitAnd:
        identity = "(~0)";
        break;
    }
    bool absFold = s.reduceKind == ir::ReduceKind::AbsSum || s.reduceKind == ir::ReduceKind::AbsMax;
    std::string offsetsText;
    for (int o : offsets)
        offsetsText += (offsetsText.empty() ? "" : ", ") + std::to_string(o);
    for (int o : sharedOffsets)
        offsetsText += (offsetsText.empty() ? "" : ", ") + std::to_string(o) + " (shared)";
    comment(std::string("T.reduce_") + ir::reduceKindName(s.reduceKind) + "(" + src->name + " -> " +
                dst->name + ", dim=" + std::to_string(s.dim) + (s.clear ? "" : ", clear=False") + "): fold " +
                std::to_string(folds.empty() ? 0 : folds[0].size()) + " registers per output" +
                (offsetsText.empty() ? "" : ", then butterfly xor " + offsetsText),
            s.range);
    std::string acc = internalName("acc");
    std::string srcName = nameOf(src), dstName = nameOf(dst);
    for (int64_t rd = 0; rd < dmap->regs; ++rd) {
        if (!known[size_t(rd)])
            continue;
        openBlock(dst->name + " register " + std::to_string(rd), s.range);
        line(ct + " " + acc + " = " + identity + ";", s.range);
        const auto& list = folds[size_t(rd)];
        // An arithmetic progression of registers folds in an unrolled loop.
        bool progression = list.size() > 2;
        int64_t step = list.size() > 1 ? list[1] - list[0] : 1;
        for (size_t k = 1; progression && k < list.size(); ++k)
            progression = list[k] - list[k - 1] == step;
        auto term = [&](const std::string& reg) {
            std::string x = srcName + "[" + reg + "]";
            return absFold ? (fl ? "fabsf(" + x + ")" : "abs(" + x + ")") : x;
        };
        if (progression) {
            line("#pragma unroll");
            line("for (int " + m_regName + " = " + std::to_string(list[0]) + "; " + m_regName +
                     " <= " + std::to_string(list.back()) + "; " + m_regName + " += " + std::to_string(step) +
                     ") " + acc + " = " + combine(acc, term(m_regName)) + ";",
                 s.range);
        } else {
            for (int64_t r : list)
                line(acc + " = " + combine(acc, term(std::to_string(r))) + ";", s.range);
        }
        for (int o : offsets)
            line(acc + " = " +
                     combine(acc, "__shfl_xor_sync(0xffffffffu, " + acc + ", " + std::to_string(o) + ")") +
                     ";",
                 s.range);
        for (int o : sharedOffsets) {
            line(blockSync());
            line(m_reduceScratch + "[" + m_tx + "] = " + acc + ";");
            line(blockSync());
            line(acc + " = " + combine(acc, m_reduceScratch + "[" + m_tx + " ^ " + std::to_string(o) + "]") +
                     ";",
                 s.range);
        }
        std::string d = dstName + "[" + std::to_string(rd) + "]";
        std::string value = s.clear ? acc : combine(d, acc);
        line(d + " = " + roundedTo(dst->dtype, value) + ";", s.range);
        close();
    }
    if (!sharedOffsets.empty())
        line(blockSync() + " // the scratch is reused by the next reduction");
}

// ------------------------------------------------------------------------------------- fill, atomics

void KernelEmitter::lowerFill(const Stmt& s) {
    const ir::Region& dst = s.dst;
    if (!dst.buffer)
        return;
    const Buffer* b = dst.buffer;
    bool whole = true;
    for (size_t d = 0; d < dst.mins.size(); ++d)
        whole = whole && ir::constantInt(dst.mins[d]) == 0 && ir::constantInt(dst.extents[d]) &&
                b->constantExtent(d) == ir::constantInt(dst.extents[d]);
    std::string value = expr(s.value);
    if (b->scope == MemoryScope::Fragment && whole) {
        const layout::FragmentPlan* fp = m_plan ? m_plan->fragmentOf(b) : nullptr;
        if (!fp) {
            error("codegen-no-fragment-layout", b->range,
                  "fragment '" + b->name + "' has no layout in the plan");
            return;
        }
        std::string regs = std::to_string(fp->fragment.registersPerThread());
        comment("T.fill(" + b->name + ", " + ir::printExpr(s.value) + "): every register of the fragment",
                s.range);
        line("#pragma unroll");
        line("for (int " + m_regName + " = 0; " + m_regName + " < " + regs + "; ++" + m_regName + ") " +
                 nameOf(b) + "[" + m_regName + "] = " + value + ";",
             s.range);
        return;
    }
    if (b->scope == MemoryScope::LocalVar) {
        line(nameOf(b) + " = " + value + ";", s.range);
        return;
    }
    bool constant = true;
    std::vector<int64_t> tile = nonUnitExtents(dst, constant);
    if (!constant) {
        error("codegen-fill-shape", s.range, "T.fill needs a compile-time region shape in the CUDA backend");
        return;
    }
    if (tile.empty())
        tile.push_back(1);
    TileLoopVars vars = makeTileVars(tile.size());
    std::vector<ExprPtr> idx = regionIndices(dst, vars);
    auto store = ir::makeStmt(StmtKind::Store, s.range);
    store->buffer = b;
    store->indices = idx;
    store->value = castTo(s.value, b->dtype);
    ir::StmtPtr body = store;
    if (b->scope == MemoryScope::Global)
        if (ExprPtr ok = inBounds(b, idx)) {
            auto guard = ir::makeStmt(StmtKind::IfThenElse, s.range);
            guard->cond = ok;
            guard->body = store;
            body = guard;
        }
    m_syntheticStmts.push_back(body);
    layout::Fragment map = defaultPartition(tile, m_threads, 1);
    if (b->scope == MemoryScope::Fragment) {
        const layout::FragmentPlan* fp = m_plan ? m_plan->fragmentOf(b) : nullptr;
        if (fp && fp->fragment.inputShape() == tile)
            map = fp->fragment;
    }
    if (b->scope == MemoryScope::Local) {
        // Per-thread arrays: every thread fills its own copy.
        map = layout::Fragment::fullyReplicated(tile, m_threads);
    }
    emitSimtLoop(map, vars.vars, *body, s.range, "T.fill(" + b->name + ")", true);
}

void KernelEmitter::lowerAtomicAdd(const Stmt& s) {
    const ir::Region& dst = s.dst;
    if (!dst.buffer)
        return;
    if (!s.src.buffer) {
        // Scalar form at tile level: once per block, as the tile program means it.
        std::string lhs = lvalueText(dst.buffer, dst.mins, 0);
        line("if (" + m_tx + " == 0) atomicAdd(&" + lhs + ", " + expr(s.value) + ");", s.range);
        return;
    }
    bool c1 = true, c2 = true;
    std::vector<int64_t> tile = nonUnitExtents(s.src, c1);
    if (!c1 || tile != nonUnitExtents(dst, c2) || !c2) {
        error("codegen-atomic-shape", s.range, "T.atomic_add needs equal compile-time tile shapes");
        return;
    }
    if (tile.empty())
        tile.push_back(1);
    TileLoopVars vars = makeTileVars(tile.size());
    std::vector<ExprPtr> srcIdx = regionIndices(s.src, vars);
    std::vector<ExprPtr> dstIdx = regionIndices(dst, vars);
    auto add = ir::makeStmt(StmtKind::AtomicAdd, s.range);
    add->dst.buffer = dst.buffer;
    add->dst.mins = dstIdx;
    add->value = castTo(ir::makeLoad(s.src.buffer, srcIdx), dst.buffer->dtype);
    ir::StmtPtr body = add;
    if (ExprPtr ok = inBounds(dst.buffer, dstIdx)) {
        auto guard = ir::makeStmt(StmtKind::IfThenElse, s.range);
        guard->cond = ok;
        guard->body = add;
        body = guard;
    }
    m_syntheticStmts.push_back(body);
    layout::Fragment map = defaultPartition(tile, m_threads, 1);
    if (s.src.buffer->scope == MemoryScope::Fragment) {
        const layout::FragmentPlan* fp = m_plan ? m_plan->fragmentOf(s.src.buffer) : nullptr;
        if (fp && fp->fragment.inputShape() == tile)
            map = fp->fragment;
    }
    emitSimtLoop(map, vars.vars, *body, s.range, "T.atomic_add(" + dst.buffer->name + ")", true);
}

} // namespace tb::codegen
