// The compile line, in one place: source text -> syntax tree -> Tile IR -> checks -> the layout plan (warp
// partition, layout inference, loop/reduce/copy plans, shared layouts, kernel schedule, budget, bank
// analysis) -> CUDA. Every client (tilec, the app, the runner, tests, benchmarks) compiles through
// compileTileProgram, which runs the rows of the pass table (PassTable.h) in order, with per-pass timings,
// for one device and one backend: the plan every view draws is the plan the CUDA was generated from.
#pragma once

#include "engine/codegen/CudaCodegen.h"
#include "engine/elaborate/Elaborator.h"
#include "engine/frontend/Ast.h"
#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/Diagnostics.h"
#include "engine/target/Backend.h"
#include "engine/target/Target.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tb {

namespace passes {
class FragmentTableCache;
}

struct CompileOptions {
    ElaborateOptions elaborate;
    Target target = targetSm90a();  // the device: its limits, and what it could execute
    std::optional<Backend> backend; // the instruction set to plan and emit; default: defaultBackend(target)
    // TileLang's tl.disable_wgmma pass config: mma.sync even where the backend could issue wgmma.
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
    Target device;                       // the GPU compiled for
    Backend backend = Backend::Portable; // the instruction set the plan and the code use
    Target target;                       // instructionTarget(device, backend): what every pass planned for
    ast::Module ast;
    std::unique_ptr<ir::Module> module;
    // The layout engine's decisions and the kernel schedule; refers into `module`.
    std::unique_ptr<layout::LayoutPlan> plan;
    // The CUDA generated from exactly `plan` (the codegen pass).
    std::unique_ptr<codegen::CudaKernelSource> cuda;
    std::vector<PassTiming> timings;
    std::string failedPass; // the first pass that reported an error, "" when none did

    CompileResult();
    ~CompileResult();

    bool ok() const { return !diagnostics.hasErrors() && module != nullptr; }
    // The layout plan is complete: every pass up to and including bank-analysis ran without errors (codegen
    // may still have failed: the views can draw the plan and say why there is no code).
    bool planComplete() const;
    bool ran(const std::string& pass) const;
    std::string formattedDiagnostics() const { return formatDiagnostics(sources, diagnostics.diagnostics()); }

    // Fragment tables shared by the layout passes of this compilation.
    std::unique_ptr<passes::FragmentTableCache> fragmentTables;
};

// One pass of the compile line, described once: tilec lists these and the app shows the summary as a tooltip.
struct PassInfo {
    const char* name;    // kebab-case, e.g. "elaborate"
    const char* summary; // one line
};

// The rows of the pass table, in order, codegen last.
const std::vector<PassInfo>& pipelinePasses();

// Compiles the text of a tile program named `fileName`. Never throws; user errors are diagnostics.
std::unique_ptr<CompileResult> compileTileProgram(std::string fileName, std::string text,
                                                  const CompileOptions& options = {});

} // namespace tb
