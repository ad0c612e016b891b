// T.exp and T.exp2 of float32 dtype, vectorizable and bit for bit the interpreter's (float)std::exp(x).
//
// The interpreter calls libm in double and rounds to float. A libm call in a tile loop keeps LLVM from
// vectorizing the loop, and softmax, SiLU and attention spend most of their CPU time there. This computes
// exp in double, in straight-line vector code (a Cody-Waite reduction to |t| <= ln2/2 and a degree-12
// Taylor polynomial: relative error below 2^-46), and rounds it to float. Libm's own result is within an
// ulp of the true value too, so the two round to the same float unless the true value lies within ~2^-46
// of a point halfway between two floats: a lane whose result is that close to one (2^10 double ulps, one
// lane in 2^18 on random data), outside the range where the result is a normal float, or NaN, takes the
// scalar libm call instead. The vector functions are attached to the scalar call as vector variants
// (LLVM's vector-function ABI), which the loop vectorizer uses for 2, 4, 8 or 16 lanes.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace tb::jit {

enum class ExpBase { E, Two };

// The double holding (float)exp(x) or (float)exp2(x) for a double x: a call of tbjit_exp_f32 or
// tbjit_exp2_f32 carrying its vector variants (defined in `module` on first use).
llvm::Value* emitFloatExp(llvm::IRBuilder<>& builder, llvm::Module& module, ExpBase base, llvm::Value* x);

} // namespace tb::jit
