// The readable text form of the Tile IR: a deterministic, Python-like listing of a whole module (the
// specialization it was built with, each prim_func's signature, kernels with their allocations, loops,
// stores and one line per tile operation). `tilec --print-ir` and the app's IR view show it; tests anchor
// on its lines. With a SourceManager every statement line ends in a "# line N" comment so that a view can
// link the listing back to the tile program. Nested T.Parallel loops print as one `parallel` line, the
// way they were written.
//
// Example:
//   # tile program: gemm.py  (jit matmul: M=1024 [module-call], block_M=128 [default])
//   prim_func main(A: global float16[1024, 1024], B: ..., C: global float16[1024, 1024] /*output*/):
//     kernel grid(8, 8) threads(128) as (bx, by):          # line 16
//       alloc A_shared: shared float16[128, 32]             # line 17
//       fill C_local[0:128, 0:128] = 0.0                    # line 20
//       for k in pipelined(0, 32, num_stages=3):            # line 21
//         copy A[by * 128 : +128, k * 32 : +32] -> A_shared[0:128, 0:32]
//         gemm A_shared[0:128, 0:32], B_shared[0:32, 0:128] -> C_local[0:128, 0:128] (transpose_A=False, ...)
//       for i, j in parallel(128, 128):
//         C_local[i, j] = max(C_local[i, j], 0.0)
#pragma once

#include "engine/ir/Module.h"
#include "engine/support/SourceManager.h"

#include <string>
#include <vector>

namespace tb::ir {

// One line of the listing, for views that link lines to IR nodes and source text.
struct PrintedLine {
    std::string text;               // the whole line, indentation and "# line N" comment included
    int indent = 0;                 // nesting level (two spaces each)
    const Stmt* stmt = nullptr;     // the statement the line prints; null for headers, allocations, `else:`
    const Buffer* buffer = nullptr; // alloc lines: the buffer
    SourceRange range;              // what the line came from (statement, buffer allocation or prim_func)
};

std::vector<PrintedLine> printModuleLines(const Module& module, const SourceManager* sources = nullptr);
// The listing joined with '\n' (ends with a newline).
std::string printModule(const Module& module, const SourceManager* sources = nullptr);
// One statement tree, indented from level 0.
std::string printStmt(const StmtPtr& stmt, const SourceManager* sources = nullptr);

// "shared float16[128, 64]"
std::string printBufferType(const Buffer& buffer);
// "A[by * 128 : +128, 0:64]": a constant start and extent print as lo:hi, anything else as start : +extent.
std::string printRegion(const Region& region);

} // namespace tb::ir
