// Statements of the Tile IR. A PrimFunc body is a tree of these: kernel launches, loops with their
// TileLang kind (serial, unrolled, parallel, pipelined), element stores, conditionals, and one node per
// tile operation (copy, gemm, fill, reduce, atomic add) that keeps the tile-level meaning intact for the
// layout engine, the CPU reference executor and the CUDA backend. Every node keeps its source range.
#pragma once

#include "engine/ir/Expr.h"
#include "engine/ir/MmaEmitter.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tb::ir {

enum class MemoryScope {
    Global,   // T.Tensor parameters and T.alloc_global workspaces
    Shared,   // T.alloc_shared
    Fragment, // T.alloc_fragment: a block tile spread over the threads' registers
    Local,    // T.alloc_local: a per-thread array
    LocalVar, // T.alloc_var: a per-thread scalar (shape [1])
    Barrier,  // T.alloc_barrier: mbarriers in shared memory (uint64 each, shape [count])
};

const char* scopeName(MemoryScope scope); // "global", ..., "local.var", "shared.barrier"

struct Buffer;
// The buffer that owns `buffer`'s storage: its base for a view, itself otherwise.
const Buffer* storageOf(const Buffer* buffer);

// Buffers are owned by the Module and referred to by pointer.
struct Buffer {
    std::string name;
    MemoryScope scope = MemoryScope::Global;
    DType dtype = DType::Float32;
    std::vector<ExprPtr> shape; // constants, or VarRefs of DynamicDim vars
    SourceRange range;          // the allocation or parameter
    int id = 0;
    int paramIndex = -1;               // position in the PrimFunc's parameter list, -1 if not a parameter
    bool isOutput = false;             // named by out_idx or returned (T.empty)
    std::optional<ExprPtr> initValue;  // T.alloc_var(dtype, init=...)
    std::vector<int64_t> arriveCounts; // Barrier: the threads that arrive on each mbarrier per phase
    // Other names the kernel binds to this buffer (`O_shared = Q_shared`), in binding order. TileLang names
    // the buffer after the last of them, so its layout dumps say O_shared where the allocation says Q_shared.
    std::vector<std::string> aliases;
    // A view (T.Tensor(shape, dtype, base.data)): this buffer's shape over the storage of `viewOf`, a global
    // buffer that is not itself a view, read in row-major order from its first element (a reshape of the
    // same contiguous memory). Views are global, are declared in a kernel's allocations and own no storage.
    const Buffer* viewOf = nullptr;

    size_t rank() const { return shape.size(); }
    // The extent of dimension i when it is a compile-time constant.
    std::optional<int64_t> constantExtent(size_t i) const;
    // The element count when every dimension is constant.
    std::optional<int64_t> constantElementCount() const;
};

// A rectangular region of a buffer: per dimension, a start index and an extent. Every T.copy form
// (whole buffer, slice, start corner) is resolved to this by the elaborator.
struct Region {
    const Buffer* buffer = nullptr;
    std::vector<ExprPtr> mins;
    std::vector<ExprPtr> extents;
    SourceRange range;
};

enum class StmtKind {
    Seq,
    Kernel,
    For,
    IfThenElse,
    Store,
    Copy,
    Gemm,
    Fill,
    Reduce,
    AtomicAdd,
    AnnotateLayout,
    UseSwizzle,
    Print,
    WarpGroups,   // with T.ws(i, ...): the body runs on those warpgroups of the block only
    Barrier,      // T.mbarrier_wait_parity / T.mbarrier_arrive / T.mbarrier_expect_tx on one mbarrier
    GridSync,     // T.sync_grid(): every thread of every block of the grid waits until all have arrived
    CpAsync,      // T.ptx_cp_async: each thread copies a few elements global -> shared asynchronously
    MmaIntrinsic, // a TensorCoreIntrinEmitter method: ldmatrix_a / ldmatrix_b / mma / stmatrix of one block
};

enum class LoopKind { Serial, Unroll, Parallel, Pipelined, Vectorized };
enum class GemmWarpPolicy { Square, FullRow, FullCol };
// T.copy(eviction_policy=): how long the copied global lines should stay in L2.
enum class EvictionPolicy { Normal, First, Last };
enum class ReduceKind { Max, Min, Sum, AbsSum, AbsMax, BitAnd, BitOr, BitXor };

const char* loopKindName(LoopKind kind);          // "serial", "unroll", "parallel", "pipelined", "vectorized"
const char* gemmWarpPolicyName(GemmWarpPolicy p); // "Square", "FullRow", "FullCol"
const char* evictionPolicyName(EvictionPolicy p); // "evict_normal", "evict_first", "evict_last"
const char* reduceKindName(ReduceKind kind);      // "max", "sum", ...

// The mbarrier operations a program issues itself (TileLang's names; barrier_wait/barrier_arrive are the
// same). CpAsyncArrive is T.cp_async_barrier_noinc: the thread's arrival, made when its earlier
// T.ptx_cp_async copies have landed (cp.async.mbarrier.arrive.noinc: it counts as one of the arrive count).
enum class BarrierOp { WaitParity, Arrive, ExpectTx, CpAsyncArrive };
// "mbarrier_wait_parity", "mbarrier_arrive", "mbarrier_expect_tx", "cp_async_barrier_noinc"
const char* barrierOpName(BarrierOp op);

// The TensorCoreIntrinEmitter methods (MmaEmitter.h), each run by every warp of the block on its own tiles:
// LdmatrixA/B load the warp's A/B micro tiles of k step `value` from shared `src` into the per-thread local
// `dst` in mma.sync fragment order; Mma accumulates a @ b into c (all three per-thread locals); Stmatrix
// stores the accumulator local `src` into shared `dst` ([M, N], or [M/16, N/16, 16, 16] micro tiles).
enum class MmaIntrinsicOp { LdmatrixA, LdmatrixB, Mma, Stmatrix };
const char* mmaIntrinsicOpName(MmaIntrinsicOp op); // "ldmatrix_a", "ldmatrix_b", "mma", "stmatrix"

// T.Pipelined options. numStages=0 disables pipelining; stage/order/group give the manual schedule.
struct PipelineInfo {
    int numStages = 0;
    std::vector<int> order;
    std::vector<int> stage;
    std::vector<std::vector<int>> group;
};

enum class LayoutAnnotationKind {
    Swizzled,      // make_swizzled_layout(buf, k_major, allow_pad)
    WgmmaSwizzled, // make_wgmma_swizzled_layout(buf, continuity, k_major)
    FullBankSwizzled,
    HalfBankSwizzled,
    QuarterBankSwizzled,
    Linear,          // make_linear_layout
    CustomLayout,    // T.Layout(shape, fn): `forward` over `placeholders`
    CustomFragment,  // T.Fragment(shape, forward_thread_fn=..., forward_index_fn=..., replicate=)
    FullyReplicated, // make_fully_replicated_layout_fragment(buf, threads)
};

const char* layoutAnnotationKindName(LayoutAnnotationKind kind);

struct LayoutAnnotation {
    const Buffer* buffer = nullptr;
    LayoutAnnotationKind kind = LayoutAnnotationKind::Swizzled;
    bool kMajor = true;
    bool allowPad = true;
    int continuity = 0;                   // 0 = not given
    std::vector<const Var*> placeholders; // CustomLayout / CustomFragment: one per buffer dimension
    std::vector<ExprPtr>
        forward;    // CustomLayout: physical indices; CustomFragment: per-thread index (may be empty)
    ExprPtr thread; // CustomFragment: owning thread
    int replicate = 1;
    int threads = 0; // FullyReplicated
    SourceRange range;
};

struct Stmt;
using StmtPtr = std::shared_ptr<const Stmt>;

struct Stmt {
    StmtKind kind;
    SourceRange range;

    // Seq
    std::vector<StmtPtr> stmts;

    // Kernel: grid extents (1-3, blockIdx.x first), the vars bound to them, threads per block (1-3),
    // the buffers allocated inside (in allocation order), the body.
    std::vector<ExprPtr> grid;
    std::vector<const Var*> blockVars;
    std::vector<int64_t> threads;
    std::vector<const Buffer*> allocations;

    // For: var in [min, min + extent) step 1
    const Var* loopVar = nullptr;
    ExprPtr min;
    ExprPtr extent;
    LoopKind loopKind = LoopKind::Serial;
    PipelineInfo pipeline;
    int coalescedWidth = 0; // T.Parallel(coalesced_width=)

    // IfThenElse: cond, body, elseBody (may be null). Kernel/For: body. CpAsync: the predicate (null when
    // not given; false zero-fills the destination).
    ExprPtr cond;
    StmtPtr body;
    StmtPtr elseBody;

    // Store: buffer[indices] = value
    const Buffer* buffer = nullptr;
    std::vector<ExprPtr> indices;
    ExprPtr
        value; // Store, Fill (the fill value), AtomicAdd (scalar form), UseSwizzle (enable), Print (scalar)

    // Copy: src -> dst. Fill: dst. AtomicAdd: dst (+= src region or value). CpAsync: one thread's copy of
    // the elements [c, c + n) of the last dimension of src (global) into those of dst (shared); every other
    // extent is 1, and n elements make 4, 8 or 16 bytes (one cp.async).
    Region src;
    Region dst;
    bool disableTma = false;
    EvictionPolicy evictionPolicy = EvictionPolicy::Normal;

    // Gemm: c (+)= op(a) @ op(b)
    Region a, b, c;
    bool transposeA = false;
    bool transposeB = false;
    GemmWarpPolicy policy = GemmWarpPolicy::Square;
    ExprPtr clearAccum; // bool expression; constant false when not given
    int kPack = 1;
    int wgWait = 0;

    // Reduce: reduce(srcBuffer along dim) -> dstBuffer
    ReduceKind reduceKind = ReduceKind::Sum;
    const Buffer* srcBuffer = nullptr;
    const Buffer* dstBuffer = nullptr;
    int dim = -1; // normalized to [0, rank)
    bool clear = true;

    // AnnotateLayout
    std::vector<LayoutAnnotation> layouts;

    // UseSwizzle: panel size and order ("row" or "col")
    int panelSize = 0;
    bool rowOrder = true;

    // Print: a buffer (printBuffer) or a scalar (value), with a message
    const Buffer* printBuffer = nullptr;
    std::string message;

    // WarpGroups: threads [firstThread, firstThread + threadCount) of the block run the body, with thread
    // ids rebased to 0 (the warpgroups of T.ws, 128 threads each, are consecutive).
    std::vector<int64_t> warpGroups;
    int64_t firstThread = 0;
    int64_t threadCount = 0;

    // Barrier: barrierOp on mbarrier barrier[barrierIndex], with `value` the parity (WaitParity) or the
    // byte count (ExpectTx). Copy (T.tma_copy): the mbarrier its bytes arrive on, buffer null otherwise.
    BarrierOp barrierOp = BarrierOp::Arrive;
    const Buffer* barrier = nullptr;
    ExprPtr barrierIndex;

    // MmaIntrinsic: which method, on which emitter (operands in src/dst or a/b/c, the k step in value)
    MmaIntrinsicOp mmaOp = MmaIntrinsicOp::Mma;
    MmaEmitter mmaEmitter;

    Stmt(StmtKind k, SourceRange r) : kind(k), range(r) {}
};

// Helpers to build nodes; fields not set stay at their defaults.
std::shared_ptr<Stmt> makeStmt(StmtKind kind, SourceRange range = {});
StmtPtr makeSeq(std::vector<StmtPtr> stmts, SourceRange range = {});

} // namespace tb::ir
