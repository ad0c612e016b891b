// The lexer: one pass over the bytes of a file, a stack of indentation levels and a stack of open
// brackets. Every loop consumes at least one byte, so any input ends; problems are reported and skipped.
#include "engine/frontend/Lexer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace tb {

const char* tokenKindSpelling(TokenKind kind) {
    switch (kind) {
    case TokenKind::EndOfFile:
        return "end of file";
    case TokenKind::Newline:
        return "end of line";
    case TokenKind::Indent:
        return "indent";
    case TokenKind::Dedent:
        return "dedent";
    case TokenKind::Name:
        return "name";
    case TokenKind::Int:
        return "integer";
    case TokenKind::Float:
        return "float";
    case TokenKind::Imaginary:
        return "imaginary number";
    case TokenKind::String:
        return "string";
    case TokenKind::LParen:
        return "'('";
    case TokenKind::RParen:
        return "')'";
    case TokenKind::LBracket:
        return "'['";
    case TokenKind::RBracket:
        return "']'";
    case TokenKind::LBrace:
        return "'{'";
    case TokenKind::RBrace:
        return "'}'";
    case TokenKind::Colon:
        return "':'";
    case TokenKind::Comma:
        return "','";
    case TokenKind::Semicolon:
        return "';'";
    case TokenKind::Dot:
        return "'.'";
    case TokenKind::Ellipsis:
        return "'...'";
    case TokenKind::Arrow:
        return "'->'";
    case TokenKind::ColonEqual:
        return "':='";
    case TokenKind::At:
        return "'@'";
    case TokenKind::Equal:
        return "'='";
    case TokenKind::Plus:
        return "'+'";
    case TokenKind::Minus:
        return "'-'";
    case TokenKind::Star:
        return "'*'";
    case TokenKind::Slash:
        return "'/'";
    case TokenKind::DoubleSlash:
        return "'//'";
    case TokenKind::Percent:
        return "'%'";
    case TokenKind::DoubleStar:
        return "'**'";
    case TokenKind::Pipe:
        return "'|'";
    case TokenKind::Amp:
        return "'&'";
    case TokenKind::Caret:
        return "'^'";
    case TokenKind::Tilde:
        return "'~'";
    case TokenKind::LeftShift:
        return "'<<'";
    case TokenKind::RightShift:
        return "'>>'";
    case TokenKind::Less:
        return "'<'";
    case TokenKind::Greater:
        return "'>'";
    case TokenKind::EqEqual:
        return "'=='";
    case TokenKind::NotEqual:
        return "'!='";
    case TokenKind::LessEqual:
        return "'<='";
    case TokenKind::GreaterEqual:
        return "'>='";
    case TokenKind::PlusEqual:
        return "'+='";
    case TokenKind::MinusEqual:
        return "'-='";
    case TokenKind::StarEqual:
        return "'*='";
    case TokenKind::SlashEqual:
        return "'/='";
    case TokenKind::DoubleSlashEqual:
        return "'//='";
    case TokenKind::PercentEqual:
        return "'%='";
    case TokenKind::DoubleStarEqual:
        return "'**='";
    case TokenKind::PipeEqual:
        return "'|='";
    case TokenKind::AmpEqual:
        return "'&='";
    case TokenKind::CaretEqual:
        return "'^='";
    case TokenKind::LeftShiftEqual:
        return "'<<='";
    case TokenKind::RightShiftEqual:
        return "'>>='";
    case TokenKind::AtEqual:
        return "'@='";
    case TokenKind::KwFalse:
        return "'False'";
    case TokenKind::KwNone:
        return "'None'";
    case TokenKind::KwTrue:
        return "'True'";
    case TokenKind::KwAnd:
        return "'and'";
    case TokenKind::KwAs:
        return "'as'";
    case TokenKind::KwAssert:
        return "'assert'";
    case TokenKind::KwAsync:
        return "'async'";
    case TokenKind::KwAwait:
        return "'await'";
    case TokenKind::KwBreak:
        return "'break'";
    case TokenKind::KwClass:
        return "'class'";
    case TokenKind::KwContinue:
        return "'continue'";
    case TokenKind::KwDef:
        return "'def'";
    case TokenKind::KwDel:
        return "'del'";
    case TokenKind::KwElif:
        return "'elif'";
    case TokenKind::KwElse:
        return "'else'";
    case TokenKind::KwExcept:
        return "'except'";
    case TokenKind::KwFinally:
        return "'finally'";
    case TokenKind::KwFor:
        return "'for'";
    case TokenKind::KwFrom:
        return "'from'";
    case TokenKind::KwGlobal:
        return "'global'";
    case TokenKind::KwIf:
        return "'if'";
    case TokenKind::KwImport:
        return "'import'";
    case TokenKind::KwIn:
        return "'in'";
    case TokenKind::KwIs:
        return "'is'";
    case TokenKind::KwLambda:
        return "'lambda'";
    case TokenKind::KwNonlocal:
        return "'nonlocal'";
    case TokenKind::KwNot:
        return "'not'";
    case TokenKind::KwOr:
        return "'or'";
    case TokenKind::KwPass:
        return "'pass'";
    case TokenKind::KwRaise:
        return "'raise'";
    case TokenKind::KwReturn:
        return "'return'";
    case TokenKind::KwTry:
        return "'try'";
    case TokenKind::KwWhile:
        return "'while'";
    case TokenKind::KwWith:
        return "'with'";
    case TokenKind::KwYield:
        return "'yield'";
    }
    return "token";
}

namespace {

struct Keyword {
    std::string_view spelling;
    TokenKind kind;
};

constexpr std::array<Keyword, 35> kKeywords{{
    {"False", TokenKind::KwFalse},
    {"None", TokenKind::KwNone},
    {"True", TokenKind::KwTrue},
    {"and", TokenKind::KwAnd},
    {"as", TokenKind::KwAs},
    {"assert", TokenKind::KwAssert},
    {"async", TokenKind::KwAsync},
    {"await", TokenKind::KwAwait},
    {"break", TokenKind::KwBreak},
    {"class", TokenKind::KwClass},
    {"continue", TokenKind::KwContinue},
    {"def", TokenKind::KwDef},
    {"del", TokenKind::KwDel},
    {"elif", TokenKind::KwElif},
    {"else", TokenKind::KwElse},
    {"except", TokenKind::KwExcept},
    {"finally", TokenKind::KwFinally},
    {"for", TokenKind::KwFor},
    {"from", TokenKind::KwFrom},
    {"global", TokenKind::KwGlobal},
    {"if", TokenKind::KwIf},
    {"import", TokenKind::KwImport},
    {"in", TokenKind::KwIn},
    {"is", TokenKind::KwIs},
    {"lambda", TokenKind::KwLambda},
    {"nonlocal", TokenKind::KwNonlocal},
    {"not", TokenKind::KwNot},
    {"or", TokenKind::KwOr},
    {"pass", TokenKind::KwPass},
    {"raise", TokenKind::KwRaise},
    {"return", TokenKind::KwReturn},
    {"try", TokenKind::KwTry},
    {"while", TokenKind::KwWhile},
    {"with", TokenKind::KwWith},
    {"yield", TokenKind::KwYield},
}};

TokenKind keywordOrName(std::string_view word) {
    if (word.size() < 2 || word.size() > 8)
        return TokenKind::Name;
    for (const Keyword& k : kKeywords)
        if (k.spelling[0] == word[0] && k.spelling == word)
            return k.kind;
    return TokenKind::Name;
}

// Keywords that can never appear inside brackets: seeing one first on a line inside an open bracket means
// the bracket was never closed, so the lexer reports it there instead of swallowing the rest of the file.
bool isStatementOnlyKeyword(TokenKind kind) {
    switch (kind) {
    case TokenKind::KwDef:
    case TokenKind::KwClass:
    case TokenKind::KwReturn:
    case TokenKind::KwImport:
    case TokenKind::KwFrom:
    case TokenKind::KwPass:
    case TokenKind::KwBreak:
    case TokenKind::KwContinue:
    case TokenKind::KwRaise:
    case TokenKind::KwAssert:
    case TokenKind::KwGlobal:
    case TokenKind::KwNonlocal:
    case TokenKind::KwDel:
    case TokenKind::KwTry:
    case TokenKind::KwExcept:
    case TokenKind::KwFinally:
    case TokenKind::KwWhile:
    case TokenKind::KwWith:
    case TokenKind::KwElif:
        return true;
    default:
        return false;
    }
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
bool isAsciiIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isAsciiIdentChar(char c) {
    return isAsciiIdentStart(c) || isDigit(c);
}

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int digitValue(char c, int base) {
    int v = hexValue(c);
    return v >= 0 && v < base ? v : -1;
}

// Decodes one UTF-8 sequence; returns its length, or 0 when the bytes are not valid UTF-8.
uint32_t decodeUtf8(std::string_view text, size_t pos, uint32_t& codePoint) {
    auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    unsigned char b0 = byte(pos);
    uint32_t length = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
    if (length == 0 || b0 >= 0xF8 || pos + length > text.size())
        return 0;
    uint32_t cp = b0 & (0x7F >> length);
    for (uint32_t i = 1; i < length; ++i) {
        unsigned char b = byte(pos + i);
        if ((b & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kMinForLength[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLength[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    codePoint = cp;
    return length;
}

// Non-ASCII characters that look like punctuation or spaces (pasted full-width commas, smart quotes,
// no-break spaces, emoji) are errors; other letters are allowed in names, as Python allows them.
bool isSuspiciousCodePoint(uint32_t cp) {
    return cp == 0xA0 || cp == 0xAD || (cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x2190 && cp <= 0x2BFF) ||
           (cp >= 0x3000 && cp <= 0x303F) || cp == 0xFEFF || (cp >= 0xFF00 && cp <= 0xFF0F) ||
           (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
           (cp >= 0xFF5B && cp <= 0xFF65) || (cp >= 0x1F000 && cp <= 0x1FAFF);
}

void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::string hexByte(unsigned char b) {
    static const char* digits = "0123456789abcdef";
    return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

std::string codePointName(uint32_t cp) {
    static const char* digits = "0123456789ABCDEF";
    std::string hex;
    for (int shift = cp > 0xFFFF ? 20 : 12; shift >= 0; shift -= 4)
        hex += digits[(cp >> shift) & 15];
    return "U+" + hex;
}

class Lexer {
public:
    Lexer(const SourceManager& sources, FileId file, DiagnosticEngine& diagnostics)
        : m_text(sources.file(file).text()), m_file(file), m_diagnostics(diagnostics) {
        m_out.tokens.reserve(m_text.size() / 2 + 16);
    }

    LexedFile run();

private:
    struct IndentLevel {
        uint32_t column;    // tabs to multiples of 8
        uint32_t altColumn; // tabs count 1: a disagreement between the two means ambiguous tabs
        bool emitted;       // an Indent token was emitted for it (false after an inconsistent dedent)
    };
    struct OpenBracket {
        char ch;
        uint32_t offset;
        size_t tokenIndex;
    };

    size_t size() const { return m_text.size(); }
    char at(size_t pos) const { return pos < m_text.size() ? m_text[pos] : '\0'; }
    bool atEnd() const { return m_pos >= m_text.size(); }

    uint32_t lineOf(uint32_t offset);
    SourceRange range(size_t begin, size_t end) const {
        return SourceRange::make(m_file, static_cast<uint32_t>(begin), static_cast<uint32_t>(end));
    }
    Token& emit(TokenKind kind, size_t begin, size_t end);
    Diagnostic& error(const char* code, size_t begin, size_t end, std::string message, std::string hint);

    void startLine();
    void handleIndentation(size_t lineStart);
    void checkUnclosedBracketAtLineStart();
    void reportUnclosedBracket();
    void lexNewline(size_t length);
    void lexName();
    void lexNumber();
    void lexString(size_t begin, size_t quote, bool raw, bool bytes, bool fstring);
    bool lexOperator();
    void lexCloser();
    void lexInvalidCharacters();
    bool identCharAt(size_t pos, size_t& length) const;
    std::string decodeEscapes(std::string_view body, size_t bodyBegin, bool bytes);

    std::string_view m_text;
    FileId m_file;
    DiagnosticEngine& m_diagnostics;
    LexedFile m_out;
    size_t m_pos = 0;
    size_t m_lineStart = 0; // offset where the current physical line begins
    bool m_atLineStart = true;
    bool m_lineHasTokens = false;             // the current logical line has produced a token
    bool m_eofAfterError = false;             // the end of file cuts a construct the lexer already reported
    bool m_bracketErrorIsConsequence = false; // an unterminated string swallowed the closing bracket
    std::vector<IndentLevel> m_indents{{0, 0, true}};
    std::vector<OpenBracket> m_brackets;
    uint32_t m_lineCursorOffset = 0;
    uint32_t m_lineCursorLine = 1;
};

uint32_t Lexer::lineOf(uint32_t offset) {
    // Tokens and errors arrive almost in order; walk forward from the last answer, restart when behind.
    if (offset < m_lineCursorOffset) {
        m_lineCursorOffset = 0;
        m_lineCursorLine = 1;
    }
    for (; m_lineCursorOffset < offset && m_lineCursorOffset < m_text.size(); ++m_lineCursorOffset)
        if (m_text[m_lineCursorOffset] == '\n')
            ++m_lineCursorLine;
    return m_lineCursorLine;
}

Token& Lexer::emit(TokenKind kind, size_t begin, size_t end) {
    Token& t = m_out.tokens.emplace_back();
    t.kind = kind;
    t.begin = static_cast<uint32_t>(begin);
    t.end = static_cast<uint32_t>(end);
    t.line = lineOf(t.begin);
    if (kind != TokenKind::Newline && kind != TokenKind::Indent && kind != TokenKind::Dedent &&
        kind != TokenKind::EndOfFile)
        m_lineHasTokens = true;
    return t;
}

Diagnostic& Lexer::error(const char* code, size_t begin, size_t end, std::string message, std::string hint) {
    m_out.errorLines.push_back(lineOf(static_cast<uint32_t>(begin)));
    return m_diagnostics.error(code, range(begin, end), std::move(message), std::move(hint));
}

LexedFile Lexer::run() {
    if (m_text.substr(0, 3) == "\xEF\xBB\xBF")
        m_pos = m_lineStart = 3; // a UTF-8 byte order mark is not part of the program
    while (true) {
        if (m_atLineStart) {
            m_atLineStart = false;
            startLine();
        }
        if (atEnd())
            break;
        char c = m_text[m_pos];
        switch (c) {
        case ' ':
        case '\t':
        case '\f':
            ++m_pos;
            break;
        case '\n':
            lexNewline(1);
            break;
        case '\r':
            lexNewline(at(m_pos + 1) == '\n' ? 2 : 1);
            break;
        case '#':
            while (!atEnd() && m_text[m_pos] != '\n' && m_text[m_pos] != '\r')
                ++m_pos;
            break;
        case '\\': {
            char next = at(m_pos + 1);
            if (next == '\n' || next == '\r') {
                m_pos += (next == '\r' && at(m_pos + 2) == '\n') ? 3 : 2;
                m_lineStart = m_pos; // a joined line: no indentation processing, no Newline
            } else if (m_pos + 1 >= size()) {
                error("invalid-character", m_pos, m_pos + 1,
                      "unexpected end of file after line continuation character", "remove the trailing '\\'");
                ++m_pos;
            } else {
                error("invalid-character", m_pos, m_pos + 1,
                      "unexpected character after line continuation character",
                      "a '\\' continues a line only when it is the last character on the line");
                ++m_pos;
            }
            break;
        }
        case '"':
        case '\'':
            lexString(m_pos, m_pos, false, false, false);
            break;
        default:
            if (isDigit(c) || (c == '.' && isDigit(at(m_pos + 1)))) {
                lexNumber();
            } else if (isAsciiIdentStart(c) || static_cast<unsigned char>(c) >= 0x80) {
                size_t length = 0;
                if (identCharAt(m_pos, length))
                    lexName();
                else
                    lexInvalidCharacters();
            } else if (!lexOperator()) {
                lexInvalidCharacters();
            }
            break;
        }
    }

    if (!m_brackets.empty()) {
        reportUnclosedBracket();
        m_eofAfterError = true;
    }
    uint32_t end = static_cast<uint32_t>(size());
    if (m_lineHasTokens)
        emit(TokenKind::Newline, end, end).afterLexError = m_eofAfterError;
    for (size_t i = m_indents.size(); i-- > 1;)
        if (m_indents[i].emitted)
            emit(TokenKind::Dedent, end, end);
    emit(TokenKind::EndOfFile, end, end).afterLexError = m_eofAfterError;
    return std::move(m_out);
}

void Lexer::startLine() {
    m_lineStart = m_pos;
    if (m_brackets.empty())
        handleIndentation(m_pos);
    else
        checkUnclosedBracketAtLineStart();
}

void Lexer::handleIndentation(size_t lineStart) {
    uint32_t column = 0;
    uint32_t altColumn = 0;
    size_t p = lineStart;
    for (; p < size(); ++p) {
        char c = m_text[p];
        if (c == ' ') {
            ++column;
            ++altColumn;
        } else if (c == '\t') {
            column = (column / 8 + 1) * 8;
            ++altColumn;
        } else if (c == '\f') {
            column = altColumn = 0;
        } else {
            break;
        }
    }
    m_pos = p;
    char c = at(p);
    if (p >= size() || c == '#' || c == '\n' || c == '\r')
        return; // blank and comment-only lines do not take part in indentation

    auto tabError = [&] {
        error("inconsistent-tabs", lineStart, p, "inconsistent use of tabs and spaces in indentation",
              "indent with spaces only (4 per level)");
    };
    IndentLevel top = m_indents.back();
    if (column == top.column) {
        if (altColumn != top.altColumn)
            tabError();
        return;
    }
    if (column > top.column) {
        if (altColumn <= top.altColumn)
            tabError();
        m_indents.push_back({column, altColumn, true});
        emit(TokenKind::Indent, lineStart, p);
        return;
    }
    bool matchesOuterLevel = false;
    for (const auto& level : m_indents)
        matchesOuterLevel = matchesOuterLevel || level.column == column;
    if (!matchesOuterLevel) {
        error("inconsistent-indentation", lineStart, p, "unindent does not match any outer indentation level",
              "indent this line like one of the enclosing blocks");
        // Keep the odd line in the block it follows: the lines after it, still at that block's
        // indentation, then parse normally instead of cascading into "unexpected indent".
        return;
    }
    while (m_indents.size() > 1 && column < m_indents.back().column) {
        if (m_indents.back().emitted)
            emit(TokenKind::Dedent, p, p);
        m_indents.pop_back();
    }
    if (altColumn != m_indents.back().altColumn) {
        tabError();
    }
}

void Lexer::checkUnclosedBracketAtLineStart() {
    size_t p = m_pos;
    while (p < size() && (m_text[p] == ' ' || m_text[p] == '\t' || m_text[p] == '\f'))
        ++p;
    size_t q = p;
    while (q < size() && isAsciiIdentChar(m_text[q]))
        ++q;
    if (q == p || isDigit(m_text[p]) || !isStatementOnlyKeyword(keywordOrName(m_text.substr(p, q - p))))
        return;
    reportUnclosedBracket();
    m_brackets.clear();
    if (m_lineHasTokens) {
        uint32_t end = m_out.tokens.back().end;
        Token& t = emit(TokenKind::Newline, end, end);
        t.afterLexError = true;
    }
    m_lineHasTokens = false;
    handleIndentation(m_lineStart);
}

void Lexer::reportUnclosedBracket() {
    // Everything after the outermost unclosed bracket is suspect: mark it so that the parser does not
    // pile "expected ')'" and friends on top of this one diagnostic.
    for (size_t i = m_brackets.front().tokenIndex; i < m_out.tokens.size(); ++i)
        m_out.tokens[i].afterLexError = true;
    if (m_bracketErrorIsConsequence) {
        m_bracketErrorIsConsequence = false;
        return;
    }
    const OpenBracket& open = m_brackets.back();
    error("unbalanced-bracket", open.offset, open.offset + 1,
          std::string("'") + open.ch + "' was never closed",
          std::string("add the matching '") +
              (open.ch == '('   ? ')'
               : open.ch == '[' ? ']'
                                : '}') +
              "'");
}

void Lexer::lexNewline(size_t length) {
    if (m_brackets.empty() && m_lineHasTokens) {
        emit(TokenKind::Newline, m_pos, m_pos + length);
        m_lineHasTokens = false;
    }
    m_pos += length;
    m_atLineStart = true;
}

bool Lexer::identCharAt(size_t pos, size_t& length) const {
    char c = at(pos);
    if (pos >= size())
        return false;
    if (isAsciiIdentChar(c)) {
        length = 1;
        return true;
    }
    if (static_cast<unsigned char>(c) < 0x80)
        return false;
    uint32_t cp = 0;
    uint32_t n = decodeUtf8(m_text, pos, cp);
    if (n == 0 || isSuspiciousCodePoint(cp))
        return false;
    length = n;
    return true;
}

void Lexer::lexName() {
    size_t begin = m_pos;
    size_t length = 0;
    while (identCharAt(m_pos, length))
        m_pos += length;
    std::string_view word = m_text.substr(begin, m_pos - begin);
    char next = at(m_pos);
    if ((next == '\'' || next == '"') && word.size() <= 2) {
        bool raw = false, bytes = false, fstring = false, unicode = false, valid = true;
        for (char ch : word) {
            switch (ch | 0x20) { // ASCII lower case
            case 'r':
                valid &= !raw;
                raw = true;
                break;
            case 'b':
                valid &= !bytes;
                bytes = true;
                break;
            case 'f':
                valid &= !fstring;
                fstring = true;
                break;
            case 'u':
                valid &= !unicode;
                unicode = true;
                break;
            default:
                valid = false;
                break;
            }
        }
        valid &= !(bytes && fstring) && !(unicode && (raw || bytes || fstring));
        if (valid) {
            lexString(begin, m_pos, raw, bytes, fstring);
            return;
        }
    }
    emit(keywordOrName(word), begin, m_pos);
}

void Lexer::lexNumber() {
    size_t begin = m_pos;
    auto finishInvalid = [&](const char* what, std::string hint) {
        size_t length = 0;
        while (identCharAt(m_pos, length))
            m_pos += length;
        error("invalid-number", begin, m_pos,
              std::string("invalid ") + what + " literal '" +
                  std::string(m_text.substr(begin, m_pos - begin)) + "'",
              std::move(hint));
        emit(TokenKind::Int, begin, m_pos).afterLexError = true;
    };

    // Scans digits of `base` with single underscores between them; false on a misplaced underscore.
    auto scanDigits = [&](int base, uint64_t* value, bool* overflow) {
        bool ok = true;
        bool any = false;
        while (m_pos < size()) {
            char c = m_text[m_pos];
            if (c == '_') {
                if (!any || digitValue(at(m_pos + 1), base) < 0)
                    ok = false;
                ++m_pos;
                continue;
            }
            int d = digitValue(c, base);
            if (d < 0)
                break;
            any = true;
            if (value) {
                if (*value > (static_cast<uint64_t>(INT64_MAX) - d) / base)
                    *overflow = true;
                else
                    *value = *value * base + d;
            }
            ++m_pos;
        }
        return ok;
    };

    char prefix = static_cast<char>(at(m_pos + 1) | 0x20);
    if (m_text[m_pos] == '0' && (prefix == 'x' || prefix == 'o' || prefix == 'b')) {
        int base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;
        const char* what = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
        m_pos += 2;
        if (at(m_pos) == '_') // Python allows one underscore right after the prefix: 0x_ff
            ++m_pos;
        uint64_t value = 0;
        bool overflow = false;
        size_t digitsBegin = m_pos;
        bool ok = scanDigits(base, &value, &overflow);
        size_t length = 0;
        if (!ok || m_pos == digitsBegin || identCharAt(m_pos, length))
            return finishInvalid(what, base == 16  ? "hexadecimal digits are 0-9 and a-f"
                                       : base == 8 ? "octal digits are 0-7"
                                                   : "binary digits are 0 and 1");
        Token& t = emit(TokenKind::Int, begin, m_pos);
        t.intValue = overflow ? INT64_MAX : static_cast<int64_t>(value);
        t.intOverflow = overflow;
        return;
    }

    uint64_t value = 0;
    bool overflow = false;
    bool ok = scanDigits(10, &value, &overflow);
    size_t intEnd = m_pos;
    bool isFloat = false;
    if (at(m_pos) == '.') {
        isFloat = true;
        ++m_pos;
        if (isDigit(at(m_pos)))
            ok &= scanDigits(10, nullptr, nullptr);
        else if (at(m_pos) == '_')
            ok = false;
    }
    char e = static_cast<char>(at(m_pos) | 0x20);
    if (e == 'e') {
        size_t p = m_pos + 1;
        if (at(p) == '+' || at(p) == '-')
            ++p;
        if (isDigit(at(p))) {
            isFloat = true;
            m_pos = p;
            ok &= scanDigits(10, nullptr, nullptr);
        }
    }
    bool imaginary = (at(m_pos) | 0x20) == 'j';
    if (imaginary)
        ++m_pos;
    size_t length = 0;
    if (!ok)
        return finishInvalid("decimal", "underscores in numbers must sit between digits, e.g. 1_000");
    if (identCharAt(m_pos, length))
        return finishInvalid("decimal", "a number must not run into a name; add a space or an operator");
    std::string_view digits = m_text.substr(begin, intEnd - begin);
    if (!isFloat && !imaginary && digits.size() > 1 && digits[0] == '0' &&
        digits.find_first_not_of("0_") != std::string_view::npos) {
        error("invalid-number", begin, m_pos, "leading zeros in decimal integer literals are not permitted",
              "use an 0o prefix for octal integers, e.g. 0o17");
        emit(TokenKind::Int, begin, m_pos).afterLexError = true;
        return;
    }
    if (!isFloat && !imaginary) {
        Token& t = emit(TokenKind::Int, begin, m_pos);
        t.intValue = overflow ? INT64_MAX : static_cast<int64_t>(value);
        t.intOverflow = overflow;
        return;
    }
    std::string clean;
    for (char c : m_text.substr(begin, m_pos - begin - (imaginary ? 1 : 0)))
        if (c != '_')
            clean += c;
    double d = 0;
    auto [ptr, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), d);
    if (ec == std::errc::result_out_of_range) // too large becomes inf, too small 0, as in Python
        d = clean.find("e-") != std::string::npos || clean.find("E-") != std::string::npos ? 0.0 : HUGE_VAL;
    Token& t = emit(imaginary ? TokenKind::Imaginary : TokenKind::Float, begin, m_pos);
    t.floatValue = d;
}

void Lexer::lexString(size_t begin, size_t quote, bool raw, bool bytes, bool fstring) {
    char q = m_text[quote];
    bool triple = at(quote + 1) == q && at(quote + 2) == q;
    size_t bodyBegin = quote + (triple ? 3 : 1);
    size_t p = bodyBegin;
    size_t bodyEnd = 0;
    bool terminated = false;
    while (p < size()) {
        char c = m_text[p];
        if (c == '\\') {
            // Even in raw strings a backslash keeps the next character (a quote, a newline) in the string.
            p += (at(p + 1) == '\r' && at(p + 2) == '\n') ? 3 : 2;
            continue;
        }
        if (!triple && (c == '\n' || c == '\r'))
            break;
        if (c == q && (!triple || (at(p + 1) == q && at(p + 2) == q))) {
            bodyEnd = p;
            p += triple ? 3 : 1;
            terminated = true;
            break;
        }
        ++p;
    }
    p = std::min(p, size());
    if (!terminated)
        bodyEnd = p;
    std::string_view body = m_text.substr(bodyBegin, bodyEnd - bodyBegin);
    m_pos = p;

    Token& t = emit(TokenKind::String, begin, p);
    t.isBytes = bytes;
    t.isFString = fstring;
    size_t tokenIndex = m_out.tokens.size() - 1;
    if (!terminated) {
        t.afterLexError = true;
        // The string swallowed the rest of the line, closing brackets included: an unclosed bracket
        // reported later is a consequence of this error, not a second mistake.
        if (!m_brackets.empty())
            m_bracketErrorIsConsequence = true;
        std::string quotes(triple ? 3 : 1, q);
        if (triple) {
            m_eofAfterError = true;
            error("unterminated-string", begin, bodyBegin, "unterminated triple-quoted string literal",
                  "close the string with " + quotes);
        } else {
            error("unterminated-string", begin, p, "unterminated string literal",
                  "close the string with " + quotes +
                      " on the same line, or use triple quotes for text that spans lines");
        }
    }
    std::string value = (raw || fstring) ? std::string(body) : decodeEscapes(body, bodyBegin, bytes);
    if (bytes) {
        for (size_t i = 0; i < body.size(); ++i) {
            if (static_cast<unsigned char>(body[i]) >= 0x80) {
                error("invalid-string", bodyBegin + i, bodyBegin + i + 1,
                      "bytes can only contain ascii literal characters",
                      "write non-ascii bytes as \\x escapes");
                m_out.tokens[tokenIndex].afterLexError = true;
                break;
            }
        }
    }
    m_out.tokens[tokenIndex].text = std::move(value);
}

std::string Lexer::decodeEscapes(std::string_view body, size_t bodyBegin, bool bytes) {
    std::string out;
    out.reserve(body.size());
    for (size_t i = 0; i < body.size(); ++i) {
        char c = body[i];
        if (c != '\\' || i + 1 >= body.size()) {
            out += c;
            continue;
        }
        char e = body[++i];
        switch (e) {
        case '\n':
            break;
        case '\r':
            if (i + 1 < body.size() && body[i + 1] == '\n')
                ++i;
            break;
        case '\\':
        case '\'':
        case '"':
            out += e;
            break;
        case 'a':
            out += '\a';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 't':
            out += '\t';
            break;
        case 'v':
            out += '\v';
            break;
        case 'x':
        case 'u':
        case 'U': {
            if (bytes && e != 'x') {
                out += '\\';
                out += e;
                break;
            }
            size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            uint32_t cp = 0;
            size_t n = 0;
            for (; n < digits && i + 1 + n < body.size() && hexValue(body[i + 1 + n]) >= 0; ++n)
                cp = cp * 16 + static_cast<uint32_t>(hexValue(body[i + 1 + n]));
            if (n < digits || cp > 0x10FFFF) {
                size_t escBegin = bodyBegin + i - 1;
                error("invalid-escape", escBegin, bodyBegin + i + 1 + n,
                      std::string("invalid \\") + e + " escape: expected " + std::to_string(digits) +
                          " hex digits",
                      "write it as \\" + std::string(1, e) + std::string(digits, '0') +
                          ", or use a raw string r'...' for a literal backslash");
                out += '\\';
                out += e;
                break;
            }
            i += n;
            if (bytes)
                out += static_cast<char>(cp);
            else
                appendUtf8(out, cp);
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                uint32_t v = static_cast<uint32_t>(e - '0');
                for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
                    v = v * 8 + static_cast<uint32_t>(body[++i] - '0');
                if (bytes)
                    out += static_cast<char>(v & 0xFF);
                else
                    appendUtf8(out, v);
            } else {
                // Unknown escapes (and \N{...}, which would need the Unicode name table) stay as written.
                out += '\\';
                out += e;
            }
            break;
        }
    }
    return out;
}

bool Lexer::lexOperator() {
    char c1 = at(m_pos + 1);
    char c2 = at(m_pos + 2);
    TokenKind kind;
    size_t length = 1;
    // One-, two- and three-character forms of an operator that may be followed by '=' or doubled.
    auto pick = [&](TokenKind single, TokenKind withEqual) {
        kind = c1 == '=' ? withEqual : single;
        length = c1 == '=' ? 2 : 1;
    };
    auto pickDoubled = [&](char ch, TokenKind single, TokenKind withEqual, TokenKind doubled,
                           TokenKind doubledEqual) {
        if (c1 == ch) {
            kind = c2 == '=' ? doubledEqual : doubled;
            length = c2 == '=' ? 3 : 2;
        } else {
            pick(single, withEqual);
        }
    };
    switch (m_text[m_pos]) {
    case '(':
    case '[':
    case '{': {
        char ch = m_text[m_pos];
        m_brackets.push_back({ch, static_cast<uint32_t>(m_pos), m_out.tokens.size()});
        emit(ch == '('   ? TokenKind::LParen
             : ch == '[' ? TokenKind::LBracket
                         : TokenKind::LBrace,
             m_pos, m_pos + 1);
        ++m_pos;
        return true;
    }
    case ')':
    case ']':
    case '}':
        lexCloser();
        return true;
    case ':':
        kind = c1 == '=' ? TokenKind::ColonEqual : TokenKind::Colon;
        length = c1 == '=' ? 2 : 1;
        break;
    case ',':
        kind = TokenKind::Comma;
        break;
    case ';':
        kind = TokenKind::Semicolon;
        break;
    case '.':
        kind = c1 == '.' && c2 == '.' ? TokenKind::Ellipsis : TokenKind::Dot;
        length = kind == TokenKind::Ellipsis ? 3 : 1;
        break;
    case '~':
        kind = TokenKind::Tilde;
        break;
    case '+':
        pick(TokenKind::Plus, TokenKind::PlusEqual);
        break;
    case '-':
        if (c1 == '>') {
            kind = TokenKind::Arrow;
            length = 2;
        } else {
            pick(TokenKind::Minus, TokenKind::MinusEqual);
        }
        break;
    case '%':
        pick(TokenKind::Percent, TokenKind::PercentEqual);
        break;
    case '&':
        pick(TokenKind::Amp, TokenKind::AmpEqual);
        break;
    case '|':
        pick(TokenKind::Pipe, TokenKind::PipeEqual);
        break;
    case '^':
        pick(TokenKind::Caret, TokenKind::CaretEqual);
        break;
    case '@':
        pick(TokenKind::At, TokenKind::AtEqual);
        break;
    case '=':
        pick(TokenKind::Equal, TokenKind::EqEqual);
        break;
    case '*':
        pickDoubled('*', TokenKind::Star, TokenKind::StarEqual, TokenKind::DoubleStar,
                    TokenKind::DoubleStarEqual);
        break;
    case '/':
        pickDoubled('/', TokenKind::Slash, TokenKind::SlashEqual, TokenKind::DoubleSlash,
                    TokenKind::DoubleSlashEqual);
        break;
    case '<':
        if (c1 == '>') {
            error("unexpected-token", m_pos, m_pos + 2, "'<>' is not an operator",
                  "use '!=' to compare for inequality");
            emit(TokenKind::NotEqual, m_pos, m_pos + 2).afterLexError = true;
            m_pos += 2;
            return true;
        }
        pickDoubled('<', TokenKind::Less, TokenKind::LessEqual, TokenKind::LeftShift,
                    TokenKind::LeftShiftEqual);
        break;
    case '>':
        pickDoubled('>', TokenKind::Greater, TokenKind::GreaterEqual, TokenKind::RightShift,
                    TokenKind::RightShiftEqual);
        break;
    case '!':
        if (c1 != '=')
            return false;
        kind = TokenKind::NotEqual;
        length = 2;
        break;
    default:
        return false;
    }
    emit(kind, m_pos, m_pos + length);
    m_pos += length;
    return true;
}

void Lexer::lexCloser() {
    size_t begin = m_pos++;
    char ch = m_text[begin];
    char opener = ch == ')' ? '(' : ch == ']' ? '[' : '{';
    if (m_brackets.empty()) {
        error("unbalanced-bracket", begin, m_pos, std::string("unmatched '") + ch + "'",
              std::string("remove it, or add the matching '") + opener + "' before it");
        return;
    }
    OpenBracket open = m_brackets.back();
    m_brackets.pop_back();
    if (open.ch == opener) {
        emit(ch == ')'   ? TokenKind::RParen
             : ch == ']' ? TokenKind::RBracket
                         : TokenKind::RBrace,
             begin, m_pos);
        return;
    }
    char expected = open.ch == '(' ? ')' : open.ch == '[' ? ']' : '}';
    error("unbalanced-bracket", begin, m_pos,
          std::string("closing '") + ch + "' does not match opening '" + open.ch + "'",
          std::string("close it with '") + expected + "'")
        .notes.push_back({range(open.offset, open.offset + 1), std::string("'") + open.ch + "' opened here"});
    // Treat it as the closer that was meant, so parsing goes on in step with the brackets.
    TokenKind meant = expected == ')'   ? TokenKind::RParen
                      : expected == ']' ? TokenKind::RBracket
                                        : TokenKind::RBrace;
    emit(meant, begin, m_pos).afterLexError = true;
}

void Lexer::lexInvalidCharacters() {
    // One diagnostic for a run of bad characters, not one per byte.
    size_t begin = m_pos;
    std::string message;
    std::string hint = "remove it";
    while (m_pos < size()) {
        unsigned char c = static_cast<unsigned char>(m_text[m_pos]);
        size_t length = 0;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '#' || c == '"' ||
            c == '\'' || c == '\\')
            break;
        if (c < 0x80 && (isAsciiIdentChar(static_cast<char>(c)) ||
                         std::string_view("()[]{}:,;.+-*/%|&^~<>=@").find(static_cast<char>(c)) !=
                             std::string_view::npos))
            break;
        if (c >= 0x80 && identCharAt(m_pos, length))
            break;
        uint32_t cp = 0;
        uint32_t n = c >= 0x80 ? decodeUtf8(m_text, m_pos, cp) : 0;
        if (message.empty()) {
            if (c >= 0x80 && n == 0) {
                message = "invalid utf-8 byte " + hexByte(c);
                hint = "save the file as utf-8";
            } else if (c >= 0x80) {
                message = "invalid character '" + std::string(m_text.substr(m_pos, n)) + "' (" +
                          codePointName(cp) + ")";
                if (cp >= 0xFF01 && cp <= 0xFF5E)
                    hint = std::string("did you mean '") + static_cast<char>(cp - 0xFEE0) + "'?";
                else if (cp >= 0x2018 && cp <= 0x201F)
                    hint = "use ascii quotes ' or \"";
                else if (cp == 0xA0 || cp == 0x3000 || (cp >= 0x2000 && cp <= 0x200B))
                    hint = "replace it with an ordinary space";
            } else if (c == '!') {
                message = "invalid character '!'";
                hint = "use 'not' for logical negation, or '!=' to compare";
            } else if (c >= 0x20 && c < 0x7F) {
                message = std::string("invalid character '") + static_cast<char>(c) + "'";
            } else {
                message = "invalid character " + codePointName(c);
            }
        }
        m_pos += n ? n : 1;
    }
    if (m_pos == begin) // never stall: the caller only calls here on a byte no other rule takes
        ++m_pos;
    error("invalid-character", begin, m_pos, message.empty() ? "invalid character" : message, hint);
}

} // namespace

LexedFile lexFile(const SourceManager& sources, FileId file, DiagnosticEngine& diagnostics) {
    return Lexer(sources, file, diagnostics).run();
}

} // namespace tb
