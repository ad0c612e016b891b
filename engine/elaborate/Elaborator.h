// Elaboration: runs the compile-time Python of a parsed tile program (the jit function's body, constant
// arithmetic, macros, asserts, host code that supplies default parameters) and builds the Tile IR of the
// kernel it returns. All user mistakes become diagnostics with a location and a hint.
#pragma once

#include "engine/frontend/Ast.h"
#include "engine/ir/Module.h"
#include "engine/support/Diagnostics.h"
#include "engine/target/Target.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tb {

struct ElaborateOptions {
    // NAME=VALUE overrides of jit parameters; VALUE is a Python expression ("256", "'bfloat16'", "True").
    std::vector<std::pair<std::string, std::string>> overrides;
    // Which jit function or prim_func to elaborate when the module defines several; empty = the first one
    // that the module calls, else the first defined.
    std::string entry;
    // The device compiled for: host code asks it for its SM count (get_num_sms) and compute capability.
    // Null: sm_90a.
    const Target* target = nullptr;
    // Values for T.dynamic / T.symbolic dims are not needed here: they stay symbolic in the IR.
};

// Returns null when elaboration failed; diagnostics say why.
std::unique_ptr<ir::Module> elaborate(const SourceManager& sources, const ast::Module& module,
                                      const ElaborateOptions& options, DiagnosticEngine& diagnostics);

} // namespace tb
