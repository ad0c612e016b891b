// Inverse of a layout by exact enumeration. TileLang inverts layouts symbolically (IterMap detection and an
// affine inverse); TileBench enumerates the logical domain instead, which is exact for every expression the
// algebra can write (XOR swizzles included) and predictable: domains up to kMaxEnumerationPoints points.
#pragma once

#include "engine/layout/algebra/Layout.h"
#include "engine/layout/algebra/LayoutResult.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tb::layout {

// The inverse of an injective layout as a table over the physical side.
struct InverseTable {
    std::vector<int64_t> inputShape;  // the logical side (the layout's input shape)
    std::vector<int64_t> outputShape; // the physical side (the layout's output shape)
    std::vector<int64_t> preimage;    // linear physical offset -> linear logical index, -1 when unreached

    // The logical point stored at a physical point; nullopt when outside the physical shape or unreached
    // (padding).
    std::optional<std::vector<int64_t>> logicalOf(const std::vector<int64_t>& physical) const;
    // True when every physical offset has a preimage (then the layout is a bijection).
    bool surjective() const;
};

// Pre: the layout is injective and both sides have at most kMaxEnumerationPoints points.
// Errors: "layout-domain-too-large", "layout-not-injective" (the message names two logical points that map
// to one physical point), "layout-eval-failed", "layout-out-of-range" (an output below 0).
// Example: the inverse of linear({4, 8}) maps offset 13 back to (1, 5).
LayoutResult<InverseTable> inverseLayout(const Layout& layout);

// Injective: no two logical points share a physical point. Same errors as inverseLayout, except that a
// collision gives `false` rather than an error.
LayoutResult<bool> isInjective(const Layout& layout);
// Bijective onto the output shape: injective and every physical point reached.
LayoutResult<bool> isBijective(const Layout& layout);

} // namespace tb::layout
