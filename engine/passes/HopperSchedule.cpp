// TMA loads, mbarrier rings and warp specialization on the hopper backend (see HopperSchedule.h).
#include "engine/passes/HopperSchedule.h"

#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tb::passes {

namespace {

using ir::MemoryScope;
using ir::Stmt;
using ir::StmtKind;
using BufferSet = std::set<const ir::Buffer*>;

constexpr int64_t kMaxBoxExtent = 256;      // cuTensorMapEncodeTiled: every box dimension
constexpr int64_t kProducerThreads = 128;   // one warpgroup
constexpr int kProducerRegisters = 40;      // what the producer keeps after setmaxnreg.dec
constexpr int64_t kRegisterFile = 65536;    // registers per SM (and per block)
constexpr int kMaxRegistersPerThread = 240; // setmaxnreg's ceiling in steps of 8 below 255

std::vector<const Stmt*> bodyOf(const Stmt& s) {
    std::vector<const Stmt*> body;
    if (s.body && s.body->kind == StmtKind::Seq)
        for (const ir::StmtPtr& c : s.body->stmts)
            body.push_back(c.get());
    else if (s.body)
        body.push_back(s.body.get());
    return body;
}

bool readsBuffer(const ir::ExprPtr& e) {
    bool loads = false;
    ir::forEachExprNode(e, [&](const ir::Expr& n) { loads = loads || n.kind == ir::ExprKind::BufferLoad; });
    return loads;
}

bool usesWgmma(const layout::KernelPlan& kernel) {
    return std::any_of(kernel.gemms.begin(), kernel.gemms.end(), [](const layout::GemmPlan& g) {
        return g.instruction.kind == layout::GemmInstructionKind::Wgmma;
    });
}

int swizzleBytesOf(layout::SharedLayoutKind kind) {
    switch (kind) {
    case layout::SharedLayoutKind::Full128B:
        return 128;
    case layout::SharedLayoutKind::Half64B:
        return 64;
    case layout::SharedLayoutKind::Quarter32B:
        return 32;
    case layout::SharedLayoutKind::Linear:
        return 0;
    case layout::SharedLayoutKind::Padded:
        return -1;
    }
    return -1;
}

// The byte stride of each global dimension but the innermost, innermost first, when every extent is a
// compile-time constant.
std::optional<std::vector<int64_t>> globalStrides(const ir::Buffer& b) {
    std::optional<std::vector<int64_t>> shape = ir::constantShape(b);
    if (!shape)
        return std::nullopt;
    std::vector<int64_t> strides;
    int64_t pitch = ir::dtypeBytes(b.dtype);
    for (size_t d = shape->size(); d-- > 1;) {
        pitch *= (*shape)[d];
        strides.push_back(pitch);
    }
    return strides;
}

// The TMA form of a global -> shared copy, or nullopt with `whyNot`.
std::optional<layout::TmaCopyPlan> tmaCopyOf(const layout::KernelPlan& kernel, const Stmt& c,
                                             std::string& whyNot) {
    const ir::Buffer* src = c.src.buffer;
    const ir::Buffer* dst = c.dst.buffer;
    const int64_t eb = ir::dtypeBytes(src->dtype);
    if (src->dtype != dst->dtype || (eb != 1 && eb != 2 && eb != 4)) {
        whyNot = "TMA copies 1-, 2- or 4-byte elements without a cast";
        return std::nullopt;
    }
    std::optional<std::vector<int64_t>> srcExt = ir::constantExtents(c.src);
    std::optional<std::vector<int64_t>> dstShape = ir::constantShape(*dst);
    if (!srcExt || !dstShape) {
        whyNot = "the copied tile has a symbolic shape";
        return std::nullopt;
    }
    for (size_t d = 0; d < c.dst.mins.size(); ++d)
        if (ir::constantInt(c.dst.mins[d]) != 0 || ir::constantInt(c.dst.extents[d]) != (*dstShape)[d]) {
            whyNot = "the copy fills part of '" + dst->name + "'";
            return std::nullopt;
        }
    for (const ir::ExprPtr& m : c.src.mins)
        if (readsBuffer(m)) {
            whyNot = "the copy's address reads a buffer (the producer cannot compute it ahead)";
            return std::nullopt;
        }
    std::vector<size_t> srcDims = ir::nonUnitDims(*srcExt);
    std::vector<int64_t> tile;
    for (int64_t e : *dstShape)
        if (e != 1)
            tile.push_back(e);
    if (srcDims.empty() || srcDims.size() > 2 || tile.size() != srcDims.size() ||
        srcDims.back() + 1 != srcExt->size()) {
        whyNot = "TMA here needs a 1-D or 2-D tile whose rows are the tensor's contiguous dimension";
        return std::nullopt;
    }
    for (size_t i = 0; i < srcDims.size(); ++i)
        if ((*srcExt)[srcDims[i]] != tile[i]) {
            whyNot = "the global tile and '" + dst->name + "' have different shapes";
            return std::nullopt;
        }
    const int64_t rows = tile.size() == 2 ? tile[0] : 1, cols = tile.back();
    std::optional<std::vector<int64_t>> strides = globalStrides(*src);
    if (!strides) {
        whyNot = "'" + src->name +
                 "' has a symbolic shape, so its row pitch is not known to be a multiple of 16 bytes";
        return std::nullopt;
    }
    for (int64_t s : *strides)
        if (s % 16 != 0) {
            whyNot =
                "a row pitch of '" + src->name + "' is " + std::to_string(s) + " bytes, not a multiple of 16";
            return std::nullopt;
        }
    const layout::SharedBufferPlan* sp = kernel.sharedOf(dst);
    if (!sp || *dstShape != tile || sp->choice.layout.inputShape() != tile) {
        whyNot = "the shared layout of '" + dst->name + "' does not cover the tile as TMA writes it";
        return std::nullopt;
    }
    const int swizzle = swizzleBytesOf(sp->choice.kind);
    layout::TmaCopyPlan t;
    t.copy = &c;
    t.swizzleBytes = std::max(swizzle, 0);
    int64_t boxInner = cols;
    if (swizzle < 0) {
        whyNot = "'" + dst->name + "' is padded, which TMA cannot write";
        return std::nullopt;
    } else if (swizzle > 0) {
        if (rows % 8 != 0 || (cols * eb) % swizzle != 0) {
            whyNot = "the tile does not split into " + std::to_string(swizzle) + "-byte swizzle panels";
            return std::nullopt;
        }
        boxInner = swizzle / eb;
        t.panels = cols * eb / swizzle;
    } else if ((cols * eb) % 16 != 0 || cols > kMaxBoxExtent) {
        whyNot = "an unswizzled TMA row must be a multiple of 16 bytes and at most 256 elements";
        return std::nullopt;
    }
    if (rows > kMaxBoxExtent) {
        whyNot = "the tile's " + std::to_string(rows) + " rows exceed TMA's box of 256";
        return std::nullopt;
    }
    // Box per global dimension, innermost first: the tile's columns (one panel), its rows, 1 elsewhere.
    for (size_t d = srcExt->size(); d-- > 0;)
        t.box.push_back(d + 1 == srcExt->size() ? boxInner : (*srcExt)[d]);
    t.panelBytes = rows * boxInner * eb;
    t.bytes = rows * cols * eb;
    t.reason = "TMA by the producer warpgroup: " + std::to_string(t.panels) + " box(es) of " +
               std::to_string(boxInner) + "x" + std::to_string(rows) +
               (t.swizzleBytes ? ", " + std::to_string(t.swizzleBytes) + "B swizzle" : ", no swizzle") +
               ", " + std::to_string(t.bytes) + " bytes a stage";
    return t;
}

// A copy the producer may issue ahead: nothing else in the loop writes its tile, nothing before it reads the
// tile, and something after it does.
bool issuableAhead(const std::vector<const Stmt*>& body, size_t i, const std::vector<BufferSet>& reads,
                   const std::vector<BufferSet>& writes) {
    const ir::Buffer* tile = body[i]->dst.buffer;
    bool readLater = false;
    for (size_t j = 0; j < body.size(); ++j) {
        if (j != i && writes[j].count(tile))
            return false;
        if (j < i && reads[j].count(tile))
            return false;
        readLater = readLater || (j > i && reads[j].count(tile));
    }
    return readLater;
}

} // namespace

void scheduleWarpSpecialization(layout::KernelPlan& kernel, const PassContext& context) {
    layout::WarpSpecializationPlan& ws = kernel.schedule.warpSpecialization;
    ws = {};
    kernel.schedule.tmaCopies.clear();
    if (!context.target.hasTma || !context.target.hasWgmma || !kernel.kernel)
        return;
    if (!usesWgmma(kernel)) {
        ws.reason = "no gemm issues wgmma: the pipelines keep cp.async";
        return;
    }
    if (kernel.threads % 128 != 0) {
        ws.reason = std::to_string(kernel.threads) + " threads are not whole warpgroups";
        return;
    }
    if (ir::containsGridSync(*kernel.kernel)) { // TileLang's producer/consumer split declines it too
        ws.reason =
            "the kernel has a grid barrier (T.sync_grid), which every thread of the block must reach: "
            "no producer warpgroup";
        return;
    }
    std::vector<std::string> notes;
    for (const Stmt* s : bodyOf(*kernel.kernel)) {
        if (s->kind != StmtKind::For || s->loopKind != ir::LoopKind::Pipelined || s->pipeline.numStages < 1)
            continue;
        if (readsBuffer(s->min) || readsBuffer(s->extent)) {
            notes.push_back("the T.Pipelined loop's bounds read a buffer");
            continue;
        }
        std::vector<const Stmt*> body = bodyOf(*s);
        std::vector<BufferSet> reads(body.size()), writes(body.size());
        for (size_t i = 0; i < body.size(); ++i)
            ir::sharedEffects(*body[i], reads[i], writes[i]);
        for (size_t i = 0; i < body.size(); ++i) {
            if (!ir::isGlobalToSharedCopy(*body[i]))
                continue;
            std::string whyNot;
            std::optional<layout::TmaCopyPlan> t;
            if (!issuableAhead(body, i, reads, writes))
                whyNot = "its tile is also written or read before it in the loop";
            else
                t = tmaCopyOf(kernel, *body[i], whyNot);
            if (!t) {
                notes.push_back("copy into '" + body[i]->dst.buffer->name + "' keeps cp.async: " + whyNot);
                continue;
            }
            kernel.schedule.tmaCopies.push_back(*t);
        }
    }
    if (kernel.schedule.tmaCopies.empty()) {
        ws.reason = "no copy of a top-level T.Pipelined loop can be a TMA load" +
                    (notes.empty() ? std::string() : ": " + notes.front());
        return;
    }
    ws.enabled = true;
    ws.consumerThreads = kernel.threads;
    ws.producerThreads = kProducerThreads;
    const int64_t consumerGroups = kernel.threads / 128;
    // setmaxnreg pays only when the register cap at entry (65536 / threads) is below what consumers need.
    if (consumerGroups >= 2) {
        ws.producerRegisters = kProducerRegisters;
        int64_t perConsumer =
            (kRegisterFile - kProducerThreads * kProducerRegisters) / kernel.threads / 8 * 8;
        ws.consumerRegisters = int(std::min<int64_t>(perConsumer, kMaxRegistersPerThread));
    }
    ws.reason = std::to_string(kernel.schedule.tmaCopies.size()) +
                " TMA load(s) issued by a producer warpgroup (threads " + std::to_string(kernel.threads) +
                ".." + std::to_string(kernel.threads + kProducerThreads - 1) + ") for " +
                std::to_string(consumerGroups) + " consumer warpgroup(s)" +
                (ws.consumerRegisters ? "; setmaxnreg " + std::to_string(ws.producerRegisters) + " / " +
                                            std::to_string(ws.consumerRegisters)
                                      : std::string());
    for (const std::string& n : notes)
        ws.reason += "; " + n;
    for (layout::CopyPlan& cp : kernel.copies)
        if (const layout::TmaCopyPlan* t = kernel.schedule.tmaOf(cp.copy)) {
            cp.instruction = layout::CopyInstruction::Tma;
            cp.reason = t->reason;
        }
}

int64_t planBarrierRings(const layout::KernelPlan& kernel, layout::PipelineSchedule& pipeline,
                         int64_t barrierOffset) {
    std::vector<const Stmt*> body = bodyOf(*pipeline.loop);
    std::vector<BufferSet> reads(body.size()), writes(body.size());
    for (size_t i = 0; i < body.size(); ++i)
        ir::sharedEffects(*body[i], reads[i], writes[i]);
    std::map<std::pair<size_t, size_t>, size_t> ringOf; // (first use, last use) -> ring
    for (size_t i = 0; i < body.size(); ++i) {
        const layout::TmaCopyPlan* t = kernel.schedule.tmaOf(body[i]);
        if (!t)
            continue;
        size_t first = body.size(), last = 0;
        for (size_t j = i + 1; j < body.size(); ++j)
            if (reads[j].count(body[i]->dst.buffer)) {
                first = std::min(first, j);
                last = j;
            }
        auto [it, fresh] = ringOf.emplace(std::make_pair(first, last), pipeline.rings.size());
        if (fresh) {
            layout::BarrierRing ring;
            ring.firstUse = first;
            ring.lastUse = last;
            pipeline.rings.push_back(ring);
        }
        layout::BarrierRing& ring = pipeline.rings[it->second];
        ring.copies.push_back(body[i]);
        ring.bytes += t->bytes;
        pipeline.asyncCopies.push_back({body[i], first});
    }
    const int64_t stages = std::max(pipeline.stages, 1);
    for (size_t r = 0; r < pipeline.rings.size(); ++r) {
        pipeline.rings[r].fullOffset = barrierOffset + int64_t(r) * 2 * stages * 8;
        pipeline.rings[r].emptyOffset = pipeline.rings[r].fullOffset + stages * 8;
    }
    // The GEMM shape: copies and one shared-operand wgmma, nothing else reading the accumulator.
    size_t gemms = 0, others = 0;
    for (const Stmt* s : body) {
        if (kernel.schedule.tmaOf(s))
            continue;
        bool sharedWgmma = false;
        if (s->kind == StmtKind::Gemm)
            for (const layout::GemmPlan& g : kernel.gemms)
                sharedWgmma =
                    sharedWgmma || (g.gemm == s && g.instruction.kind == layout::GemmInstructionKind::Wgmma &&
                                    s->a.buffer && s->a.buffer->scope == MemoryScope::Shared);
        (sharedWgmma ? gemms : others) += 1;
    }
    // A batch in flight still reads its stage, which is given back one iteration later: with a single stage
    // the producer would wait for that release while the consumer waits for the producer's next tile.
    pipeline.wgmmaBatchInFlight = gemms == 1 && others == 0 && pipeline.rings.size() == 1 && stages >= 2;
    return int64_t(pipeline.rings.size()) * 2 * stages * 8;
}

bool needsSwizzleAlignment(const layout::KernelPlan& kernel, const ir::Buffer* buffer) {
    for (const layout::TmaCopyPlan& t : kernel.schedule.tmaCopies)
        if (t.copy->dst.buffer == buffer)
            return true;
    for (const layout::GemmPlan& g : kernel.gemms)
        if (g.instruction.kind == layout::GemmInstructionKind::Wgmma &&
            ((g.gemm->a.buffer == buffer && buffer->scope == MemoryScope::Shared) ||
             g.gemm->b.buffer == buffer))
            return true;
    return false;
}

} // namespace tb::passes
