// IndexExpr construction, printing, bounds, substitution and evaluation. The simplifier lives in
// IndexSimplify.cpp.
#include "engine/layout/algebra/IndexExpr.h"

#include "engine/layout/algebra/IndexMath.h"

#include <algorithm>
#include <set>
#include <utility>

namespace tb::layout {

const char* indexExprKindName(IndexExprKind kind) {
    switch (kind) {
    case IndexExprKind::Constant:
        return "constant";
    case IndexExprKind::Var:
        return "var";
    case IndexExprKind::Add:
        return "add";
    case IndexExprKind::Mul:
        return "mul";
    case IndexExprKind::FloorDiv:
        return "floordiv";
    case IndexExprKind::FloorMod:
        return "floormod";
    case IndexExprKind::Xor:
        return "xor";
    case IndexExprKind::And:
        return "and";
    case IndexExprKind::Or:
        return "or";
    case IndexExprKind::Min:
        return "min";
    case IndexExprKind::Max:
        return "max";
    }
    return "?";
}

namespace {

std::shared_ptr<const IndexExprNode> makeConstantNode(int64_t value) {
    auto node = std::make_shared<IndexExprNode>();
    node->kind = IndexExprKind::Constant;
    node->value = value;
    return node;
}

// The constants 0..63 are shared: they appear in almost every layout expression.
const std::shared_ptr<const IndexExprNode>& smallConstant(int64_t value) {
    static const std::vector<std::shared_ptr<const IndexExprNode>> table = [] {
        std::vector<std::shared_ptr<const IndexExprNode>> nodes;
        for (int64_t v = 0; v < 64; ++v)
            nodes.push_back(makeConstantNode(v));
        return nodes;
    }();
    return table[size_t(value)];
}

} // namespace

IndexExpr::IndexExpr() : m_node(smallConstant(0)) {}

IndexExpr::IndexExpr(int64_t value)
    : m_node(value >= 0 && value < 64 ? smallConstant(value) : makeConstantNode(value)) {}

IndexExpr IndexExpr::constant(int64_t value) {
    return IndexExpr(value);
}

IndexExpr IndexExpr::var(std::string name, int64_t extent) {
    auto node = std::make_shared<IndexExprNode>();
    node->kind = IndexExprKind::Var;
    node->name = std::move(name);
    node->value = extent < 1 ? 1 : extent;
    return IndexExpr(std::shared_ptr<const IndexExprNode>(std::move(node)));
}

IndexExprKind IndexExpr::kind() const {
    return m_node->kind;
}
bool IndexExpr::isConstant(int64_t value) const {
    return isConstant() && m_node->value == value;
}
int64_t IndexExpr::constantValue() const {
    return m_node->value;
}
const std::string& IndexExpr::varName() const {
    return m_node->name;
}
int64_t IndexExpr::varExtent() const {
    return m_node->value;
}
const IndexExpr& IndexExpr::lhs() const {
    return m_node->a;
}
const IndexExpr& IndexExpr::rhs() const {
    return m_node->b;
}
int IndexExpr::depth() const {
    return m_node->depth;
}

IndexExpr makeBinary(IndexExprKind kind, IndexExpr a, IndexExpr b) {
    auto node = std::make_shared<IndexExprNode>();
    node->kind = kind;
    node->depth = 1 + std::max(a.depth(), b.depth());
    node->a = std::move(a);
    node->b = std::move(b);
    return IndexExpr(std::shared_ptr<const IndexExprNode>(std::move(node)));
}

IndexExpr operator+(const IndexExpr& a, const IndexExpr& b) {
    return makeBinary(IndexExprKind::Add, a, b);
}
IndexExpr operator-(const IndexExpr& a, const IndexExpr& b) {
    return makeBinary(IndexExprKind::Add, a, makeBinary(IndexExprKind::Mul, IndexExpr(-1), b));
}
IndexExpr operator*(const IndexExpr& a, const IndexExpr& b) {
    return makeBinary(IndexExprKind::Mul, a, b);
}
IndexExpr floorDiv(const IndexExpr& a, const IndexExpr& b) {
    return makeBinary(IndexExprKind::FloorDiv, a, b);
}
IndexExpr floorMod(const IndexExpr& a, const IndexExpr& b) {
    return makeBinary(IndexExprKind::FloorMod, a, b);
}
IndexExpr bitXor(const IndexExpr& a, const IndexExpr& b) {
    return makeBinary(IndexExprKind::Xor, a, b);
}
IndexExpr bitAnd(const IndexExpr& a, const IndexExpr& b) {
    return makeBinary(IndexExprKind::And, a, b);
}
IndexExpr bitOr(const IndexExpr& a, const IndexExpr& b) {
    return makeBinary(IndexExprKind::Or, a, b);
}
IndexExpr minOf(const IndexExpr& a, const IndexExpr& b) {
    return makeBinary(IndexExprKind::Min, a, b);
}
IndexExpr maxOf(const IndexExpr& a, const IndexExpr& b) {
    return makeBinary(IndexExprKind::Max, a, b);
}

// ---------------------------------------------------------------------------------------------------
// Printing

namespace {

bool isCompound(const IndexExpr& e) {
    switch (e.kind()) {
    case IndexExprKind::Constant:
        return e.constantValue() < 0;
    case IndexExprKind::Var:
    case IndexExprKind::Min:
    case IndexExprKind::Max:
        return false;
    case IndexExprKind::Add:
    case IndexExprKind::Mul:
    case IndexExprKind::FloorDiv:
    case IndexExprKind::FloorMod:
    case IndexExprKind::Xor:
    case IndexExprKind::And:
    case IndexExprKind::Or:
        return true;
    }
    return true;
}

bool isBitwise(const IndexExpr& e) {
    return e.kind() == IndexExprKind::Xor || e.kind() == IndexExprKind::And || e.kind() == IndexExprKind::Or;
}

void print(const IndexExpr& e, std::string& out);

void printOperand(const IndexExpr& e, std::string& out) {
    if (isCompound(e)) {
        out += '(';
        print(e, out);
        out += ')';
    } else {
        print(e, out);
    }
}

void collectSum(const IndexExpr& e, std::vector<IndexExpr>& terms) {
    if (e.kind() == IndexExprKind::Add) {
        collectSum(e.lhs(), terms);
        collectSum(e.rhs(), terms);
    } else {
        terms.push_back(e);
    }
}

// A term printed after the first one of a sum: negative coefficients become " - ".
void printSumTerm(const IndexExpr& term, bool first, std::string& out) {
    if (!first && term.kind() == IndexExprKind::Constant && term.constantValue() < 0 &&
        term.constantValue() != INT64_MIN) {
        out += " - " + std::to_string(-term.constantValue());
        return;
    }
    if (!first && term.kind() == IndexExprKind::Mul && term.lhs().isConstant() &&
        term.lhs().constantValue() < 0 && term.lhs().constantValue() != INT64_MIN) {
        out += " - ";
        int64_t magnitude = -term.lhs().constantValue();
        if (magnitude != 1) {
            out += std::to_string(magnitude) + "*";
            printOperand(term.rhs(), out);
        } else {
            printOperand(term.rhs(), out);
        }
        return;
    }
    if (!first)
        out += " + ";
    if (isBitwise(term) || (!first && term.isConstant() && term.constantValue() < 0))
        printOperand(term, out);
    else
        print(term, out);
}

void print(const IndexExpr& e, std::string& out) {
    switch (e.kind()) {
    case IndexExprKind::Constant:
        out += std::to_string(e.constantValue());
        return;
    case IndexExprKind::Var:
        out += e.varName();
        return;
    case IndexExprKind::Add: {
        std::vector<IndexExpr> terms;
        collectSum(e, terms);
        for (size_t k = 0; k < terms.size(); ++k)
            printSumTerm(terms[k], k == 0, out);
        return;
    }
    case IndexExprKind::Mul:
        printOperand(e.lhs(), out);
        out += '*';
        printOperand(e.rhs(), out);
        return;
    case IndexExprKind::FloorDiv:
        printOperand(e.lhs(), out);
        out += "//";
        printOperand(e.rhs(), out);
        return;
    case IndexExprKind::FloorMod:
        printOperand(e.lhs(), out);
        out += '%';
        printOperand(e.rhs(), out);
        return;
    case IndexExprKind::Xor:
    case IndexExprKind::And:
    case IndexExprKind::Or: {
        const char* op = e.kind() == IndexExprKind::Xor   ? " ^ "
                         : e.kind() == IndexExprKind::And ? " & "
                                                          : " | ";
        printOperand(e.lhs(), out);
        out += op;
        printOperand(e.rhs(), out);
        return;
    }
    case IndexExprKind::Min:
    case IndexExprKind::Max:
        out += e.kind() == IndexExprKind::Min ? "min(" : "max(";
        print(e.lhs(), out);
        out += ", ";
        print(e.rhs(), out);
        out += ')';
        return;
    }
}

} // namespace

std::string IndexExpr::toString() const {
    std::string out;
    print(*this, out);
    return out;
}

bool sameExpr(const IndexExpr& a, const IndexExpr& b) {
    return a.node() == b.node() || a.toString() == b.toString();
}

// ---------------------------------------------------------------------------------------------------
// Bounds

IndexBounds boundsOf(const IndexExpr& e) {
    switch (e.kind()) {
    case IndexExprKind::Constant:
        return {saturate(e.constantValue()), saturate(e.constantValue())};
    case IndexExprKind::Var:
        return {0, saturate(e.varExtent() - 1)};
    case IndexExprKind::Add: {
        IndexBounds a = boundsOf(e.lhs()), b = boundsOf(e.rhs());
        return {saturatingAdd(a.lo, b.lo), saturatingAdd(a.hi, b.hi)};
    }
    case IndexExprKind::Mul: {
        IndexBounds a = boundsOf(e.lhs()), b = boundsOf(e.rhs());
        int64_t p[4] = {saturatingMul(a.lo, b.lo), saturatingMul(a.lo, b.hi), saturatingMul(a.hi, b.lo),
                        saturatingMul(a.hi, b.hi)};
        return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
    }
    case IndexExprKind::FloorDiv: {
        IndexBounds a = boundsOf(e.lhs());
        if (!e.rhs().isConstant() || e.rhs().constantValue() <= 0)
            return {-kUnboundedIndex, kUnboundedIndex};
        int64_t c = e.rhs().constantValue();
        int64_t lo = a.lo <= -kUnboundedIndex ? -kUnboundedIndex : pyFloorDiv(a.lo, c);
        int64_t hi = a.hi >= kUnboundedIndex ? kUnboundedIndex : pyFloorDiv(a.hi, c);
        return {lo, hi};
    }
    case IndexExprKind::FloorMod: {
        IndexBounds a = boundsOf(e.lhs());
        IndexBounds b = boundsOf(e.rhs());
        if (b.lo < 1 || b.hi >= kUnboundedIndex)
            return {-kUnboundedIndex, kUnboundedIndex};
        if (a.lo >= 0 && a.hi < b.lo)
            return a;
        return {0, b.hi - 1};
    }
    case IndexExprKind::Xor:
    case IndexExprKind::Or: {
        IndexBounds a = boundsOf(e.lhs()), b = boundsOf(e.rhs());
        if (a.lo < 0 || b.lo < 0 || a.hi >= kUnboundedIndex || b.hi >= kUnboundedIndex)
            return {-kUnboundedIndex, kUnboundedIndex};
        int64_t high = std::max(a.hi, b.hi);
        int64_t mask = 0;
        while (mask < high)
            mask = mask * 2 + 1;
        return {e.kind() == IndexExprKind::Or ? std::max(a.lo, b.lo) : 0, mask};
    }
    case IndexExprKind::And: {
        IndexBounds a = boundsOf(e.lhs()), b = boundsOf(e.rhs());
        if (a.lo >= 0 && b.lo >= 0)
            return {0, std::min(a.hi, b.hi)};
        if (a.lo >= 0)
            return {0, a.hi};
        if (b.lo >= 0)
            return {0, b.hi};
        return {-kUnboundedIndex, kUnboundedIndex};
    }
    case IndexExprKind::Min: {
        IndexBounds a = boundsOf(e.lhs()), b = boundsOf(e.rhs());
        return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    }
    case IndexExprKind::Max: {
        IndexBounds a = boundsOf(e.lhs()), b = boundsOf(e.rhs());
        return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    }
    }
    return {-kUnboundedIndex, kUnboundedIndex};
}

// ---------------------------------------------------------------------------------------------------
// Substitution and variables

namespace {

IndexExpr substituteImpl(const IndexExpr& e, const std::map<std::string, IndexExpr>& replacements) {
    switch (e.kind()) {
    case IndexExprKind::Constant:
        return e;
    case IndexExprKind::Var: {
        auto it = replacements.find(e.varName());
        return it == replacements.end() ? e : it->second;
    }
    case IndexExprKind::Add:
    case IndexExprKind::Mul:
    case IndexExprKind::FloorDiv:
    case IndexExprKind::FloorMod:
    case IndexExprKind::Xor:
    case IndexExprKind::And:
    case IndexExprKind::Or:
    case IndexExprKind::Min:
    case IndexExprKind::Max: {
        IndexExpr a = substituteImpl(e.lhs(), replacements);
        IndexExpr b = substituteImpl(e.rhs(), replacements);
        if (a.node() == e.lhs().node() && b.node() == e.rhs().node())
            return e;
        return makeBinary(e.kind(), a, b);
    }
    }
    return e;
}

void collectVars(const IndexExpr& e, std::set<std::string>& names) {
    if (e.kind() == IndexExprKind::Var) {
        names.insert(e.varName());
    } else if (e.kind() != IndexExprKind::Constant) {
        collectVars(e.lhs(), names);
        collectVars(e.rhs(), names);
    }
}

} // namespace

IndexExpr substitute(const IndexExpr& expr, const std::map<std::string, IndexExpr>& replacements) {
    if (replacements.empty())
        return expr;
    return substituteImpl(expr, replacements);
}

std::vector<std::string> variablesOf(const IndexExpr& expr) {
    std::set<std::string> names;
    collectVars(expr, names);
    return {names.begin(), names.end()};
}

// ---------------------------------------------------------------------------------------------------
// Evaluation

std::optional<int64_t> evaluate(const IndexExpr& expr, const std::map<std::string, int64_t>& values) {
    std::vector<std::string> order;
    std::vector<int64_t> slots;
    for (const auto& [name, value] : values) {
        order.push_back(name);
        slots.push_back(value);
    }
    CompiledIndexExpr compiled(expr, order);
    if (!compiled.valid())
        return std::nullopt;
    return compiled.evaluate(slots.data());
}

CompiledIndexExpr::CompiledIndexExpr(const IndexExpr& expr, const std::vector<std::string>& varOrder) {
    emit(expr, varOrder);
}

void CompiledIndexExpr::emit(const IndexExpr& e, const std::vector<std::string>& varOrder) {
    switch (e.kind()) {
    case IndexExprKind::Constant:
        m_ops.push_back({IndexExprKind::Constant, e.constantValue()});
        return;
    case IndexExprKind::Var: {
        auto it = std::find(varOrder.begin(), varOrder.end(), e.varName());
        if (it == varOrder.end()) {
            m_valid = false;
            m_ops.push_back({IndexExprKind::Constant, 0});
        } else {
            m_ops.push_back({IndexExprKind::Var, int64_t(it - varOrder.begin())});
        }
        return;
    }
    case IndexExprKind::Add:
    case IndexExprKind::Mul:
    case IndexExprKind::FloorDiv:
    case IndexExprKind::FloorMod:
    case IndexExprKind::Xor:
    case IndexExprKind::And:
    case IndexExprKind::Or:
    case IndexExprKind::Min:
    case IndexExprKind::Max:
        emit(e.lhs(), varOrder);
        emit(e.rhs(), varOrder);
        m_ops.push_back({e.kind(), 0});
        return;
    }
}

std::optional<int64_t> CompiledIndexExpr::evaluate(const int64_t* slots) const {
    if (!m_valid)
        return std::nullopt;
    // Postfix programs of layout expressions are shallow; the fixed stack covers them and a vector takes
    // over for anything deeper.
    int64_t fixed[64];
    std::vector<int64_t> grown;
    int64_t* stack = fixed;
    if (m_ops.size() > 64) {
        grown.resize(m_ops.size());
        stack = grown.data();
    }
    size_t top = 0;
    for (const Op& op : m_ops) {
        if (op.kind == IndexExprKind::Constant) {
            stack[top++] = op.value;
            continue;
        }
        if (op.kind == IndexExprKind::Var) {
            stack[top++] = slots[op.value];
            continue;
        }
        int64_t b = stack[--top];
        int64_t a = stack[--top];
        std::optional<int64_t> r = applyBinary(op.kind, a, b);
        if (!r)
            return std::nullopt;
        stack[top++] = *r;
    }
    return top == 1 ? std::optional<int64_t>(stack[0]) : std::nullopt;
}

bool CompiledIndexExpr::evaluateColumns(const std::vector<std::vector<int64_t>>& columns, size_t count,
                                        std::vector<int64_t>& out) const {
    if (!m_valid)
        return false;
    // A stack of columns. Constants stay scalars so that "x * 8" costs one pass over x; variables point at
    // the caller's columns until an operation writes a result, which reuses the left operand's storage.
    struct Column {
        bool scalar = true;
        int64_t value = 0;
        const int64_t* ref = nullptr; // a variable's column, not owned
        std::vector<int64_t> data;    // owned values
        const int64_t* values() const { return ref ? ref : data.data(); }
    };
    std::vector<Column> stack;
    stack.reserve(m_ops.size());
    for (const Op& op : m_ops) {
        if (op.kind == IndexExprKind::Constant) {
            stack.push_back({true, op.value, nullptr, {}});
            continue;
        }
        if (op.kind == IndexExprKind::Var) {
            if (op.value < 0 || static_cast<size_t>(op.value) >= columns.size() ||
                columns[static_cast<size_t>(op.value)].size() < count)
                return false;
            stack.push_back({false, 0, columns[static_cast<size_t>(op.value)].data(), {}});
            continue;
        }
        if (stack.size() < 2)
            return false;
        Column b = std::move(stack.back());
        stack.pop_back();
        Column& a = stack.back();
        if (a.scalar && b.scalar) {
            std::optional<int64_t> r = applyBinary(op.kind, a.value, b.value);
            if (!r)
                return false;
            a.value = *r;
            continue;
        }
        const int64_t* xa = a.scalar ? nullptr : a.values();
        const int64_t* xb = b.scalar ? nullptr : b.values();
        const int64_t av = a.value, bv = b.value;
        std::vector<int64_t> result;
        if (!a.scalar && !a.ref)
            result = std::move(a.data); // in place: element n reads xa[n] before writing it
        else
            result.resize(count);
        if (xa == nullptr || a.ref)
            ; // xa still points at the operand's own storage
        else
            xa = result.data();
        int64_t* dst = result.data();
        bool ok = true;
        // The operation is chosen once per column, so each loop below is a tight, inlinable kernel.
        auto apply = [&](auto&& fn) {
            // Four shapes (column or scalar on each side), so the inner loop has no branches on them.
            if (xa && xb)
                for (size_t n = 0; n < count; ++n)
                    dst[n] = fn(xa[n], xb[n]);
            else if (xa)
                for (size_t n = 0; n < count; ++n)
                    dst[n] = fn(xa[n], bv);
            else if (xb)
                for (size_t n = 0; n < count; ++n)
                    dst[n] = fn(av, xb[n]);
        };
        switch (op.kind) {
        case IndexExprKind::Add:
            apply([&](int64_t x, int64_t y) {
                int64_t r;
                ok &= !__builtin_add_overflow(x, y, &r);
                return r;
            });
            break;
        case IndexExprKind::Mul:
            apply([&](int64_t x, int64_t y) {
                int64_t r;
                ok &= !__builtin_mul_overflow(x, y, &r);
                return r;
            });
            break;
        case IndexExprKind::FloorDiv:
            apply([&](int64_t x, int64_t y) {
                if (y == 0 || (x == INT64_MIN && y == -1)) {
                    ok = false;
                    return int64_t(0);
                }
                return pyFloorDiv(x, y);
            });
            break;
        case IndexExprKind::FloorMod:
            apply([&](int64_t x, int64_t y) {
                if (y == 0) {
                    ok = false;
                    return int64_t(0);
                }
                return y == -1 ? int64_t(0) : pyFloorMod(x, y);
            });
            break;
        case IndexExprKind::Xor:
            apply([](int64_t x, int64_t y) { return x ^ y; });
            break;
        case IndexExprKind::And:
            apply([](int64_t x, int64_t y) { return x & y; });
            break;
        case IndexExprKind::Or:
            apply([](int64_t x, int64_t y) { return x | y; });
            break;
        case IndexExprKind::Min:
            apply([](int64_t x, int64_t y) { return x < y ? x : y; });
            break;
        case IndexExprKind::Max:
            apply([](int64_t x, int64_t y) { return x > y ? x : y; });
            break;
        case IndexExprKind::Constant:
        case IndexExprKind::Var:
            ok = false;
            break;
        }
        if (!ok)
            return false;
        a.scalar = false;
        a.ref = nullptr;
        a.data = std::move(result);
    }
    if (stack.size() != 1)
        return false;
    if (stack[0].scalar)
        out.assign(count, stack[0].value);
    else if (stack[0].ref)
        out.assign(stack[0].ref, stack[0].ref + count);
    else
        out = std::move(stack[0].data);
    return true;
}

} // namespace tb::layout
