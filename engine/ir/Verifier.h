// Structural invariants of the Tile IR, checked after elaboration and after every pass in tests and
// debug builds. A violation is a bug in whatever built the IR, never a user mistake, so it is reported as
// an "internal-error" diagnostic that asks for a report. User-facing semantic checks (shapes, scopes,
// shared memory) live in engine/check/ and assume IR that passed this verifier.
//
// Invariants:
//   - every VarRef is bound where it is used: block vars inside their kernel, loop vars inside their loop,
//     dynamic dims anywhere in their prim_func, thread-index vars inside a kernel, layout placeholders
//     inside their layout annotation;
//   - a loop or block var is not rebound while it is in scope;
//   - a region has one min and one extent per buffer dimension; Store and BufferLoad have one index per
//     dimension; the required fields of each node are set (no null buffers, exprs or bodies);
//   - Binary operands (and Select branches) have the same dtype;
//   - a kernel's allocations list every non-global buffer used inside it, each once, and no global one but
//     the views it declares;
//   - a grid barrier (GridSync) lies inside a kernel;
//   - a view (Buffer::viewOf) is a global buffer, neither a parameter nor an output, over a global base
//     that is not itself a view, used only inside the kernel whose allocations declare it;
//   - prim_func parameters are global buffers whose paramIndex is their position;
//   - workspaces are global buffers that are not parameters (paramIndex -1), each listed once, and every
//     global buffer used is a parameter, a workspace or a view of its prim_func.
#pragma once

#include "engine/ir/Module.h"
#include "engine/support/Diagnostics.h"

namespace tb::ir {

// True when the module satisfies every invariant; otherwise reports each violation (code "internal-error").
bool verifyModule(const Module& module, DiagnosticEngine& diagnostics);

} // namespace tb::ir
