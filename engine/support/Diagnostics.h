// Diagnostics are values: every engine entry point reports user errors here instead of throwing or printing.
// A diagnostic has a severity, a stable kebab-case code (tests and the app key on it), a lower-case message
// with the numbers in it, the source range it blames, a hint that says how to fix it, and notes that carry
// their own locations ("layout inferred here").
#pragma once

#include "engine/support/SourceManager.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tb {

enum class Severity { Error, Warning, Note };

const char* severityName(Severity severity);

struct DiagnosticNote {
    SourceRange range;
    std::string message;
};

struct Diagnostic {
    Severity severity = Severity::Error;
    std::string code;    // e.g. "copy-extent-mismatch"
    SourceRange range;   // what is blamed
    std::string message; // lower case, no final period
    std::string hint;    // how to fix it; may be empty
    std::vector<DiagnosticNote> notes;
};

// Collects diagnostics for one compilation. A handler, when set, sees each one as it is reported
// (the app's Issues dock, a verifying test handler); the engine never writes to stderr itself.
class DiagnosticEngine {
public:
    using Handler = std::function<void(const Diagnostic&)>;

    // Returns the stored diagnostic so that callers can attach notes.
    Diagnostic& report(Diagnostic diagnostic);
    Diagnostic& error(std::string code, SourceRange range, std::string message, std::string hint = {});
    Diagnostic& warning(std::string code, SourceRange range, std::string message, std::string hint = {});

    void setHandler(Handler handler) { m_handler = std::move(handler); }
    bool hasErrors() const { return m_errorCount > 0; }
    size_t errorCount() const { return m_errorCount; }
    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }
    // Stops recording errors past this many (runaway cascades); the count keeps growing.
    void setErrorLimit(size_t limit) { m_errorLimit = limit; }

private:
    std::vector<Diagnostic> m_diagnostics;
    size_t m_errorCount = 0;
    size_t m_errorLimit = 100;
    Handler m_handler;
};

// Renders like a compiler: "file:line:col: error: message [code]", the source line, a caret range
// under the blamed text, "hint: ..." and each note the same way.
std::string formatDiagnostic(const SourceManager& sources, const Diagnostic& diagnostic);
std::string formatDiagnostics(const SourceManager& sources, const std::vector<Diagnostic>& diagnostics);
// "message [code]" of the first error, for one-line summaries; empty when there is none.
std::string firstErrorMessage(const std::vector<Diagnostic>& diagnostics);

} // namespace tb

namespace tb {
class JsonWriter;
// Writes diagnostics as a JSON array: severity, code, file, line, col, endLine, endCol, message, hint, notes.
void writeDiagnosticsJson(JsonWriter& json, const SourceManager& sources,
                          const std::vector<Diagnostic>& diagnostics);
} // namespace tb
