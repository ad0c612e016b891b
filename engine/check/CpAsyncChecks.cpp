// Checks of T.ptx_cp_async and its completion (see CpAsyncChecks.h).
#include "engine/check/CpAsyncChecks.h"

#include "engine/check/CheckSupport.h"
#include "engine/ir/IrQueries.h"
#include "engine/ir/Printer.h"
#include "engine/ir/Visitor.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tb::check {

using namespace tb::ir;

namespace {

// The elements one copy moves: the last extent, when every other extent is 1 and it is a constant.
std::optional<int64_t> elementsOf(const Region& r) {
    if (r.extents.empty())
        return std::nullopt;
    for (size_t d = 0; d + 1 < r.extents.size(); ++d)
        if (!isConstant(r.extents[d], 1))
            return std::nullopt;
    return constantInt(r.extents.back());
}

} // namespace

void checkCpAsync(const Stmt& s, DiagnosticEngine& diagnostics) {
    const Buffer* src = s.src.buffer;
    const Buffer* dst = s.dst.buffer;
    if (!src || !dst)
        return;
    if (src->scope != MemoryScope::Global || dst->scope != MemoryScope::Shared) {
        Diagnostic& d = diagnostics.error(
            "cp-async-scope", s.range,
            std::string("T.ptx_cp_async copies global memory into shared memory, not ") +
                scopeName(src->scope) + " '" + src->name + "' into " + scopeName(dst->scope) + " '" +
                dst->name + "'",
            "the source is an element of a T.Tensor and the destination one of a T.alloc_shared buffer");
        addAllocationNotes(d, {src, dst});
        return;
    }
    if (src->dtype != dst->dtype) {
        Diagnostic& d = diagnostics.error("cp-async-dtype", s.range,
                                          std::string("T.ptx_cp_async copies bytes: '") + src->name +
                                              "' is " + dtypeName(src->dtype) + " but '" + dst->name +
                                              "' is " + dtypeName(dst->dtype),
                                          "copy between buffers of one dtype and convert with T.copy");
        addAllocationNotes(d, {src, dst});
        return;
    }
    std::optional<int64_t> n = elementsOf(s.src), m = elementsOf(s.dst);
    const int64_t bytes = n ? *n * dtypeBytes(src->dtype) : 0;
    if (!n || !m || *n != *m || (bytes != 4 && bytes != 8 && bytes != 16))
        diagnostics.error("cp-async-width", s.range,
                          "T.ptx_cp_async moves 4, 8 or 16 bytes along the last dimension of both buffers, "
                          "not " +
                              printRegion(s.src) + " -> " + printRegion(s.dst),
                          "copy 16 bytes (8 float16 elements) per thread, or 4 or 8 bytes");
}

void checkCpAsyncCompletion(const Stmt& kernel, DiagnosticEngine& diagnostics) {
    // Program order: each copy must be followed by a noinc arrive of the same thread before its scope ends.
    const Stmt* pending = nullptr;
    auto finishScope = [&] {
        if (!pending)
            return;
        diagnostics.error("cp-async-not-awaited", pending->range,
                          "this T.ptx_cp_async is never completed: no T.cp_async_barrier_noinc follows it",
                          "after the copies, arrive on the mbarrier the readers wait on with "
                          "T.cp_async_barrier_noinc(bars[i]) (T.ptx_commit_group / T.ptx_wait_group are not "
                          "modelled for hand-written cp.async)");
        pending = nullptr;
    };
    std::function<void(const Stmt&)> visit = [&](const Stmt& s) {
        if (s.kind == StmtKind::CpAsync && !pending)
            pending = &s;
        if (s.kind == StmtKind::Barrier && s.barrierOp == BarrierOp::CpAsyncArrive)
            pending = nullptr;
        forEachChildStmt(s, [&](const StmtPtr& child) { visit(*child); });
        if (s.kind == StmtKind::WarpGroups)
            finishScope();
    };
    if (kernel.body)
        visit(*kernel.body);
    finishScope();
}

} // namespace tb::check
