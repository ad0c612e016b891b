// The syntax tree of the Python subset that TileLang programs use. The parser builds it for the whole
// module, host code included; the elaborator walks it. Nodes are plain data: a Kind tag, a source range and
// owned children. Constructs outside the subset (class, try, yield, ...) still parse, as UnsupportedStmt or
// UnsupportedExpr nodes that name the construct, so host code that uses them loads and only kernel code
// that uses them is an error.
#pragma once

#include "engine/support/SourceManager.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tb::ast {

// ---------------------------------------------------------------------------------------------------
// Expressions

enum class ExprKind {
    Name,        // x
    Constant,    // 1, 2.5, "s", True, None, ...
    FString,     // f"..." (kept as raw text; host code only)
    Attribute,   // value.attr
    Subscript,   // value[index]; a multi-index is a Tuple, a slice a Slice
    Slice,       // lower:upper:step (only inside Subscript)
    Call,        // func(args, key=value, *star, **kw)
    BinOp,       // a + b
    UnaryOp,     // -a, not a, ~a, +a
    BoolOp,      // a and b and c
    Compare,     // a < b <= c
    IfExp,       // a if c else b
    Lambda,      // lambda i, j: ...
    Tuple,       // (a, b)
    List,        // [a, b]
    Dict,        // {k: v}
    ListComp,    // [e for x in it if c]  (also generator expressions, marked isGenerator)
    Starred,     // *x (in calls, tuple targets)
    Unsupported, // a construct outside the subset, named in `construct`
};

enum class BinOpKind {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    BitAnd,
    BitOr,
    BitXor,
    MatMul
};
enum class UnaryOpKind { Neg, Pos, Not, Invert };
enum class BoolOpKind { And, Or };
enum class CompareKind { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

const char* binOpSpelling(BinOpKind op);
const char* unaryOpSpelling(UnaryOpKind op);
const char* compareSpelling(CompareKind op);

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Keyword {
    std::string name; // empty for **kwargs
    ExprPtr value;
    SourceRange range;
};

struct Comprehension {
    ExprPtr target;
    ExprPtr iter;
    std::vector<ExprPtr> ifs;
};

enum class ParamKind { Positional, VarArgs, KeywordOnly, VarKeywords };

struct Param {
    std::string name;
    ParamKind kind = ParamKind::Positional;
    ExprPtr annotation;   // may be null
    ExprPtr defaultValue; // may be null
    SourceRange range;
};

enum class ConstantKind { Int, Float, String, Bytes, Bool, None, Ellipsis };

struct Expr {
    ExprKind kind;
    SourceRange range;

    // Name: id. Attribute: attr. Unsupported: construct (e.g. "yield expression").
    std::string name;

    // Constant
    ConstantKind constantKind = ConstantKind::None;
    int64_t intValue = 0;     // Int, Bool (0/1)
    double floatValue = 0;    // Float
    std::string stringValue;  // String, Bytes, FString (decoded text)
    bool intOverflow = false; // an integer literal that does not fit in 64 bits

    // Operators
    BinOpKind binOp = BinOpKind::Add;
    UnaryOpKind unaryOp = UnaryOpKind::Neg;
    BoolOpKind boolOp = BoolOpKind::And;
    std::vector<CompareKind> compareOps; // Compare: ops between operands

    // Children. Meaning by kind:
    //   Attribute: value=a          Subscript: value=a, index=b      Slice: lower/upper/step (each may be
    //   null) Call: func=a, args=elements, keywords                         BinOp: a, b UnaryOp: a
    //   BoolOp/Compare: elements (operands in order) IfExp: a=body, b=test, c=orelse Lambda: params, a=body
    //   Tuple/List: elements        Dict: elements=keys, values       ListComp: a=element, generators
    //   Starred: a (isDoubleStar for **x inside a dict display)
    //   A `**d` entry of a dict display has key Starred(isDoubleStar, a=d) and a null value.
    ExprPtr a, b, c;
    std::vector<ExprPtr> elements;
    std::vector<ExprPtr> values;
    std::vector<Keyword> keywords;
    std::vector<Param> params;
    std::vector<Comprehension> generators;
    bool isGenerator = false;
    bool isDoubleStar = false;
    bool parenthesized = false; // written inside (), e.g. "(a, b)" versus "a, b"
    // Height of this subtree (1 for a leaf), set by the parser. The parser rejects expressions higher than a
    // few thousand levels, so recursive walkers over parsed trees cannot run out of stack.
    uint32_t depth = 1;

    Expr(ExprKind k, SourceRange r) : kind(k), range(r) {}
};

// ---------------------------------------------------------------------------------------------------
// Statements

enum class StmtKind {
    Expr,        // an expression statement (calls, docstrings)
    Assign,      // a = b = value
    AugAssign,   // a += value
    AnnAssign,   // a: ann [= value]
    FunctionDef, // [decorators] def name(params) -> returns: body
    ClassDef,    // [decorators] class name(bases): body  (bases in targets; range: the header line)
    Return,      // return [value]
    If,          // if test: body [elif ...] [else: orelse]  (elif nests as an If in orelse)
    For,         // for target in iter: body [else: orelse]
    While,       // while test: body [else: orelse]
    With,        // with item [as target], ...: body
    Assert,      // assert test [, msg]
    Pass,
    Break,
    Continue,
    Import,      // import a.b as c, d
    ImportFrom,  // from .a import b as c, *
    Global,      // global a, b / nonlocal a
    Unsupported, // class, try, raise, del, async, match, ... (header range; body skipped)
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Alias {
    std::string name;   // dotted, e.g. "tilelang.language"
    std::string asName; // empty if none
    SourceRange range;
};

struct WithItem {
    ExprPtr context;
    ExprPtr target; // may be null
};

struct Stmt {
    StmtKind kind;
    SourceRange range;

    // FunctionDef: name. ImportFrom: module (leading dots in `level`). Unsupported: construct (e.g. "class").
    std::string name;
    int level = 0;

    // Meaning by kind:
    //   Expr: value                      Assign: targets (one or more), value
    //   AugAssign: targets[0], binOp, value                   AnnAssign: targets[0], annotation, value (may
    //   be null) FunctionDef: params, decorators, returns (may be null), body Return: value (may be null)
    //   ClassDef: name, targets (the bases), decorators, body
    //   If/While: test, body, orelse          For: target, iter, body, orelse With: items, body Assert: test,
    //   msg (may be null) Import/ImportFrom: aliases       Global: names (name is "global" or "nonlocal")
    ExprPtr value;
    std::vector<ExprPtr> targets;
    ExprPtr annotation;
    BinOpKind binOp = BinOpKind::Add;
    std::vector<Param> params;
    std::vector<ExprPtr> decorators;
    ExprPtr returns;
    ExprPtr test;
    ExprPtr target;
    ExprPtr iter;
    ExprPtr msg;
    std::vector<WithItem> items;
    std::vector<Alias> aliases;
    std::vector<std::string> names;
    std::vector<StmtPtr> body;
    std::vector<StmtPtr> orelse;

    Stmt(StmtKind k, SourceRange r) : kind(k), range(r) {}
};

struct Module {
    FileId file = 0;
    std::vector<StmtPtr> body;
};

// Prints the tree as an indented S-expression; used by parser tests and `tilec ast`.
std::string dumpExpr(const Expr& expr);
std::string dumpModule(const Module& module);

} // namespace tb::ast
