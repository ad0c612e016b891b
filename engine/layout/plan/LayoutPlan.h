// The layout plan of a tile program: everything the layout engine decides for each kernel, in plain data.
// The passes fill it in order (warp partition -> layout inference -> loop, reduce and copy plans -> shared
// layouts -> kernel schedule -> shared-memory budget -> bank analysis); the views draw it, the CUDA backend
// executes it, and `tilec layouts`, `tilec plan` and `tilec banks` print it (text and JSON,
// docs/layout-json.md). IR pointers refer into the ir::Module the plan was computed from, which must outlive
// it.
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/algebra/Fragment.h"
#include "engine/layout/algebra/GemmInstruction.h"
#include "engine/layout/algebra/Layout.h"
#include "engine/layout/algebra/SharedLayoutChoice.h"
#include "engine/layout/algebra/WarpPartition.h"
#include "engine/layout/bank/BankCost.h"
#include "engine/target/Target.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tb::layout {

// How strongly an op constrains a layout, TileLang's inference levels (reference §5.2).
enum class InferenceLevel { Strict, Common, Free };
const char* inferenceLevelName(InferenceLevel level); // "strict", "common", "free"

// Who decided a fragment's layout: the op, at which level, and where it is in the source.
struct LayoutOrigin {
    const ir::Stmt* op = nullptr; // the gemm / parallel loop / reduce / copy / annotate_layout
    InferenceLevel level = InferenceLevel::Free;
    std::string description; // "accumulator of gemm at line 30 (mma.sync 2x2 warps)"
    SourceRange range;
};

struct FragmentPlan {
    const ir::Buffer* buffer = nullptr;
    Fragment fragment;
    LayoutOrigin origin;
    int64_t registersPerThread = 0;
};

struct SharedBufferPlan {
    const ir::Buffer* buffer = nullptr;
    SharedLayoutChoice choice; // the layout used (swizzled, padded or linear) and why
    Layout unswizzled;         // the plain row-major layout, for swizzle-off comparisons
    bool annotated = false;    // T.annotate_layout decided it
    int64_t bytes = 0;         // one stage
    int stages = 1;            // copies of the buffer kept by the software pipeline
};

struct GemmPlan {
    const ir::Stmt* gemm = nullptr;
    GemmInstruction instruction;
    WarpGrid grid;
    Fragment fragmentA; // meaningful when A is a fragment (register operand) or for ldmatrix planning
    Fragment fragmentB;
    Fragment fragmentC;
};

// How a T.Parallel loop nest maps to threads: the loop's iteration space as a Fragment (iteration -> thread,
// register), the vector width of its accesses and why it was limited.
struct ParallelLoopPlan {
    const ir::Stmt* loop = nullptr; // the outermost For of the nest
    Fragment loopLayout;
    int vectorWidth = 1;      // elements per access
    std::string vectorReason; // "limited to 4 by the fragment's contiguous run" ...
    LayoutOrigin origin;      // which buffer's layout the loop followed
};

// T.reduce_*: thread-local partial results, then an all-reduce over the threads that share an output.
struct ReducePlan {
    const ir::Stmt* reduce = nullptr;
    int64_t threadsPerOutput = 1;     // threads that hold parts of one output element
    std::vector<int> shuffleOffsets;  // butterfly XOR offsets within a warp (16, 8, 4, 2, 1 ...)
    bool throughSharedMemory = false; // more than one warp per output: a round through shared memory
    int64_t sharedScratchBytes = 0;
    std::vector<int> sharedOffsets; // XOR offsets >= warp size, each one round through shared memory
    int64_t localElements = 1;      // source elements each thread folds locally per output first
    std::string reason;             // "4 lanes of a quad hold each row: 2 shuffles (xor 2, 1)"
};

// How a T.copy moves data, per thread: instruction, vector width, and the thread -> element mapping.
enum class CopyInstruction {
    CpAsync,         // global -> shared, cp.async.cg 16 B (sm_80+)
    VectorLoadStore, // plain ld/st of vectorWidth elements
    FragmentToShared,
    SharedToFragment,
    FragmentToGlobal,
    GlobalToFragment,
    Tma, // sm_90a bulk tensor copy (Hopper path; not used by the portable backend yet)
};
const char* copyInstructionName(CopyInstruction kind);

struct CopyPlan {
    const ir::Stmt* copy = nullptr;
    CopyInstruction instruction = CopyInstruction::VectorLoadStore;
    int vectorWidth = 1; // elements per thread-access
    std::string reason;
    Fragment threadMap; // element of the copied tile -> (thread, register); the loop plan of the copy
};

// One shared-memory instruction that the generated kernel will execute, with its per-lane addresses for
// one representative warp instruction, its cost with the chosen layout and with the plain layout, and how
// many times it executes per block (so totals per access, per line and per kernel can be formed).
struct SharedAccessPlan {
    const ir::Stmt* op = nullptr;       // the tile op or loop that makes it
    const ir::Buffer* buffer = nullptr; // the shared buffer
    std::string role;                   // "copy A tile global->shared", "ldmatrix A operand", ...
    SourceRange range;
    WarpAccess access;           // representative warp instruction (chosen layout)
    WarpAccess accessUnswizzled; // the same instruction over the plain row-major layout
    BankCost hardware;           // hardware rule, chosen layout
    BankCost sassMetric;         // CUPTI SASS-metric model, chosen layout
    BankCost hardwareUnswizzled;
    int64_t instructionsPerBlock = 0; // warp-level instructions of this kind per block per kernel run
    int64_t wavefrontsPerBlock = 0;   // sum over all of them (not just representative), hardware rule
    int64_t idealWavefrontsPerBlock = 0;
    int64_t wavefrontsPerBlockUnswizzled = 0;
    int64_t sassWavefrontsPerBlock = 0;
    bool visibleToCounters = true; // false for cp.async.cg writes (bank-rules.md rule 6)
    // Also filled by the bank analysis (docs/bank-analysis.md):
    std::string instruction;        // SASS opcode, e.g. "LDSM.16.M88.4"; "wgmma descriptor" for wgmma
    bool isStore = false;           // a write (STS/STSM, cp.async); LDS/LDSM otherwise
    bool wgmmaOperand = false;      // read by wgmma through a descriptor: modelled, no LSU counter
    int64_t executionsPerBlock = 1; // op executions per block: the enclosing loops' trip counts
    bool executionsExact = true;    // false when an enclosing trip count is not a constant (counted 1)
    std::string condition;          // undecided enclosing ifs: counts per execution (an upper bound)
    int64_t sassIdealWavefrontsPerBlock = 0;
    int64_t rowSpreadInstructionsPerBlock = 0; // cp.async.cg instructions flagged by rule 6
    std::string note;                          // defaults the enumeration took
};

// Where one shared buffer lives in the kernel's single dynamic shared-memory arena, as the generated kernel
// addresses it (the kernel-schedule pass decides; codegen only prints it).
struct SharedArenaSlot {
    const ir::Buffer* buffer = nullptr;
    int64_t offset = 0;        // bytes from the start of the arena, a multiple of the arena's alignment
    int64_t stageElements = 0; // elements of one stage copy: the chosen layout's extent (padding included)
    int64_t stageBytes = 0;
    int stages = 1;                          // copies the software pipeline keeps
    const ir::Stmt* pipelinedLoop = nullptr; // the T.Pipelined loop that multi-buffers it (stages > 1)
    bool usesPlannedLayout = false;          // addressed through SharedBufferPlan::choice (else row-major)
    int64_t alignment = 128;                 // 1024 for tiles TMA writes or wgmma reads with a swizzle
    int64_t totalBytes() const { return stageBytes * stages; }
};

struct SharedArena {
    int64_t alignment =
        128; // every slot starts on such a boundary (swizzle atoms repeat every 1024 B/8 rows)
    std::vector<SharedArenaSlot> slots; // in allocation order
    int64_t reduceScratchOffset = -1;   // the all-reduce scratch of cross-warp reductions; -1 when none
    int64_t reduceScratchBytes = 0;
    int64_t barrierOffset = -1; // the pipelines' mbarriers (8 bytes each); -1 when none
    int64_t barrierBytes = 0;
    // The alignment the generated kernel declares for its dynamic shared memory (1024 when a slot needs it;
    // the declaration's alignment reaches the PTX and the driver honours it).
    int64_t baseAlignment = 128;
    int64_t launchBytes() const { return totalBytes; }
    int64_t totalBytes = 0; // the kernel's dynamic shared memory
    const SharedArenaSlot* slotOf(const ir::Buffer* buffer) const;
};

// How a T.Pipelined loop runs.
enum class PipelineShape {
    MultiStage,   // num_stages >= 2: copies issued num_stages - 1 iterations ahead into stage buffers
    EarlyIssue,   // num_stages = 1: each copy issued for the next iteration after the last read of its tile
    ProgramOrder, // nothing can move: the body runs in order, each copy waited for before its first use
    WarpSpecialized, // hopper: a producer warpgroup issues TMA loads into a ring of stages guarded by
                     // mbarriers
};
const char* pipelineShapeName(PipelineShape shape); // "multi-stage", "early-issue", "program-order"

struct PipelineCopy {
    const ir::Stmt* copy = nullptr;
    // EarlyIssue: the index (in the loop body) of the last statement that reads the copy's tile.
    size_t issueAfter = 0;
};

// A TMA load of one T.copy (global -> shared): the tensor map of its global side and the boxes that fill the
// shared tile. Dimensions are the global tensor's, innermost first (the driver's order).
struct TmaCopyPlan {
    const ir::Stmt* copy = nullptr;
    std::vector<int64_t> box; // per global dimension: the box extent (1 for a unit dimension of the copy)
    int swizzleBytes = 0;     // 0 (none), 32, 64 or 128: the shared layout's swizzle
    int64_t panels = 1;       // boxes side by side along the innermost dimension (rows wider than the span)
    int64_t panelBytes = 0;   // shared bytes of one box
    int64_t bytes = 0;        // the whole tile, one stage
    std::string reason;
};

// The full and empty mbarriers of a group of copies that the loop body first reads at one statement and last
// reads at one statement: the producer waits `empty`, expects the group's bytes on `full` and issues the
// loads; the consumers wait `full` before `firstUse` and arrive on `empty` after `lastUse`.
struct BarrierRing {
    std::vector<const ir::Stmt*> copies;
    size_t firstUse = 0, lastUse = 0; // statement indices in the loop body
    int64_t fullOffset = 0;           // arena bytes of full[0]; full[s] is 8 * s further
    int64_t emptyOffset = 0;          // likewise
    int64_t bytes = 0;                // TMA bytes per stage
};

struct PipelineSchedule {
    const ir::Stmt* loop = nullptr;
    int stages = 1;
    PipelineShape shape = PipelineShape::ProgramOrder;
    std::vector<PipelineCopy> asyncCopies; // cp.async groups (or TMA loads); the rest runs in program order
    int waitGroupsInLoop = 0;              // cp.async.wait_group N before a tile is read (stages - 2)
    std::vector<BarrierRing> rings;        // WarpSpecialized only
    // WarpSpecialized, a body of copies and one shared-operand gemm whose accumulator nothing else in the
    // loop reads: each iteration's wgmma batch stays in flight while the next is issued, and releases its
    // stage one iteration later.
    bool wgmmaBatchInFlight = false;
    std::string description; // "3 stages: 2 tiles in flight (A_shared, B_shared)"
};

// Producer/consumer warp specialization (hopper): the T.Kernel's threads are the consumers and run the whole
// program except the TMA loads; one more warpgroup after them is the producer.
struct WarpSpecializationPlan {
    bool enabled = false;
    int64_t consumerThreads = 0;
    int64_t producerThreads = 0;
    int producerRegisters = 0, consumerRegisters = 0; // setmaxnreg.dec / .inc; 0 when not used
    std::string reason;
    int64_t launchThreads() const { return consumerThreads + producerThreads; }
};

// What the generated kernel does besides following the layouts: its shared arena and its pipelines.
struct KernelSchedule {
    SharedArena arena;
    std::vector<PipelineSchedule> pipelines; // in program order
    WarpSpecializationPlan warpSpecialization;
    std::vector<TmaCopyPlan> tmaCopies;
    const PipelineSchedule* pipelineOf(const ir::Stmt* loop) const;
    const TmaCopyPlan* tmaOf(const ir::Stmt* copy) const;
};

struct SharedMemoryBudgetPlan {
    int64_t totalBytes = 0;
    int64_t limitBytes = 0;
    int64_t blocksPerSmBySharedMemory = 0;
    int64_t blocksPerSmByThreads = 0;
    int64_t blocksPerSm = 0; // the minimum of the limits above and the target's block limit
};

// A kernel with a grid barrier (T.sync_grid) launches cooperatively (cuLaunchCooperativeKernel): every block
// of its grid must be resident at once. The shared-memory-planning pass checks the grid against blocks per
// SM x the target's SMs (registers are not known before ptxas; __launch_bounds__ keeps one block fitting).
struct CooperativeLaunchPlan {
    bool required = false;
    SourceRange barrier;               // the first T.sync_grid
    std::optional<int64_t> gridBlocks; // when the grid is a constant
    int64_t residentBlocks = 0;        // blocks per SM x SMs
};

struct KernelPlan {
    const ir::Stmt* kernel = nullptr;
    const ir::PrimFunc* func = nullptr;
    int64_t threads = 0;
    std::vector<GemmPlan> gemms;
    std::vector<FragmentPlan> fragments;
    std::vector<SharedBufferPlan> sharedBuffers;
    std::vector<ParallelLoopPlan> loops;
    std::vector<ReducePlan> reduces;
    std::vector<CopyPlan> copies;
    std::vector<SharedAccessPlan> sharedAccesses;
    KernelSchedule schedule;
    SharedMemoryBudgetPlan budget;
    CooperativeLaunchPlan cooperative;

    // T.ws: the scope (a WarpGroups statement) around each statement inside one, and the scope whose
    // threads hold each fragment or local buffer (null: the whole block; scopes over the same threads are
    // one). A buffer that statements of different scopes touch is in mixedScopeBuffers (its registers
    // cannot belong to both).
    std::map<const ir::Stmt*, const ir::Stmt*> warpGroupOf;
    std::map<const ir::Buffer*, const ir::Stmt*> registerScopeOf;
    std::vector<const ir::Buffer*> mixedScopeBuffers;
    void findWarpGroupScopes();
    // The threads that execute statement `s` / that hold register buffer `b`.
    int64_t threadsOf(const ir::Stmt* s) const;
    int64_t threadsOf(const ir::Buffer* b) const;

    const FragmentPlan* fragmentOf(const ir::Buffer* buffer) const;
    const SharedBufferPlan* sharedOf(const ir::Buffer* buffer) const;
};

struct LayoutPlan {
    Target target;
    std::vector<KernelPlan> kernels;
};

} // namespace tb::layout
