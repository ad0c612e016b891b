// Whether a layout moves along one of its input dimensions by a constant step: how a copy whose start in
// that dimension is known only at run time (a stage the program picks, `A_shared[ko % 2, :, :]`, or a
// column block of an unrolled loop, `KV_shared[:, j * 64:(j + 1) * 64]`) can still be proved to keep its
// vectors contiguous and aligned. The code generator's vector copies and the bank model decide it with
// this one rule.
#pragma once

#include "engine/layout/algebra/Layout.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace tb::layout {

// The S with offset(p + step * e_dim) = offset(p) + S for every point p of the input shape for which both
// are inside it: the layout repeats itself every `step` along `dim` (a stage dimension in front of
// per-stage tiles; whole swizzle atoms along a row). 0 when no point has a successor; nullopt when the
// difference varies or the layout cannot be evaluated.
std::optional<int64_t> translationStride(const Layout& layout, size_t dim, int64_t step);

// Whether vectors of `vector` elements that are contiguous and aligned at start 0 of `dim` stay so at every
// start that is a multiple of `step` (a run-time start known to be one): the layout repeats every `step`
// along `dim` by a multiple of `vector` elements.
bool vectorsSurviveRuntimeStart(const Layout& layout, size_t dim, int64_t step, int64_t vector);

} // namespace tb::layout
