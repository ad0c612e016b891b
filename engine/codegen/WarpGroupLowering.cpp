// The program's own warp specialization (T.ws) and mbarriers (T.alloc_barrier, T.mbarrier_*), as TileLang
// lowers them: a T.ws body becomes a branch over its warpgroups' threads, in which thread ids count from 0
// (the plan partitioned the scope's tile ops over those threads only) and a synchronization is a named
// barrier over the scope; a hazard between the block's statements and a scope is synchronized outside it,
// where every thread passes. The mbarriers live in the shared arena, initialized by thread 0 at entry.
// T.tma_copy is a cooperative copy by the scope's threads, complete (and, for wgmma readers, fenced to the
// async proxy) before the thread's next arrive, so the program's arrive/wait protocol orders it.
#include "engine/codegen/KernelEmitter.h"
#include "engine/ir/IrQueries.h"

#include <string>
#include <utility>
#include <vector>

namespace tb::codegen {

using ir::Stmt;

// Thread 0 initializes every mbarrier with its arrive count; the fence publishes the init to the async proxy
// and the barrier to the other threads before anyone arrives or waits.
void KernelEmitter::declareBarriers() {
    std::vector<const ir::Buffer*> barriers;
    for (const ir::Buffer* b : m_kernel.allocations) {
        if (!b || b->scope != ir::MemoryScope::Barrier)
            continue;
        auto it = m_shared.find(b);
        if (it == m_shared.end()) {
            error("codegen-no-barrier-slot", b->range, "mbarrier buffer '" + b->name + "' has no shared slot",
                  "run the kernel-schedule pass before code generation");
            continue;
        }
        if (m_target.smVersion < 90) {
            error("codegen-mbarrier-target", b->range,
                  "T.alloc_barrier: the program's mbarriers need sm_90 (mbarrier.try_wait), not " +
                      m_target.name,
                  "compile for --arch sm_90a, as TileLang does for warp-specialized programs");
            continue;
        }
        line("const unsigned " + nameOf(b) + " = tb_smem_s + " + std::to_string(it->second.offset) + "; // " +
                 std::to_string(b->arriveCounts.size()) + " mbarrier(s)",
             b->range);
        barriers.push_back(b);
    }
    if (barriers.empty())
        return;
    open("if (" + m_tx + " == 0)", m_kernel.range);
    for (const ir::Buffer* b : barriers)
        for (size_t i = 0; i < b->arriveCounts.size(); ++i)
            line("tb_mbarrier_init(" + nameOf(b) + " + " + std::to_string(8 * i) + ", " +
                 std::to_string(b->arriveCounts[i]) + ");");
    line("tb_fence_mbarrier_init();");
    close();
    line("__syncthreads(); // the mbarriers are initialized before any thread uses them");
}

// A run of sibling scopes that order their shared accesses with the program's mbarriers
// (ir::concurrentWarpGroupRun) is synchronized once before its first scope, where every thread passes, and
// not between its scopes: a block barrier there would leave a producer waiting for a release that the
// consumer, held at the barrier, never makes. mbarrier arrive and wait order the accesses in between
// (release and acquire at CTA scope), as TileLang trusts them to.
size_t KernelEmitter::concurrentScopeRun(const std::vector<ir::StmtPtr>& stmts, size_t first) const {
    return m_scope ? 0 : ir::concurrentWarpGroupRun(stmts, first);
}

void KernelEmitter::emitConcurrentScopes(const std::vector<ir::StmtPtr>& stmts, size_t first, size_t count,
                                         int depth) {
    BufferSet reads, writes;
    for (size_t k = first; k < first + count; ++k)
        if (stmts[k]->body)
            ir::sharedEffects(*stmts[k]->body, reads, writes);
    syncFor(reads, writes);
    waitForAsyncCopies();
    comment("the next " + std::to_string(count) +
                " T.ws scopes run concurrently, ordered by the program's mbarriers (no block barrier between "
                "them)",
            stmts[first]->range);
    for (size_t k = first; k < first + count; ++k)
        emitWarpGroups(*stmts[k], depth, true);
}

void KernelEmitter::emitWarpGroups(const Stmt& s, int depth, bool entrySynced) {
    if (m_scope) {
        error("codegen-nested-warp-groups", s.range, "T.ws scopes cannot be nested");
        return;
    }
    // What the block did before is ordered here, where every thread passes, not inside the branch; the
    // scope's accesses then stay pending for what follows it (syncFor records them).
    if (!entrySynced) {
        BufferSet reads, writes;
        if (s.body)
            ir::sharedEffects(*s.body, reads, writes);
        syncFor(reads, writes);
        waitForAsyncCopies();
    }
    const std::string first = std::to_string(s.firstThread);
    const std::string last = std::to_string(s.firstThread + s.threadCount);
    open("if (" + m_tx + " >= " + first + " && " + m_tx + " < " + last + ")", s.range);
    comment("T.ws: warpgroup(s) of threads " + first + ".." +
                std::to_string(s.firstThread + s.threadCount - 1) +
                "; thread ids below count from 0 in the scope",
            s.range);
    const std::string localTx = unique("tx_ws");
    const size_t localTxLine = m_out->size();
    line("const int " + localTx + " = " + m_tx + " - " + first + ";");
    auto key = std::make_pair(s.firstThread, s.threadCount);
    auto [idIt, fresh] = m_scopeBarrierIds.emplace(key, int(m_scopeBarrierIds.size()) + kFirstScopeBarrierId);
    if (fresh && idIt->second > kLastBarrierId)
        error("codegen-too-many-warp-group-scopes", s.range,
              "more distinct T.ws thread ranges than the 16 hardware named barriers allow");
    ScopeState outer{m_tx, m_threads, m_pendingRead, m_pendingWrite};
    m_scope = &s;
    m_scopeBarrierId = idIt->second;
    m_tx = localTx;
    m_threads = s.threadCount;
    m_pendingRead.clear();
    m_pendingWrite.clear();
    emitSeqOrStmt(s.body, depth + 1);
    waitForAsyncCopies();
    BufferSet bodyReads = std::move(m_pendingRead), bodyWrites = std::move(m_pendingWrite);
    m_tx = outer.tx;
    m_threads = outer.threads;
    m_pendingRead = std::move(outer.pendingRead);
    m_pendingWrite = std::move(outer.pendingWrite);
    m_scope = nullptr;
    dropUnusedIndexLines(localTxLine, 1); // a scope whose ops need no thread id
    close();
    m_pendingRead.insert(bodyReads.begin(), bodyReads.end());
    m_pendingWrite.insert(bodyWrites.begin(), bodyWrites.end());
}

void KernelEmitter::emitBarrierOp(const Stmt& s) {
    if (!s.barrier)
        return;
    const std::string address = "(" + nameOf(s.barrier) + " + 8 * (" + expr(s.barrierIndex) + "))";
    switch (s.barrierOp) {
    case ir::BarrierOp::WaitParity:
        line("tb_mbarrier_wait(" + address + ", " + expr(s.value) + "); // T.mbarrier_wait_parity", s.range);
        if (awaitsCpAsyncData(s.barrier))
            line("tb_fence_proxy_async(); // the cp.async data it waited for becomes visible to wgmma");
        return;
    case ir::BarrierOp::ExpectTx:
        // The copies this program issues are cooperative (no TMA transactions): the expected bytes are
        // already in place when the threads arrive.
        comment("T.mbarrier_expect_tx: the copies are cooperative, no transaction bytes to expect", s.range);
        return;
    case ir::BarrierOp::Arrive:
        // This thread's copies are complete, and visible to wgmma's async-proxy reads, before it arrives.
        waitForAsyncCopies();
        if (m_target.hasWgmma)
            line("tb_fence_proxy_async();");
        line("tb_mbarrier_arrive(" + address + "); // T.mbarrier_arrive", s.range);
        return;
    case ir::BarrierOp::CpAsyncArrive:
        emitCpAsyncArrive(s, address);
        return;
    }
}

} // namespace tb::codegen
