// Operator spellings and the S-expression printer of the syntax tree. The printed form is what parser
// tests compare against and what `tilec ast` shows: one expression is one line, e.g.
// `(call (. T copy) (subscript A (tuple (* by block_M) k)) A_shared)`; a module prints one statement per
// line with bodies indented by two spaces and the closing parentheses at the end of the last line.
#include "engine/frontend/Ast.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tb::ast {

const char* binOpSpelling(BinOpKind op) {
    switch (op) {
    case BinOpKind::Add:
        return "+";
    case BinOpKind::Sub:
        return "-";
    case BinOpKind::Mul:
        return "*";
    case BinOpKind::Div:
        return "/";
    case BinOpKind::FloorDiv:
        return "//";
    case BinOpKind::Mod:
        return "%";
    case BinOpKind::Pow:
        return "**";
    case BinOpKind::LShift:
        return "<<";
    case BinOpKind::RShift:
        return ">>";
    case BinOpKind::BitAnd:
        return "&";
    case BinOpKind::BitOr:
        return "|";
    case BinOpKind::BitXor:
        return "^";
    case BinOpKind::MatMul:
        return "@";
    }
    return "?";
}

const char* unaryOpSpelling(UnaryOpKind op) {
    switch (op) {
    case UnaryOpKind::Neg:
        return "-";
    case UnaryOpKind::Pos:
        return "+";
    case UnaryOpKind::Not:
        return "not";
    case UnaryOpKind::Invert:
        return "~";
    }
    return "?";
}

const char* compareSpelling(CompareKind op) {
    switch (op) {
    case CompareKind::Eq:
        return "==";
    case CompareKind::NotEq:
        return "!=";
    case CompareKind::Lt:
        return "<";
    case CompareKind::LtE:
        return "<=";
    case CompareKind::Gt:
        return ">";
    case CompareKind::GtE:
        return ">=";
    case CompareKind::Is:
        return "is";
    case CompareKind::IsNot:
        return "is not";
    case CompareKind::In:
        return "in";
    case CompareKind::NotIn:
        return "not in";
    }
    return "?";
}

namespace {

void quoteString(std::string& out, const std::string& text) {
    static const char* hex = "0123456789abcdef";
    out += '"';
    for (char c : text) {
        unsigned char u = static_cast<unsigned char>(c);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            if (u < 0x20 || u == 0x7F) {
                out += "\\x";
                out += hex[u >> 4];
                out += hex[u & 15];
            } else {
                out += c;
            }
            break;
        }
    }
    out += '"';
}

void appendFloat(std::string& out, double value) {
    if (std::isinf(value)) {
        out += value > 0 ? "inf" : "-inf";
        return;
    }
    if (std::isnan(value)) {
        out += "nan";
        return;
    }
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    std::string text(buffer, ec == std::errc() ? end : buffer);
    if (text.find_first_of(".e") == std::string::npos)
        text += ".0"; // keep floats recognisable: 1.0, not 1
    out += text;
}

void dumpExprTo(std::string& out, const Expr* expr);

void dumpParams(std::string& out, const std::vector<Param>& params) {
    out += "(params";
    for (const Param& p : params) {
        out += ' ';
        std::string name;
        switch (p.kind) {
        case ParamKind::Positional:
            name = p.name;
            break;
        case ParamKind::VarArgs:
            name = "*" + p.name;
            break;
        case ParamKind::KeywordOnly:
            name = "kwonly:" + p.name;
            break;
        case ParamKind::VarKeywords:
            name = "**" + p.name;
            break;
        }
        if (!p.annotation && !p.defaultValue) {
            out += name;
            continue;
        }
        out += '(' + name;
        if (p.annotation) {
            out += " : ";
            dumpExprTo(out, p.annotation.get());
        }
        if (p.defaultValue) {
            out += " = ";
            dumpExprTo(out, p.defaultValue.get());
        }
        out += ')';
    }
    out += ')';
}

void dumpGenerators(std::string& out, const std::vector<Comprehension>& generators) {
    for (const Comprehension& g : generators) {
        out += " (for ";
        dumpExprTo(out, g.target.get());
        out += ' ';
        dumpExprTo(out, g.iter.get());
        for (const ExprPtr& c : g.ifs) {
            out += " (if ";
            dumpExprTo(out, c.get());
            out += ')';
        }
        out += ')';
    }
}

void dumpList(std::string& out, const char* head, const Expr& e) {
    out += '(';
    out += head;
    for (const ExprPtr& element : e.elements) {
        out += ' ';
        dumpExprTo(out, element.get());
    }
    out += ')';
}

void dumpExprTo(std::string& out, const Expr* expr) {
    if (!expr) {
        out += '_';
        return;
    }
    const Expr& e = *expr;
    switch (e.kind) {
    case ExprKind::Name:
        out += e.name;
        return;
    case ExprKind::Constant:
        switch (e.constantKind) {
        case ConstantKind::Int:
            out += e.intOverflow ? std::string("(int-overflow)") : std::to_string(e.intValue);
            return;
        case ConstantKind::Float:
            appendFloat(out, e.floatValue);
            return;
        case ConstantKind::String:
            quoteString(out, e.stringValue);
            return;
        case ConstantKind::Bytes:
            out += 'b';
            quoteString(out, e.stringValue);
            return;
        case ConstantKind::Bool:
            out += e.intValue ? "True" : "False";
            return;
        case ConstantKind::None:
            out += "None";
            return;
        case ConstantKind::Ellipsis:
            out += "...";
            return;
        }
        return;
    case ExprKind::FString:
        out += 'f';
        quoteString(out, e.stringValue);
        return;
    case ExprKind::Attribute:
        out += "(. ";
        dumpExprTo(out, e.a.get());
        out += ' ' + e.name + ')';
        return;
    case ExprKind::Subscript:
        out += "(subscript ";
        dumpExprTo(out, e.a.get());
        out += ' ';
        dumpExprTo(out, e.b.get());
        out += ')';
        return;
    case ExprKind::Slice:
        out += "(slice ";
        dumpExprTo(out, e.a.get());
        out += ' ';
        dumpExprTo(out, e.b.get());
        out += ' ';
        dumpExprTo(out, e.c.get());
        out += ')';
        return;
    case ExprKind::Call:
        out += "(call ";
        dumpExprTo(out, e.a.get());
        for (const ExprPtr& arg : e.elements) {
            out += ' ';
            dumpExprTo(out, arg.get());
        }
        for (const Keyword& k : e.keywords) {
            out += k.name.empty() ? " (** " : " (kw " + k.name + ' ';
            dumpExprTo(out, k.value.get());
            out += ')';
        }
        out += ')';
        return;
    case ExprKind::BinOp:
        out += '(';
        out += binOpSpelling(e.binOp);
        out += ' ';
        dumpExprTo(out, e.a.get());
        out += ' ';
        dumpExprTo(out, e.b.get());
        out += ')';
        return;
    case ExprKind::UnaryOp:
        out += '(';
        out += unaryOpSpelling(e.unaryOp);
        out += ' ';
        dumpExprTo(out, e.a.get());
        out += ')';
        return;
    case ExprKind::BoolOp:
        dumpList(out, e.boolOp == BoolOpKind::And ? "and" : "or", e);
        return;
    case ExprKind::Compare:
        out += "(compare";
        for (size_t i = 0; i < e.elements.size(); ++i) {
            if (i > 0 && i - 1 < e.compareOps.size()) {
                out += ' ';
                out += compareSpelling(e.compareOps[i - 1]);
            }
            out += ' ';
            dumpExprTo(out, e.elements[i].get());
        }
        out += ')';
        return;
    case ExprKind::IfExp:
        out += "(ifexp ";
        dumpExprTo(out, e.b.get());
        out += ' ';
        dumpExprTo(out, e.a.get());
        out += ' ';
        dumpExprTo(out, e.c.get());
        out += ')';
        return;
    case ExprKind::Lambda:
        out += "(lambda ";
        dumpParams(out, e.params);
        out += ' ';
        dumpExprTo(out, e.a.get());
        out += ')';
        return;
    case ExprKind::Tuple:
        dumpList(out, "tuple", e);
        return;
    case ExprKind::List:
        dumpList(out, "list", e);
        return;
    case ExprKind::Dict:
        out += "(dict";
        for (size_t i = 0; i < e.elements.size(); ++i) {
            out += ' ';
            const Expr* key = e.elements[i].get();
            const Expr* value = i < e.values.size() ? e.values[i].get() : nullptr;
            if (key && key->kind == ExprKind::Starred && key->isDoubleStar && !value) {
                dumpExprTo(out, key);
                continue;
            }
            out += '(';
            dumpExprTo(out, key);
            out += ' ';
            dumpExprTo(out, value);
            out += ')';
        }
        out += ')';
        return;
    case ExprKind::ListComp:
        out += e.isGenerator ? "(genexp " : "(listcomp ";
        dumpExprTo(out, e.a.get());
        dumpGenerators(out, e.generators);
        out += ')';
        return;
    case ExprKind::Starred:
        out += e.isDoubleStar ? "(** " : "(* ";
        dumpExprTo(out, e.a.get());
        out += ')';
        return;
    case ExprKind::Unsupported:
        out += "(unsupported ";
        quoteString(out, e.name);
        out += ')';
        return;
    }
}

void newline(std::string& out, int indent) {
    out += '\n';
    out.append(static_cast<size_t>(indent), ' ');
}

void dumpStmtTo(std::string& out, const Stmt& s, int indent);

void dumpBody(std::string& out, const std::vector<StmtPtr>& body, int indent) {
    for (const StmtPtr& child : body) {
        newline(out, indent);
        if (child)
            dumpStmtTo(out, *child, indent);
        else
            out += "_";
    }
}

void dumpOrelse(std::string& out, const std::vector<StmtPtr>& orelse, int indent) {
    if (orelse.empty())
        return;
    newline(out, indent);
    out += "(else";
    dumpBody(out, orelse, indent + 2);
    out += ')';
}

void dumpAlias(std::string& out, const Alias& alias) {
    if (alias.asName.empty()) {
        out += alias.name;
        return;
    }
    out += '(' + alias.name + " as " + alias.asName + ')';
}

void dumpStmtTo(std::string& out, const Stmt& s, int indent) {
    auto expr = [&](const ExprPtr& e) {
        out += ' ';
        dumpExprTo(out, e.get());
    };
    auto firstTarget = [&] {
        out += ' ';
        dumpExprTo(out, s.targets.empty() ? nullptr : s.targets[0].get());
    };
    switch (s.kind) {
    case StmtKind::Expr:
        out += "(expr";
        expr(s.value);
        out += ')';
        return;
    case StmtKind::Assign:
        out += "(assign";
        for (const ExprPtr& t : s.targets)
            expr(t);
        expr(s.value);
        out += ')';
        return;
    case StmtKind::AugAssign:
        out += '(';
        out += binOpSpelling(s.binOp);
        out += '=';
        firstTarget();
        expr(s.value);
        out += ')';
        return;
    case StmtKind::AnnAssign:
        out += "(annassign";
        firstTarget();
        expr(s.annotation);
        if (s.value)
            expr(s.value);
        out += ')';
        return;
    case StmtKind::FunctionDef:
        out += "(def " + s.name + ' ';
        dumpParams(out, s.params);
        if (s.returns) {
            out += " (->";
            expr(s.returns);
            out += ')';
        }
        if (!s.decorators.empty()) {
            out += " (decorators";
            for (const ExprPtr& d : s.decorators)
                expr(d);
            out += ')';
        }
        dumpBody(out, s.body, indent + 2);
        out += ')';
        return;
    case StmtKind::Return:
        out += "(return";
        if (s.value)
            expr(s.value);
        out += ')';
        return;
    case StmtKind::If:
    case StmtKind::While:
        out += s.kind == StmtKind::If ? "(if" : "(while";
        expr(s.test);
        dumpBody(out, s.body, indent + 2);
        dumpOrelse(out, s.orelse, indent + 2);
        out += ')';
        return;
    case StmtKind::For:
        out += "(for";
        expr(s.target);
        expr(s.iter);
        dumpBody(out, s.body, indent + 2);
        dumpOrelse(out, s.orelse, indent + 2);
        out += ')';
        return;
    case StmtKind::With:
        out += "(with";
        for (const WithItem& item : s.items) {
            out += " (";
            dumpExprTo(out, item.context.get());
            if (item.target) {
                out += " as";
                expr(item.target);
            }
            out += ')';
        }
        dumpBody(out, s.body, indent + 2);
        out += ')';
        return;
    case StmtKind::Assert:
        out += "(assert";
        expr(s.test);
        if (s.msg)
            expr(s.msg);
        out += ')';
        return;
    case StmtKind::Pass:
        out += "(pass)";
        return;
    case StmtKind::Break:
        out += "(break)";
        return;
    case StmtKind::Continue:
        out += "(continue)";
        return;
    case StmtKind::Import:
        out += "(import";
        for (const Alias& alias : s.aliases) {
            out += ' ';
            dumpAlias(out, alias);
        }
        out += ')';
        return;
    case StmtKind::ImportFrom:
        out += "(from " + std::string(static_cast<size_t>(std::max(s.level, 0)), '.') + s.name;
        for (const Alias& alias : s.aliases) {
            out += ' ';
            dumpAlias(out, alias);
        }
        out += ')';
        return;
    case StmtKind::Global:
        out += '(' + (s.name.empty() ? std::string("global") : s.name);
        for (const std::string& name : s.names)
            out += ' ' + name;
        out += ')';
        return;
    case StmtKind::ClassDef:
        out += "(class " + s.name;
        for (const ExprPtr& base : s.targets)
            expr(base);
        dumpBody(out, s.body, indent + 2);
        out += ')';
        return;
    case StmtKind::Unsupported:
        out += "(unsupported ";
        quoteString(out, s.name);
        out += ')';
        return;
    }
}

} // namespace

std::string dumpExpr(const Expr& expr) {
    std::string out;
    dumpExprTo(out, &expr);
    return out;
}

std::string dumpModule(const Module& module) {
    std::string out = "(module";
    dumpBody(out, module.body, 2);
    out += ")\n";
    return out;
}

} // namespace tb::ast
