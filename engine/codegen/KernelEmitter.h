// The emitter of one Kernel statement: prologue (signature, shared arena, block indices, register arrays),
// then the body, statement by statement, with each tile op lowered as its plan says. Element code (inside
// T.Parallel loops and the per-thread loops that copies become) is emitted with the loop variables bound
// to closed forms of (thread, register), so fragment accesses become constant register indices.
// Private to engine/codegen: KernelEmitter.cpp holds statements, expressions and loops, TileOpLowering.cpp
// the tile ops (copy, gemm, reduce, fill, atomic add).
#pragma once

#include "engine/codegen/CudaCodegen.h"
#include "engine/codegen/HopperDeviceHeader.h"
#include "engine/codegen/ThreadMap.h"
#include "engine/ir/Visitor.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::codegen {

// Deepest statement / expression nesting the emitter follows (deeper input gets a diagnostic): the IR's
// own limit, which the verifier holds every module to.
constexpr int kMaxDepth = ir::kMaxIrDepth;

// The wgmma shapes a kernel's gemms issue (the hopper device header emits one wrapper each).
std::vector<WgmmaShape> wgmmaShapesOf(const layout::KernelPlan& kernel);

using ir::isMultipleOf;

// The buffer a region names, for comments and diagnostics ("?" without one).
std::string describeRegion(const ir::Region& r);

struct EmittedLine {
    std::string text;
    SourceRange range;
};

class KernelEmitter {
public:
    KernelEmitter(const ir::Module& module, const ir::PrimFunc& func, const ir::Stmt& kernel,
                  const layout::KernelPlan* plan, const Target& target, DiagnosticEngine& diagnostics,
                  const SourceManager* sources, std::string kernelName);
    // Appends the kernel's lines; fills `out` (name, launch, params). False after an error diagnostic.
    bool emit(std::vector<EmittedLine>& lines, GeneratedKernel& out);

private:
    // ---- output ----
    void line(const std::string& text, SourceRange range = {});
    void open(const std::string& head, SourceRange range = {});
    // A bare "{" scope (with "// note" after it when given), closed by close().
    void openBlock(const std::string& note, SourceRange range);
    void close(const std::string& tail = "");
    void comment(const std::string& text, SourceRange range);
    // Removes the "const int NAME = ...;" lines in [first, first + count) whose NAME no later line mentions
    // (per-thread loops declare every coordinate; bodies often use only some).
    void dropUnusedIndexLines(size_t first, size_t count);
    std::string lineTag(const SourceRange& range) const; // " (line 30)" or ""
    bool error(const std::string& code, SourceRange range, std::string message, std::string hint = {});

    // ---- names ----
    void collectUserNames();
    std::string unique(const std::string& base);
    std::string nameOf(const ir::Var* var);
    std::string nameOf(const ir::Buffer* buffer);

    // ---- prologue ----
    void planSharedArena();
    void declareSharedArena();
    void emitPrologue(GeneratedKernel& out);

    // ---- statements ----
    void emitStmt(const ir::Stmt& s, int depth);
    void emitSeqOrStmt(const ir::StmtPtr& s, int depth);
    void emitFor(const ir::Stmt& s, int depth);
    void emitParallelNest(const ir::Stmt& s);
    void emitPipelined(const ir::Stmt& s, int depth);
    // T.Pipelined(num_stages=1) in TileLang's order (SingleStagePipeline.cpp): a copy into a shared tile is
    // issued for the next iteration right after the statement that last reads the tile.
    struct EarlyCopy {
        const ir::Stmt* copy;
        size_t lastUse; // index in the loop body of the last statement that reads the copy's tile
    };
    bool emitSingleStagePipeline(const ir::Stmt& s, int depth);
    void emitElementStmt(const ir::Stmt& s, int depth);
    void emitPrint(const ir::Stmt& s);
    // The program's T.ws scopes and mbarriers (WarpGroupLowering.cpp).
    void declareBarriers();
    // entrySynced: the caller already ordered what the block did before (a run of concurrent scopes).
    void emitWarpGroups(const ir::Stmt& s, int depth, bool entrySynced = false);
    // Consecutive T.ws scopes over disjoint threads that order their shared accesses with the program's
    // mbarriers, from stmts[first]; returns how many (0 when stmts[first] is not one).
    size_t concurrentScopeRun(const std::vector<ir::StmtPtr>& stmts, size_t first) const;
    void emitConcurrentScopes(const std::vector<ir::StmtPtr>& stmts, size_t first, size_t count, int depth);
    void emitBarrierOp(const ir::Stmt& s);
    // The program's per-thread async copies and their noinc mbarrier arrive (CpAsyncLowering.cpp).
    void lowerCpAsync(const ir::Stmt& s);
    void emitCpAsyncArrive(const ir::Stmt& s, const std::string& address);
    bool sharedRunsStayContiguous(const ir::Buffer* buffer, int64_t n) const;
    bool awaitsCpAsyncData(const ir::Buffer* barrier) const; // T.cp_async_barrier_noinc arrives on it

    // ---- shared-memory synchronization ----
    using BufferSet = std::set<const ir::Buffer*>;
    void syncFor(const ir::Stmt& s);
    void syncFor(const BufferSet& reads, const BufferSet& writes);
    void barrier(const std::string& why);
    void fenceSharedWritesForWgmma();
    // T.sync_grid: tb_grid_sync() (the device header's grid barrier) after the block's async copies.
    void emitGridSync(const ir::Stmt& s);
    // The statement that synchronizes every thread of the tile program: __syncthreads(), or with warp
    // specialization named barrier 1 over the consumers (the producer warp never reaches it).
    std::string blockSync() const;
    // Waits for the cp.async copies not yet waited for (outside software pipelines a copy's wait is
    // deferred to the first statement that touches its destination, so adjacent copies share one round trip).
    void waitForAsyncCopies();

    // ---- expressions ----
    // `rounded` false leaves out the node's own final rounding to a half type (its operands keep theirs).
    std::string expr(const ir::ExprPtr& e, int depth = 0, bool rounded = true);
    // The value of a store into `buffer`. When the store rounds to the buffer's half type itself (tb_f2h into
    // memory, or a fragment that only a rounding copy reads), the value's own final rounding to that type is
    // left out: rounding twice gives the same bits as once.
    std::string storedValue(const ir::Buffer* buffer, const ir::ExprPtr& value);
    std::string loadText(const ir::Buffer* buffer, const std::vector<ir::ExprPtr>& indices, int depth);
    std::string lvalueText(const ir::Buffer* buffer, const std::vector<ir::ExprPtr>& indices, int depth);
    std::string toStorage(const ir::Buffer* buffer, const std::string& computeValue) const;
    // `dropZeroTerms`: indices written "0" contribute no "0 * stride" term.
    std::string globalOffset(const ir::Buffer* buffer, const std::vector<std::string>& idx,
                             bool dropZeroTerms = false) const;
    // `withStage` false: the offset within one stage of a multi-versioned buffer (hoisted lane offsets).
    std::string sharedOffset(const ir::Buffer* buffer, const std::vector<std::string>& idx,
                             bool withStage = true) const;
    std::string fragmentSlot(const ir::Buffer* buffer, const std::vector<ir::ExprPtr>& indices, int depth);
    std::string shapeText(const ir::Buffer* buffer, size_t dim) const;

    // ---- per-thread loops over a thread map ----
    // `vars[d]` is bound to coordinate d of the map's domain; `body` is element code.
    // `vector` > 1 steps over V registers at a time (VectorizedLoops.cpp): `accesses` move as vectors, or,
    // with `discoverAccesses`, every shared access of the body that can.
    struct VectorAccess {
        const ir::Buffer* buffer = nullptr;
        const std::vector<ir::ExprPtr>* indices = nullptr; // identifies the access in the element code
        bool store = false;
        std::string temp;     // the register array that stands in for it
        SourceRange range;    // the access's own position (its vector instruction is emitted on that line)
        std::string l2Policy; // a global access's cache-policy variable (T.copy eviction_policy), or empty
    };
    void emitSimtLoop(const layout::Fragment& map, const std::vector<const ir::Var*>& vars,
                      const ir::Stmt& body, SourceRange range, const std::string& what,
                      bool guardReplicaStores, int vector = 1, const std::vector<VectorAccess>& accesses = {},
                      bool discoverAccesses = false);
    const ThreadMap* threadMapOf(const layout::Fragment& fragment, SourceRange range);
    // Per fragment (by its canonical text), built once per kernel: the inverse table, and from it on first
    // use the thread map of per-thread loops and the register of every element.
    struct FragmentTables {
        layout::LayoutResult<layout::FragmentInverseTable> inverse;
        const ThreadMap* threadMap = nullptr;
        std::vector<int64_t> registerOf; // linear element -> its register (the same in every replica)
    };
    FragmentTables& fragmentTables(const layout::Fragment& fragment);
    // The tables with registerOf filled; nullptr when the fragment cannot be inverted.
    const FragmentTables* fragmentLookup(const layout::Fragment& fragment);
    // The thread map (nullptr when the fragment cannot be inverted; no diagnostic).
    const ThreadMap* cachedThreadMap(const layout::Fragment& fragment);

    // ---- vector accesses and index ranges (VectorizedLoops.cpp) ----
    struct SimtScope;
    void bindIndexRange(const ir::Var* var, const ir::ExprPtr& min, const ir::ExprPtr& extent);
    void unbindIndexRange(const ir::Var* var);
    // min + [0, extent) inside [0, shape) for every value the enclosing loops and the grid give.
    bool provablyWithin(const ir::ExprPtr& min, int64_t extent, const ir::ExprPtr& shape) const;
    bool sharedRunContiguous(
        const ir::Buffer* buffer, const ThreadMap& map, int vector,
        const std::function<std::optional<std::vector<int64_t>>(int64_t, int64_t)>& pointOf) const;
    // The element step between a thread's consecutive V-vectors of a shared region when it is the same
    // for every thread (offset(t, j) = offset(t, 0) + j * step); nullopt otherwise.
    std::optional<int64_t> sharedVectorStep(const ir::Region& region, const ThreadMap& map, int vector) const;
    bool globalCopyRunContiguous(const ir::Region& region, const ThreadMap& map, int vector) const;
    std::vector<VectorAccess> vectorizableAccesses(const ir::Stmt& body, const ThreadMap& map,
                                                   const std::vector<const ir::Var*>& vars,
                                                   const std::vector<int64_t>& extents, int vector);
    void emitVectorSimtLoop(const ThreadMap& map, SimtScope& scope, const ir::Stmt& body, SourceRange range,
                            int vector, const std::vector<VectorAccess>& accesses);
    // The guard of a region's elements: only the dimensions not provably in bounds.
    ir::ExprPtr regionGuard(const ir::Region& region, const std::vector<ir::ExprPtr>& indices) const;

    // ---- tile ops (TileOpLowering.cpp) ----
    void lowerCopy(const ir::Stmt& s);
    void lowerGemm(const ir::Stmt& s);
    // ---- warp specialization on the hopper backend (WarpSpecializedLowering.cpp) ----
    const layout::WarpSpecializationPlan* warpSpecialization() const; // nullptr when the kernel has none
    std::string barrierAddress(const layout::BarrierRing& ring, bool full, const std::string& stage) const;
    std::string tensorMapSignature(GeneratedKernel& out);
    void emitWarpSpecializationSplit();
    void emitProducerLoop(const layout::PipelineSchedule& pipeline);
    void emitTmaLoad(const ir::Stmt& copy, const layout::TmaCopyPlan& tma, const std::string& bar,
                     const std::string& stage);
    void emitWarpSpecializedPipeline(const ir::Stmt& s, const layout::PipelineSchedule& pipeline, int depth);
    std::map<const ir::Stmt*, std::string> m_tensorMaps; // TMA copy -> its tensor-map parameter

    // ---- T.gemm on the hopper backend (WgmmaLowering.cpp) ----
    struct WgmmaOperand {
        bool kMajor = true;
        int swizzle = 0;  // W: bytes of one swizzled panel row
        int64_t rows = 0; // R: the tile's rows (the layout's first dimension)
        int64_t elementBytes = 2;
        int64_t panelElements = 0; // P = W / element bytes
        std::string base;          // C text: shared-window address of the tile (its stage included)
        std::string descBase;      // the variable holding this warpgroup's base
    };
    struct WgmmaGemm {
        const ir::Stmt* stmt = nullptr;
        const layout::GemmPlan* plan = nullptr;
        int64_t m = 0, n = 0, k = 0, groupsM = 1, groupsN = 1, instN = 0, atomsM = 1, atomsN = 1;
        int64_t groupTileM = 0, groupTileN = 0;
        int64_t kStep = 16;  // the instruction's k: 16, or 32 for float8
        bool float8 = false; // e4m3/e5m2 operands: no transpose immediates
        bool registerA = false;
        std::string function;
        int accRegs = 0;
        WgmmaOperand opA, opB;
        std::vector<int64_t> cBase; // per (M atom, N atom): the first of its consecutive accumulators
        std::vector<int64_t> aSlot; // RS: per (M atom, k step, element v): the register of A
    };
    std::optional<WgmmaGemm> prepareWgmma(const ir::Stmt& s, const layout::GemmPlan& plan);
    std::string wgmmaOperandGeometry(const ir::Region& region, bool kMajor, WgmmaOperand& op);
    std::string wgmmaDescriptorText(const WgmmaOperand& op, int64_t outer0, int64_t k0) const;
    std::string wgmmaRegisterSlots(WgmmaGemm& g);
    void lowerWgmma(const ir::Stmt& s, const layout::GemmPlan& plan);
    const layout::GemmPlan* wgmmaPlanOf(const ir::Stmt& s) const; // the gemm's plan when it issues wgmma
    bool wgmmaReads(const ir::Buffer* buffer) const;              // a shared operand of a wgmma gemm
    bool m_wgmmaInFlight = false; // the next wgmma batch stays in flight (set by a warp-specialized pipeline)

    // ---- T.gemm (GemmLowering.cpp) ----
    // How one lane addresses a shared operand's ldmatrix rows: a per-lane byte offset computed once, and
    // for every (atom, k step) a compile-time XOR and add on it (swizzles move k steps by XOR), found by
    // evaluating the layout for every thread. Not `solved` when some load does not fit that form.
    struct OperandAddressing {
        bool solved = false;
        std::string laneExpr;              // C expression of the lane's byte offset at atom 0, k step 0
        std::vector<int64_t> xors;         // distinct XOR masks (bytes); a lane register each
        std::vector<size_t> xorOf;         // per (atom, k step): index into xors
        std::vector<int64_t> adds;         // per (atom, k step): byte offset added
        std::vector<std::string> regNames; // per xors entry, once declared
    };
    struct GemmLowering {
        const ir::Stmt* stmt = nullptr;
        const layout::GemmPlan* plan = nullptr;
        const ir::Buffer *a = nullptr, *b = nullptr, *c = nullptr;
        int64_t m = 0, n = 0, k = 0, warpM = 0, warpN = 0, atomsM = 0, atomsN = 0, loadsB = 0, steps = 0;
        int64_t kStep = 16; // the instruction's k: 16, or 32 for float8 (m16n8k32)
        int64_t chunk = 8;  // elements of one 16-byte ldmatrix row: 8, or 16 for float8
        bool bX4 = false, registerA = false;
        std::vector<int64_t> cSlot, aSlot;
        std::string lane, warpMVar, warpNVar, aFrag, bFrag, mma, cName;
        OperandAddressing aAddr, bAddr;
    };
    std::optional<GemmLowering> prepareGemm(const ir::Stmt& s);
    // The comment above a lowered T.gemm: operands, instruction, warp grid and how the operands arrive.
    static std::string gemmHeadline(const GemmLowering& g, const std::string& operands);
    OperandAddressing solveOperandAddressing(const GemmLowering& g, bool operandA);
    void emitGemmLaneSetup(GemmLowering& g);
    // `predicate`: a C condition, the same in every lane, under which the loads happen (empty: always).
    void emitGemmLoads(const GemmLowering& g, int64_t step, const std::string& aRef, const std::string& bRef,
                       const std::string& predicate = {});
    void emitGemmMmas(const GemmLowering& g, const std::string& aRef, const std::string& bRef);
    // T.Pipelined whose body is cp.async copies and one shared-operand T.gemm: the next tile's first
    // fragments load while the current tile's last k step computes (one barrier per tile). False, with
    // nothing emitted, when the loop does not have that shape.
    struct PipelineSteps {
        std::string readSlot;    // the stage the current tile is read from
        std::string hasNextTile; // C condition: the loop has a tile after the current one
        // "for (...) {" over the tiles.
        std::function<void()> openLoop;
        // cp.async wait and barrier, then the read slot advanced if asked.
        std::function<void(bool)> waitTile;
        // Copies of the tile num_stages - 1 ahead, commit, write slot advanced.
        std::function<void()> issuePrefetch;
    };
    bool emitWovenGemmPipeline(const ir::Stmt& gemm, const PipelineSteps& steps);
    std::optional<int64_t> sharedElementOffset(const ir::Buffer* buffer,
                                               const std::vector<int64_t>& point) const;
    // ---- TensorCoreIntrinEmitter methods (MmaIntrinsicLowering.cpp) ----
    void lowerMmaIntrinsic(const ir::Stmt& s);
    void emitIntrinsicLdmatrix(const ir::Stmt& s, const std::string& lane, const std::string& warp);
    void emitIntrinsicMma(const ir::Stmt& s);
    void emitIntrinsicStmatrix(const ir::Stmt& s, const std::string& lane, const std::string& warpM,
                               const std::string& warpN);
    // Every lane's ldmatrix row (8 elements) is consecutive and 16-byte aligned in the buffer's layout.
    bool intrinsicRowsContiguous(const ir::Stmt& s) const;
    void lowerReduce(const ir::Stmt& s);
    void lowerFill(const ir::Stmt& s);
    void lowerAtomicAdd(const ir::Stmt& s);
    // Element code that copies/fills/accumulates a region tile, with OOB guards on global sides.
    struct TileLoopVars {
        std::vector<const ir::Var*> vars; // one per non-unit tile dimension
    };
    TileLoopVars makeTileVars(size_t count);
    // ---- vector copies (VectorCopyLowering.cpp) ----
    bool lowerVectorCopy(const ir::Stmt& s, const layout::Fragment& map, const std::vector<int64_t>& tile,
                         int vector, bool async);
    struct VectorCopy {
        const ir::Stmt* stmt = nullptr;
        const ThreadMap* map = nullptr;
        int vector = 1;
        bool async = false;
        int64_t elementBytes = 0, bytes = 0;
        size_t rank = 0;
        TileLoopVars vars;
        std::vector<ir::ExprPtr> srcIdx, dstIdx;
        std::string sourceType;
        std::string
            rowOffsetName; // hoisted cp.async destination offset of the thread, when the layout allows
        int64_t rowStepBytes = 0;
        std::string srcLane; // hoisted pointer to the thread's first source element
        std::string srcPtr, dstPtr;
        // The full-vector condition's parts; the last dimension's index and extent when it needs a check.
        std::vector<std::string> full;
        std::string lastIdx, lastShape;
        bool lastProvable = true;
    };
    const ThreadMap* vectorCopyMap(const ir::Stmt& s, const layout::Fragment& frag,
                                   const std::vector<int64_t>& tile, int vector, bool& async);
    bool sharedSideVectorizes(const ir::Region& region, const ThreadMap& map, int vector) const;
    void emitVectorCopyLanes(VectorCopy& copy);
    void emitVectorCopyPointers(VectorCopy& copy);
    void vectorCopyFullCondition(VectorCopy& copy);
    void emitVectorCopyAccess(VectorCopy& copy);
    std::vector<ir::ExprPtr> regionIndices(const ir::Region& region, const TileLoopVars& vars) const;
    ir::ExprPtr inBounds(const ir::Buffer* buffer, const std::vector<ir::ExprPtr>& indices) const;
    const layout::CopyPlan* copyPlanOf(const ir::Stmt& s) const;

    const ir::Module& m_module;
    const ir::PrimFunc& m_func;
    const ir::Stmt& m_kernel;
    const layout::KernelPlan* m_plan;
    const Target& m_target;
    DiagnosticEngine& m_diags;
    const SourceManager* m_sources;
    std::string m_kernelName;
    int64_t m_threads = 1;

    std::vector<EmittedLine>* m_out = nullptr;
    int m_indent = 0;
    bool m_failed = false;

    std::set<std::string> m_userNames;
    std::set<std::string> m_taken;
    std::map<const ir::Var*, std::string> m_varNames;
    std::map<const ir::Buffer*, std::string> m_bufferNames;
    std::string m_tx;      // the thread index that tile ops partition over (counts from 0 in a T.ws scope)
    std::string m_blockTx; // the block's thread index (what T.get_thread_binding reads)
    // Inside a T.ws scope: the scope, and the named barrier its threads synchronize on.
    struct ScopeState {
        std::string tx;
        int64_t threads;
        std::set<const ir::Buffer*> pendingRead, pendingWrite;
    };
    static constexpr int kFirstScopeBarrierId =
        2; // 0 is __syncthreads, 1 the consumers of warp specialization
    static constexpr int kLastBarrierId = 15;
    const ir::Stmt* m_scope = nullptr;
    int m_scopeBarrierId = 0;
    std::map<std::pair<int64_t, int64_t>, int> m_scopeBarrierIds; // (first thread, count) -> barrier id
    std::string m_regName, m_repName;                             // register and replica of per-thread loops
    std::string m_atomRowName, m_atomColName, m_accSlotName;      // the mma loop nest of a T.gemm

    // Shared arena: byte offset, elements per stage and stages of each shared buffer.
    struct SharedSlot {
        int64_t offset = 0;
        int64_t stageElements = 0;
        int stages = 1;
        layout::Layout layout;
        bool hasLayout = false;
        // The buffer's constant shape (empty when it has none) and the layout's output size: asked for at
        // every element an access or an operand check visits, so computed once.
        std::vector<int64_t> shape;
        int64_t layoutOutputSize = 0;
        // The layout's offset of every point of its input shape, row-major (filled on first use).
        mutable std::vector<int64_t> offsets;
        mutable bool offsetsReady = false;
        std::optional<int64_t> layoutOffset(std::span<const int64_t> point) const;
    };
    std::map<const ir::Buffer*, SharedSlot> m_shared;
    std::map<const ir::Buffer*, int> m_pipelineStages; // buffers multi-versioned by T.Pipelined
    // Half-precision fragments that only T.copy reads, into memory of their own dtype: that copy rounds each
    // value, so a store into the fragment keeps the float unrounded (rounding twice gives the same bits).
    std::set<const ir::Buffer*> m_roundedByTheirCopies;
    void findFragmentsRoundedByTheirCopies();
    // The kernel's L2 cache-policy variables, one per eviction policy its copies ask for.
    std::map<ir::EvictionPolicy, std::string> m_l2Policies;
    void declareL2Policies();
    std::string l2PolicyOf(const ir::Stmt& copy) const; // the copy's policy variable, empty for evict_normal
    // A vector load of `vecType` at `address` (an expression of a pointer), and a statement storing `value`
    // there; with an L2 policy variable, the global access carries it as a cache hint
    // (tb_ld_hint/tb_st_hint).
    static std::string vectorLoad(const std::string& vecType, const std::string& address,
                                  const std::string& l2Policy);
    static std::string vectorStore(const std::string& vecType, const std::string& address,
                                   const std::string& value, const std::string& l2Policy);
    int64_t m_sharedBytes = 0;
    int64_t m_reduceScratchOffset = -1;
    std::string m_reduceScratch;

    // Expression context.
    std::map<const ir::Var*, std::string> m_varOverride;
    std::map<const ir::Buffer*, std::string> m_stageExpr;
    struct SimtScope {
        const ThreadMap* map = nullptr;
        std::vector<const ir::Var*> vars;
        std::vector<int64_t> extents;
        std::string reg;
        std::string rep; // empty when the map is not replicated
        bool guardReplicaStores = false;
        // fragmentSlot of `buffer[vars...]` (the loop's own variables, in order), found once per scope: a
        // loop body names the same fragment element many times.
        std::map<const ir::Buffer*, std::string> ownElementSlots;
    };
    SimtScope* m_simt = nullptr;
    std::map<const std::vector<ir::ExprPtr>*, std::string> m_vectorTemps; // access -> "tb_ld[e]"
    std::map<const ir::Var*, layout::IndexExpr> m_indexRanges; // grid and loop variables with constant ranges

    // Shared buffers read / written since the last barrier, and those with cp.async writes in flight.
    BufferSet m_pendingRead, m_pendingWrite, m_asyncInFlight;

    bool m_inPipelineIssue = false; // cp.async copies issued by emitPipelined: it commits and waits
    std::map<std::string, std::string> m_internal;
    std::string internalName(const std::string& base);
    std::vector<const ir::Var*> m_tileVars;

    std::deque<ThreadMap> m_threadMaps;
    std::map<std::string, FragmentTables> m_fragmentTables; // by the fragment's canonical text
    std::deque<ir::Var> m_syntheticVars;
    std::vector<ir::StmtPtr> m_syntheticStmts; // keep synthesized statements alive
    int m_uid = 0;
};

} // namespace tb::codegen
