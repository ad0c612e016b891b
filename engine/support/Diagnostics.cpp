#include "engine/support/Diagnostics.h"

#include <algorithm>

namespace tb {

const char* severityName(Severity severity) {
    switch (severity) {
    case Severity::Error:
        return "error";
    case Severity::Warning:
        return "warning";
    case Severity::Note:
        return "note";
    }
    return "error";
}

Diagnostic& DiagnosticEngine::report(Diagnostic diagnostic) {
    bool isError = diagnostic.severity == Severity::Error;
    if (isError)
        ++m_errorCount;
    if (isError && m_errorCount > m_errorLimit) {
        // Keep a sink so callers can still attach notes; it is never stored or shown.
        static thread_local Diagnostic overflow;
        overflow = std::move(diagnostic);
        return overflow;
    }
    m_diagnostics.push_back(std::move(diagnostic));
    if (m_handler)
        m_handler(m_diagnostics.back());
    return m_diagnostics.back();
}

Diagnostic& DiagnosticEngine::error(std::string code, SourceRange range, std::string message,
                                    std::string hint) {
    return report({Severity::Error, std::move(code), range, std::move(message), std::move(hint), {}});
}

Diagnostic& DiagnosticEngine::warning(std::string code, SourceRange range, std::string message,
                                      std::string hint) {
    return report({Severity::Warning, std::move(code), range, std::move(message), std::move(hint), {}});
}

namespace {

void appendSnippet(std::string& out, const SourceManager& sources, const SourceRange& range) {
    if (!range.valid || range.file >= sources.fileCount())
        return;
    const SourceFile& file = sources.file(range.file);
    LineCol begin = file.lineCol(range.begin);
    LineCol end = file.lineCol(range.end > range.begin ? range.end - 1 : range.begin);
    std::string_view line = file.lineText(begin.line);
    std::string lineNumber = std::to_string(begin.line);
    out += "  " + lineNumber + " | ";
    out.append(line);
    out += "\n  " + std::string(lineNumber.size(), ' ') + " | ";
    uint32_t caretBegin = begin.column - 1;
    uint32_t caretEnd = end.line == begin.line ? end.column : static_cast<uint32_t>(line.size());
    caretEnd = std::max(caretEnd, caretBegin + 1);
    for (uint32_t i = 0; i < caretBegin; ++i)
        out += (i < line.size() && line[i] == '\t') ? '\t' : ' ';
    out += '^';
    for (uint32_t i = caretBegin + 1; i < caretEnd; ++i)
        out += '~';
    out += '\n';
}

} // namespace

std::string formatDiagnostic(const SourceManager& sources, const Diagnostic& diagnostic) {
    std::string out = sources.describe(diagnostic.range) + ": " + severityName(diagnostic.severity) + ": " +
                      diagnostic.message;
    if (!diagnostic.code.empty())
        out += " [" + diagnostic.code + "]";
    out += '\n';
    appendSnippet(out, sources, diagnostic.range);
    if (!diagnostic.hint.empty())
        out += "  hint: " + diagnostic.hint + "\n";
    for (const DiagnosticNote& note : diagnostic.notes) {
        out += sources.describe(note.range) + ": note: " + note.message + "\n";
        appendSnippet(out, sources, note.range);
    }
    return out;
}

std::string firstErrorMessage(const std::vector<Diagnostic>& diagnostics) {
    for (const Diagnostic& d : diagnostics)
        if (d.severity == Severity::Error)
            return d.message + " [" + d.code + "]";
    return {};
}

std::string formatDiagnostics(const SourceManager& sources, const std::vector<Diagnostic>& diagnostics) {
    std::string out;
    for (const Diagnostic& d : diagnostics)
        out += formatDiagnostic(sources, d);
    return out;
}

} // namespace tb

#include "engine/support/Json.h"

#include <cstdint>
#include <string_view>
#include <utility>

namespace tb {

namespace {

void writeLocation(JsonWriter& json, const SourceManager& sources, const SourceRange& range) {
    if (!range.valid || range.file >= sources.fileCount()) {
        json.key("file").null();
        return;
    }
    const SourceFile& file = sources.file(range.file);
    LineCol begin = file.lineCol(range.begin);
    LineCol end = file.lineCol(range.end);
    json.field("file", file.name());
    json.field("line", begin.line).field("col", begin.column);
    json.field("endLine", end.line).field("endCol", end.column);
}

} // namespace

void writeDiagnosticsJson(JsonWriter& json, const SourceManager& sources,
                          const std::vector<Diagnostic>& diagnostics) {
    json.beginArray();
    for (const Diagnostic& d : diagnostics) {
        json.beginObject();
        json.field("severity", severityName(d.severity));
        json.field("code", d.code);
        writeLocation(json, sources, d.range);
        json.field("message", d.message);
        json.field("hint", d.hint);
        json.key("notes").beginArray();
        for (const DiagnosticNote& n : d.notes) {
            json.beginObject();
            writeLocation(json, sources, n.range);
            json.field("message", n.message);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();
}

} // namespace tb
