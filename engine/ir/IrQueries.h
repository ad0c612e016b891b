// Read-only queries over the Tile IR that every later layer uses: the kernels of a module, their thread
// counts, the one preorder walk that knows the enclosing loops, the buffers a statement writes, the shared
// buffers it reads and writes, and constant shapes. (IR -> layout-algebra index conversion is
// engine/passes/IndexConversion.h.)
#pragma once

#include "engine/ir/Module.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace tb::ir {

struct KernelRef {
    const ir::PrimFunc* func = nullptr;
    const ir::Stmt* kernel = nullptr;
};

// Every Kernel statement of every PrimFunc, in program order.
std::vector<KernelRef> kernelsOf(const ir::Module& module);

// Product of the kernel's thread extents (1 when none are given).
int64_t blockThreads(const ir::Stmt& kernel);

// Preorder walk of `root` (included); `enclosing` holds the For statements around the visited one,
// outermost first. Stops at ir::kMaxIrDepth.
void walkStmts(const ir::Stmt& root,
               const std::function<void(const ir::Stmt&, const std::vector<const ir::Stmt*>& enclosing)>& fn);

// The T.ws scope (a WarpGroups statement) around each statement of `root` that is inside one.
std::map<const ir::Stmt*, const ir::Stmt*> warpGroupScopes(const ir::Stmt& root);

// Every buffer statement `s` itself names (regions, loads in its expressions, store and reduce buffers),
// without descending into child statements; a buffer may be reported more than once.
void forEachBufferOf(const ir::Stmt& s, const std::function<void(const ir::Buffer*)>& fn);

// A T.copy from global to shared memory (what pipelines, cp.async and TMA move).
bool isGlobalToSharedCopy(const ir::Stmt& s);

// The buffers `root` writes (stores, copy and fill destinations, atomics, reduction and gemm results); a
// write through a view counts as one of its base.
std::set<const ir::Buffer*> writtenBuffers(const ir::Stmt& root);

// The parameters a program produces, one flag per parameter: the marked outputs (out_idx, T.empty); with
// none marked, those the kernels write; with none written either, all of them. What a run reads back,
// checks and describes.
std::vector<bool> producedParams(const ir::PrimFunc& func);

// The buffers of `scope` (every scope when nullopt) that `root` reads and writes: loads in any expression,
// copy/atomic sources and destinations, stores, fills, reduction sources and results, gemm operands (A and
// B read; C, a fragment, is not counted). An access through a view counts as one of its base.
void bufferEffects(const Stmt& root, std::optional<MemoryScope> scope, std::set<const Buffer*>& reads,
                   std::set<const Buffer*>& writes);
// bufferEffects of shared memory.
void sharedEffects(const Stmt& root, std::set<const Buffer*>& reads, std::set<const Buffer*>& writes);

// True when `root` holds a grid barrier (T.sync_grid) anywhere: a kernel that has one must launch
// cooperatively, with every block resident at once, and its blocks depend on each other.
bool containsGridSync(const Stmt& root);

// Whether a loop body is a plain list of stores (no if, no inner loop): the only T.Parallel body whose
// accesses the code generator moves as vectors (codegen's vectorizableAccesses; the bank model follows it).
bool isPlainStoreList(const Stmt& body);

// The T.ws scopes that run concurrently from stmts[first]: consecutive WarpGroups statements over disjoint
// threads whose bodies use the program's mbarriers (a producer and a consumer that order their shared
// accesses with them). Returns how many, or 0 when fewer than two. The CUDA backend runs them without a
// block barrier between them; the CPU executor runs them as cooperating scopes that switch at an
// unsatisfied mbarrier wait. Outside such a run, scopes run one after another.
size_t concurrentWarpGroupRun(const std::vector<StmtPtr>& stmts, size_t first);

// Constant extents of a region (nullopt when one is symbolic).
std::optional<std::vector<int64_t>> constantExtents(const ir::Region& region);
std::optional<std::vector<int64_t>> constantShape(const ir::Buffer& buffer);

// The region's extents without its unit dimensions ({1, 64, 512} -> {64, 512}); positions of the kept ones.
std::vector<size_t> nonUnitDims(const std::vector<int64_t>& extents);

} // namespace tb::ir
