// Where a grid barrier (T.sync_grid) may stand. It is cooperative_groups' grid.sync(): every thread of every
// block must reach it the same number of times, or the threads that did wait forever for those that did
// not. So it may not stand inside a T.Parallel loop (whose iterations are spread over the threads), a
// T.Pipelined loop (whose copies run ahead of their iteration), a T.ws scope (one warpgroup of the block), a
// branch on the thread or block index, or a loop whose bounds depend on them. A branch or loop bound that
// reads memory may differ between blocks: a warning, which the CPU executor checks at run time
// (grid-sync-divergent). Internal to engine/check/.
#pragma once

#include "engine/ir/Stmt.h"
#include "engine/support/Diagnostics.h"

namespace tb::check {

// grid-sync-placement (error), grid-sync-data-dependent (warning), for every T.sync_grid of `kernel`.
void checkGridSyncPlacement(const ir::Stmt& kernel, DiagnosticEngine& diagnostics);

} // namespace tb::check
