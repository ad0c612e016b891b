// The pass table: the compile line as data. Each row is one pass: its name, a one-line summary, what it
// needs to exist before it can run, the function that runs it and the function that prints what it
// produced. compileTileProgram runs the rows in order; `tilec passes`, the Passes dock and the views read
// the same rows. Adding a pass is one row here and one file pair for the pass itself.
#pragma once

#include "engine/passes/PassContext.h"
#include "engine/pipeline/Pipeline.h"

#include <string>
#include <vector>

namespace tb {

// What a pass printed, with a link per line to the tile-program line it came from (0 when none).
struct PassText {
    std::string text; // never empty; ends with '\n'
    std::vector<int> tileLines;
};

// What a running pass is given besides the result it reads and extends.
struct PassEnvironment {
    const CompileOptions& options;
    passes::PassContext context; // device, backend and instruction target, pass options, sources
};

enum class PassNeeds {
    Source, // the text (parse)
    Ast,    // the syntax tree (elaborate)
    Module, // the Tile IR
    Plan,   // the layout plan; the runner creates it (one KernelPlan per Kernel statement) before the first
            // pass that needs it
    Cuda,   // the planned program, complete (codegen runs only when every earlier pass succeeded)
};

struct PassDefinition {
    PassInfo info;
    PassNeeds needs;
    void (*run)(CompileResult& result, PassEnvironment& environment);
    // Pre: the pass ran (CompileResult::ran).
    PassText (*snapshot)(const CompileResult& result);
};

const std::vector<PassDefinition>& passTable();

} // namespace tb
