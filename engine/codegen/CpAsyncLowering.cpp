// The program's own per-thread async copies (T.ptx_cp_async) and their completion on an mbarrier
// (T.cp_async_barrier_noinc), as TileLang lowers them: each thread issues one cp.async of 4, 8 or 16 bytes
// from the global element it names to the shared element it names (through the buffer's planned layout, so
// a swizzled tile is written where its readers look), and `cp.async.mbarrier.arrive.noinc` makes the
// mbarrier count this thread's arrival once those copies have landed. The program's mbarrier protocol orders
// them (a block barrier would not: cp.async writes are not complete at one), so the copy synchronizes
// nothing itself; it only records its destination as written for what the block does after.
#include "engine/codegen/KernelEmitter.h"
#include "engine/ir/IrQueries.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::codegen {

using ir::Stmt;

// Every aligned run of `n` elements along the last dimension of the shared buffer stays n consecutive,
// n-aligned elements of the arena under its layout (a 16-byte swizzle moves whole 16-byte chunks).
bool KernelEmitter::sharedRunsStayContiguous(const ir::Buffer* buffer, int64_t n) const {
    auto it = m_shared.find(buffer);
    if (it == m_shared.end() || it->second.shape.empty())
        return false;
    const SharedSlot& slot = it->second;
    const std::vector<int64_t>& shape = slot.shape;
    if (shape.back() % n != 0)
        return false;
    if (!slot.hasLayout)
        return true; // row-major: a run at a column multiple of n is n-aligned
    std::vector<int64_t> inner = slot.layout.inputShape();
    if (inner.empty() || inner.back() % n != 0)
        return false;
    int64_t points = 1;
    for (int64_t e : inner)
        points *= e;
    std::vector<int64_t> point(inner.size(), 0);
    for (int64_t p = 0; p < points; p += n) {
        int64_t rest = p;
        for (size_t d = inner.size(); d-- > 0;) {
            point[d] = rest % inner[d];
            rest /= inner[d];
        }
        std::optional<int64_t> first = slot.layoutOffset(point);
        if (!first || *first % n != 0)
            return false;
        for (int64_t j = 1; j < n; ++j) {
            point.back() += 1;
            std::optional<int64_t> next = slot.layoutOffset(point);
            if (!next || *next != *first + j)
                return false;
        }
    }
    return slot.layoutOutputSize % n == 0; // the leading (stage) dimensions keep the alignment
}

void KernelEmitter::lowerCpAsync(const Stmt& s) {
    const ir::Buffer* src = s.src.buffer;
    const ir::Buffer* dst = s.dst.buffer;
    std::optional<int64_t> n = s.dst.extents.empty() ? std::nullopt : ir::constantInt(s.dst.extents.back());
    if (!src || !dst || !n) {
        error("codegen-unsupported", s.range, "T.ptx_cp_async without a constant element count");
        return;
    }
    const int64_t bytes = *n * ir::dtypeBytes(dst->dtype);
    if (!sharedRunsStayContiguous(dst, *n)) {
        error("codegen-cp-async-layout", s.range,
              "T.ptx_cp_async writes " + std::to_string(bytes) + " bytes of '" + dst->name +
                  "' at once, but its planned layout does not keep " + std::to_string(*n) +
                  " elements of a row together and aligned",
              "copy along a last dimension that is a multiple of the element count, or annotate the buffer "
              "with a layout that keeps 16-byte chunks whole (the swizzles do)");
        return;
    }
    // Reads of the destination since the last barrier finish before it is overwritten; writes need no
    // barrier (each thread writes its own elements, and the program's mbarriers order the copy).
    BufferSet reads, writes, overwritesReads;
    ir::sharedEffects(s, reads, writes);
    for (const ir::Buffer* b : writes)
        if (m_pendingRead.count(b))
            overwritesReads.insert(b);
    syncFor(reads, overwritesReads);
    m_pendingWrite.insert(writes.begin(), writes.end());
    const std::string to = "tb_smem_addr(&" + lvalueText(dst, s.dst.mins, 0) + ")";
    const std::string from = "&" + lvalueText(src, s.src.mins, 0);
    const std::string width = std::to_string(bytes);
    std::string text;
    if (s.cond)
        text = (bytes == 16 ? "tb_cp_async_16_fill(" : "tb_cp_async_" + width + "_fill(") + to + ", " + from +
               ", (" + expr(s.cond) + ") ? " + width + " : 0);";
    else
        text = "tb_cp_async_" + width + "(" + to + ", " + from + ");";
    line(text + " // T.ptx_cp_async: " + width + " bytes into " + dst->name, s.range);
}

void KernelEmitter::emitCpAsyncArrive(const Stmt& s, const std::string& address) {
    line("tb_cp_async_mbarrier_arrive_noinc(" + address +
             "); // T.cp_async_barrier_noinc: arrives when this thread's cp.async copies land",
         s.range);
}

// wgmma reads shared memory through the async proxy: a thread that waited for cp.async data (written through
// the generic proxy) on an mbarrier fences before its wgmma reads it.
bool KernelEmitter::awaitsCpAsyncData(const ir::Buffer* barrier) const {
    if (!m_target.hasWgmma || !barrier)
        return false;
    bool found = false;
    if (m_kernel.body)
        ir::walkStmts(*m_kernel.body, [&](const Stmt& s, const std::vector<const Stmt*>&) {
            found = found || (s.kind == ir::StmtKind::Barrier &&
                              s.barrierOp == ir::BarrierOp::CpAsyncArrive && s.barrier == barrier);
        });
    return found;
}

} // namespace tb::codegen
