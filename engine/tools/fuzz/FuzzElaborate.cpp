// libFuzzer entry point for the front part of the compile line: every input is a source file, parsed,
// elaborated (which runs the program's host Python: module level, main(), argparse, torch shapes, autotune
// configs), verified and checked, exactly the first four rows of the pass table
// (engine/pipeline/PassTable.cpp) for sm_90a, and every diagnostic is rendered. The host evaluator must stop
// every program (its step, recursion and size limits) with a diagnostic: no crash, hang or sanitizer report.
// The rows are called directly rather than through compileTileProgram(stopAfter = "check") because the pass
// table links the whole layout engine and codegen, which this target would otherwise have to instrument.
// Built with TILEBENCH_FUZZ=ON.
#include "engine/check/Checks.h"
#include "engine/elaborate/Elaborator.h"
#include "engine/frontend/Ast.h"
#include "engine/frontend/Parser.h"
#include "engine/ir/Module.h"
#include "engine/ir/Verifier.h"
#include "engine/support/Diagnostics.h"
#include "engine/target/Backend.h"
#include "engine/target/Target.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const tb::Target device = tb::targetSm90a();
    static const tb::Target target = tb::instructionTarget(device, tb::defaultBackend(device));
    tb::SourceManager sources;
    tb::FileId file = sources.addFile("fuzz.py", std::string(reinterpret_cast<const char*>(data), size));
    tb::DiagnosticEngine diagnostics;
    tb::ast::Module ast = tb::parseModule(sources, file, diagnostics);
    if (!diagnostics.hasErrors()) {
        tb::ElaborateOptions options;
        options.target = &device;
        std::unique_ptr<tb::ir::Module> module = tb::elaborate(sources, ast, options, diagnostics);
        if (module && !diagnostics.hasErrors() && tb::ir::verifyModule(*module, diagnostics))
            tb::check::checkModule(*module, target, diagnostics);
    }
    // Rendering walks every diagnostic's range against the source: it must stay in bounds.
    std::string report = tb::formatDiagnostics(sources, diagnostics.diagnostics());
    return report.size() > size * 100000 + (1u << 30) ? 1 : 0; // never true; keeps the report alive
}
