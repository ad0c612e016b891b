// Scalar expressions of the Tile IR: index arithmetic, element math and buffer loads. Nodes are immutable
// and shared (ExprPtr), so a rewrite that changes nothing returns the same pointer. Every node has a dtype
// and the source range of the tile-program text it came from.
//
// Semantics: arithmetic follows the node's dtype (C semantics: integer Div truncates, FloorDiv/FloorMod
// round toward negative infinity like Python's // and %); a float result is rounded to its dtype after
// every operation, which is what the generated CUDA does.
#pragma once

#include "engine/ir/DType.h"
#include "engine/support/SourceManager.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tb::ir {

struct Buffer;

enum class VarKind {
    BlockIndex,  // bound by T.Kernel (blockIdx.x/y/z)
    ThreadIndex, // T.get_thread_binding()
    LoopVar,     // bound by a For
    DynamicDim,  // T.dynamic / T.symbolic: a runtime kernel argument
    Placeholder, // a lambda parameter of a layout function
};

const char* varKindName(VarKind kind);

// Vars are owned by the Module and referred to by pointer; names are unique within a PrimFunc.
struct Var {
    std::string name;
    DType dtype = DType::Int32;
    VarKind kind = VarKind::LoopVar;
    int id = 0;
    SourceRange range;
};

enum class ExprKind { IntImm, FloatImm, VarRef, BufferLoad, Binary, Unary, Select, Call, Cast };

enum class BinaryOp {
    Add,
    Sub,
    Mul,
    Div,      // C division: truncates for integers
    FloorDiv, // Python //
    FloorMod, // Python %
    Min,
    Max,
    Pow,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    LogicalAnd,
    LogicalOr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
};

enum class UnaryOp { Neg, LogicalNot, BitNot };

// Element functions of TileLang (T.exp, T.exp2, ...). `Fast*` are the __expf-style intrinsics.
enum class Intrinsic {
    Exp,
    Exp2,
    Exp10,
    Log,
    Log2,
    Log10,
    Sqrt,
    Rsqrt,
    Abs,
    Sigmoid,
    Tanh,
    Sin,
    Cos,
    Floor,
    Ceil,
    Round,
    Trunc,
    Erf,
    Fma, // fma(a, b, c)
    IsNan,
    IsInf,
};

const char* binaryOpName(BinaryOp op);   // "+", "//", "min", ...
const char* unaryOpName(UnaryOp op);     // "-", "!", "~"
const char* intrinsicName(Intrinsic fn); // "exp2", "rsqrt", ...
bool isComparison(BinaryOp op);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
    ExprKind kind;
    DType dtype;
    SourceRange range;

    int64_t intValue = 0;           // IntImm (also bool)
    double floatValue = 0;          // FloatImm (may be +-inf)
    const Var* var = nullptr;       // VarRef
    const Buffer* buffer = nullptr; // BufferLoad
    BinaryOp binaryOp = BinaryOp::Add;
    UnaryOp unaryOp = UnaryOp::Neg;
    Intrinsic intrinsic = Intrinsic::Exp;
    // BufferLoad: indices. Binary: lhs, rhs. Unary/Cast: operand. Select: cond, then, else. Call: arguments.
    std::vector<ExprPtr> operands;

    Expr(ExprKind k, DType t, SourceRange r) : kind(k), dtype(t), range(r) {}
};

ExprPtr makeInt(int64_t value, DType type = DType::Int32, SourceRange range = {});
ExprPtr makeFloat(double value, DType type = DType::Float32, SourceRange range = {});
ExprPtr makeBool(bool value, SourceRange range = {});
ExprPtr makeVarRef(const Var* var, SourceRange range = {});
ExprPtr makeLoad(const Buffer* buffer, std::vector<ExprPtr> indices, SourceRange range = {});
// Result dtype: bool for comparisons and logical ops, otherwise the operands' dtype (operands must agree:
// the elaborator inserts casts first).
ExprPtr makeBinary(BinaryOp op, ExprPtr lhs, ExprPtr rhs, SourceRange range = {});
ExprPtr makeUnary(UnaryOp op, ExprPtr operand, SourceRange range = {});
ExprPtr makeSelect(ExprPtr cond, ExprPtr thenValue, ExprPtr elseValue, SourceRange range = {});
ExprPtr makeCall(Intrinsic fn, DType type, std::vector<ExprPtr> args, SourceRange range = {});
ExprPtr makeCast(DType type, ExprPtr operand, SourceRange range = {});

// The value of an expression when it is a compile-time integer constant (after folding), else nullopt.
std::optional<int64_t> constantInt(const ExprPtr& expr);
// Folds constants and normalizes affine integer expressions (sum of var*coef + const), so that slice
// extents like (k+1)*64 - k*64 become 64. Never changes the value; returns the same node if nothing changes.
ExprPtr simplify(const ExprPtr& expr);
// True when `e` is a compile-time multiple of m (constants, products with such a factor, sums of such).
bool isMultipleOf(const ExprPtr& e, int64_t m);
// The largest power of two, at most `cap`, that `e` is known to be a multiple of (1 when none is known).
int64_t knownPowerOfTwoFactor(const ExprPtr& e, int64_t cap);

// Deterministic one-line text form, e.g. "A_shared[i, (k * 32) + j]" or "exp2((x * 1.4427) - m)".
std::string printExpr(const ExprPtr& expr);

} // namespace tb::ir
