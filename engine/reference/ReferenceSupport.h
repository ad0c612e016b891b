// Helpers shared by the naive references (internal to engine/reference/): reading specialization
// parameters, checking parameter counts and shapes, choosing the output tensors, and the factory of each
// reference for the registry.
#pragma once

#include "engine/reference/Reference.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::reference {

// The value of a jit parameter when it is an integer (a bool counts as 0/1).
std::optional<int64_t> specInt(const ir::Module& module, std::string_view name);
// The value of a jit parameter when it is a bool (an integer counts as != 0).
std::optional<bool> specBool(const ir::Module& module, std::string_view name);
// The value of a jit parameter when it is a number.
std::optional<double> specDouble(const ir::Module& module, std::string_view name);

// "[2, 3]"
std::string shapeText(const std::vector<int64_t>& shape);

// Fails with "<reference> expects N parameters (...), got M" when the count differs.
bool expectParamCount(const ReferenceInvocation& invocation, size_t count, std::string_view what,
                      std::string& error);
// Fails with "parameter 'A' (0) has shape [..], expected [..]".
bool expectShape(const ReferenceInvocation& invocation, int index, const std::vector<int64_t>& shape,
                 std::string& error);
// Fails unless the parameter has the given rank.
bool expectRank(const ReferenceInvocation& invocation, int index, size_t rank, std::string& error);
// When the PrimFunc marks outputs, the primary output must be among them.
bool expectOutputMarked(const ReferenceInvocation& invocation, int primaryOutput, std::string& error);

// A tensor with the parameter's name, dtype and shape, to hold an expected value.
HostTensor likeParam(const ReferenceInvocation& invocation, int index);

// rows[r][j] += coefficients[r] * x[j] for r < rowCount (at most 4) and j < n: the inner loop of the
// references' matrix products, one multiply and one add per element (no fused multiply-add), each row's
// element updated in the caller's order. Built for AVX2 and for baseline x86-64, chosen at run time.
void addScaledRows(double* const* rows, const double* coefficients, int64_t rowCount, const double* x,
                   int64_t n);

// out[j] = exp(x[j]) for j < n, within a few ulps of libm's (relative error below 1e-15; NaN, infinities and
// |x| > 700 through libm itself): the references' exponentials of whole rows, in code that vectorizes.
void expRow(const double* x, double* out, int64_t n);

// Calls fn(begin, end) over disjoint ranges covering [0, count), one per hardware thread (plain
// std::threads: the references stay independent of the JIT's pool). Each index is computed the same way
// whatever the split, so results do not depend on the thread count.
void parallelRanges(int64_t count, const std::function<void(int64_t begin, int64_t end)>& fn);

// The factories behind the registry, one per reference file.
Reference makeElementwiseAddReference();
Reference makeGemmReluReference();
Reference makeGemmReference();
Reference makeGemmNtReference();
Reference makeGemmTransposeReference();
Reference makeSoftmaxReference();
Reference makeRmsNormSiluReference();
Reference makeFlashAttentionReference();
Reference makeMlaDecodeReference();

} // namespace tb::reference
