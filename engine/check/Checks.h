// Semantic checks on well-formed Tile IR (IR that passed verifyModule): the mistakes a user can make in a
// tile program that the IR can express but TileLang rejects or miscompiles, reported as diagnostics with
// the node's source range, notes at the buffers' allocations and a hint. The checks do not depend on how
// the IR was built (the elaborator reports some of the same problems earlier, with AST context).
//
// Codes: copy-extent-mismatch, copy-fragment-shape, gemm-shape-mismatch, gemm-accumulator-scope,
// gemm-operand-scope, gemm-dtype, reduce-shape-mismatch, reduce-dim, index-out-of-range,
// threads-not-multiple-of-32, too-many-threads, shared-memory-over-limit, tile-op-outside-kernel,
// kernel-inside-kernel, atomic-add-scope, grid-sync-placement, grid-sync-data-dependent (warning).
#pragma once

#include "engine/ir/Module.h"
#include "engine/support/Diagnostics.h"
#include "engine/target/Target.h"

namespace tb::check {

void checkModule(const ir::Module& module, const Target& target, DiagnosticEngine& diagnostics);

} // namespace tb::check
