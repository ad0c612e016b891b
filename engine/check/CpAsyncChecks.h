// Checks of the program's own per-thread async copies (T.ptx_cp_async) and of their completion
// (T.cp_async_barrier_noinc). Internal to engine/check/: Checks.cpp calls them.
#pragma once

#include "engine/ir/Stmt.h"
#include "engine/support/Diagnostics.h"

namespace tb::check {

// cp-async-scope (global to shared), cp-async-dtype (one dtype), cp-async-width (a copy along the last
// dimension of 4, 8 or 16 bytes, the same count on both sides).
void checkCpAsync(const ir::Stmt& copy, DiagnosticEngine& diagnostics);
// cp-async-not-awaited: a T.ptx_cp_async after which the kernel (or its T.ws scope) never arrives on an
// mbarrier with T.cp_async_barrier_noinc, the only completion TileBench models for these copies.
void checkCpAsyncCompletion(const ir::Stmt& kernel, DiagnosticEngine& diagnostics);

} // namespace tb::check
