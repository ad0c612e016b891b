// The compiler pipeline, in one place: source text -> AST -> Tile IR -> checks -> (later) warp partition,
// layout inference, swizzles, bank analysis, pipelining, CUDA emission. Every client (tilec, the app, the
// runner, tests, benchmarks) compiles through compileTileProgram, so they all see the same passes in the
// same order, with per-pass timings.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "engine/elaborate/Elaborator.h"
#include "engine/frontend/Ast.h"
#include "engine/ir/Module.h"
#include "engine/support/Diagnostics.h"
#include "engine/target/Target.h"

namespace tb {

// One pass of the pipeline, described once: tilec lists these and the app shows the summary as a tooltip.
struct PassInfo {
    const char* name;    // kebab-case, e.g. "elaborate"
    const char* summary; // one line
};

const std::vector<PassInfo>& pipelinePasses();

struct CompileOptions {
    ElaborateOptions elaborate;
    Target target = targetSm90a();
    // Stop after this pass (by name); empty = run everything.
    std::string stopAfter;
};

struct PassTiming {
    std::string pass;
    double milliseconds = 0;
};

// Everything one compilation produced. Later passes run only when the earlier ones had no errors.
struct CompileResult {
    SourceManager sources;
    FileId file = 0;
    DiagnosticEngine diagnostics;
    ast::Module ast;
    std::unique_ptr<ir::Module> module;
    std::vector<PassTiming> timings;

    bool ok() const { return !diagnostics.hasErrors() && module != nullptr; }
    std::string formattedDiagnostics() const { return formatDiagnostics(sources, diagnostics.diagnostics()); }
};

// Compiles the text of a tile program named `fileName`. Never throws; user errors are diagnostics.
std::unique_ptr<CompileResult> compileTileProgram(std::string fileName, std::string text,
                                                  const CompileOptions& options = {});

} // namespace tb
