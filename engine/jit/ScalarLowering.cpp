// Scalar expressions and the numerics under them, lowered to LLVM IR with exactly the interpreter's
// meaning (engine/exec/Executor.cpp, engine/exec/HostTensor.cpp): float math in double rounded to the
// node's dtype after every operation, integers in 64 bits wrapped to the dtype, lazy select/and/or.
// Rounding to float16/bfloat16/float8 is FloatFormats' algorithm in straight-line, vectorizable code;
// transcendental functions call the same libm functions the interpreter calls, through the runtime's
// tbjit_* wrappers (JitRuntime.cpp), so LLVM cannot substitute its own.
#include "engine/exec/FloatFormats.h"
#include "engine/exec/HostTensor.h"
#include "engine/jit/Lowering.h"
#include "engine/jit/VectorExp.h"

#include <cmath>
#include <functional>
#include <limits>
#include <llvm/IR/Intrinsics.h>
#include <memory>
#include <string>
#include <vector>

namespace tb::jit {

using ir::BinaryOp;
using ir::DType;
using ir::Expr;
using ir::ExprKind;
using ir::ExprPtr;
using llvm::Value;

Value* Lowerer::intrinsic(llvm::Intrinsic::ID id, std::vector<Value*> args) {
    return m_b.CreateIntrinsic(id, {args.front()->getType()}, args);
}

Value* Lowerer::callRuntime(const char* name, llvm::Type* result, std::vector<Value*> args) {
    std::vector<llvm::Type*> types;
    for (Value* a : args)
        types.push_back(a->getType());
    llvm::FunctionCallee callee =
        m_module.getOrInsertFunction(name, llvm::FunctionType::get(result, types, false));
    if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        fn->setDoesNotThrow();
        fn->setOnlyAccessesInaccessibleMemory(); // pure math: lets LLVM hoist and keep alias facts
        fn->setWillReturn();
    }
    return m_b.CreateCall(callee, args);
}

// ---------------------------------------------------------------------------------------------------
// Numerics

Value* Lowerer::roundToNarrowFloat(Value* x, DType type) {
    FloatFormat format = *floatFormatOf(type);
    Value* bits = m_b.CreateBitCast(x, m_i64);
    Value* magnitude = intrinsic(llvm::Intrinsic::fabs, {x});
    Value* biased = m_b.CreateAnd(m_b.CreateLShr(bits, 52), 0x7ff);
    Value* exponent = m_b.CreateSub(biased, i64(1023));
    // The binade's exponent, or the smallest normal one below it (gradual underflow), minus the
    // mantissa width: the exponent of one unit in the last place.
    Value* quantumExp =
        m_b.CreateSub(m_b.CreateSelect(m_b.CreateICmpSLT(exponent, i64(format.minNormalExponent)),
                                       i64(format.minNormalExponent), exponent),
                      i64(format.mantissaBits));
    Value* quantum = m_b.CreateBitCast(m_b.CreateShl(m_b.CreateAdd(quantumExp, i64(1023)), 52), m_f64);
    Value* inverse = m_b.CreateBitCast(m_b.CreateShl(m_b.CreateSub(i64(1023), quantumExp), 52), m_f64);
    Value* scaled = m_b.CreateFMul(magnitude, inverse); // exact: a power of two
    Value* rounded = m_b.CreateFMul(intrinsic(llvm::Intrinsic::roundeven, {scaled}), quantum);
    double overflow = format.hasInfinity ? std::numeric_limits<double>::infinity() : format.maxFinite;
    rounded = m_b.CreateSelect(m_b.CreateFCmpOGT(rounded, f64(format.maxFinite)), f64(overflow), rounded);
    Value* signedResult = intrinsic(llvm::Intrinsic::copysign, {rounded, x});
    return m_b.CreateSelect(m_b.CreateFCmpUNO(x, x), x, signedResult);
}

Value* Lowerer::roundToDType(Value* x, DType type) {
    switch (type) {
    case DType::Float64:
        return x;
    case DType::Float32:
        return m_b.CreateFPExt(m_b.CreateFPTrunc(x, m_f32), m_f64);
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float8E4M3:
    case DType::Float8E5M2:
        return roundToNarrowFloat(x, type);
    case DType::Bool:
        return m_b.CreateSelect(m_b.CreateFCmpUNE(x, f64(0)), f64(1), f64(0));
    default:
        return integerToStored(wrapInteger(storedToInteger(x), type), type);
    }
}

Value* Lowerer::wrapInteger(Value* i, DType type) {
    switch (type) {
    case DType::Bool:
        return m_b.CreateZExt(m_b.CreateICmpNE(i, i64(0)), m_i64);
    case DType::Int8:
        return m_b.CreateSExt(m_b.CreateTrunc(i, m_b.getInt8Ty()), m_i64);
    case DType::Int16:
        return m_b.CreateSExt(m_b.CreateTrunc(i, m_b.getInt16Ty()), m_i64);
    case DType::Int32:
        return m_b.CreateSExt(m_b.CreateTrunc(i, m_b.getInt32Ty()), m_i64);
    case DType::UInt8:
        return m_b.CreateZExt(m_b.CreateTrunc(i, m_b.getInt8Ty()), m_i64);
    case DType::UInt16:
        return m_b.CreateZExt(m_b.CreateTrunc(i, m_b.getInt16Ty()), m_i64);
    case DType::UInt32:
        return m_b.CreateZExt(m_b.CreateTrunc(i, m_b.getInt32Ty()), m_i64);
    default:
        return i;
    }
}

Value* Lowerer::storedToInteger(Value* x) {
    // The common case (|trunc(x)| < 2^63) inline; non-finite values and the modulo-2^64 reduction of
    // huge ones go to the runtime, which calls the interpreter's own storedToInteger.
    Value* t = intrinsic(llvm::Intrinsic::trunc, {x});
    Value* fits = m_b.CreateFCmpOLT(intrinsic(llvm::Intrinsic::fabs, {t}), f64(9223372036854775808.0));
    Value* fast = m_b.CreateFPToSI(m_b.CreateSelect(fits, t, f64(0)), m_i64);
    llvm::BasicBlock* here = m_b.GetInsertBlock();
    llvm::BasicBlock* slow = llvm::BasicBlock::Create(m_context, "int.slow", m_function);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(m_context, "int.done", m_function);
    m_b.CreateCondBr(fits, done, slow);
    m_b.SetInsertPoint(slow);
    Value* slowValue = callRuntime("tbjit_storedToInteger", m_i64, {x});
    m_b.CreateBr(done);
    m_b.SetInsertPoint(done);
    llvm::PHINode* phi = m_b.CreatePHI(m_i64, 2);
    phi->addIncoming(fast, here);
    phi->addIncoming(slowValue, slow);
    return phi;
}

Value* Lowerer::integerToStored(Value* i, DType type) {
    return type == DType::UInt64 ? m_b.CreateUIToFP(i, m_f64) : m_b.CreateSIToFP(i, m_f64);
}

namespace {

// Every value of `from` is exactly representable in `to`, so converting a stored value is the identity
// (stored values are always representable in their dtype: HostTensor.h).
bool floatWidens(DType from, DType to) {
    if (!ir::isFloat(from) || !ir::isFloat(to))
        return false;
    if (from == to || to == DType::Float64)
        return true;
    if (to == DType::Float32)
        return from == DType::Float16 || from == DType::BFloat16 || ir::isFloat8(from);
    if (to == DType::Float16 || to == DType::BFloat16)
        return ir::isFloat8(from);
    return false;
}

} // namespace

Value* Lowerer::convertStored(Value* x, DType from, DType to) {
    if (floatWidens(from, to))
        return x;
    // A float32 or bfloat16 value is a float, so rounding it to half is one correctly rounded conversion
    // (F16C's vcvtps2ph: to nearest even, overflow to infinity, the sign of a zero kept); a NaN stays the
    // value it was, as in roundToNarrowFloat.
    if (to == DType::Float16 && (from == DType::Float32 || from == DType::BFloat16) && hostConvertsHalves()) {
        Value* half = m_b.CreateFPTrunc(m_b.CreateFPTrunc(x, m_f32), m_b.getHalfTy());
        return m_b.CreateSelect(m_b.CreateFCmpUNO(x, x), x, m_b.CreateFPExt(half, m_f64));
    }
    if (ir::isFloat(to))
        return roundToDType(x, to);
    if (to == DType::Bool)
        return m_b.CreateSelect(m_b.CreateFCmpUNE(x, f64(0)), f64(1), f64(0));
    if (!ir::isFloat(from))
        return roundToDType(x, to);
    // float -> integer truncates and saturates (NaN gives 0); the bounds are convertValue's own.
    double lo = convertValue(-std::numeric_limits<double>::infinity(), DType::Float64, to);
    double hi = convertValue(std::numeric_limits<double>::infinity(), DType::Float64, to);
    Value* t = intrinsic(llvm::Intrinsic::trunc, {x});
    Value* clamped = m_b.CreateSelect(m_b.CreateFCmpOLE(t, f64(lo)), f64(lo),
                                      m_b.CreateSelect(m_b.CreateFCmpOGE(t, f64(hi)), f64(hi), t));
    return m_b.CreateSelect(m_b.CreateFCmpUNO(x, x), f64(0), clamped);
}

Value* Lowerer::toStored(Value* v, DType type) {
    return ir::isFloat(type) ? v : integerToStored(v, type);
}

Value* Lowerer::fromStored(Value* x, DType type) {
    return ir::isFloat(type) ? x : storedToInteger(x);
}

Value* Lowerer::castValue(Value* v, DType from, DType to) {
    if (!ir::isFloat(from) && !ir::isFloat(to))
        return wrapInteger(v, to);
    return fromStored(convertStored(toStored(v, from), from, to), to);
}

Value* Lowerer::makeIntValue(Value* i, DType type) {
    if (ir::isFloat(type))
        return roundToDType(m_b.CreateSIToFP(i, m_f64), type);
    return wrapInteger(i, type);
}

Value* Lowerer::makeFloatValue(Value* x, DType type) {
    if (ir::isFloat(type))
        return roundToDType(x, type);
    return storedToInteger(convertStored(x, DType::Float64, type));
}

Value* Lowerer::truthy(Value* v, DType type) {
    return ir::isFloat(type) ? m_b.CreateFCmpUNE(v, f64(0)) : m_b.CreateICmpNE(v, i64(0));
}

// The same LLVM 16 fold as fenceAgainstSignedZeroFold's (below) meets min(0.0, x) and max(0.0, x) once
// InstCombine has reduced them to a select between the zero and x: fuzz_diff seed 300000276,
// `T.min(0.0, b * a)` gave +0 where the interpreter gives -0. A fence on the operand beside a zero constant.
void Lowerer::fenceBesideZero(Value*& a, Value*& b) {
    auto zero = [](Value* v) {
        auto* c = llvm::dyn_cast<llvm::ConstantFP>(v);
        return c && c->isZero();
    };
    if (zero(a) && !llvm::isa<llvm::Constant>(b))
        b = m_b.CreateArithmeticFence(b, b->getType());
    else if (zero(b) && !llvm::isa<llvm::Constant>(a))
        a = m_b.CreateArithmeticFence(a, a->getType());
}

// The interpreter's minNumber/maxNumber (IEEE 754-2019): a NaN operand is ignored, -0.0 is below +0.0.
// Of two equal operands (both zeros, or the same value) min takes the OR of the bits and max the AND, which
// picks -0.0 and +0.0 respectively and changes nothing else.
Value* Lowerer::floatMin(Value* a, Value* b) {
    fenceBesideZero(a, b);
    Value* bits =
        m_b.CreateBitCast(m_b.CreateOr(m_b.CreateBitCast(a, m_i64), m_b.CreateBitCast(b, m_i64)), m_f64);
    Value* ordered =
        m_b.CreateSelect(m_b.CreateFCmpOLT(a, b), a, m_b.CreateSelect(m_b.CreateFCmpOLT(b, a), b, bits));
    return m_b.CreateSelect(m_b.CreateFCmpUNO(a, a), b,
                            m_b.CreateSelect(m_b.CreateFCmpUNO(b, b), a, ordered));
}

Value* Lowerer::floatMax(Value* a, Value* b) {
    fenceBesideZero(a, b);
    Value* bits =
        m_b.CreateBitCast(m_b.CreateAnd(m_b.CreateBitCast(a, m_i64), m_b.CreateBitCast(b, m_i64)), m_f64);
    Value* ordered =
        m_b.CreateSelect(m_b.CreateFCmpOGT(a, b), a, m_b.CreateSelect(m_b.CreateFCmpOGT(b, a), b, bits));
    return m_b.CreateSelect(m_b.CreateFCmpUNO(a, a), b,
                            m_b.CreateSelect(m_b.CreateFCmpUNO(b, b), a, ordered));
}

// ---------------------------------------------------------------------------------------------------
// Expressions

Value* Lowerer::evalInt(const ExprPtr& expr) {
    Value* v = eval(expr);
    if (ir::isFloat(expr->dtype))
        return storedToInteger(intrinsic(llvm::Intrinsic::trunc, {v}));
    return v;
}

Value* Lowerer::evalBool(const ExprPtr& expr) {
    return truthy(eval(expr), expr->dtype);
}

Value* Lowerer::evalStored(const ExprPtr& expr, DType type) {
    return toStored(castValue(eval(expr), expr->dtype, type), type);
}

// LLVM 16's InstCombine folds select(x > 0, 0.0, fpext x) into fpext(select(x >= 0, 0.0, x)), which gives +0
// where the program gives -0 (x = -0; fuzz_diff seed 100002028). An arithmetic fence on the arm beside a zero
// constant hides that it is the compared value. Only such selects pay: the fence keeps their loop scalar.
void Lowerer::fenceAgainstSignedZeroFold(Value*& arm, llvm::BasicBlock* armEnd, Value* otherArm) {
    auto* zero = llvm::dyn_cast<llvm::ConstantFP>(otherArm);
    if (!zero || !zero->isZero() || !arm->getType()->isFloatingPointTy() || llvm::isa<llvm::Constant>(arm))
        return;
    llvm::IRBuilder<> before(armEnd->getTerminator());
    arm = before.CreateArithmeticFence(arm, arm->getType());
}

Value* Lowerer::evalLazy(const ExprPtr& cond, const std::function<Value*()>& whenTrue,
                         const std::function<Value*()>& whenFalse) {
    Value* c = evalBool(cond);
    llvm::BasicBlock* thenBlock = llvm::BasicBlock::Create(m_context, "lazy.then", m_function);
    llvm::BasicBlock* elseBlock = llvm::BasicBlock::Create(m_context, "lazy.else", m_function);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(m_context, "lazy.done", m_function);
    m_b.CreateCondBr(c, thenBlock, elseBlock);
    m_b.SetInsertPoint(thenBlock);
    Value* a = whenTrue();
    llvm::BasicBlock* thenEnd = m_b.GetInsertBlock();
    m_b.CreateBr(done);
    m_b.SetInsertPoint(elseBlock);
    Value* b = whenFalse();
    llvm::BasicBlock* elseEnd = m_b.GetInsertBlock();
    m_b.CreateBr(done);
    fenceAgainstSignedZeroFold(a, thenEnd, b);
    fenceAgainstSignedZeroFold(b, elseEnd, a);
    m_b.SetInsertPoint(done);
    llvm::PHINode* phi = m_b.CreatePHI(a->getType(), 2);
    phi->addIncoming(a, thenEnd);
    phi->addIncoming(b, elseEnd);
    return phi;
}

Value* Lowerer::loadElement(const Expr& e) {
    Value* pending = nullptr;
    Value* ptr = elementPointer(e.buffer, e.operands, e.range, &pending);
    if (pending)
        failIf(pending, addSite("runtime-out-of-bounds", blame(e.range),
                                "out-of-bounds access to " + e.buffer->name + ": the " +
                                    ir::scopeName(e.buffer->scope) + " buffer's extents are " + "exceeded",
                                "check the loop bounds and index arithmetic; only T.copy guards global "
                                "memory"));
    Value* stored = loadStored(e.buffer, ptr);
    return castValue(fromStored(stored, e.buffer->dtype), e.buffer->dtype, e.dtype);
}

Value* Lowerer::eval(const ExprPtr& expr) {
    if (!expr)
        throw Unsupported{"a missing expression"};
    const Expr& e = *expr;
    switch (e.kind) {
    case ExprKind::IntImm:
        return ir::isFloat(e.dtype) ? f64(tb::roundToDType(static_cast<double>(e.intValue), e.dtype))
                                    : i64(tb::wrapInteger(e.intValue, e.dtype));
    case ExprKind::FloatImm:
        return ir::isFloat(e.dtype)
                   ? f64(tb::roundToDType(e.floatValue, e.dtype))
                   : i64(tb::storedToInteger(convertValue(e.floatValue, DType::Float64, e.dtype)));
    case ExprKind::VarRef: {
        Value* v = nullptr;
        if (e.var->kind == ir::VarKind::DynamicDim) {
            auto it = m_lowering.dims.find(e.var->name);
            if (it == m_lowering.dims.end())
                throw Unsupported{"no value for dynamic dim '" + e.var->name + "'"};
            v = i64(it->second);
        } else if (e.var->kind == ir::VarKind::ThreadIndex) {
            throw Unsupported{"thread index '" + e.var->name + "' (tile-level code has none)"};
        } else if (static_cast<size_t>(e.var->id) < m_vars.size()) {
            v = m_vars[static_cast<size_t>(e.var->id)];
        }
        if (!v)
            throw Unsupported{"'" + e.var->name + "' used outside its scope"};
        return makeIntValue(v, e.dtype);
    }
    case ExprKind::BufferLoad:
        return loadElement(e);
    case ExprKind::Binary:
        return evalBinary(e);
    case ExprKind::Unary: {
        if (e.operands.size() != 1)
            throw Unsupported{"a malformed unary expression"};
        DType type = e.operands[0]->dtype;
        if (e.unaryOp == ir::UnaryOp::BitNot && ir::isFloat(type))
            throw Unsupported{"bitwise not of a float"};
        Value* a = eval(e.operands[0]);
        switch (e.unaryOp) {
        case ir::UnaryOp::Neg:
            return ir::isFloat(type) ? makeFloatValue(m_b.CreateFNeg(a), e.dtype)
                                     : makeIntValue(m_b.CreateSub(i64(0), a), e.dtype);
        case ir::UnaryOp::LogicalNot:
            return makeIntValue(m_b.CreateZExt(m_b.CreateNot(truthy(a, type)), m_i64), e.dtype);
        case ir::UnaryOp::BitNot:
            return makeIntValue(m_b.CreateNot(a), e.dtype);
        }
        return a;
    }
    case ExprKind::Select: {
        if (e.operands.size() != 3)
            throw Unsupported{"a malformed select"};
        return evalLazy(
            e.operands[0], [&] { return castValue(eval(e.operands[1]), e.operands[1]->dtype, e.dtype); },
            [&] { return castValue(eval(e.operands[2]), e.operands[2]->dtype, e.dtype); });
    }
    case ExprKind::Call:
        return evalCall(e);
    case ExprKind::Cast:
        if (e.operands.size() != 1)
            throw Unsupported{"a malformed cast"};
        return castValue(eval(e.operands[0]), e.operands[0]->dtype, e.dtype);
    }
    throw Unsupported{"an unknown expression kind"};
}

Value* Lowerer::evalBinary(const Expr& e) {
    if (e.operands.size() != 2)
        throw Unsupported{"a malformed binary expression"};
    const ExprPtr& lhs = e.operands[0];
    const ExprPtr& rhs = e.operands[1];
    if (e.binaryOp == BinaryOp::LogicalAnd || e.binaryOp == BinaryOp::LogicalOr) {
        bool isAnd = e.binaryOp == BinaryOp::LogicalAnd;
        Value* r = evalLazy(
            lhs, [&] { return isAnd ? evalBool(rhs) : static_cast<Value*>(m_b.getTrue()); },
            [&] { return isAnd ? static_cast<Value*>(m_b.getFalse()) : evalBool(rhs); });
        return makeIntValue(m_b.CreateZExt(r, m_i64), e.dtype);
    }
    bool floating = ir::isFloat(lhs->dtype) || ir::isFloat(rhs->dtype);
    if (floating) {
        switch (e.binaryOp) {
        case BinaryOp::BitAnd:
        case BinaryOp::BitOr:
        case BinaryOp::BitXor:
        case BinaryOp::Shl:
        case BinaryOp::Shr:
            throw Unsupported{std::string("'") + ir::binaryOpName(e.binaryOp) + "' on float operands"};
        default:
            break;
        }
    }
    Value* a = eval(lhs);
    Value* b = eval(rhs);
    if (floating)
        return floatBinary(e, toStored(a, lhs->dtype), toStored(b, rhs->dtype));
    bool isUnsigned64 = lhs->dtype == DType::UInt64 || rhs->dtype == DType::UInt64;
    return intBinary(e, a, b, isUnsigned64, ir::dtypeBits(lhs->dtype));
}

Value* Lowerer::floatBinary(const Expr& e, Value* a, Value* b) {
    auto compare = [&](Value* c) { return makeIntValue(m_b.CreateZExt(c, m_i64), e.dtype); };
    switch (e.binaryOp) {
    case BinaryOp::Add:
        return makeFloatValue(m_b.CreateFAdd(a, b), e.dtype);
    case BinaryOp::Sub:
        return makeFloatValue(m_b.CreateFSub(a, b), e.dtype);
    case BinaryOp::Mul:
        return makeFloatValue(m_b.CreateFMul(a, b), e.dtype);
    case BinaryOp::Div:
        return makeFloatValue(m_b.CreateFDiv(a, b), e.dtype);
    case BinaryOp::FloorDiv:
        return makeFloatValue(intrinsic(llvm::Intrinsic::floor, {m_b.CreateFDiv(a, b)}), e.dtype);
    case BinaryOp::FloorMod: {
        Value* q = intrinsic(llvm::Intrinsic::floor, {m_b.CreateFDiv(a, b)});
        return makeFloatValue(m_b.CreateFSub(a, m_b.CreateFMul(q, b)), e.dtype);
    }
    case BinaryOp::Min:
        return makeFloatValue(floatMin(a, b), e.dtype);
    case BinaryOp::Max:
        return makeFloatValue(floatMax(a, b), e.dtype);
    case BinaryOp::Pow:
        return makeFloatValue(callRuntime("tbjit_pow", m_f64, {a, b}), e.dtype);
    case BinaryOp::Eq:
        return compare(m_b.CreateFCmpOEQ(a, b));
    case BinaryOp::Ne:
        return compare(m_b.CreateFCmpUNE(a, b));
    case BinaryOp::Lt:
        return compare(m_b.CreateFCmpOLT(a, b));
    case BinaryOp::Le:
        return compare(m_b.CreateFCmpOLE(a, b));
    case BinaryOp::Gt:
        return compare(m_b.CreateFCmpOGT(a, b));
    case BinaryOp::Ge:
        return compare(m_b.CreateFCmpOGE(a, b));
    default:
        break;
    }
    throw Unsupported{std::string("float operator '") + ir::binaryOpName(e.binaryOp) + "'"};
}

Value* Lowerer::intBinary(const Expr& e, Value* a, Value* b, bool isUnsigned64, int bits) {
    auto wrap = [&](Value* v) { return makeIntValue(v, e.dtype); };
    auto less = [&](Value* x, Value* y) {
        return isUnsigned64 ? m_b.CreateICmpULT(x, y) : m_b.CreateICmpSLT(x, y);
    };
    auto flag = [&](Value* c) { return wrap(m_b.CreateZExt(c, m_i64)); };
    auto checkDivisor = [&] {
        failIf(m_b.CreateICmpEQ(b, i64(0)),
               addSite("runtime-division-by-zero", blame(e.range),
                       "integer division by zero in '" + ir::printExpr(std::make_shared<Expr>(e)) + "'",
                       "guard the divisor; integer division by zero is undefined on the GPU"));
    };
    Value* minusOne = m_b.CreateICmpEQ(b, i64(-1));
    Value* safeB = m_b.CreateSelect(minusOne, i64(1), b); // keeps INT64_MIN / -1 from trapping
    auto floorDivide = [&] {
        Value* q = m_b.CreateSDiv(a, safeB);
        Value* r = m_b.CreateSRem(a, safeB);
        Value* adjust =
            m_b.CreateAnd(m_b.CreateICmpNE(r, i64(0)),
                          m_b.CreateICmpNE(m_b.CreateICmpSLT(a, i64(0)), m_b.CreateICmpSLT(b, i64(0))));
        return m_b.CreateSub(q, m_b.CreateZExt(adjust, m_i64));
    };
    switch (e.binaryOp) {
    case BinaryOp::Add:
        return wrap(m_b.CreateAdd(a, b));
    case BinaryOp::Sub:
        return wrap(m_b.CreateSub(a, b));
    case BinaryOp::Mul:
        return wrap(m_b.CreateMul(a, b));
    case BinaryOp::Div:
        checkDivisor();
        if (isUnsigned64)
            return wrap(m_b.CreateUDiv(a, b));
        return wrap(m_b.CreateSelect(minusOne, m_b.CreateSub(i64(0), a), m_b.CreateSDiv(a, safeB)));
    case BinaryOp::FloorDiv:
        checkDivisor();
        if (isUnsigned64)
            return wrap(m_b.CreateUDiv(a, b));
        return wrap(m_b.CreateSelect(minusOne, m_b.CreateSub(i64(0), a), floorDivide()));
    case BinaryOp::FloorMod:
        checkDivisor();
        if (isUnsigned64)
            return wrap(m_b.CreateURem(a, b));
        return wrap(m_b.CreateSelect(minusOne, i64(0), m_b.CreateSub(a, m_b.CreateMul(floorDivide(), b))));
    case BinaryOp::Min:
        return wrap(m_b.CreateSelect(less(b, a), b, a));
    case BinaryOp::Max:
        return wrap(m_b.CreateSelect(less(a, b), b, a));
    case BinaryOp::Pow:
        return wrap(callRuntime("tbjit_ipow", m_i64, {a, b}));
    case BinaryOp::BitAnd:
        return wrap(m_b.CreateAnd(a, b));
    case BinaryOp::BitOr:
        return wrap(m_b.CreateOr(a, b));
    case BinaryOp::BitXor:
        return wrap(m_b.CreateXor(a, b));
    case BinaryOp::Shl: {
        Value* outside = m_b.CreateOr(m_b.CreateICmpSLT(b, i64(0)), m_b.CreateICmpSGE(b, i64(bits)));
        Value* count = m_b.CreateSelect(outside, i64(0), b);
        return wrap(m_b.CreateSelect(outside, i64(0), m_b.CreateShl(a, count)));
    }
    case BinaryOp::Shr: {
        Value* outside = m_b.CreateOr(m_b.CreateICmpSLT(b, i64(0)), m_b.CreateICmpSGE(b, i64(bits)));
        Value* count = m_b.CreateSelect(outside, i64(0), b);
        Value* shifted = isUnsigned64 ? m_b.CreateLShr(a, count) : m_b.CreateAShr(a, count);
        Value* saturated =
            isUnsigned64 ? i64(0) : m_b.CreateSelect(m_b.CreateICmpSLT(a, i64(0)), i64(-1), i64(0));
        return wrap(m_b.CreateSelect(outside, saturated, shifted));
    }
    case BinaryOp::Eq:
        return flag(m_b.CreateICmpEQ(a, b));
    case BinaryOp::Ne:
        return flag(m_b.CreateICmpNE(a, b));
    case BinaryOp::Lt:
        return flag(less(a, b));
    case BinaryOp::Le:
        return flag(m_b.CreateNot(less(b, a)));
    case BinaryOp::Gt:
        return flag(less(b, a));
    case BinaryOp::Ge:
        return flag(m_b.CreateNot(less(a, b)));
    case BinaryOp::LogicalAnd:
    case BinaryOp::LogicalOr:
        break; // lazy, handled by evalBinary
    }
    throw Unsupported{"an unknown integer operator"};
}

Value* Lowerer::evalCall(const Expr& e) {
    size_t arity = e.intrinsic == ir::Intrinsic::Fma ? 3 : 1;
    if (e.operands.size() != arity)
        throw Unsupported{std::string("a malformed call of ") + ir::intrinsicName(e.intrinsic)};
    const ExprPtr& arg = e.operands[0];
    Value* a = eval(arg);
    bool floatArg = ir::isFloat(arg->dtype);
    Value* x = toStored(a, arg->dtype);
    auto libm = [&](const char* name) { return makeFloatValue(callRuntime(name, m_f64, {x}), e.dtype); };
    using ir::Intrinsic;
    switch (e.intrinsic) {
    case Intrinsic::Exp:
        if (e.dtype == DType::Float32) // vectorizable, the same float (VectorExp.h)
            return emitFloatExp(m_b, m_module, ExpBase::E, x);
        return libm("tbjit_exp");
    case Intrinsic::Exp2:
        if (e.dtype == DType::Float32)
            return emitFloatExp(m_b, m_module, ExpBase::Two, x);
        return libm("tbjit_exp2");
    case Intrinsic::Exp10:
        return makeFloatValue(callRuntime("tbjit_pow", m_f64, {f64(10.0), x}), e.dtype);
    case Intrinsic::Log:
        return libm("tbjit_log");
    case Intrinsic::Log2:
        return libm("tbjit_log2");
    case Intrinsic::Log10:
        return libm("tbjit_log10");
    case Intrinsic::Sqrt:
        return makeFloatValue(intrinsic(llvm::Intrinsic::sqrt, {x}), e.dtype);
    case Intrinsic::Rsqrt:
        return makeFloatValue(m_b.CreateFDiv(f64(1.0), intrinsic(llvm::Intrinsic::sqrt, {x})), e.dtype);
    case Intrinsic::Abs:
        if (!floatArg)
            return makeIntValue(m_b.CreateSelect(m_b.CreateICmpSLT(a, i64(0)), m_b.CreateSub(i64(0), a), a),
                                e.dtype);
        return makeFloatValue(intrinsic(llvm::Intrinsic::fabs, {x}), e.dtype);
    case Intrinsic::Sigmoid: {
        Value* ex = callRuntime("tbjit_exp", m_f64, {m_b.CreateFNeg(x)});
        return makeFloatValue(m_b.CreateFDiv(f64(1.0), m_b.CreateFAdd(f64(1.0), ex)), e.dtype);
    }
    case Intrinsic::Tanh:
        return libm("tbjit_tanh");
    case Intrinsic::Sin:
        return libm("tbjit_sin");
    case Intrinsic::Cos:
        return libm("tbjit_cos");
    case Intrinsic::Floor:
    case Intrinsic::Ceil:
    case Intrinsic::Round:
    case Intrinsic::Trunc: {
        if (!floatArg)
            return castValue(a, arg->dtype, e.dtype);
        llvm::Intrinsic::ID id = e.intrinsic == Intrinsic::Floor  ? llvm::Intrinsic::floor
                                 : e.intrinsic == Intrinsic::Ceil ? llvm::Intrinsic::ceil
                                 : e.intrinsic == Intrinsic::Trunc
                                     ? llvm::Intrinsic::trunc
                                     : llvm::Intrinsic::round; // halfway cases away from zero
        return makeFloatValue(intrinsic(id, {x}), e.dtype);
    }
    case Intrinsic::Erf:
        return libm("tbjit_erf");
    case Intrinsic::Fma: {
        Value* y = toStored(eval(e.operands[1]), e.operands[1]->dtype);
        Value* z = toStored(eval(e.operands[2]), e.operands[2]->dtype);
        return makeFloatValue(intrinsic(llvm::Intrinsic::fma, {x, y, z}), e.dtype);
    }
    case Intrinsic::IsNan:
        return makeIntValue(floatArg ? m_b.CreateZExt(m_b.CreateFCmpUNO(x, x), m_i64) : i64(0), e.dtype);
    case Intrinsic::IsInf:
        return makeIntValue(
            floatArg ? m_b.CreateZExt(m_b.CreateFCmpOEQ(intrinsic(llvm::Intrinsic::fabs, {x}),
                                                        f64(std::numeric_limits<double>::infinity())),
                                      m_i64)
                     : i64(0),
            e.dtype);
    }
    throw Unsupported{"an unknown intrinsic"};
}

} // namespace tb::jit
