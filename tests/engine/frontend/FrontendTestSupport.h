// Helpers shared by the frontend tests: lex or parse a snippet held in memory, print its tree, and list
// its diagnostics as "code@line:col" so that a test states exactly what must be reported, and where.
#pragma once

#include "engine/frontend/Ast.h"
#include "engine/frontend/Lexer.h"
#include "engine/frontend/Parser.h"
#include "engine/support/Diagnostics.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tb::test {

struct Parsed {
    SourceManager sources;
    DiagnosticEngine diagnostics;
    FileId file = 0;
    ast::Module module;

    // "code@line:col" for each diagnostic, in report order.
    std::vector<std::string> codes() const {
        std::vector<std::string> out;
        for (const Diagnostic& d : diagnostics.diagnostics()) {
            LineCol lc = sources.file(d.range.file).lineCol(d.range.begin);
            out.push_back(d.code + "@" + std::to_string(lc.line) + ":" + std::to_string(lc.column));
        }
        return out;
    }
    std::string report() const { return formatDiagnostics(sources, diagnostics.diagnostics()); }
};

inline std::unique_ptr<Parsed> parse(std::string text) {
    auto p = std::make_unique<Parsed>();
    p->file = p->sources.addFile("test.py", std::move(text));
    p->module = parseModule(p->sources, p->file, p->diagnostics);
    return p;
}

// The tree of a snippet that must parse without diagnostics ("" and a failure otherwise).
inline std::string dumpOf(std::string text) {
    auto p = parse(std::move(text));
    if (!p->diagnostics.diagnostics().empty())
        return "unexpected diagnostics:\n" + p->report();
    return ast::dumpModule(p->module);
}

// The tree of a single expression statement.
inline std::string exprOf(std::string text) {
    auto p = parse(std::move(text) + "\n");
    if (!p->diagnostics.diagnostics().empty())
        return "unexpected diagnostics:\n" + p->report();
    if (p->module.body.size() != 1 || p->module.body[0]->kind != ast::StmtKind::Expr)
        return "not one expression statement:\n" + ast::dumpModule(p->module);
    return ast::dumpExpr(*p->module.body[0]->value);
}

struct Lexed {
    SourceManager sources;
    DiagnosticEngine diagnostics;
    LexedFile result;
    std::string text;

    const std::vector<Token>& tokens() const { return result.tokens; }
    // Kinds in order, spelled compactly: names and numbers by their text, layout tokens by NL/IN/DE/EOF.
    std::string kinds() const {
        std::string out;
        for (const Token& t : result.tokens) {
            if (!out.empty())
                out += ' ';
            switch (t.kind) {
            case TokenKind::Newline:
                out += "NL";
                break;
            case TokenKind::Indent:
                out += "IN";
                break;
            case TokenKind::Dedent:
                out += "DE";
                break;
            case TokenKind::EndOfFile:
                out += "EOF";
                break;
            case TokenKind::String:
                out += "STR";
                break;
            default:
                out += text.substr(t.begin, t.end - t.begin);
                break;
            }
        }
        return out;
    }
};

inline std::unique_ptr<Lexed> lex(std::string text) {
    auto l = std::make_unique<Lexed>();
    l->text = text;
    FileId file = l->sources.addFile("test.py", std::move(text));
    l->result = lexFile(l->sources, file, l->diagnostics);
    return l;
}

} // namespace tb::test
