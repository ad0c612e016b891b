// T.Pipelined(num_stages=1) in TileLang's order: one buffer, each chunk's copy issued early, as the kernel
// schedule planned it (engine/passes/KernelSchedule.h).
#include "engine/codegen/KernelEmitter.h"
#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::codegen {

using ir::MemoryScope;
using ir::Stmt;
using ir::StmtKind;

// TileLang plans num_stages=1 as copies at stage 0 and everything else at stage 1, each copy ordered right
// after the last statement that reads its tile (tilelang-reference §6.1). With one buffer this means: the
// prologue issues chunk 0; iteration k waits for its chunk, and once the tile has been read (a barrier later,
// so no thread still reads it) issues chunk k + 1, which is then in flight while the rest of iteration k
// computes. Returns false, emitting nothing, when no copy can move that way (the loop runs in program order).
bool KernelEmitter::emitSingleStagePipeline(const Stmt& s, int depth) {
    std::vector<const Stmt*> body;
    if (s.body && s.body->kind == StmtKind::Seq)
        for (const auto& c : s.body->stmts)
            body.push_back(c.get());
    else if (s.body)
        body.push_back(s.body.get());
    // The kernel schedule chose the copies that move (and after which statement each is issued).
    const layout::PipelineSchedule* schedule = m_plan ? m_plan->schedule.pipelineOf(&s) : nullptr;
    if (!schedule || schedule->shape != layout::PipelineShape::EarlyIssue)
        return false;
    std::vector<EarlyCopy> early;
    for (const layout::PipelineCopy& c : schedule->asyncCopies)
        early.push_back({c.copy, c.issueAfter});
    auto isEarly = [&](const Stmt* c) {
        for (const EarlyCopy& e : early)
            if (e.copy == c)
                return true;
        return false;
    };
    BufferSet loopReads, loopWrites;
    ir::sharedEffects(*s.body, loopReads, loopWrites);
    const std::string v = nameOf(s.loopVar), lo = expr(s.min), n = expr(s.extent);
    const bool zeroMin = ir::constantInt(s.min) == 0;
    // The barrier the copies need (their tiles read by other threads) comes before the guard around them, so
    // that it happens on every path: the bookkeeping after the guard assumes it did.
    auto issue = [&](const std::vector<const Stmt*>& copies, const std::string& guard,
                     const std::string& iteration) {
        BufferSet r, w;
        for (const Stmt* c : copies)
            ir::sharedEffects(*c, r, w);
        syncFor(r, w);
        if (!guard.empty())
            open("if (" + guard + ")", copies.front()->range);
        m_varOverride[s.loopVar] = iteration;
        for (const Stmt* c : copies)
            lowerCopy(*c); // commits; the tile counts as in flight until a statement touches it
        m_varOverride.erase(s.loopVar);
        if (!guard.empty())
            close();
    };

    waitForAsyncCopies();
    comment("T.Pipelined(num_stages=1): one buffer per copy; chunk " + v +
                " + 1 is copied as soon as chunk " + v + " has been read from it (TileLang's order)",
            s.range);
    bindIndexRange(s.loopVar, s.min, s.extent);
    comment("pipeline prologue: the first chunk", s.range);
    std::vector<const Stmt*> all;
    for (const EarlyCopy& e : early)
        all.push_back(e.copy);
    std::optional<int64_t> trips = ir::constantInt(s.extent);
    issue(all, trips && *trips > 0 ? "" : n + " > 0", lo);
    const std::string upper = zeroMin ? n : lo + " + " + n;
    open("for (int " + v + " = " + lo + "; " + v + " < " + upper + "; ++" + v + ")", s.range);
    // The previous iteration's accesses, and its copies (or the prologue's) still in flight.
    m_pendingRead.insert(loopReads.begin(), loopReads.end());
    m_pendingWrite.insert(loopWrites.begin(), loopWrites.end());
    for (const EarlyCopy& e : early)
        m_asyncInFlight.insert(e.copy->dst.buffer);
    for (size_t i = 0; i < body.size(); ++i) {
        if (isEarly(body[i]))
            continue;
        emitStmt(*body[i], depth + 1);
        for (const EarlyCopy& e : early) {
            if (e.lastUse != i)
                continue;
            comment("the next chunk's " + describeRegion(e.copy->dst) + ", now that this one has been read",
                    e.copy->range);
            issue({e.copy}, v + " + 1 < " + upper, "(" + v + " + 1)");
        }
    }
    close();
    unbindIndexRange(s.loopVar);
    // After the loop: nothing is in flight (the last iteration issued nothing), but the bookkeeping keeps the
    // copies' tiles as in flight, so the first later access waits for zero groups, which costs nothing.
    m_pendingRead.insert(loopReads.begin(), loopReads.end());
    m_pendingWrite.insert(loopWrites.begin(), loopWrites.end());
    return true;
}

} // namespace tb::codegen
