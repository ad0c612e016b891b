// libFuzzer entry point for the frontend: every input is a source file. The lexer and parser must return
// on all of them without crashing, hanging or tripping a sanitizer; the tree is printed too, so that an
// over-deep or broken tree would show up as a crash in the printer. Built with TILEBENCH_FUZZ=ON.
#include "engine/frontend/Ast.h"
#include "engine/frontend/Parser.h"
#include "engine/support/Diagnostics.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    tb::SourceManager sources;
    tb::FileId file = sources.addFile("fuzz.py", std::string(reinterpret_cast<const char*>(data), size));
    tb::DiagnosticEngine diagnostics;
    tb::ast::Module module = tb::parseModule(sources, file, diagnostics);
    std::string dump = tb::ast::dumpModule(module);
    // Rendering walks every diagnostic's range against the source: it must stay in bounds.
    std::string report = tb::formatDiagnostics(sources, diagnostics.diagnostics());
    return dump.empty() && report.size() > size * 1000 ? 1 : 0; // never true; keeps both results alive
}
