// Vector exp and exp2 rounded to float32, with the scalar libm call for the lanes it cannot decide.
#include "engine/jit/VectorExp.h"

#include <cstdint>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>
#include <string>
#include <vector>

namespace tb::jit {

namespace {

using llvm::Value;

constexpr unsigned kLaneCounts[] = {2, 4, 8, 16};

const char* scalarName(ExpBase base) {
    return base == ExpBase::E ? "tbjit_exp_f32" : "tbjit_exp2_f32";
}

std::string vectorName(ExpBase base, unsigned lanes) {
    return std::string(scalarName(base)) + "_v" + std::to_string(lanes);
}

// The result's range where it is a normal float: exp(-87) > 2^-126 and exp(88) < 2^128.
constexpr double kLowest[] = {-87.0, -125.0};
constexpr double kHighest[] = {88.0, 127.0};

// A double within this many ulps of a float rounding midpoint goes to libm (our error is under 2^6 ulps).
constexpr uint64_t kMidpointBand = 1024;

llvm::Function* buildVariant(llvm::Module& module, ExpBase base, unsigned lanes,
                             llvm::FunctionCallee scalar) {
    llvm::LLVMContext& context = module.getContext();
    llvm::Type* f64 = llvm::Type::getDoubleTy(context);
    auto* vector = llvm::FixedVectorType::get(f64, lanes);
    auto* integers = llvm::FixedVectorType::get(llvm::Type::getInt64Ty(context), lanes);
    auto* fn = llvm::Function::Create(llvm::FunctionType::get(vector, {vector}, false),
                                      llvm::Function::InternalLinkage, vectorName(base, lanes), module);
    fn->setDoesNotThrow();
    fn->setDoesNotAccessMemory();
    fn->setWillReturn();
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", fn));
    auto real = [&](double v) { return llvm::ConstantFP::get(vector, v); };
    auto integer = [&](uint64_t v) { return llvm::ConstantInt::get(integers, v); };
    auto call = [&](llvm::Intrinsic::ID id, std::vector<Value*> args) {
        return b.CreateIntrinsic(id, {vector}, args);
    };
    const size_t which = base == ExpBase::E ? 0 : 1;
    Value* x = fn->getArg(0);
    Value* inRange =
        b.CreateAnd(b.CreateFCmpOGE(x, real(kLowest[which])), b.CreateFCmpOLE(x, real(kHighest[which])));
    Value* clamped = b.CreateSelect(inRange, x, real(0.0)); // no NaN or huge value below this point
    // exp(x) = 2^k * exp(t): k = round(x / ln2), t = x - k ln2 with ln2 split in two (fdlibm's ln2_hi has
    // 21 trailing zero bits, so k * ln2_hi is exact); exp2(x) = 2^k * exp((x - k) ln2), x - k exact.
    Value* k = nullptr;
    Value* t = nullptr;
    if (base == ExpBase::E) {
        k = call(llvm::Intrinsic::roundeven, {b.CreateFMul(clamped, real(1.4426950408889634))});
        t = call(llvm::Intrinsic::fma, {k, real(-6.93147180369123816490e-01), clamped});
        t = call(llvm::Intrinsic::fma, {k, real(-1.90821492927058770002e-10), t});
    } else {
        k = call(llvm::Intrinsic::roundeven, {clamped});
        t = b.CreateFMul(b.CreateFSub(clamped, k), real(0.69314718055994530942));
    }
    // exp(t) for |t| <= 0.347 by Taylor's series to t^12 (the next term is under 2^-52 relative).
    double coefficient[13];
    coefficient[0] = 1;
    for (int i = 1; i <= 12; ++i)
        coefficient[i] = coefficient[i - 1] / i;
    Value* p = real(coefficient[12]);
    for (int i = 11; i >= 0; --i)
        p = call(llvm::Intrinsic::fma, {p, t, real(coefficient[i])});
    Value* scale =
        b.CreateBitCast(b.CreateShl(b.CreateAdd(b.CreateFPToSI(k, integers), integer(1023)), 52), vector);
    Value* y = b.CreateFMul(p, scale);
    // The float midpoints are the doubles whose low 29 mantissa bits are 2^28.
    Value* low = b.CreateAnd(b.CreateBitCast(y, integers), integer((uint64_t(1) << 29) - 1));
    Value* above = b.CreateSub(low, integer(uint64_t(1) << 28));
    Value* distance = b.CreateSelect(b.CreateICmpSGE(above, integer(0)), above, b.CreateNeg(above));
    Value* decided =
        b.CreateSelect(inRange, b.CreateICmpUGT(distance, integer(kMidpointBand)),
                       llvm::ConstantInt::getFalse(llvm::FixedVectorType::get(b.getInt1Ty(), lanes)));
    Value* rounded =
        b.CreateFPExt(b.CreateFPTrunc(y, llvm::FixedVectorType::get(b.getFloatTy(), lanes)), vector);
    llvm::BasicBlock* slow = llvm::BasicBlock::Create(context, "libm", fn);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(context, "done", fn);
    b.CreateCondBr(b.CreateAndReduce(decided), done, slow);
    b.SetInsertPoint(done);
    b.CreateRet(rounded);
    b.SetInsertPoint(slow);
    Value* result = rounded;
    for (unsigned lane = 0; lane < lanes; ++lane) {
        Value* own = b.CreateExtractElement(rounded, lane);
        Value* libm = b.CreateCall(scalar, {b.CreateExtractElement(x, lane)});
        result = b.CreateInsertElement(
            result, b.CreateSelect(b.CreateExtractElement(decided, lane), own, libm), lane);
    }
    b.CreateRet(result);
    return fn;
}

} // namespace

Value* emitFloatExp(llvm::IRBuilder<>& builder, llvm::Module& module, ExpBase base, Value* x) {
    llvm::LLVMContext& context = module.getContext();
    llvm::Type* f64 = llvm::Type::getDoubleTy(context);
    llvm::FunctionCallee scalar =
        module.getOrInsertFunction(scalarName(base), llvm::FunctionType::get(f64, {f64}, false));
    std::vector<std::string> variants;
    if (auto* fn = llvm::dyn_cast<llvm::Function>(scalar.getCallee())) {
        // Pure as far as the program can tell (libm may set errno, which nothing reads).
        fn->setDoesNotThrow();
        fn->setDoesNotAccessMemory();
        fn->setWillReturn();
    }
    for (unsigned lanes : kLaneCounts) {
        const std::string name = vectorName(base, lanes);
        if (!module.getFunction(name))
            llvm::appendToCompilerUsed(module, {buildVariant(module, base, lanes, scalar)});
        variants.push_back("_ZGV_LLVM_N" + std::to_string(lanes) + "v_" + scalarName(base) + "(" + name +
                           ")");
    }
    llvm::CallInst* call = builder.CreateCall(scalar, {x});
    llvm::VFABI::setVectorVariantNames(call, variants);
    return call;
}

} // namespace tb::jit
