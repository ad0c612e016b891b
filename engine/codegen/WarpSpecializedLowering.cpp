// Producer/consumer warp specialization on the hopper backend, as the kernel schedule planned it
// (KernelSchedule::warpSpecialization, PipelineShape::WarpSpecialized): the kernel's own threads are the
// consumers and run the whole program but the TMA loads; one more warpgroup after them is the producer, one
// thread of which issues every load. Each ring of a pipeline has num_stages full and empty mbarriers:
//
//   producer, iteration i, stage s = i % S, parity p = (i / S) & 1, per ring:
//       wait empty[s] (parity p ^ 1: the first round passes), arrive_expect_tx(full[s], bytes), TMA loads
//   consumers, iteration i: before the ring's first use wait full[s] (parity p); after its last use every
//       consumer thread arrives on empty[s] (its reads, wgmma's included, are complete by then)
//
// Consumer-only synchronization uses named barrier 1 over the consumer threads (the producer never joins).
#include "engine/codegen/KernelEmitter.h"
#include "engine/ir/IrQueries.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tb::codegen {

using ir::Stmt;
using ir::StmtKind;

namespace {

std::vector<const Stmt*> loopStatements(const Stmt& loop) {
    std::vector<const Stmt*> body;
    if (loop.body && loop.body->kind == StmtKind::Seq)
        for (const ir::StmtPtr& c : loop.body->stmts)
            body.push_back(c.get());
    else if (loop.body)
        body.push_back(loop.body.get());
    return body;
}

} // namespace

const layout::WarpSpecializationPlan* KernelEmitter::warpSpecialization() const {
    if (!m_plan || !m_plan->schedule.warpSpecialization.enabled)
        return nullptr;
    return &m_plan->schedule.warpSpecialization;
}

std::string KernelEmitter::barrierAddress(const layout::BarrierRing& ring, bool full,
                                          const std::string& stage) const {
    return "tb_smem_s + " + std::to_string(full ? ring.fullOffset : ring.emptyOffset) + " + 8 * " + stage;
}

// The kernel's tensor maps, one by-value parameter per TMA copy after the tensors and dynamic dims.
std::string KernelEmitter::tensorMapSignature(GeneratedKernel& out) {
    std::string sig;
    if (!m_plan)
        return sig;
    for (const layout::TmaCopyPlan& t : m_plan->schedule.tmaCopies) {
        KernelParam p;
        p.kind = KernelParamKind::TensorMap;
        p.buffer = t.copy->src.buffer;
        p.tma = &t;
        p.name = unique("tmap_" + t.copy->dst.buffer->name);
        p.cType = tensorMapTypeName();
        m_tensorMaps[t.copy] = p.name;
        sig += ", " + tensorMapParameter(p.name);
        out.params.push_back(p);
    }
    return sig;
}

// Barrier initialization by one thread, then the split: the producer warpgroup issues its loads and leaves;
// the consumers go on with the program.
void KernelEmitter::emitWarpSpecializationSplit() {
    const layout::WarpSpecializationPlan* ws = warpSpecialization();
    if (!ws)
        return;
    const std::string consumers = std::to_string(ws->consumerThreads);
    comment("warp specialization: " + ws->reason, m_kernel.range);
    open("if (" + m_tx + " == 0)", m_kernel.range);
    for (const layout::TmaCopyPlan& t : m_plan->schedule.tmaCopies)
        line("tb_prefetch_tensormap(&" + m_tensorMaps.at(t.copy) + ");");
    for (const layout::PipelineSchedule& p : m_plan->schedule.pipelines)
        for (const layout::BarrierRing& r : p.rings) {
            open("for (int s = 0; s < " + std::to_string(std::max(p.stages, 1)) + "; ++s)");
            line("tb_mbarrier_init(" + barrierAddress(r, true, "s") +
                 ", 1); // full: the producer's arrive + bytes");
            line("tb_mbarrier_init(" + barrierAddress(r, false, "s") + ", " + consumers +
                 "); // empty: every consumer thread");
            close();
        }
    line("tb_fence_mbarrier_init();");
    close();
    line("__syncthreads(); // the barriers are initialized before any thread uses them");
    open("if (" + m_tx + " >= " + consumers + ")", m_kernel.range);
    comment("producer warpgroup", m_kernel.range);
    if (ws->producerRegisters > 0)
        line("tb_setmaxnreg_dec<" + std::to_string(ws->producerRegisters) + ">();");
    open("if (" + m_tx + " == " + consumers + ")");
    for (const layout::PipelineSchedule& p : m_plan->schedule.pipelines)
        if (p.shape == layout::PipelineShape::WarpSpecialized)
            emitProducerLoop(p);
    close();
    line("return;");
    close();
    comment("consumer warpgroups: threads 0.." + std::to_string(ws->consumerThreads - 1), m_kernel.range);
    if (ws->consumerRegisters > 0)
        line("tb_setmaxnreg_inc<" + std::to_string(ws->consumerRegisters) + ">();");
}

// The producer's copy of one pipelined loop: per iteration, per ring, wait for a free stage and load it.
void KernelEmitter::emitProducerLoop(const layout::PipelineSchedule& p) {
    const Stmt& s = *p.loop;
    const int S = std::max(p.stages, 1);
    const std::string it = internalName("it"), stage = internalName("stage"), parity = internalName("parity");
    const std::string lo = expr(s.min), n = expr(s.extent);
    const bool zeroMin = ir::constantInt(s.min) == 0;
    comment("T.Pipelined(num_stages=" + std::to_string(p.stages) + "): the producer's TMA loads", s.range);
    open("for (int " + it + " = 0; " + it + " < " + n + "; ++" + it + ")", s.range);
    line("const int " + stage + " = " + it + " % " + std::to_string(S) + ";");
    line("const unsigned " + parity + " = (" + it + " / " + std::to_string(S) + ") & 1;");
    m_varOverride[s.loopVar] = zeroMin ? it : "(" + lo + " + " + it + ")";
    for (const layout::BarrierRing& r : p.rings) {
        line("tb_mbarrier_wait(" + barrierAddress(r, false, stage) + ", " + parity + " ^ 1);", s.range);
        line("tb_mbarrier_arrive_expect_tx(" + barrierAddress(r, true, stage) + ", " +
                 std::to_string(r.bytes) + ");",
             s.range);
        for (const Stmt* c : r.copies)
            emitTmaLoad(*c, *m_plan->schedule.tmaOf(c), barrierAddress(r, true, stage), stage);
    }
    m_varOverride.erase(s.loopVar);
    close();
}

// One copy's boxes: coordinates from the copy's region (innermost first), one box per swizzle panel.
void KernelEmitter::emitTmaLoad(const Stmt& copy, const layout::TmaCopyPlan& t, const std::string& bar,
                                const std::string& stage) {
    const SharedSlot& slot = m_shared.at(copy.dst.buffer);
    const size_t rank = t.box.size();
    std::vector<std::string> coords;
    for (size_t g = 0; g < rank; ++g)
        coords.push_back(expr(copy.src.mins[rank - 1 - g]));
    const int64_t stageBytes = slot.stageElements * ir::dtypeBytes(copy.dst.buffer->dtype);
    std::string dst = "tb_smem_s + " + std::to_string(slot.offset) +
                      (slot.stages > 1 ? " + " + stage + " * " + std::to_string(stageBytes) : "");
    for (int64_t panel = 0; panel < t.panels; ++panel) {
        std::string args;
        for (size_t g = 0; g < rank; ++g)
            args +=
                ", " + (g == 0 && panel > 0 ? "(" + coords[0] + " + " + std::to_string(panel * t.box[0]) + ")"
                                            : coords[g]);
        line("tb_tma_load_" + std::to_string(rank) + "d(" + dst +
                 (panel > 0 ? " + " + std::to_string(panel * t.panelBytes) : "") + ", &" +
                 m_tensorMaps.at(&copy) + ", " + bar + args + ");",
             copy.range);
    }
}

// The consumers' copy of a pipelined loop: the body without the TMA copies, each ring waited for before its
// first use and released after its last.
void KernelEmitter::emitWarpSpecializedPipeline(const Stmt& s, const layout::PipelineSchedule& p, int depth) {
    const int S = std::max(p.stages, 1);
    std::vector<const Stmt*> body = loopStatements(s);
    const std::string v = nameOf(s.loopVar), lo = expr(s.min), n = expr(s.extent);
    const bool zeroMin = ir::constantInt(s.min) == 0;
    const std::string it = zeroMin ? v : unique(v + "_iter");
    const std::string stage = unique("stage"), parity = unique("parity");
    // The loop's shared accesses without the TMA loads (those are ordered by the mbarriers, not by barriers).
    BufferSet loopReads, loopWrites;
    for (const Stmt* b : body)
        if (!m_plan->schedule.tmaOf(b))
            ir::sharedEffects(*b, loopReads, loopWrites);
    waitForAsyncCopies();
    syncFor(loopReads, loopWrites);
    comment("T.Pipelined(num_stages=" + std::to_string(p.stages) + "), warp-specialized: " + p.description,
            s.range);
    bindIndexRange(s.loopVar, s.min, s.extent);
    open("for (int " + it + " = 0; " + it + " < " + n + "; ++" + it + ")", s.range);
    // The previous iteration's accesses.
    m_pendingRead.insert(loopReads.begin(), loopReads.end());
    m_pendingWrite.insert(loopWrites.begin(), loopWrites.end());
    if (!zeroMin)
        line("const int " + v + " = " + lo + " + " + it + ";");
    line("const int " + stage + " = " + it + " % " + std::to_string(S) + ";");
    line("const unsigned " + parity + " = (" + it + " / " + std::to_string(S) + ") & 1;");
    for (const layout::BarrierRing& r : p.rings)
        for (const Stmt* c : r.copies)
            m_stageExpr[c->dst.buffer] = stage;
    for (size_t i = 0; i < body.size(); ++i) {
        if (m_plan->schedule.tmaOf(body[i]))
            continue;
        for (const layout::BarrierRing& r : p.rings)
            if (r.firstUse == i)
                line("tb_mbarrier_wait(" + barrierAddress(r, true, stage) + ", " + parity + "); // " +
                         r.copies.front()->dst.buffer->name + (r.copies.size() > 1 ? ", ..." : "") +
                         " landed",
                     body[i]->range);
        m_wgmmaInFlight = p.wgmmaBatchInFlight && body[i]->kind == StmtKind::Gemm;
        emitStmt(*body[i], depth + 1);
        m_wgmmaInFlight = false;
        for (const layout::BarrierRing& r : p.rings) {
            if (r.lastUse != i)
                continue;
            if (p.wgmmaBatchInFlight) {
                // The batch just issued still reads this stage: give back the previous iteration's instead.
                line("if (" + it + " > 0) tb_mbarrier_arrive(" +
                         barrierAddress(r, false,
                                        "((" + stage + " + " + std::to_string(S - 1) + ") % " +
                                            std::to_string(S) + ")") +
                         "); // the previous stage is free",
                     body[i]->range);
            } else {
                line("tb_mbarrier_arrive(" + barrierAddress(r, false, stage) + "); // this stage is free",
                     body[i]->range);
            }
        }
    }
    close();
    unbindIndexRange(s.loopVar);
    m_pendingRead.insert(loopReads.begin(), loopReads.end());
    m_pendingWrite.insert(loopWrites.begin(), loopWrites.end());
    for (const layout::BarrierRing& r : p.rings)
        for (const Stmt* c : r.copies)
            m_stageExpr.erase(c->dst.buffer);
    if (p.wgmmaBatchInFlight) {
        const Stmt* gemm = nullptr;
        for (const Stmt* b : body)
            if (b->kind == StmtKind::Gemm)
                gemm = b;
        line("tb_wgmma_wait<0>(); // the last batch", s.range);
        if (gemm)
            line("tb_wgmma_fence_regs(" + nameOf(gemm->c.buffer) + ");", s.range);
        const std::string last = "((" + n + " - 1) % " + std::to_string(S) + ")";
        for (const layout::BarrierRing& r : p.rings)
            line("if (" + n + " > 0) tb_mbarrier_arrive(" + barrierAddress(r, false, last) + ");", s.range);
    }
}

} // namespace tb::codegen
