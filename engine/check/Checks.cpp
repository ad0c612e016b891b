// The semantic check driver (see Checks.h): one walk over each prim_func that knows the enclosing kernel,
// runs the per-statement checks of TileOpChecks.h and the kernel-wide ones (thread count, shared memory
// budget) defined here.
#include "engine/check/Checks.h"

#include "engine/check/CheckSupport.h"
#include "engine/check/CpAsyncChecks.h"
#include "engine/check/GridSyncChecks.h"
#include "engine/check/SharedMemoryBudget.h"
#include "engine/check/TileOpChecks.h"
#include "engine/ir/IrQueries.h"
#include "engine/ir/Printer.h"
#include "engine/ir/Visitor.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tb::check {

using namespace tb::ir;

namespace {

const char* tileOpName(StmtKind kind) {
    switch (kind) {
    case StmtKind::Copy:
        return "T.copy";
    case StmtKind::Gemm:
        return "T.gemm";
    case StmtKind::Fill:
        return "T.fill";
    case StmtKind::Reduce:
        return "a T.reduce";
    case StmtKind::AtomicAdd:
        return "T.atomic_add";
    case StmtKind::AnnotateLayout:
        return "T.annotate_layout";
    case StmtKind::UseSwizzle:
        return "T.use_swizzle";
    case StmtKind::Barrier:
        return "an mbarrier operation";
    case StmtKind::CpAsync:
        return "T.ptx_cp_async";
    case StmtKind::WarpGroups:
        return "T.ws";
    case StmtKind::GridSync:
        return "T.sync_grid";
    case StmtKind::MmaIntrinsic:
        return "a TensorCoreIntrinEmitter method";
    case StmtKind::Seq:
    case StmtKind::Kernel:
    case StmtKind::For:
    case StmtKind::IfThenElse:
    case StmtKind::Store:
    case StmtKind::Print:
        return nullptr;
    }
    return nullptr;
}

// Every warp the emitter tiles the block over must exist: a block with fewer threads leaves tiles of C
// unwritten (more threads repeat the first warps' tiles, as TileLang's modulo thread binding does).
void checkMmaIntrinsicThreads(const Stmt& s, const Stmt& kernel, DiagnosticEngine& diagnostics) {
    const int64_t threads = blockThreads(kernel);
    const MmaEmitter& e = s.mmaEmitter;
    if (threads >= e.threads())
        return;
    Diagnostic& d = diagnostics.error(
        "mma-intrinsic-threads", s.range,
        std::string("the emitter's ") + mmaIntrinsicOpName(s.mmaOp) + " needs " +
            std::to_string(e.threads()) + " threads (32 x block_row_warps " +
            std::to_string(e.blockRowWarps) + " x block_col_warps " + std::to_string(e.blockColWarps) +
            "), but the kernel has " + std::to_string(threads),
        "launch the kernel with threads=" + std::to_string(e.threads()));
    d.notes.push_back({kernel.range, "the kernel starts here"});
}

void checkThreads(const Stmt& kernel, const Target& target, DiagnosticEngine& diagnostics) {
    int64_t threads = 1;
    for (int64_t t : kernel.threads)
        threads *= std::max<int64_t>(t, 0);
    if (kernel.threads.empty())
        return;
    if (threads > target.maxThreadsPerBlock) {
        diagnostics.error("too-many-threads", kernel.range,
                          "kernel uses " + std::to_string(threads) + " threads per block; " + target.name +
                              " allows at most " + std::to_string(target.maxThreadsPerBlock),
                          "use fewer threads (threads=128 or 256 is typical) and give each thread more work");
    } else if (threads % target.warpSize != 0) {
        diagnostics.error("threads-not-multiple-of-32", kernel.range,
                          "kernel uses " + std::to_string(threads) +
                              " threads, which is not a multiple of the " + "warp size " +
                              std::to_string(target.warpSize),
                          "tile operations partition work by warps; use a multiple of 32 threads");
    }
}

void checkSharedMemory(const Stmt& kernel, const Target& target, DiagnosticEngine& diagnostics) {
    KernelSharedMemory budget = kernelSharedMemory(kernel);
    if (target.maxSharedMemoryPerBlock <= 0 || budget.totalBytes <= target.maxSharedMemoryPerBlock)
        return;
    std::string message = "shared memory needs " + std::to_string(budget.totalBytes) + " bytes";
    if (budget.maxStages > 1)
        message += " with num_stages=" + std::to_string(budget.maxStages);
    message += "; " + target.name + " allows at most " + std::to_string(target.maxSharedMemoryPerBlock);
    Diagnostic& d =
        diagnostics.error("shared-memory-over-limit", kernel.range, message,
                          budget.maxStages > 1 ? "reduce num_stages or block sizes"
                                               : "reduce block sizes or keep some tiles in fragments");
    // Largest first: that is where to cut. Stable, so equal sizes keep allocation order.
    std::vector<SharedBufferBudget> buffers = budget.buffers;
    std::stable_sort(buffers.begin(), buffers.end(),
                     [](const SharedBufferBudget& x, const SharedBufferBudget& y) {
                         return x.totalBytes() > y.totalBytes();
                     });
    for (const SharedBufferBudget& b : buffers) {
        std::string note = "'" + b.buffer->name + "' " + printBufferType(*b.buffer) + " = " +
                           std::to_string(b.bytes) + " bytes";
        if (b.stages > 1)
            note +=
                " x " + std::to_string(b.stages) + " stages = " + std::to_string(b.totalBytes()) + " bytes";
        d.notes.push_back({b.buffer->range, note});
    }
}

// A view (T.Tensor(shape, dtype, base.data)) reinterprets its base's storage: it must not reach past the
// base's last element, and it reads the base's elements as they are, so the dtypes must agree.
void checkViews(const Stmt& kernel, DiagnosticEngine& diagnostics) {
    for (const Buffer* view : kernel.allocations) {
        if (!view->viewOf)
            continue;
        const Buffer& base = *view->viewOf;
        if (view->dtype != base.dtype) {
            Diagnostic& d = diagnostics.error(
                "view-dtype-mismatch", view->range,
                "view '" + view->name + "' is " + dtypeName(view->dtype) + " but its base '" + base.name +
                    "' is " + dtypeName(base.dtype) +
                    "; TileBench does not reinterpret the bits of one dtype as another",
                "give the view its base's dtype, or convert with T.copy into a buffer of the other dtype");
            addAllocationNotes(d, {view, &base});
        }
        auto viewElements = view->constantElementCount();
        auto baseElements = base.constantElementCount();
        if (viewElements && baseElements && *viewElements > *baseElements) {
            Diagnostic& d = diagnostics.error(
                "view-exceeds-base", view->range,
                "view '" + view->name + "' " + shapeText(view->shape) + " has " +
                    std::to_string(*viewElements) + " elements but its base '" + base.name + "' " +
                    shapeText(base.shape) + " has only " + std::to_string(*baseElements),
                "a view reshapes its base's storage; its extents must multiply to at most the base's element "
                "count");
            addAllocationNotes(d, {view, &base});
        }
    }
}

class CheckWalker : public StmtVisitor {
public:
    CheckWalker(const Target& target, DiagnosticEngine& diagnostics)
        : m_target(target), m_diagnostics(diagnostics) {}

private:
    void visitStmt(const Stmt& s) override {
        checkConstantIndices(s, m_diagnostics);
        if (const char* op = tileOpName(s.kind); op && !m_kernel)
            m_diagnostics.error("tile-op-outside-kernel", s.range,
                                std::string(op) + " is used outside a T.Kernel block",
                                "tile operations run on the GPU; put them inside `with T.Kernel(...)`");
        switch (s.kind) {
        case StmtKind::Kernel: {
            if (m_kernel) {
                Diagnostic& d = m_diagnostics.error(
                    "kernel-inside-kernel", s.range, "a T.Kernel is nested inside another T.Kernel",
                    "launch kernels one after another, not inside each other");
                d.notes.push_back({m_kernel->range, "the enclosing kernel starts here"});
            }
            checkThreads(s, m_target, m_diagnostics);
            checkSharedMemory(s, m_target, m_diagnostics);
            checkGridSyncPlacement(s, m_diagnostics);
            checkCpAsyncCompletion(s, m_diagnostics);
            checkViews(s, m_diagnostics);
            const Stmt* outer = m_kernel;
            m_kernel = &s;
            visitChildren(s);
            m_kernel = outer;
            return;
        }
        case StmtKind::Copy:
            checkCopy(s, m_diagnostics);
            return;
        case StmtKind::Gemm:
            checkGemm(s, m_diagnostics);
            return;
        case StmtKind::Reduce:
            checkReduce(s, m_diagnostics);
            return;
        case StmtKind::AtomicAdd:
            checkAtomicAdd(s, m_diagnostics);
            return;
        case StmtKind::CpAsync:
            checkCpAsync(s, m_diagnostics);
            return;
        case StmtKind::MmaIntrinsic:
            if (m_kernel)
                checkMmaIntrinsicThreads(s, *m_kernel, m_diagnostics);
            return;
        case StmtKind::Seq:
        case StmtKind::For:
        case StmtKind::IfThenElse:
        case StmtKind::WarpGroups:
            visitChildren(s);
            return;
        case StmtKind::Store:
        case StmtKind::Fill:
        case StmtKind::AnnotateLayout:
        case StmtKind::UseSwizzle:
        case StmtKind::Print:
        case StmtKind::Barrier:
        case StmtKind::GridSync: // where it stands: checkGridSyncPlacement, per kernel
            return;
        }
    }

    const Target& m_target;
    DiagnosticEngine& m_diagnostics;
    const Stmt* m_kernel = nullptr;
};

} // namespace

void checkModule(const Module& module, const Target& target, DiagnosticEngine& diagnostics) {
    for (const PrimFunc& func : module.funcs) {
        CheckWalker walker(target, diagnostics);
        walker.visit(func.body);
    }
}

} // namespace tb::check
