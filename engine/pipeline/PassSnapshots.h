// "The IR after each pass": for every row of the pass table, in order, the text of what that pass
// produced. `tilec passes FILE` prints them and the app's Passes dock shows them.
//
//   parse                     the syntax tree (ast::dumpModule)
//   elaborate, verify, check  the printed Tile IR (verify and check read it and do not change it)
//   warp-partition ... bank-analysis
//                             the layout plan's section that pass fills (plan and bank printers), read
//                             from the finished plan: later passes add sections, they do not rewrite
//                             earlier ones, so a section is what its pass left
//   codegen                   the generated CUDA (GeneratedArtifacts.h)
//
// Each snapshot carries a link per line to the tile-program line it came from where the printer says:
// the IR printer's source ranges, " at line N" in the plan printers, the bank table's line column, the
// codegen line map. A pass that did not run (the pipeline stopped at an earlier error) has a snapshot that
// says so. The snapshot* functions are the pass table's printers (PassTable.cpp names one per row).
#pragma once

#include "engine/pipeline/PassTable.h"
#include "engine/pipeline/Pipeline.h"

#include <string>
#include <vector>

namespace tb {

struct PassSnapshot {
    std::string pass;           // a pass-table row name
    std::string summary;        // its one-line summary
    bool ran = false;           // false: the pipeline stopped before it (text says why)
    std::string text;           // never empty; ends with '\n'
    std::vector<int> tileLines; // per line of text: tile-program line, 0 when none
};

// One snapshot per pass-table row, in order.
std::vector<PassSnapshot> passSnapshots(const CompileResult& result);

// The rows' printers. Pre: the row's pass ran.
PassText snapshotSyntaxTree(const CompileResult& result);
PassText snapshotTileIr(const CompileResult& result);
PassText snapshotIrUnchanged(const CompileResult& result);
PassText snapshotWarpPartition(const CompileResult& result);
PassText snapshotFragments(const CompileResult& result);
PassText snapshotLoops(const CompileResult& result);
PassText snapshotReduces(const CompileResult& result);
PassText snapshotCopies(const CompileResult& result);
PassText snapshotSharedLayouts(const CompileResult& result);
PassText snapshotSchedule(const CompileResult& result);
PassText snapshotBudget(const CompileResult& result);
PassText snapshotBanks(const CompileResult& result);
PassText snapshotCuda(const CompileResult& result);

} // namespace tb
