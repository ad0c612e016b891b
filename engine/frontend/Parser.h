// Lexes and parses a whole tile-program file into an ast::Module. Errors are reported to the
// DiagnosticEngine with the exact location and a hint; the parser recovers at the next statement so that
// several errors come out of one run, and it never crashes or loops on any input (it is fuzzed).
#pragma once

#include "engine/frontend/Ast.h"
#include "engine/support/Diagnostics.h"

namespace tb {

// Returns the module parsed so far even when there were errors (callers check diagnostics.hasErrors()).
ast::Module parseModule(const SourceManager& sources, FileId file, DiagnosticEngine& diagnostics);

} // namespace tb
