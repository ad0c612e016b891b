// The compiler pipeline, in one place: source text -> AST -> Tile IR -> checks -> warp partition -> layout
// inference -> loop, reduce and copy plans -> shared layouts (swizzles) -> shared-memory budget -> bank
// analysis. Every client (tilec, the app, the
// runner, tests, benchmarks) compiles through compileTileProgram, so they all see the same passes in the
// same order, with per-pass timings.
#pragma once

#include "engine/elaborate/Elaborator.h"
#include "engine/frontend/Ast.h"
#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/Diagnostics.h"
#include "engine/target/Target.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace tb {

// One pass of the pipeline, described once: tilec lists these and the app shows the summary as a tooltip.
struct PassInfo {
    const char* name;    // kebab-case, e.g. "elaborate"
    const char* summary; // one line
};

const std::vector<PassInfo>& pipelinePasses();

namespace passes {
class FragmentTableCache;
}

struct CompileOptions {
    ElaborateOptions elaborate;
    Target target = targetSm90a();
    // Fall back from wgmma to mma.sync on sm_90a (the portable path).
    bool disableWgmma = false;
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
    // The layout engine's decisions; refers into `module`.
    std::unique_ptr<layout::LayoutPlan> plan;
    std::vector<PassTiming> timings;

    CompileResult();
    ~CompileResult();

    bool ok() const { return !diagnostics.hasErrors() && module != nullptr; }
    std::string formattedDiagnostics() const { return formatDiagnostics(sources, diagnostics.diagnostics()); }

    // Fragment tables shared by the layout passes of this compilation.
    std::unique_ptr<passes::FragmentTableCache> fragmentTables;
};

// Compiles the text of a tile program named `fileName`. Never throws; user errors are diagnostics.
std::unique_ptr<CompileResult> compileTileProgram(std::string fileName, std::string text,
                                                  const CompileOptions& options = {});

} // namespace tb
