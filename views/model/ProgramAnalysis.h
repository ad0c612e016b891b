// The document every view draws: one compilation of the current editor text, with the layout plan (warp
// partition, fragments, shared layouts, bank analysis, budget) and the printed Tile IR lines for linked
// selection. It is immutable once built, so the app builds it on a worker thread and hands the views a
// shared pointer; a newer edit simply replaces it. Views read it and never call the compiler themselves.
#pragma once

#include "engine/check/SharedMemoryBudget.h"
#include "engine/ir/Printer.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/pipeline/Pipeline.h"
#include "views/model/BankFixes.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tb::views {

struct ProgramAnalysis {
    uint64_t generation = 0; // the edit this analysis belongs to (the app discards older ones)
    CompileOptions options;  // what the program was compiled with (target, backend, the user's overrides)
    std::unique_ptr<CompileResult> compile;
    // The compile's own plan (compile->plan), the one its CUDA was generated from; null when the plan is
    // not complete (the program has errors before codegen).
    const layout::LayoutPlan* plan = nullptr;
    std::vector<ir::PrintedLine> irLines;
    double compileMilliseconds = 0; // parse to checks
    double planMilliseconds = 0;    // the layout passes, bank analysis included
    // The shared-memory check's own numbers (check::kernelSharedMemory of every kernel, the bytes it held
    // against compile->target's per-block limit) when that check failed: the plan was never made, and the
    // budget view draws this over-limit budget instead.
    std::vector<check::KernelSharedMemory> rejectedSharedMemory;
    // Per kernel of the plan: the bank conflicts a 128B swizzle would fix (findSwizzleFixes), computed here
    // on the worker thread with the rest of the analysis.
    std::vector<std::vector<BankFix>> bankFixes;

    bool ok() const { return compile && compile->ok(); }
    const SourceManager& sources() const { return compile->sources; }
    // Every diagnostic (compile and layout passes), sorted by position.
    std::vector<Diagnostic> diagnostics() const;
    // 1-based line of a range in the program, 0 when unknown.
    uint32_t lineOf(const SourceRange& range) const;
    // IR listing lines (0-based indices) that came from tile-program `line`, and the reverse.
    std::vector<int> irLinesOfSourceLine(uint32_t line) const;
    uint32_t sourceLineOfIrLine(int irLine) const;
    const layout::KernelPlan* kernel(size_t index) const;
    // The program's num_stages: the jit parameter of that name, else the deepest pipeline the kernel schedule
    // planned (the first T.Pipelined's when there is no plan); 0 if none.
    int64_t numStages() const;
    // The first error, "line N: message" (empty when there is none): why the views are out of date.
    std::string firstError() const;
};

// Compiles `text` through the whole compile line (plan, schedule, bank analysis, CUDA). Never throws;
// everything the user got wrong is a diagnostic.
std::shared_ptr<ProgramAnalysis> analyzeProgram(std::string fileName, std::string text,
                                                const CompileOptions& options = {}, uint64_t generation = 0);

} // namespace tb::views
