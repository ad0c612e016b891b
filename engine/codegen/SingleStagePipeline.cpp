// T.Pipelined(num_stages=1) in TileLang's order: one buffer, each chunk's copy issued early (see
// KernelEmitter.h).
#include "engine/codegen/KernelEmitter.h"
#include "engine/ir/Visitor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::codegen {

using ir::MemoryScope;
using ir::Stmt;
using ir::StmtKind;

namespace {

// True when the region's corner reads no buffer: the copy's address is known before the loop body runs
// (TileLang would also have to pipeline the statements that compute it).
bool addressFromIndicesOnly(const ir::Region& region) {
    bool loads = false;
    for (const ir::ExprPtr& m : region.mins)
        ir::forEachExprNode(m,
                            [&](const ir::Expr& e) { loads = loads || e.kind == ir::ExprKind::BufferLoad; });
    return !loads;
}

} // namespace

std::vector<KernelEmitter::EarlyCopy>
KernelEmitter::planEarlyCopies(const std::vector<const Stmt*>& body) const {
    std::vector<EarlyCopy> out;
    std::vector<BufferSet> reads(body.size()), writes(body.size());
    for (size_t i = 0; i < body.size(); ++i)
        sharedEffects(*body[i], reads[i], writes[i]);
    for (size_t i = 0; i < body.size(); ++i) {
        const Stmt& c = *body[i];
        if (c.kind != StmtKind::Copy || !c.src.buffer || !c.dst.buffer ||
            c.src.buffer->scope != MemoryScope::Global || c.dst.buffer->scope != MemoryScope::Shared)
            continue;
        const layout::CopyPlan* plan = copyPlanOf(c);
        if (!plan || plan->instruction != layout::CopyInstruction::CpAsync || !addressFromIndicesOnly(c.src))
            continue;
        // TileLang's last_use: the last later statement that reads the tile. No statement before the copy may
        // read it (it would see the next chunk) and none but the copy may write it.
        std::optional<size_t> lastUse;
        bool alone = true;
        for (size_t j = 0; j < body.size(); ++j) {
            if (j != i && writes[j].count(c.dst.buffer))
                alone = false;
            if (j < i && reads[j].count(c.dst.buffer))
                alone = false;
            if (j > i && reads[j].count(c.dst.buffer))
                lastUse = j;
        }
        if (alone && lastUse)
            out.push_back({&c, *lastUse});
    }
    return out;
}

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
    std::vector<EarlyCopy> early = planEarlyCopies(body);
    if (early.empty())
        return false;
    auto isEarly = [&](const Stmt* c) {
        for (const EarlyCopy& e : early)
            if (e.copy == c)
                return true;
        return false;
    };
    BufferSet loopReads, loopWrites;
    sharedEffects(*s.body, loopReads, loopWrites);
    const std::string v = nameOf(s.loopVar), lo = expr(s.min), n = expr(s.extent);
    const bool zeroMin = ir::constantInt(s.min) == 0;
    // The barrier the copies need (their tiles read by other threads) comes before the guard around them, so
    // that it happens on every path: the bookkeeping after the guard assumes it did.
    auto issue = [&](const std::vector<const Stmt*>& copies, const std::string& guard,
                     const std::string& iteration) {
        BufferSet r, w;
        for (const Stmt* c : copies)
            sharedEffects(*c, r, w);
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
