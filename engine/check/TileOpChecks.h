// Checks of single tile operations (T.copy, T.gemm, T.reduce_*, T.atomic_add) and of constant indices
// against buffer extents. Each function looks at one statement; Checks.cpp walks the program and calls
// them (internal to engine/check/).
#pragma once

#include "engine/ir/Stmt.h"
#include "engine/support/Diagnostics.h"

namespace tb::check {

// copy-extent-mismatch, copy-fragment-shape
void checkCopy(const ir::Stmt& copy, DiagnosticEngine& diagnostics);
// gemm-shape-mismatch, gemm-accumulator-scope, gemm-operand-scope, gemm-dtype
void checkGemm(const ir::Stmt& gemm, DiagnosticEngine& diagnostics);
// reduce-dim, reduce-shape-mismatch
void checkReduce(const ir::Stmt& reduce, DiagnosticEngine& diagnostics);
// atomic-add-scope
void checkAtomicAdd(const ir::Stmt& atomicAdd, DiagnosticEngine& diagnostics);
// index-out-of-range: constant Store/BufferLoad indices and region bounds of this statement (not of its
// children) that fall outside a constant buffer extent.
void checkConstantIndices(const ir::Stmt& stmt, DiagnosticEngine& diagnostics);

} // namespace tb::check
