// Turns one source file into tokens, Python style: INDENT/DEDENT from an indentation stack, implicit line
// joining inside brackets, backslash continuation, comments, CRLF, numbers with underscores and prefixes,
// every string form (raw, bytes, triple-quoted, f-strings kept raw) with escapes decoded. Lexical errors
// become diagnostics and lexing goes on, so the parser always gets a well-formed stream: every Indent has
// its Dedent and the stream ends with EndOfFile.
#pragma once

#include "engine/frontend/Token.h"
#include "engine/support/Diagnostics.h"

#include <cstdint>
#include <vector>

namespace tb {

struct LexedFile {
    std::vector<Token> tokens;        // ends with EndOfFile
    std::vector<uint32_t> errorLines; // 1-based lines on which the lexer reported an error
};

LexedFile lexFile(const SourceManager& sources, FileId file, DiagnosticEngine& diagnostics);

} // namespace tb
