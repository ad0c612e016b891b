// How every shared-memory access of a kernel lowers to warp-level instructions, and the 32 lane addresses of
// each of them. For one KernelPlan this walks the kernel's Tile IR and, for each site (one op touching one
// shared buffer with one instruction kind), emits every warp instruction the generated kernel executes per
// execution of the op: its lane byte addresses through the buffer's chosen layout and through the plain
// row-major layout. The lowering rules (which instruction, which lanes address which elements, how many
// times) are specified in docs/bank-analysis.md; the CUDA backend follows that document. The bank costs
// are computed by the consumer (BankAnalysis.h), so tests can look at the raw addresses.
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/bank/SharedAccess.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/Diagnostics.h"
#include "engine/target/Target.h"

#include <cstdint>
#include <string>

namespace tb::passes {

// What one SharedAccessPlan entry describes, before any cost is known.
struct SharedAccessSite {
    const ir::Stmt* op = nullptr;
    const ir::Buffer* buffer = nullptr; // null for the reduction scratch buffer (red_buf)
    std::string role;                   // "cp.async A_shared global->shared", "ldmatrix A operand", ...
    SourceRange range;
    SharedAccessKind kind = SharedAccessKind::Load;
    bool isStore = false;      // writes shared memory (op_st side); cp.async and stores
    bool wgmmaOperand = false; // read by wgmma through a descriptor: not an LSU instruction
    // Executions of the op per block: the product of the constant trip counts of the enclosing serial,
    // unrolled and pipelined loops. executionsExact is false when one of them is not a compile-time constant
    // (it then counts once).
    int64_t executionsPerBlock = 1;
    bool executionsExact = true;
    // The enclosing ifs the analysis cannot decide (data, loop or thread dependent), joined with "and";
    // empty when the op runs on every iteration. The counts are then per execution: an upper bound.
    std::string condition;
    std::string note; // what the enumeration assumed, empty when nothing
};

// Receives the enumeration: beginSite, then every warp instruction of that site (for one execution of the
// op), then endSite. `chosen` uses SharedBufferPlan::choice.layout, `plain` the unswizzled row-major layout.
class SharedAccessConsumer {
public:
    virtual ~SharedAccessConsumer() = default;
    virtual void beginSite(const SharedAccessSite& site) = 0;
    virtual void instruction(const WarpAccess& chosen, const WarpAccess& plain) = 0;
    virtual void endSite() = 0;
};

// Upper bound on warp instructions enumerated per site per execution; a site over it is cut short with the
// warning "bank-analysis-too-many-instructions" (the counts then cover the enumerated part only).
constexpr int64_t kMaxInstructionsPerSite = int64_t(1) << 20;

// Walks kernel.kernel's body. Missing plan parts are filled with the documented defaults (the gemm warp
// grid recomputed from the op, copies and parallel loops partitioned as PlanLoopPartition does, plain
// row-major layout for a buffer without a SharedBufferPlan); each default taken is stated in the site's
// note. Sites whose addresses cannot be computed (symbolic shapes, unsupported dtypes) are skipped with the
// note-level diagnostic "bank-analysis-skipped".
void enumerateSharedAccesses(const layout::KernelPlan& kernel, const Target& target,
                             SharedAccessConsumer& consumer, DiagnosticEngine& diagnostics);

} // namespace tb::passes
