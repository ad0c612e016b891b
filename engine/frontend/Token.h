// The tokens of the Python subset: what the lexer hands the parser. A token is a kind, a byte range and,
// for literals, the value the lexer already decoded (numbers, string escapes), so that the parser never
// looks at raw characters again. Layout tokens (Newline, Indent, Dedent) follow Python's tokenizer: one
// Newline ends each logical line, and Indent/Dedent bracket every indented block.
#pragma once

#include <cstdint>
#include <string>

namespace tb {

enum class TokenKind : uint8_t {
    EndOfFile,
    Newline,
    Indent,
    Dedent,
    Name,
    Int,
    Float,
    Imaginary, // 1j: lexed so that the parser can name it as unsupported
    String,    // one literal piece; adjacent pieces are joined by the parser

    // Brackets and punctuation
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Colon,
    Comma,
    Semicolon,
    Dot,
    Ellipsis,
    Arrow,
    ColonEqual,
    At,
    Equal,

    // Operators
    Plus,
    Minus,
    Star,
    Slash,
    DoubleSlash,
    Percent,
    DoubleStar,
    Pipe,
    Amp,
    Caret,
    Tilde,
    LeftShift,
    RightShift,
    Less,
    Greater,
    EqEqual,
    NotEqual,
    LessEqual,
    GreaterEqual,

    // Augmented assignment
    PlusEqual,
    MinusEqual,
    StarEqual,
    SlashEqual,
    DoubleSlashEqual,
    PercentEqual,
    DoubleStarEqual,
    PipeEqual,
    AmpEqual,
    CaretEqual,
    LeftShiftEqual,
    RightShiftEqual,
    AtEqual,

    // Hard keywords (soft ones such as `match` and `type` stay Names)
    KwFalse,
    KwNone,
    KwTrue,
    KwAnd,
    KwAs,
    KwAssert,
    KwAsync,
    KwAwait,
    KwBreak,
    KwClass,
    KwContinue,
    KwDef,
    KwDel,
    KwElif,
    KwElse,
    KwExcept,
    KwFinally,
    KwFor,
    KwFrom,
    KwGlobal,
    KwIf,
    KwImport,
    KwIn,
    KwIs,
    KwLambda,
    KwNonlocal,
    KwNot,
    KwOr,
    KwPass,
    KwRaise,
    KwReturn,
    KwTry,
    KwWhile,
    KwWith,
    KwYield,
};

struct Token {
    TokenKind kind = TokenKind::EndOfFile;
    uint32_t begin = 0; // byte offsets, half open
    uint32_t end = 0;
    uint32_t line = 1; // 1-based line of `begin`
    // The lexer already reported a problem here (unterminated string, bad number, unclosed bracket), so the
    // parser stays quiet about this token instead of piling a second diagnostic on the same mistake.
    bool afterLexError = false;

    // Int: value (saturated at INT64_MAX when intOverflow). Float/Imaginary: floatValue.
    int64_t intValue = 0;
    bool intOverflow = false;
    double floatValue = 0;

    // String: the decoded value; for f-strings the raw text between the quotes.
    std::string text;
    bool isBytes = false;
    bool isFString = false;
};

// How a token kind reads in a message: "'('", "'if'", "name", "newline", "end of file".
const char* tokenKindSpelling(TokenKind kind);

} // namespace tb
