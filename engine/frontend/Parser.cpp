// A recursive-descent parser over the token stream of one file, one function per grammar level, in
// Python's precedence order: lambda < if-else < or < and < not < comparisons < | < ^ < & < shifts < + - <
// * / // % @ < unary < ** < await < primary. Errors use panic mode: the first error in a statement is
// reported, the rest of that statement is skipped (to the next line at the same or lower indentation),
// and parsing goes on, so one run reports several independent mistakes.
//
// Robustness: recursion goes through a depth guard (kMaxNesting), expression trees are kept lower than
// kMaxExprDepth (so the recursive printers and destructors downstream are safe), and every loop either
// consumes a token or stops.
#include "engine/frontend/Parser.h"

#include "engine/frontend/Lexer.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tb {

namespace {

using ast::Expr;
using ast::ExprKind;
using ast::ExprPtr;
using ast::Stmt;
using ast::StmtKind;
using ast::StmtPtr;
using TK = TokenKind;

constexpr int kMaxNesting = 200;         // brackets, unary chains, blocks: C++ recursion depth
constexpr uint32_t kMaxExprDepth = 1000; // height of one expression tree (long operator chains)
constexpr int kMaxElifChain = 1000;      // elif clauses nest as If nodes in orelse

enum class Clauses { None, Else, Try };

class Parser {
public:
    Parser(const SourceManager& sources, FileId file, DiagnosticEngine& diagnostics)
        : m_file(file), m_text(sources.file(file).text()), m_diagnostics(diagnostics) {
        LexedFile lexed = lexFile(sources, file, diagnostics);
        m_tokens = std::move(lexed.tokens);
        m_lexErrorLine.assign(sources.file(file).lineCount() + 2, false);
        for (uint32_t line : lexed.errorLines)
            if (line < m_lexErrorLine.size())
                m_lexErrorLine[line] = true;
    }

    ast::Module parse() {
        ast::Module module;
        module.file = m_file;
        while (!at(TK::EndOfFile)) {
            if (at(TK::Dedent)) { // cannot happen in a balanced stream; never loop on it
                advance();
                continue;
            }
            parseStatementInto(module.body);
        }
        return module;
    }

private:
    // Counts one level of recursion for as long as it lives; reports once when the limit is passed.
    class DepthGuard {
    public:
        explicit DepthGuard(Parser& parser) : m_parser(parser) {
            m_ok = ++m_parser.m_depth <= kMaxNesting;
            if (!m_ok)
                m_parser.fail("nesting-too-deep", m_parser.rangeOf(m_parser.cur()),
                              "code is nested too deeply (more than " + std::to_string(kMaxNesting) +
                                  " levels)",
                              "split it into smaller expressions or functions", m_parser.cur());
        }
        ~DepthGuard() { --m_parser.m_depth; }
        DepthGuard(const DepthGuard&) = delete;
        DepthGuard& operator=(const DepthGuard&) = delete;
        explicit operator bool() const { return m_ok; }

    private:
        Parser& m_parser;
        bool m_ok = true;
    };

    // ---------------------------------------------------------------------------------------------
    // Tokens

    const Token& cur() const { return m_tokens[m_pos]; }
    const Token& peek(size_t n) const { return m_tokens[std::min(m_pos + n, m_tokens.size() - 1)]; }
    const Token& prev() const { return m_tokens[m_pos > 0 ? m_pos - 1 : 0]; }
    bool at(TK kind) const { return cur().kind == kind; }
    const Token& advance() {
        const Token& t = m_tokens[m_pos];
        if (m_pos + 1 < m_tokens.size())
            ++m_pos;
        return t;
    }
    bool accept(TK kind) {
        if (!at(kind))
            return false;
        advance();
        return true;
    }
    std::string_view text(const Token& t) const {
        return std::string_view(m_text).substr(t.begin, t.end - t.begin);
    }
    static bool isLayout(TK kind) {
        return kind == TK::Newline || kind == TK::Indent || kind == TK::Dedent || kind == TK::EndOfFile;
    }

    SourceRange span(uint32_t begin, uint32_t end) const {
        return SourceRange::make(m_file, begin, std::max(begin, end));
    }
    SourceRange rangeOf(const Token& t) const { return span(t.begin, t.end); }
    // The end of the last real (non-layout) token consumed.
    uint32_t lastEnd() const {
        for (size_t i = m_pos; i-- > 0;)
            if (!isLayout(m_tokens[i].kind))
                return m_tokens[i].end;
        return 0;
    }
    SourceRange spanFrom(uint32_t begin) const { return span(begin, lastEnd()); }

    // Where a missing token is blamed: the offending token when it is on the line, else the spot just
    // after the previous token (so "expected ':'" points at the end of the `if` line, not the next line).
    SourceRange missingAt() const {
        if (!isLayout(cur().kind) || m_pos == 0)
            return rangeOf(cur());
        uint32_t end = lastEnd();
        return span(end, end);
    }

    std::string describe(const Token& t) const {
        if (t.kind == TK::Name)
            return "name '" + std::string(text(t)) + "'";
        if (t.kind == TK::Int || t.kind == TK::Float || t.kind == TK::Imaginary)
            return "number '" + std::string(text(t)) + "'";
        if (t.kind == TK::String)
            return "string literal";
        return tokenKindSpelling(t.kind);
    }

    // ---------------------------------------------------------------------------------------------
    // Diagnostics

    bool lexErrorOn(const Token& t) const {
        return t.afterLexError || (t.line < m_lexErrorLine.size() && m_lexErrorLine[t.line]);
    }

    // A syntax error: reported unless the lexer already reported this spot; the statement is abandoned.
    Diagnostic* fail(const char* code, SourceRange range, std::string message, std::string hint,
                     const Token& blame) {
        if (m_panic)
            return nullptr;
        m_panic = true;
        if (lexErrorOn(blame) || (&blame == &cur() && m_pos > 0 && lexErrorOn(prev())))
            return nullptr;
        return &m_diagnostics.error(code, range, std::move(message), std::move(hint));
    }
    Diagnostic* failAtCur(const char* code, std::string message, std::string hint) {
        return fail(code, missingAt(), std::move(message), std::move(hint), cur());
    }
    // An error that leaves the parse intact (a bad assignment target, a duplicate parameter).
    void report(const char* code, SourceRange range, std::string message, std::string hint,
                const Token& blame) {
        if (m_panic || lexErrorOn(blame))
            return;
        m_diagnostics.error(code, range, std::move(message), std::move(hint));
    }
    void report(const char* code, const Expr& e, std::string message, std::string hint) {
        if (m_panic)
            return;
        m_diagnostics.error(code, e.range, std::move(message), std::move(hint));
    }

    bool expect(TK kind, const char* message, const char* hint) {
        if (accept(kind))
            return true;
        failAtCur("unexpected-token", message, hint);
        return false;
    }
    bool expectClosing(TK closer, const Token& opener, const char* message, const char* hint) {
        if (accept(closer))
            return true;
        if (Diagnostic* d = failAtCur("unexpected-token", message, hint))
            d->notes.push_back({rangeOf(opener), "'" + std::string(text(opener)) + "' opened here"});
        return false;
    }

    // ---------------------------------------------------------------------------------------------
    // Nodes

    ExprPtr node(ExprKind kind, SourceRange range) const { return std::make_unique<Expr>(kind, range); }
    StmtPtr stmt(StmtKind kind, const Token& first) const {
        return std::make_unique<Stmt>(kind, rangeOf(first));
    }
    ExprPtr unsupported(const char* construct, SourceRange range) const {
        ExprPtr e = node(ExprKind::Unsupported, range);
        e->name = construct;
        return e;
    }
    ExprPtr errorExpr() const { return unsupported("syntax error", missingAt()); }

    // Sets the node's height from its children and rejects trees that grew too high.
    ExprPtr seal(ExprPtr e) {
        uint32_t d = 0;
        auto take = [&](const ExprPtr& c) {
            if (c)
                d = std::max(d, c->depth);
        };
        take(e->a);
        take(e->b);
        take(e->c);
        for (const ExprPtr& c : e->elements)
            take(c);
        for (const ExprPtr& c : e->values)
            take(c);
        for (const ast::Keyword& k : e->keywords)
            take(k.value);
        for (const ast::Param& p : e->params) {
            take(p.annotation);
            take(p.defaultValue);
        }
        for (const ast::Comprehension& g : e->generators) {
            take(g.target);
            take(g.iter);
            for (const ExprPtr& c : g.ifs)
                take(c);
        }
        e->depth = d + 1;
        if (e->depth > kMaxExprDepth)
            fail("nesting-too-deep", e->range,
                 "expression is nested too deeply (more than " + std::to_string(kMaxExprDepth) + " levels)",
                 "split it into smaller expressions with intermediate variables", cur());
        return e;
    }

    static bool startsExpr(const Token& t) {
        switch (t.kind) {
        case TK::Name:
        case TK::Int:
        case TK::Float:
        case TK::Imaginary:
        case TK::String:
        case TK::LParen:
        case TK::LBracket:
        case TK::LBrace:
        case TK::Minus:
        case TK::Plus:
        case TK::Tilde:
        case TK::KwNot:
        case TK::KwLambda:
        case TK::KwAwait:
        case TK::KwNone:
        case TK::KwTrue:
        case TK::KwFalse:
        case TK::Ellipsis:
            return true;
        default:
            return false;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Expressions

    // namedexpr: expr [':=' expr]
    ExprPtr parseNamedExpr() {
        ExprPtr e = parseExpr();
        if (!at(TK::ColonEqual) || m_panic)
            return e;
        advance();
        ExprPtr value = parseExpr();
        return unsupported("assignment expression", e->range.merge(value->range));
    }

    // expr: lambda | or ['if' or 'else' expr] | yield
    ExprPtr parseExpr() {
        DepthGuard guard(*this);
        if (!guard)
            return errorExpr();
        if (at(TK::KwLambda))
            return parseLambda();
        if (at(TK::KwYield))
            return parseYield();
        ExprPtr body = parseOr();
        if (!at(TK::KwIf) || m_panic)
            return body;
        advance();
        ExprPtr test = parseOr();
        if (!expect(TK::KwElse, "expected 'else' in the conditional expression",
                    "write 'a if condition else b'"))
            return body;
        ExprPtr orelse = parseExpr();
        ExprPtr e = node(ExprKind::IfExp, body->range.merge(orelse->range));
        e->a = std::move(body);
        e->b = std::move(test);
        e->c = std::move(orelse);
        return seal(std::move(e));
    }

    ExprPtr parseYield() {
        const Token& kw = advance();
        if (accept(TK::KwFrom))
            parseExpr();
        else if (startsExpr(cur()) || at(TK::Star))
            parseExprList();
        return unsupported("yield expression", spanFrom(kw.begin));
    }

    ExprPtr parseLambda() {
        const Token& kw = advance();
        ExprPtr e = node(ExprKind::Lambda, rangeOf(kw));
        parseParams(e->params, TK::Colon, false);
        if (m_panic ||
            !expect(TK::Colon, "expected ':' after the lambda parameters", "write 'lambda x: expression'"))
            return errorExpr();
        e->a = parseExpr();
        e->range = spanFrom(kw.begin);
        return seal(std::move(e));
    }

    ExprPtr parseOr() { return parseBool(ast::BoolOpKind::Or); }

    ExprPtr parseBool(ast::BoolOpKind op) {
        TK keyword = op == ast::BoolOpKind::Or ? TK::KwOr : TK::KwAnd;
        auto operand = [&] {
            return op == ast::BoolOpKind::Or ? parseBool(ast::BoolOpKind::And) : parseNot();
        };
        ExprPtr first = operand();
        if (!at(keyword) || m_panic)
            return first;
        ExprPtr e = node(ExprKind::BoolOp, first->range);
        e->boolOp = op;
        e->elements.push_back(std::move(first));
        while (!m_panic && accept(keyword))
            e->elements.push_back(operand());
        e->range = e->elements.front()->range.merge(e->elements.back()->range);
        return seal(std::move(e));
    }

    ExprPtr parseNot() {
        if (!at(TK::KwNot))
            return parseComparison();
        DepthGuard guard(*this);
        if (!guard)
            return errorExpr();
        const Token& kw = advance();
        ExprPtr operand = parseNot();
        ExprPtr e = node(ExprKind::UnaryOp, span(kw.begin, operand->range.end));
        e->unaryOp = ast::UnaryOpKind::Not;
        e->a = std::move(operand);
        return seal(std::move(e));
    }

    ExprPtr parseComparison() {
        ExprPtr left = parseBinary(0);
        ExprPtr e;
        while (!m_panic) {
            ast::CompareKind op;
            size_t width = 1;
            switch (cur().kind) {
            case TK::Less:
                op = ast::CompareKind::Lt;
                break;
            case TK::Greater:
                op = ast::CompareKind::Gt;
                break;
            case TK::EqEqual:
                op = ast::CompareKind::Eq;
                break;
            case TK::NotEqual:
                op = ast::CompareKind::NotEq;
                break;
            case TK::LessEqual:
                op = ast::CompareKind::LtE;
                break;
            case TK::GreaterEqual:
                op = ast::CompareKind::GtE;
                break;
            case TK::KwIn:
                op = ast::CompareKind::In;
                break;
            case TK::KwIs:
                op = peek(1).kind == TK::KwNot ? ast::CompareKind::IsNot : ast::CompareKind::Is;
                width = op == ast::CompareKind::IsNot ? 2 : 1;
                break;
            case TK::KwNot:
                if (peek(1).kind != TK::KwIn)
                    return e ? finishCompare(std::move(e)) : std::move(left);
                op = ast::CompareKind::NotIn;
                width = 2;
                break;
            default:
                return e ? finishCompare(std::move(e)) : std::move(left);
            }
            for (size_t i = 0; i < width; ++i)
                advance();
            if (!e) {
                e = node(ExprKind::Compare, left->range);
                e->elements.push_back(std::move(left));
            }
            e->compareOps.push_back(op);
            e->elements.push_back(parseBinary(0));
        }
        return e ? finishCompare(std::move(e)) : std::move(left);
    }

    ExprPtr finishCompare(ExprPtr e) {
        e->range = e->elements.front()->range.merge(e->elements.back()->range);
        return seal(std::move(e));
    }

    // Binary levels, loosest first: | ^ & (<< >>) (+ -) (* / // % @).
    static bool binaryOpAt(int level, TK kind, ast::BinOpKind& op) {
        using B = ast::BinOpKind;
        switch (level) {
        case 0:
            op = B::BitOr;
            return kind == TK::Pipe;
        case 1:
            op = B::BitXor;
            return kind == TK::Caret;
        case 2:
            op = B::BitAnd;
            return kind == TK::Amp;
        case 3:
            op = kind == TK::LeftShift ? B::LShift : B::RShift;
            return kind == TK::LeftShift || kind == TK::RightShift;
        case 4:
            op = kind == TK::Plus ? B::Add : B::Sub;
            return kind == TK::Plus || kind == TK::Minus;
        case 5:
            switch (kind) {
            case TK::Star:
                op = B::Mul;
                return true;
            case TK::Slash:
                op = B::Div;
                return true;
            case TK::DoubleSlash:
                op = B::FloorDiv;
                return true;
            case TK::Percent:
                op = B::Mod;
                return true;
            case TK::At:
                op = B::MatMul;
                return true;
            default:
                return false;
            }
        default:
            return false;
        }
    }

    ExprPtr parseBinary(int level) {
        if (level > 5)
            return parseFactor();
        ExprPtr left = parseBinary(level + 1);
        ast::BinOpKind op;
        while (!m_panic && binaryOpAt(level, cur().kind, op)) {
            advance();
            ExprPtr right = parseBinary(level + 1);
            ExprPtr e = node(ExprKind::BinOp, left->range.merge(right->range));
            e->binOp = op;
            e->a = std::move(left);
            e->b = std::move(right);
            left = seal(std::move(e));
        }
        return left;
    }

    // factor: ('+' | '-' | '~') factor | power
    ExprPtr parseFactor() {
        ast::UnaryOpKind op;
        if (at(TK::Minus))
            op = ast::UnaryOpKind::Neg;
        else if (at(TK::Plus))
            op = ast::UnaryOpKind::Pos;
        else if (at(TK::Tilde))
            op = ast::UnaryOpKind::Invert;
        else
            return parsePower();
        DepthGuard guard(*this);
        if (!guard)
            return errorExpr();
        const Token& t = advance();
        ExprPtr operand = parseFactor();
        ExprPtr e = node(ExprKind::UnaryOp, span(t.begin, operand->range.end));
        e->unaryOp = op;
        e->a = std::move(operand);
        return seal(std::move(e));
    }

    // power: ['await'] primary ['**' factor]   (so -2**2 is -(2**2) and 2**-1 is 2**(-1))
    ExprPtr parsePower() {
        if (at(TK::KwAwait)) {
            DepthGuard guard(*this);
            if (!guard)
                return errorExpr();
            const Token& kw = advance();
            parsePower();
            return unsupported("await expression", spanFrom(kw.begin));
        }
        ExprPtr base = parsePrimary();
        if (!at(TK::DoubleStar) || m_panic)
            return base;
        DepthGuard guard(*this);
        if (!guard)
            return base;
        advance();
        ExprPtr exponent = parseFactor();
        ExprPtr e = node(ExprKind::BinOp, base->range.merge(exponent->range));
        e->binOp = ast::BinOpKind::Pow;
        e->a = std::move(base);
        e->b = std::move(exponent);
        return seal(std::move(e));
    }

    ExprPtr parsePrimary() {
        ExprPtr e = parseAtom();
        while (!m_panic) {
            if (at(TK::Dot)) {
                advance();
                if (!at(TK::Name)) {
                    failAtCur("unexpected-token", "expected an attribute name after '.'",
                              "write 'value.name'");
                    break;
                }
                const Token& name = advance();
                ExprPtr attr = node(ExprKind::Attribute, span(e->range.begin, name.end));
                attr->name = std::string(text(name));
                attr->a = std::move(e);
                e = seal(std::move(attr));
            } else if (at(TK::LParen)) {
                e = parseCall(std::move(e));
            } else if (at(TK::LBracket)) {
                e = parseSubscript(std::move(e));
            } else {
                break;
            }
        }
        return e;
    }

    ExprPtr parseCall(ExprPtr func) {
        const Token& open = advance();
        ExprPtr call = node(ExprKind::Call, func->range);
        call->a = std::move(func);
        std::unordered_set<std::string_view> keywordNames;
        while (!at(TK::RParen) && !m_panic) {
            const Token& first = cur();
            if (accept(TK::Star)) {
                ExprPtr starred = node(ExprKind::Starred, rangeOf(first));
                starred->a = parseExpr();
                starred->range = spanFrom(first.begin);
                call->elements.push_back(seal(std::move(starred)));
            } else if (accept(TK::DoubleStar)) {
                ast::Keyword k;
                k.value = parseExpr();
                k.range = spanFrom(first.begin);
                call->keywords.push_back(std::move(k));
            } else if (at(TK::Name) && peek(1).kind == TK::Equal) {
                advance();
                advance();
                ast::Keyword k;
                k.name = std::string(text(first));
                k.value = parseExpr();
                k.range = spanFrom(first.begin);
                if (!keywordNames.insert(text(first)).second)
                    report("duplicate-keyword", rangeOf(first),
                           "keyword argument '" + k.name + "' is repeated", "pass each keyword argument once",
                           first);
                call->keywords.push_back(std::move(k));
            } else {
                ExprPtr arg = parseNamedExpr();
                if (at(TK::KwFor) || (at(TK::KwAsync) && peek(1).kind == TK::KwFor)) {
                    bool alone = call->elements.empty() && call->keywords.empty();
                    arg = parseComprehension(std::move(arg), true);
                    if (!m_panic && (!alone || !at(TK::RParen)))
                        report("unexpected-token", *arg,
                               "a generator expression must be parenthesized unless it is the only argument",
                               "wrap it in parentheses: f((x for x in y), z)");
                } else if (at(TK::Equal)) {
                    failAtCur("unexpected-token", "expected a plain name before '=' in a keyword argument",
                              "write name=value, or '==' to compare");
                    break;
                }
                if (!call->keywords.empty())
                    report("argument-order", *arg, "positional argument follows keyword argument",
                           "move positional arguments before the keyword arguments");
                call->elements.push_back(std::move(arg));
            }
            if (!accept(TK::Comma))
                break;
        }
        if (!m_panic)
            expectClosing(TK::RParen, open, "expected ',' or ')' after the call argument",
                          "separate arguments with ',' and close the call with ')'");
        call->range = spanFrom(call->a->range.begin);
        return seal(std::move(call));
    }

    ExprPtr parseSubscript(ExprPtr value) {
        const Token& open = advance();
        ExprPtr sub = node(ExprKind::Subscript, value->range);
        sub->a = std::move(value);
        if (at(TK::RBracket)) {
            failAtCur("unexpected-token", "expected an index or a slice inside '[]'", "write value[index]");
            sub->b = errorExpr();
            return seal(std::move(sub));
        }
        ExprPtr index = parseSliceItem();
        if (at(TK::Comma) && !m_panic) {
            ExprPtr tuple = node(ExprKind::Tuple, index->range);
            tuple->elements.push_back(std::move(index));
            while (!m_panic && accept(TK::Comma)) {
                if (at(TK::RBracket))
                    break;
                tuple->elements.push_back(parseSliceItem());
            }
            tuple->range = tuple->elements.front()->range.merge(tuple->elements.back()->range);
            index = seal(std::move(tuple));
        }
        sub->b = std::move(index);
        if (!m_panic)
            expectClosing(TK::RBracket, open, "expected ',' or ']' in the subscript",
                          "separate indices with ',' and close the subscript with ']'");
        sub->range = spanFrom(sub->a->range.begin);
        return seal(std::move(sub));
    }

    // slice item: expr | [expr] ':' [expr] [':' [expr]]
    ExprPtr parseSliceItem() {
        const Token& first = cur();
        ExprPtr lower;
        if (!at(TK::Colon)) {
            lower = parseStarOrNamed();
            if (!at(TK::Colon) || m_panic)
                return lower;
        }
        ExprPtr slice = node(ExprKind::Slice, rangeOf(first));
        slice->a = std::move(lower);
        advance(); // ':'
        if (startsExpr(cur()))
            slice->b = parseExpr();
        if (!m_panic && accept(TK::Colon) && startsExpr(cur()))
            slice->c = parseExpr();
        slice->range = spanFrom(first.begin);
        return seal(std::move(slice));
    }

    ExprPtr parseAtom() {
        const Token& t = cur();
        switch (t.kind) {
        case TK::Name: {
            advance();
            ExprPtr e = node(ExprKind::Name, rangeOf(t));
            e->name = std::string(text(t));
            return e;
        }
        case TK::Int: {
            advance();
            ExprPtr e = node(ExprKind::Constant, rangeOf(t));
            e->constantKind = ast::ConstantKind::Int;
            e->intValue = t.intValue;
            e->intOverflow = t.intOverflow;
            return e;
        }
        case TK::Float: {
            advance();
            ExprPtr e = node(ExprKind::Constant, rangeOf(t));
            e->constantKind = ast::ConstantKind::Float;
            e->floatValue = t.floatValue;
            return e;
        }
        case TK::Imaginary:
            advance();
            return unsupported("complex number literal", rangeOf(t));
        case TK::String:
            return parseStrings();
        case TK::KwTrue:
        case TK::KwFalse: {
            advance();
            ExprPtr e = node(ExprKind::Constant, rangeOf(t));
            e->constantKind = ast::ConstantKind::Bool;
            e->intValue = t.kind == TK::KwTrue ? 1 : 0;
            return e;
        }
        case TK::KwNone:
        case TK::Ellipsis: {
            advance();
            ExprPtr e = node(ExprKind::Constant, rangeOf(t));
            e->constantKind = t.kind == TK::KwNone ? ast::ConstantKind::None : ast::ConstantKind::Ellipsis;
            return e;
        }
        case TK::LParen:
            return parseParenthesized();
        case TK::LBracket:
            return parseListDisplay();
        case TK::LBrace:
            return parseBraceDisplay();
        default:
            fail("unexpected-token", missingAt(), "expected an expression, found " + describe(t),
                 isLayout(t.kind) ? "complete the expression" : "write a value, a name or a call here", t);
            return errorExpr();
        }
    }

    // Adjacent literals join into one: "a" 'b' -> "ab".
    ExprPtr parseStrings() {
        const Token& first = cur();
        std::string value;
        bool fstring = false;
        bool mixed = false;
        while (at(TK::String)) {
            const Token& piece = advance();
            mixed |= piece.isBytes != first.isBytes;
            fstring |= piece.isFString;
            value += piece.text;
        }
        SourceRange range = spanFrom(first.begin);
        if (mixed)
            report("invalid-string", range, "cannot mix bytes and non-bytes literals",
                   "make every piece a bytes literal b'...' or none of them", first);
        ExprPtr e = node(fstring ? ExprKind::FString : ExprKind::Constant, range);
        e->constantKind = first.isBytes ? ast::ConstantKind::Bytes : ast::ConstantKind::String;
        e->stringValue = std::move(value);
        return e;
    }

    ExprPtr parseStarOrNamed() {
        if (!at(TK::Star))
            return parseNamedExpr();
        const Token& star = advance();
        ExprPtr e = node(ExprKind::Starred, rangeOf(star));
        e->a = parseBinary(0);
        e->range = spanFrom(star.begin);
        return seal(std::move(e));
    }

    bool atComprehensionFor() const {
        return at(TK::KwFor) || (at(TK::KwAsync) && peek(1).kind == TK::KwFor);
    }

    ExprPtr parseParenthesized() {
        const Token& open = advance();
        if (accept(TK::RParen)) {
            ExprPtr e = node(ExprKind::Tuple, spanFrom(open.begin));
            e->parenthesized = true;
            return e;
        }
        ExprPtr first = parseStarOrNamed();
        if (m_panic)
            return first;
        if (atComprehensionFor()) {
            ExprPtr gen = parseComprehension(std::move(first), true);
            if (!m_panic)
                expectClosing(TK::RParen, open, "expected ')' after the generator expression",
                              "close the generator expression with ')'");
            gen->range = spanFrom(open.begin);
            gen->parenthesized = true;
            return gen;
        }
        if (at(TK::Comma)) {
            ExprPtr tuple = node(ExprKind::Tuple, rangeOf(open));
            tuple->elements.push_back(std::move(first));
            while (!m_panic && accept(TK::Comma)) {
                if (at(TK::RParen))
                    break;
                tuple->elements.push_back(parseStarOrNamed());
            }
            if (!m_panic)
                expectClosing(TK::RParen, open, "expected ',' or ')' in the tuple",
                              "did you forget a ',' between the items?");
            tuple->range = spanFrom(open.begin);
            tuple->parenthesized = true;
            return seal(std::move(tuple));
        }
        expectClosing(TK::RParen, open, "expected ')' to close '('", "did you forget a ',' or an operator?");
        first->parenthesized = true;
        return first;
    }

    ExprPtr parseListDisplay() {
        const Token& open = advance();
        ExprPtr list = node(ExprKind::List, rangeOf(open));
        if (!at(TK::RBracket)) {
            ExprPtr first = parseStarOrNamed();
            if (!m_panic && atComprehensionFor()) {
                ExprPtr comp = parseComprehension(std::move(first), false);
                if (!m_panic)
                    expectClosing(TK::RBracket, open, "expected ']' after the list comprehension",
                                  "close the comprehension with ']'");
                comp->range = spanFrom(open.begin);
                return comp;
            }
            list->elements.push_back(std::move(first));
            while (!m_panic && accept(TK::Comma)) {
                if (at(TK::RBracket))
                    break;
                list->elements.push_back(parseStarOrNamed());
            }
        }
        if (!m_panic)
            expectClosing(TK::RBracket, open, "expected ',' or ']' in the list",
                          "did you forget a ',' between the items?");
        list->range = spanFrom(open.begin);
        return seal(std::move(list));
    }

    ExprPtr parseBraceDisplay() {
        const Token& open = advance();
        if (accept(TK::RBrace))
            return node(ExprKind::Dict, spanFrom(open.begin));
        ExprPtr first;
        if (!at(TK::DoubleStar)) {
            first = parseStarOrNamed();
            if (m_panic)
                return first;
        }
        if (first && !at(TK::Colon)) { // a set: outside the subset, parsed to keep going
            const char* construct = "set display";
            std::vector<ExprPtr> elements; // kept: host code may test membership in a set display
            if (atComprehensionFor()) {
                parseComprehension(std::move(first), false);
                construct = "set comprehension";
            } else {
                elements.push_back(std::move(first));
                while (!m_panic && accept(TK::Comma)) {
                    if (at(TK::RBrace))
                        break;
                    elements.push_back(parseStarOrNamed());
                }
            }
            if (!m_panic)
                expectClosing(TK::RBrace, open, "expected ',' or '}' in the set", "close it with '}'");
            ExprPtr set = unsupported(construct, spanFrom(open.begin));
            set->elements = std::move(elements);
            return seal(std::move(set));
        }
        ExprPtr dict = node(ExprKind::Dict, rangeOf(open));
        bool firstEntry = true;
        while (!m_panic) {
            const Token& entry = cur();
            if (accept(TK::DoubleStar)) {
                ExprPtr starred = node(ExprKind::Starred, rangeOf(entry));
                starred->isDoubleStar = true;
                starred->a = parseBinary(0);
                starred->range = spanFrom(entry.begin);
                dict->elements.push_back(seal(std::move(starred)));
                dict->values.push_back(nullptr);
            } else {
                ExprPtr key = firstEntry && first ? std::move(first) : parseExpr();
                if (m_panic || !expect(TK::Colon, "expected ':' after the dict key", "write {key: value}"))
                    break;
                ExprPtr value = parseExpr();
                if (firstEntry && !m_panic && atComprehensionFor()) {
                    parseComprehension(std::move(value), false);
                    if (!m_panic)
                        expectClosing(TK::RBrace, open, "expected '}' after the dict comprehension",
                                      "close it with '}'");
                    return unsupported("dict comprehension", spanFrom(open.begin));
                }
                dict->elements.push_back(std::move(key));
                dict->values.push_back(std::move(value));
            }
            firstEntry = false;
            if (!accept(TK::Comma) || at(TK::RBrace))
                break;
        }
        if (!m_panic)
            expectClosing(TK::RBrace, open, "expected ',' or '}' in the dict",
                          "did you forget a ',' between the entries?");
        dict->range = spanFrom(open.begin);
        return seal(std::move(dict));
    }

    // element ('for' targets 'in' or ('if' or)*)+
    ExprPtr parseComprehension(ExprPtr element, bool isGenerator) {
        uint32_t begin = element->range.begin;
        ExprPtr comp = node(ExprKind::ListComp, element->range);
        comp->isGenerator = isGenerator;
        comp->a = std::move(element);
        bool async = false;
        while (!m_panic && atComprehensionFor()) {
            async |= accept(TK::KwAsync);
            advance(); // 'for'
            ast::Comprehension g;
            g.target = parseTargetList();
            if (m_panic)
                break;
            checkTarget(*g.target);
            if (!expect(TK::KwIn, "expected 'in' after the comprehension target",
                        "write 'for x in iterable'"))
                break;
            g.iter = parseOr();
            while (!m_panic && accept(TK::KwIf))
                g.ifs.push_back(parseOr());
            comp->generators.push_back(std::move(g));
        }
        comp->range = spanFrom(begin);
        if (async)
            return unsupported("asynchronous comprehension", comp->range);
        return seal(std::move(comp));
    }

    // Assignment-like targets of `for`, comprehensions and `as`: bitwise-or level, so `in` is not eaten.
    ExprPtr parseTarget() {
        if (!at(TK::Star))
            return parseBinary(0);
        const Token& star = advance();
        ExprPtr e = node(ExprKind::Starred, rangeOf(star));
        e->a = parseBinary(0);
        e->range = spanFrom(star.begin);
        return seal(std::move(e));
    }

    ExprPtr parseTargetList() {
        ExprPtr first = parseTarget();
        if (!at(TK::Comma) || m_panic)
            return first;
        ExprPtr tuple = node(ExprKind::Tuple, first->range);
        tuple->elements.push_back(std::move(first));
        while (!m_panic && accept(TK::Comma)) {
            if (!startsExpr(cur()) && !at(TK::Star))
                break;
            tuple->elements.push_back(parseTarget());
        }
        tuple->range = tuple->elements.front()->range.merge(tuple->elements.back()->range);
        return seal(std::move(tuple));
    }

    // star_expressions: a bare tuple when there is a comma ("a, b = ...", "return x, y").
    ExprPtr parseExprList() {
        ExprPtr first = parseStarOrNamed();
        if (!at(TK::Comma) || m_panic)
            return first;
        ExprPtr tuple = node(ExprKind::Tuple, first->range);
        tuple->elements.push_back(std::move(first));
        while (!m_panic && accept(TK::Comma)) {
            if (!startsExpr(cur()) && !at(TK::Star))
                break;
            tuple->elements.push_back(parseStarOrNamed());
        }
        tuple->range = tuple->elements.front()->range.merge(tuple->elements.back()->range);
        return seal(std::move(tuple));
    }

    // Parameters up to (not including) `terminator`: def (with annotations) and lambda (without).
    void parseParams(std::vector<ast::Param>& params, TK terminator, bool annotations) {
        bool keywordOnly = false;
        bool sawDefault = false;
        bool sawVarKeywords = false;
        const Token* bareStar = nullptr;
        std::unordered_set<std::string_view> names;
        while (!at(terminator) && !m_panic) {
            const Token& start = cur();
            if (accept(TK::Slash)) { // positional-only marker: accepted, it changes nothing here
                if (keywordOnly || params.empty())
                    report("invalid-parameters", rangeOf(start),
                           "'/' must follow a positional parameter and come before '*'",
                           "move or remove the '/'", start);
                if (!accept(TK::Comma))
                    break;
                continue;
            }
            ast::Param p;
            if (accept(TK::Star)) {
                if (keywordOnly)
                    report("invalid-parameters", rangeOf(start),
                           "'*' may appear only once in a parameter list", "remove the second '*'", start);
                keywordOnly = true;
                if (at(TK::Comma) || at(terminator)) {
                    bareStar = &start;
                    if (!accept(TK::Comma))
                        break;
                    continue;
                }
                p.kind = ast::ParamKind::VarArgs;
            } else if (accept(TK::DoubleStar)) {
                p.kind = ast::ParamKind::VarKeywords;
            } else {
                p.kind = keywordOnly ? ast::ParamKind::KeywordOnly : ast::ParamKind::Positional;
            }
            if (!at(TK::Name)) {
                failAtCur("unexpected-token", "expected a parameter name, found " + describe(cur()),
                          "parameters are names, optionally with ': type' and '= default'");
                break;
            }
            const Token& name = advance();
            p.name = std::string(text(name));
            if (sawVarKeywords)
                report("invalid-parameters", rangeOf(name),
                       "parameter '" + p.name + "' follows '**' parameters",
                       "'**kwargs' must be the last parameter", name);
            if (annotations && accept(TK::Colon))
                p.annotation = parseExpr();
            if (!m_panic && accept(TK::Equal)) {
                if (p.kind == ast::ParamKind::VarArgs || p.kind == ast::ParamKind::VarKeywords)
                    report("invalid-parameters", rangeOf(name),
                           "'" + p.name + "' cannot have a default value", "remove the default", name);
                p.defaultValue = parseExpr();
            }
            if (p.kind == ast::ParamKind::Positional) {
                if (p.defaultValue)
                    sawDefault = true;
                else if (sawDefault)
                    report("invalid-parameters", rangeOf(name),
                           "parameter '" + p.name + "' without a default follows a parameter with a default",
                           "give it a default value or move it before the defaulted parameters", name);
            }
            if (p.kind == ast::ParamKind::KeywordOnly)
                bareStar = nullptr;
            if (p.kind == ast::ParamKind::VarKeywords)
                sawVarKeywords = true;
            if (!names.insert(text(name)).second)
                report("duplicate-parameter", rangeOf(name), "duplicate parameter '" + p.name + "'",
                       "rename one of them", name);
            p.range = spanFrom(start.begin);
            params.push_back(std::move(p));
            if (!accept(TK::Comma))
                break;
        }
        if (bareStar)
            report("invalid-parameters", rangeOf(*bareStar),
                   "a bare '*' must be followed by a keyword-only parameter",
                   "add a parameter after '*' or remove it", *bareStar);
    }

    // ---------------------------------------------------------------------------------------------
    // Assignment targets

    void checkTarget(const Expr& e) {
        const char* hint = "assign to a name, an attribute or a subscript";
        switch (e.kind) {
        case ExprKind::Name:
        case ExprKind::Attribute:
        case ExprKind::Subscript:
            return;
        case ExprKind::Tuple:
        case ExprKind::List:
            for (const ExprPtr& element : e.elements)
                checkTarget(*element);
            return;
        case ExprKind::Starred:
            if (e.a)
                checkTarget(*e.a);
            return;
        case ExprKind::Constant:
            if (e.constantKind == ast::ConstantKind::Bool || e.constantKind == ast::ConstantKind::None)
                report("assign-to-literal", e,
                       std::string("cannot assign to ") + (e.constantKind == ast::ConstantKind::None ? "None"
                                                           : e.intValue                              ? "True"
                                                                        : "False"),
                       hint);
            else
                report("assign-to-literal", e, "cannot assign to a literal",
                       "assign to a variable name instead");
            return;
        case ExprKind::FString:
            report("assign-to-literal", e, "cannot assign to a literal", "assign to a variable name instead");
            return;
        case ExprKind::Call:
            report("invalid-assignment-target", e, "cannot assign to a function call",
                   "assign to a name, an attribute or a subscript; use '==' to compare");
            return;
        case ExprKind::Slice:
            report("invalid-assignment-target", e, "cannot assign to a slice outside a subscript", hint);
            return;
        case ExprKind::BinOp:
        case ExprKind::UnaryOp:
            report("invalid-assignment-target", e, "cannot assign to an operator expression", hint);
            return;
        case ExprKind::BoolOp:
            report("invalid-assignment-target", e, "cannot assign to a boolean expression", hint);
            return;
        case ExprKind::Compare:
            report("invalid-assignment-target", e, "cannot assign to a comparison", hint);
            return;
        case ExprKind::IfExp:
            report("invalid-assignment-target", e, "cannot assign to a conditional expression", hint);
            return;
        case ExprKind::Lambda:
            report("invalid-assignment-target", e, "cannot assign to a lambda", hint);
            return;
        case ExprKind::Dict:
            report("invalid-assignment-target", e, "cannot assign to a dict display", hint);
            return;
        case ExprKind::ListComp:
            report("invalid-assignment-target", e, "cannot assign to a comprehension", hint);
            return;
        case ExprKind::Unsupported:
            report("invalid-assignment-target", e, "cannot assign to " + e.name, hint);
            return;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Statements

    void parseStatementInto(std::vector<StmtPtr>& out) {
        size_t start = m_pos;
        parseStatement(out);
        if (m_panic) {
            synchronize();
            m_panic = false;
        }
        if (m_pos == start && !at(TK::EndOfFile) && !at(TK::Dedent))
            advance(); // never stall
    }

    // Skips the rest of a broken statement: to the end of its line, and the block it opens if any.
    void synchronize() {
        while (!isLayout(cur().kind))
            advance();
        accept(TK::Newline);
        if (at(TK::Indent))
            skipBlock();
    }

    void skipBlock() {
        if (!accept(TK::Indent))
            return;
        skipRestOfBlock();
    }

    void skipRestOfBlock() {
        int depth = 1;
        while (depth > 0 && !at(TK::EndOfFile)) {
            if (at(TK::Indent))
                ++depth;
            else if (at(TK::Dedent))
                --depth;
            advance();
        }
    }

    void push(std::vector<StmtPtr>& out, StmtPtr s) {
        if (s)
            out.push_back(std::move(s));
    }

    void parseStatement(std::vector<StmtPtr>& out) {
        const Token& t = cur();
        switch (t.kind) {
        case TK::Newline:
            advance();
            return;
        case TK::Indent:
            parseUnexpectedIndent(out);
            return;
        case TK::At:
            parseDecorated(out);
            return;
        case TK::KwDef:
            push(out, parseFunctionDef({}));
            return;
        case TK::KwIf:
            push(out, parseIf());
            return;
        case TK::KwFor:
            push(out, parseFor());
            return;
        case TK::KwWhile:
            push(out, parseWhile());
            return;
        case TK::KwWith:
            push(out, parseWith());
            return;
        case TK::KwClass:
            push(out, parseClassDef({}));
            return;
        case TK::KwTry:
            push(out, skipUnsupportedCompound("try statement", Clauses::Try));
            return;
        case TK::KwAsync:
            if (peek(1).kind == TK::KwDef)
                push(out, skipUnsupportedCompound("async function definition", Clauses::None));
            else if (peek(1).kind == TK::KwFor)
                push(out, skipUnsupportedCompound("async for statement", Clauses::Else));
            else if (peek(1).kind == TK::KwWith)
                push(out, skipUnsupportedCompound("async with statement", Clauses::None));
            else
                fail("unexpected-token", rangeOf(t), "expected 'def', 'for' or 'with' after 'async'",
                     "write 'async def', 'async for' or 'async with'", t);
            return;
        case TK::KwElse:
        case TK::KwElif:
        case TK::KwExcept:
        case TK::KwFinally:
            fail("unexpected-token", rangeOf(t),
                 t.kind == TK::KwElse   ? "'else' without a matching 'if', 'for' or 'while'"
                 : t.kind == TK::KwElif ? "'elif' without a matching 'if'"
                                        : describe(t) + " without a matching 'try'",
                 "check that it is indented like the statement it belongs to", t);
            return;
        case TK::Name:
            if (text(t) == "match" && logicalLineEndsWithColon()) {
                push(out, skipUnsupportedCompound("match statement", Clauses::None));
                return;
            }
            parseSimpleLine(out);
            return;
        default:
            parseSimpleLine(out);
            return;
        }
    }

    bool logicalLineEndsWithColon() const {
        size_t i = m_pos;
        while (i + 1 < m_tokens.size() && !isLayout(m_tokens[i + 1].kind))
            ++i;
        return m_tokens[i].kind == TK::Colon;
    }

    void parseUnexpectedIndent(std::vector<StmtPtr>& out) {
        advance(); // Indent
        report("unexpected-indent", rangeOf(cur()), "unexpected indent",
               "remove the extra indentation, or end the line above with ':' to open a block", cur());
        if (m_depth >= kMaxNesting) {
            report("nesting-too-deep", rangeOf(cur()),
                   "blocks are nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)",
                   "move inner code into functions", cur());
            skipRestOfBlock();
            return;
        }
        ++m_depth;
        while (!at(TK::Dedent) && !at(TK::EndOfFile))
            parseStatementInto(out); // the indented lines still parse, as part of this block
        accept(TK::Dedent);
        --m_depth;
    }

    // The body after ':': simple statements on the same line, or an indented block.
    void parseSuite(const std::string& what, const Token& header, std::vector<StmtPtr>& body) {
        if (!at(TK::Newline)) {
            parseSimpleLine(body);
            if (m_panic) { // keep the compound statement; skip only the broken line
                while (!isLayout(cur().kind))
                    advance();
                accept(TK::Newline);
                m_panic = false;
            }
            return;
        }
        advance();
        if (!at(TK::Indent)) {
            report("expected-indented-block", rangeOf(cur()),
                   "expected an indented block after " + what + " on line " + std::to_string(header.line),
                   "indent the body (4 spaces), or write 'pass' for an empty body", cur());
            return;
        }
        advance();
        if (m_depth >= kMaxNesting) {
            report("nesting-too-deep", rangeOf(cur()),
                   "blocks are nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)",
                   "move inner code into functions", cur());
            skipRestOfBlock();
            return;
        }
        ++m_depth;
        while (!at(TK::Dedent) && !at(TK::EndOfFile))
            parseStatementInto(body);
        accept(TK::Dedent);
        --m_depth;
    }

    void parseSimpleLine(std::vector<StmtPtr>& out) {
        while (true) {
            StmtPtr s = parseSmallStatement();
            if (m_panic)
                return;
            push(out, std::move(s));
            if (!accept(TK::Semicolon) || at(TK::Newline) || at(TK::EndOfFile))
                break;
        }
        if (accept(TK::Newline) || at(TK::EndOfFile))
            return;
        fail("unexpected-token", rangeOf(cur()), "unexpected " + describe(cur()) + " after the statement",
             "did you forget an operator or a ','? Separate statements with a new line or ';'", cur());
    }

    StmtPtr parseSmallStatement() {
        const Token& t = cur();
        switch (t.kind) {
        case TK::KwPass:
            advance();
            return stmt(StmtKind::Pass, t);
        case TK::KwBreak:
            advance();
            return stmt(StmtKind::Break, t);
        case TK::KwContinue:
            advance();
            return stmt(StmtKind::Continue, t);
        case TK::KwReturn: {
            advance();
            StmtPtr s = stmt(StmtKind::Return, t);
            if (startsExpr(cur()) || at(TK::Star) || at(TK::KwYield))
                s->value = at(TK::KwYield) ? parseExpr() : parseExprList();
            s->range = spanFrom(t.begin);
            return s;
        }
        case TK::KwImport:
            return parseImport();
        case TK::KwFrom:
            return parseFromImport();
        case TK::KwGlobal:
        case TK::KwNonlocal:
            return parseGlobal();
        case TK::KwAssert: {
            advance();
            StmtPtr s = stmt(StmtKind::Assert, t);
            s->test = parseExpr();
            if (!m_panic && accept(TK::Comma))
                s->msg = parseExpr();
            s->range = spanFrom(t.begin);
            return s;
        }
        case TK::KwRaise:
            return skipUnsupportedSimple("raise statement");
        case TK::KwDel:
            return skipUnsupportedSimple("del statement");
        case TK::KwYield:
            return skipUnsupportedSimple("yield statement");
        case TK::KwIf:
        case TK::KwFor:
        case TK::KwWhile:
        case TK::KwWith:
        case TK::KwDef:
        case TK::KwClass:
        case TK::KwTry:
        case TK::KwAsync:
        case TK::At:
        case TK::KwElse:
        case TK::KwElif:
        case TK::KwExcept:
        case TK::KwFinally:
            fail("unexpected-token", rangeOf(t), describe(t) + " cannot start a statement here",
                 "put a compound statement on its own line", t);
            return nullptr;
        default:
            if (t.kind == TK::Name && text(t) == "type" && peek(1).kind == TK::Name &&
                (peek(2).kind == TK::Equal || peek(2).kind == TK::LBracket))
                return skipUnsupportedSimple("type alias statement");
            return parseExprStatement();
        }
    }

    static bool augAssignOp(TK kind, ast::BinOpKind& op) {
        using B = ast::BinOpKind;
        switch (kind) {
        case TK::PlusEqual:
            op = B::Add;
            return true;
        case TK::MinusEqual:
            op = B::Sub;
            return true;
        case TK::StarEqual:
            op = B::Mul;
            return true;
        case TK::SlashEqual:
            op = B::Div;
            return true;
        case TK::DoubleSlashEqual:
            op = B::FloorDiv;
            return true;
        case TK::PercentEqual:
            op = B::Mod;
            return true;
        case TK::DoubleStarEqual:
            op = B::Pow;
            return true;
        case TK::PipeEqual:
            op = B::BitOr;
            return true;
        case TK::AmpEqual:
            op = B::BitAnd;
            return true;
        case TK::CaretEqual:
            op = B::BitXor;
            return true;
        case TK::LeftShiftEqual:
            op = B::LShift;
            return true;
        case TK::RightShiftEqual:
            op = B::RShift;
            return true;
        case TK::AtEqual:
            op = B::MatMul;
            return true;
        default:
            return false;
        }
    }

    ExprPtr parseAssignValue() { return at(TK::KwYield) ? parseExpr() : parseExprList(); }

    StmtPtr parseExprStatement() {
        const Token& first = cur();
        if (!startsExpr(first) && !at(TK::Star) && !at(TK::KwYield)) {
            fail("unexpected-token", rangeOf(first),
                 "unexpected " + describe(first) + " at the start of a statement",
                 "a statement starts with a keyword, a name or an expression", first);
            return nullptr;
        }
        ExprPtr e = parseExprList();
        if (m_panic)
            return nullptr;
        ast::BinOpKind op;
        if (at(TK::Colon)) {
            advance();
            StmtPtr s = stmt(StmtKind::AnnAssign, first);
            if (e->kind == ExprKind::Tuple || e->kind == ExprKind::List || e->kind == ExprKind::Starred)
                report("invalid-assignment-target", *e, "only a single target can be annotated",
                       "annotate each name in its own statement");
            else
                checkTarget(*e);
            s->targets.push_back(std::move(e));
            s->annotation = parseExpr();
            if (!m_panic && accept(TK::Equal))
                s->value = parseAssignValue();
            s->range = spanFrom(first.begin);
            return s;
        }
        if (augAssignOp(cur().kind, op)) {
            advance();
            StmtPtr s = stmt(StmtKind::AugAssign, first);
            s->binOp = op;
            if (e->kind == ExprKind::Tuple || e->kind == ExprKind::List || e->kind == ExprKind::Starred)
                report("invalid-assignment-target", *e, "an augmented assignment needs a single target",
                       "write one augmented assignment per name");
            else
                checkTarget(*e);
            s->targets.push_back(std::move(e));
            s->value = parseAssignValue();
            s->range = spanFrom(first.begin);
            return s;
        }
        if (at(TK::Equal)) {
            StmtPtr s = stmt(StmtKind::Assign, first);
            s->targets.push_back(std::move(e));
            while (!m_panic && accept(TK::Equal))
                s->targets.push_back(parseAssignValue());
            s->value = std::move(s->targets.back());
            s->targets.pop_back();
            for (const ExprPtr& target : s->targets)
                checkTarget(*target);
            s->range = spanFrom(first.begin);
            return s;
        }
        StmtPtr s = stmt(StmtKind::Expr, first);
        s->range = spanFrom(first.begin); // includes parentheses around the expression
        s->value = std::move(e);
        return s;
    }

    StmtPtr skipUnsupportedSimple(const char* construct) {
        const Token& first = cur();
        while (!isLayout(cur().kind) && !at(TK::Semicolon))
            advance();
        StmtPtr s = stmt(StmtKind::Unsupported, first);
        s->name = construct;
        s->range = spanFrom(first.begin);
        return s;
    }

    // Consumes a header line up to its Newline; returns the end of its first top-level ':'.
    uint32_t skipHeaderLine() {
        int depth = 0;
        uint32_t end = cur().end;
        bool haveColon = false;
        while (!isLayout(cur().kind)) {
            const Token& t = advance();
            if (t.kind == TK::LParen || t.kind == TK::LBracket || t.kind == TK::LBrace)
                ++depth;
            else if ((t.kind == TK::RParen || t.kind == TK::RBracket || t.kind == TK::RBrace) && depth > 0)
                --depth;
            else if (t.kind == TK::Colon && depth == 0 && !haveColon) {
                haveColon = true;
                end = t.end;
            }
            if (!haveColon)
                end = t.end;
        }
        accept(TK::Newline);
        return end;
    }

    // class, try, match, async ...: the header is the node's range; the body and clauses are skipped.
    StmtPtr skipUnsupportedCompound(const char* construct, Clauses clauses) {
        const Token& first = cur();
        uint32_t headerEnd = skipHeaderLine();
        skipBlock();
        while ((clauses == Clauses::Try && (at(TK::KwExcept) || at(TK::KwFinally) || at(TK::KwElse))) ||
               (clauses == Clauses::Else && at(TK::KwElse))) {
            skipHeaderLine();
            skipBlock();
            if (clauses == Clauses::Else)
                break;
        }
        StmtPtr s = stmt(StmtKind::Unsupported, first);
        s->name = construct;
        s->range = span(first.begin, headerEnd);
        return s;
    }

    void parseDecorated(std::vector<StmtPtr>& out) {
        std::vector<ExprPtr> decorators;
        while (at(TK::At)) {
            advance();
            decorators.push_back(parseNamedExpr());
            if (m_panic || !expect(TK::Newline, "expected a new line after the decorator",
                                   "put the decorated 'def' on the next line"))
                return;
        }
        if (at(TK::KwDef))
            push(out, parseFunctionDef(std::move(decorators)));
        else if (at(TK::KwClass))
            push(out, parseClassDef(std::move(decorators)));
        else if (at(TK::KwAsync) && peek(1).kind == TK::KwDef)
            push(out, skipUnsupportedCompound("async function definition", Clauses::None));
        else
            fail("unexpected-token", missingAt(), "expected 'def' or 'class' after the decorator",
                 "a decorator must be followed by a function or class definition", cur());
    }

    // class Name(bases): body. Host code defines classes (torch.autograd.Function subclasses); the range
    // is the header line.
    StmtPtr parseClassDef(std::vector<ExprPtr> decorators) {
        const Token& kw = advance();
        StmtPtr s = stmt(StmtKind::ClassDef, kw);
        if (!at(TK::Name)) {
            failAtCur("unexpected-token", "expected a class name after 'class'", "write 'class Name:'");
            return nullptr;
        }
        s->name = std::string(text(advance()));
        if (at(TK::LParen)) {
            const Token& open = advance();
            while (!at(TK::RParen) && !m_panic) {
                if (at(TK::Name) && peek(1).kind == TK::Equal) { // metaclass=...: not a base
                    advance();
                    advance();
                    parseExpr();
                } else {
                    s->targets.push_back(parseExpr());
                }
                if (!accept(TK::Comma))
                    break;
            }
            if (m_panic || !expectClosing(TK::RParen, open, "expected ',' or ')' in the list of base classes",
                                          "separate base classes with ',' and close the list with ')'"))
                return nullptr;
        }
        uint32_t headerEnd = cur().end;
        if (m_panic ||
            !expect(TK::Colon, "expected ':' after the class name", "add ':' at the end of the line"))
            return nullptr;
        s->decorators = std::move(decorators);
        parseSuite("class definition '" + s->name + "'", kw, s->body);
        s->range = span(kw.begin, headerEnd);
        return s;
    }

    StmtPtr parseFunctionDef(std::vector<ExprPtr> decorators) {
        const Token& kw = advance();
        StmtPtr s = stmt(StmtKind::FunctionDef, kw);
        if (!at(TK::Name)) {
            failAtCur("unexpected-token", "expected a function name after 'def'",
                      "write 'def name(parameters):'");
            return nullptr;
        }
        s->name = std::string(text(advance()));
        const Token& open = cur();
        if (!expect(TK::LParen, "expected '(' after the function name", "write 'def name(parameters):'"))
            return nullptr;
        parseParams(s->params, TK::RParen, true);
        if (m_panic || !expectClosing(TK::RParen, open, "expected ',' or ')' in the parameter list",
                                      "separate parameters with ',' and close the list with ')'"))
            return nullptr;
        if (accept(TK::Arrow))
            s->returns = parseExpr();
        if (m_panic ||
            !expect(TK::Colon, "expected ':' after the function signature", "add ':' at the end of the line"))
            return nullptr;
        s->decorators = std::move(decorators);
        parseSuite("function definition '" + s->name + "'", kw, s->body);
        s->range = spanFrom(kw.begin);
        return s;
    }

    StmtPtr parseIfClause(const Token& kw) {
        StmtPtr s = stmt(StmtKind::If, kw);
        s->test = parseNamedExpr();
        if (m_panic || !expect(TK::Colon,
                               kw.kind == TK::KwIf ? "expected ':' after 'if' condition"
                                                   : "expected ':' after 'elif' condition",
                               "add ':' at the end of the line"))
            return nullptr;
        parseSuite(kw.kind == TK::KwIf ? "'if' statement" : "'elif' clause", kw, s->body);
        return s;
    }

    // if/elif/else: each elif is an If in the orelse of the one before; built in a loop, not recursion.
    StmtPtr parseIf() {
        const Token& kw = advance();
        StmtPtr root = parseIfClause(kw);
        if (!root)
            return nullptr;
        std::vector<Stmt*> chain{root.get()};
        while (at(TK::KwElif)) {
            const Token& elif = advance();
            if (static_cast<int>(chain.size()) > kMaxElifChain) {
                fail("nesting-too-deep", rangeOf(elif),
                     "too many 'elif' clauses (more than " + std::to_string(kMaxElifChain) + ")",
                     "use a lookup table or split the chain", elif);
                break;
            }
            StmtPtr branch = parseIfClause(elif);
            if (!branch)
                break;
            Stmt* next = branch.get();
            chain.back()->orelse.push_back(std::move(branch));
            chain.push_back(next);
        }
        if (!m_panic && at(TK::KwElse)) {
            const Token& elseKw = advance();
            if (expect(TK::Colon, "expected ':' after 'else'", "add ':' after 'else'"))
                parseSuite("'else' clause", elseKw, chain.back()->orelse);
        }
        uint32_t end = lastEnd();
        for (Stmt* s : chain)
            s->range = span(s->range.begin, end);
        return root;
    }

    void parseElseClause(std::vector<StmtPtr>& orelse) {
        if (!at(TK::KwElse))
            return;
        const Token& elseKw = advance();
        if (expect(TK::Colon, "expected ':' after 'else'", "add ':' after 'else'"))
            parseSuite("'else' clause", elseKw, orelse);
    }

    StmtPtr parseFor() {
        const Token& kw = advance();
        StmtPtr s = stmt(StmtKind::For, kw);
        s->target = parseTargetList();
        if (m_panic)
            return nullptr;
        checkTarget(*s->target);
        if (!expect(TK::KwIn, "expected 'in' after the 'for' target", "write 'for name in iterable:'"))
            return nullptr;
        s->iter = parseExprList();
        if (m_panic ||
            !expect(TK::Colon, "expected ':' after the 'for' header", "add ':' at the end of the line"))
            return nullptr;
        parseSuite("'for' statement", kw, s->body);
        parseElseClause(s->orelse);
        s->range = spanFrom(kw.begin);
        return s;
    }

    StmtPtr parseWhile() {
        const Token& kw = advance();
        StmtPtr s = stmt(StmtKind::While, kw);
        s->test = parseNamedExpr();
        if (m_panic ||
            !expect(TK::Colon, "expected ':' after the 'while' condition", "add ':' at the end of the line"))
            return nullptr;
        parseSuite("'while' statement", kw, s->body);
        parseElseClause(s->orelse);
        s->range = spanFrom(kw.begin);
        return s;
    }

    // `with (a as b, c as d):` lists items in parentheses; told apart from `with (a, b) as c:` by the
    // ':' right after the matching ')'.
    bool parenthesizedWithItems() const {
        int depth = 0;
        for (size_t i = m_pos; i < m_tokens.size() && !isLayout(m_tokens[i].kind); ++i) {
            TK k = m_tokens[i].kind;
            if (k == TK::LParen || k == TK::LBracket || k == TK::LBrace)
                ++depth;
            else if (k == TK::RParen || k == TK::RBracket || k == TK::RBrace)
                if (--depth == 0)
                    return i + 1 < m_tokens.size() && m_tokens[i + 1].kind == TK::Colon;
        }
        return false;
    }

    StmtPtr parseWith() {
        const Token& kw = advance();
        StmtPtr s = stmt(StmtKind::With, kw);
        const Token* open = at(TK::LParen) && parenthesizedWithItems() ? &advance() : nullptr;
        do {
            if (open && at(TK::RParen))
                break;
            ast::WithItem item;
            item.context = parseExpr();
            if (!m_panic && accept(TK::KwAs)) {
                item.target = parseTarget();
                checkTarget(*item.target);
            }
            s->items.push_back(std::move(item));
        } while (!m_panic && accept(TK::Comma));
        if (m_panic)
            return nullptr;
        if (open && !expectClosing(TK::RParen, *open, "expected ',' or ')' after the 'with' item",
                                   "close the item list with ')'"))
            return nullptr;
        if (!expect(TK::Colon, "expected ':' after the 'with' items", "add ':' at the end of the line"))
            return nullptr;
        parseSuite("'with' statement", kw, s->body);
        s->range = spanFrom(kw.begin);
        return s;
    }

    bool parseDottedName(std::string& out) {
        if (!at(TK::Name)) {
            failAtCur("unexpected-token", "expected a module name, found " + describe(cur()),
                      "write a dotted module name such as 'tilelang.language'");
            return false;
        }
        out = std::string(text(advance()));
        while (at(TK::Dot)) {
            advance();
            if (!at(TK::Name)) {
                failAtCur("unexpected-token", "expected a name after '.' in the module name",
                          "write a dotted module name such as 'tilelang.language'");
                return false;
            }
            out += '.';
            out += text(advance());
        }
        return true;
    }

    bool parseAsName(ast::Alias& alias) {
        if (!accept(TK::KwAs))
            return true;
        if (!at(TK::Name)) {
            failAtCur("unexpected-token", "expected a name after 'as'", "write 'import module as name'");
            return false;
        }
        alias.asName = std::string(text(advance()));
        return true;
    }

    StmtPtr parseImport() {
        const Token& kw = advance();
        StmtPtr s = stmt(StmtKind::Import, kw);
        do {
            ast::Alias alias;
            const Token& first = cur();
            if (!parseDottedName(alias.name) || !parseAsName(alias))
                return nullptr;
            alias.range = spanFrom(first.begin);
            s->aliases.push_back(std::move(alias));
        } while (accept(TK::Comma));
        s->range = spanFrom(kw.begin);
        return s;
    }

    StmtPtr parseFromImport() {
        const Token& kw = advance();
        StmtPtr s = stmt(StmtKind::ImportFrom, kw);
        while (at(TK::Dot) || at(TK::Ellipsis))
            s->level += advance().kind == TK::Dot ? 1 : 3;
        if ((at(TK::Name) || s->level == 0) && !parseDottedName(s->name))
            return nullptr;
        if (!expect(TK::KwImport, "expected 'import' after the module name",
                    "write 'from module import name'"))
            return nullptr;
        if (at(TK::Star)) {
            const Token& star = advance();
            s->aliases.push_back({"*", "", rangeOf(star)});
        } else {
            const Token* open = at(TK::LParen) ? &advance() : nullptr;
            do {
                if (open && at(TK::RParen))
                    break;
                if (!at(TK::Name)) {
                    failAtCur("unexpected-token", "expected a name to import, found " + describe(cur()),
                              "write 'from module import name'");
                    return nullptr;
                }
                const Token& name = advance();
                ast::Alias alias;
                alias.name = std::string(text(name));
                if (!parseAsName(alias))
                    return nullptr;
                alias.range = spanFrom(name.begin);
                s->aliases.push_back(std::move(alias));
            } while (accept(TK::Comma));
            if (open && !expectClosing(TK::RParen, *open, "expected ',' or ')' in the import list",
                                       "close the import list with ')'"))
                return nullptr;
        }
        s->range = spanFrom(kw.begin);
        return s;
    }

    StmtPtr parseGlobal() {
        const Token& kw = advance();
        StmtPtr s = stmt(StmtKind::Global, kw);
        s->name = kw.kind == TK::KwGlobal ? "global" : "nonlocal";
        do {
            if (!at(TK::Name)) {
                failAtCur("unexpected-token", "expected a name after '" + s->name + "'",
                          "write 'global name'");
                return nullptr;
            }
            s->names.push_back(std::string(text(advance())));
        } while (accept(TK::Comma));
        s->range = spanFrom(kw.begin);
        return s;
    }

    FileId m_file;
    std::string_view m_text;
    DiagnosticEngine& m_diagnostics;
    std::vector<Token> m_tokens;
    std::vector<bool> m_lexErrorLine;
    size_t m_pos = 0;
    int m_depth = 0;
    bool m_panic = false; // an error was reported in the current statement; stay quiet until it is skipped
};

} // namespace

ast::Module parseModule(const SourceManager& sources, FileId file, DiagnosticEngine& diagnostics) {
    // The lexer runs over the whole file before the parser starts, so its diagnostics would all come
    // first. Collect both sides apart and hand them over in source order, as a reader expects them.
    constexpr size_t kCollectLimit = 10000;
    DiagnosticEngine collected;
    collected.setErrorLimit(kCollectLimit);
    ast::Module module = Parser(sources, file, collected).parse();
    std::vector<Diagnostic> sorted = collected.diagnostics();
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const Diagnostic& a, const Diagnostic& b) { return a.range.begin < b.range.begin; });
    for (Diagnostic& d : sorted)
        diagnostics.report(std::move(d));
    return module;
}

} // namespace tb
