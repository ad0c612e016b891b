// "The IR after each pass": for every pass of pipelinePasses(), in order, the text of what that pass
// produced, then the CUDA the backend generates ("codegen"). `tilec passes FILE` prints them and the app's
// Passes dock shows them.
//
//   parse                     the syntax tree (ast::dumpModule)
//   elaborate, verify, check  the printed Tile IR (verify and check read it and do not change it)
//   warp-partition ... bank-analysis
//                             the layout plan's section that pass fills (plan and bank printers), read
//                             from the finished plan: later passes add sections, they do not rewrite
//                             earlier ones, so a section is what its pass left
//   codegen                   generateCuda's text for the portable path (codegen::generateCudaText)
//
// Each snapshot carries a link per line to the tile-program line it came from where the printer says:
// the IR printer's source ranges, " at line N" in the plan printers, the bank table's line column, the
// codegen line map. A pass that did not run (the pipeline stopped at an earlier error) has a snapshot that
// says so.
#pragma once

#include "engine/codegen/GeneratedArtifacts.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/pipeline/Pipeline.h"

#include <string>
#include <vector>

namespace tb {

struct PassSnapshot {
    std::string pass;           // a pipelinePasses() name, or "codegen"
    std::string summary;        // its one-line summary
    bool ran = false;           // false: the pipeline stopped before it (text says why)
    std::string text;           // never empty; ends with '\n'
    std::vector<int> tileLines; // per line of text: tile-program line, 0 when none
};

// Snapshots of `result` (compiled with every pass) and `plan` (its layout plan; may be null when the program
// did not get that far). `cuda` (optional) is the generated CUDA when the caller already has it; otherwise
// it is generated here. One snapshot per pipelinePasses() entry, in order, then "codegen".
std::vector<PassSnapshot> passSnapshots(const CompileResult& result, const layout::LayoutPlan* plan,
                                        const codegen::GeneratedCuda* cuda = nullptr);

// The "codegen" pass's name and summary (it is not a pipelinePasses() entry: the pipeline stops at the
// analysis; codegen runs on demand).
const PassInfo& codegenPassInfo();

} // namespace tb
