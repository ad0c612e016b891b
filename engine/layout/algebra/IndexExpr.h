// IndexExpr: the small symbolic integer expressions that layouts are written in. An expression is built
// from constants, named iteration variables with a known range [0, extent), +, *, floor division and
// floor modulo (Python's // and %), bitwise xor/and/or and min/max. Nodes are immutable and shared.
//
// The operators build raw trees; simplify() puts a tree into its canonical form (constants folded, affine
// terms merged and ordered, range facts such as i%8 -> i for 0 <= i < 8 applied). Two expressions that
// simplify to the same text are the same function; the converse is not promised (equality of layouts is
// decided by enumeration, see LayoutEnumeration.h). Everything is host int64_t; evaluation reports
// division by zero and overflow as an empty optional instead of trapping.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::layout {

enum class IndexExprKind { Constant, Var, Add, Mul, FloorDiv, FloorMod, Xor, And, Or, Min, Max };

const char* indexExprKindName(IndexExprKind kind);

struct IndexExprNode;

// A value handle to an immutable expression node. The default-constructed expression is the constant 0.
class IndexExpr {
public:
    IndexExpr();
    IndexExpr(int64_t value); // implicit so that `4 * i + 1` reads naturally

    static IndexExpr constant(int64_t value);
    // A variable ranging over [0, extent). Precondition: extent >= 1.
    static IndexExpr var(std::string name, int64_t extent);

    IndexExprKind kind() const;
    bool isConstant() const { return kind() == IndexExprKind::Constant; }
    bool isConstant(int64_t value) const;
    int64_t constantValue() const;      // precondition: isConstant()
    const std::string& varName() const; // precondition: kind() == Var
    int64_t varExtent() const;          // precondition: kind() == Var
    const IndexExpr& lhs() const;       // precondition: a binary kind
    const IndexExpr& rhs() const;
    int depth() const;
    const IndexExprNode* node() const { return m_node.get(); }

    // Canonical text: `4*(i%8) + (j%8)//2`. Operands of *, //, % that are themselves compound are
    // parenthesised; terms of a sum print in the order simplify() gives them.
    std::string toString() const;

private:
    // Leaf nodes hold empty child handles; they are never read (lhs()/rhs() are for binary kinds only).
    struct EmptyTag {};
    explicit IndexExpr(EmptyTag) {}
    explicit IndexExpr(std::shared_ptr<const IndexExprNode> node) : m_node(std::move(node)) {}
    friend IndexExpr makeBinary(IndexExprKind kind, IndexExpr a, IndexExpr b);
    friend struct IndexExprNode;
    std::shared_ptr<const IndexExprNode> m_node;
};

struct IndexExprNode {
    IndexExprKind kind = IndexExprKind::Constant;
    int64_t value = 0;                  // Constant: the value; Var: the extent
    std::string name;                   // Var only
    IndexExpr a{IndexExpr::EmptyTag{}}; // binary kinds only
    IndexExpr b{IndexExpr::EmptyTag{}};
    int depth = 1;
};

IndexExpr makeBinary(IndexExprKind kind, IndexExpr a, IndexExpr b);

IndexExpr operator+(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator-(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator*(const IndexExpr& a, const IndexExpr& b);
IndexExpr floorDiv(const IndexExpr& a, const IndexExpr& b);
IndexExpr floorMod(const IndexExpr& a, const IndexExpr& b);
IndexExpr bitXor(const IndexExpr& a, const IndexExpr& b);
IndexExpr bitAnd(const IndexExpr& a, const IndexExpr& b);
IndexExpr bitOr(const IndexExpr& a, const IndexExpr& b);
IndexExpr minOf(const IndexExpr& a, const IndexExpr& b);
IndexExpr maxOf(const IndexExpr& a, const IndexExpr& b);

// Inclusive interval bound of an expression given its variables' ranges. Unknown sides saturate at
// +-kUnboundedIndex.
constexpr int64_t kUnboundedIndex = int64_t(1) << 60;
struct IndexBounds {
    int64_t lo = 0;
    int64_t hi = 0;
};
IndexBounds boundsOf(const IndexExpr& expr);

// Canonical form; see the file comment for the rules. Post: evaluates to the same value as `expr` at every
// point of the variables' ranges. Example: simplify((i*8 + j)//8) == i when j has extent 8.
IndexExpr simplify(const IndexExpr& expr);

// Simultaneous substitution of variables by name; variables not in the map stay. Does not simplify.
IndexExpr substitute(const IndexExpr& expr, const std::map<std::string, IndexExpr>& replacements);

// Names of the variables that occur, sorted.
std::vector<std::string> variablesOf(const IndexExpr& expr);

bool sameExpr(const IndexExpr& a, const IndexExpr& b); // structural: equal canonical text

// Evaluation. Unbound variables, division/modulo by zero and int64 overflow give std::nullopt.
std::optional<int64_t> evaluate(const IndexExpr& expr, const std::map<std::string, int64_t>& values);

// An expression flattened to a postfix program over variable slots, for evaluating the same expression at
// many points (enumeration of layouts). Slot k holds the value of varOrder[k].
class CompiledIndexExpr {
public:
    CompiledIndexExpr() = default;
    CompiledIndexExpr(const IndexExpr& expr, const std::vector<std::string>& varOrder);
    // False when the expression uses a variable that is not in varOrder.
    bool valid() const { return m_valid; }
    std::optional<int64_t> evaluate(const int64_t* slots) const;
    // Evaluates at `count` points at once, a column per variable (columns[slot][point]), one operation
    // over all points at a time: the fast way to tabulate a whole layout. False when any point fails.
    bool evaluateColumns(const std::vector<std::vector<int64_t>>& columns, size_t count,
                         std::vector<int64_t>& out) const;

private:
    struct Op {
        IndexExprKind kind;
        int64_t value; // Constant: value; Var: slot
    };
    void emit(const IndexExpr& expr, const std::vector<std::string>& varOrder);
    std::vector<Op> m_ops;
    bool m_valid = true;
};

} // namespace tb::layout
