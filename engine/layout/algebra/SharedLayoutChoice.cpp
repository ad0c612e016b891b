// Selection of a shared-memory operand layout: the swizzle ladder with padded and linear fallbacks.
#include "engine/layout/algebra/SharedLayoutChoice.h"

#include <optional>

namespace tb::layout {

const char* sharedLayoutKindName(SharedLayoutKind kind) {
    switch (kind) {
    case SharedLayoutKind::Linear:
        return "linear";
    case SharedLayoutKind::Padded:
        return "padded";
    case SharedLayoutKind::Quarter32B:
        return "swizzle-32B";
    case SharedLayoutKind::Half64B:
        return "swizzle-64B";
    case SharedLayoutKind::Full128B:
        return "swizzle-128B";
    }
    return "?";
}

namespace {

SharedLayoutKind kindOf(SwizzleKind kind) {
    switch (kind) {
    case SwizzleKind::Quarter32B:
        return SharedLayoutKind::Quarter32B;
    case SwizzleKind::Half64B:
        return SharedLayoutKind::Half64B;
    case SwizzleKind::Full128B:
        return SharedLayoutKind::Full128B;
    }
    return SharedLayoutKind::Linear;
}

std::string dims(int64_t rows, int64_t cols, int bits) {
    return std::to_string(rows) + "x" + std::to_string(cols) + " " + std::to_string(bits) + "-bit";
}

} // namespace

LayoutResult<SharedLayoutChoice> chooseSharedLayout(int64_t rows, int64_t cols, int elementBits, bool kMajor,
                                                    bool allowPad, int64_t continuity) {
    if (elementBits <= 0 || elementBits > 128 || 128 % elementBits != 0 || rows < 1 || cols < 1)
        return layoutError("shared-layout-unsupported",
                           "no shared layout for a " + dims(rows, cols, elementBits) + " buffer",
                           "element widths must divide 128 bits and extents must be positive");
    int64_t vec = 128 / elementBits;
    auto ladder = [&](std::optional<SwizzleKind> cap) -> std::optional<SharedLayoutChoice> {
        if (rows % 8 != 0)
            return std::nullopt;
        for (SwizzleKind kind : {SwizzleKind::Full128B, SwizzleKind::Half64B, SwizzleKind::Quarter32B}) {
            if (cap && swizzleChunks(kind) > swizzleChunks(*cap))
                continue;
            int64_t width = swizzleChunks(kind) * vec;
            if (cols % width != 0 || (continuity > 0 && continuity % width != 0))
                continue;
            LayoutResult<Layout> layout = makeSwizzledLayout(kind, rows, cols, elementBits);
            if (!layout)
                continue;
            return SharedLayoutChoice{kindOf(kind), *layout,
                                      std::string(swizzleKindName(kind)) + " swizzle: " +
                                          (continuity > 0 && continuity < cols
                                               ? std::to_string(continuity) + " columns per warpgroup"
                                               : std::to_string(cols) + " columns") +
                                          " are a multiple of " + std::to_string(width)};
        }
        return std::nullopt;
    };
    if (allowPad) {
        auto padded = [&](std::string why) {
            return SharedLayoutChoice{SharedLayoutKind::Padded, makePaddedLayout(rows, cols, elementBits),
                                      "padded: " + why};
        };
        if (elementBits == 64)
            return padded("fp64 swizzles are not modelled");
        if (elementBits == 8 && !kMajor)
            return padded("8-bit operands stored MN-major are not swizzled");
        if (rows % 8 != 0)
            return padded(std::to_string(rows) + " rows are not a multiple of the 8-row swizzle period");
        if (auto choice = ladder(std::nullopt))
            return *choice;
        return padded(std::to_string(cols) + " columns are not a multiple of " + std::to_string(2 * vec));
    }
    // fp64 on the Hopper path falls back to the quarter swizzle or linear.
    std::optional<SwizzleKind> cap;
    if (elementBits == 64)
        cap = SwizzleKind::Quarter32B;
    if (auto choice = ladder(cap))
        return *choice;
    if (cols % vec == 0)
        return SharedLayoutChoice{SharedLayoutKind::Linear, Layout::linear({rows, cols}),
                                  "linear: no swizzle fits " + dims(rows, cols, elementBits) +
                                      " and padding is not allowed"};
    return layoutError("shared-layout-unsupported",
                       "a " + dims(rows, cols, elementBits) + " buffer has rows of " + std::to_string(cols) +
                           " elements, not a multiple of one 16-byte vector (" + std::to_string(vec) +
                           " elements); wgmma/tma need whole vectors",
                       "make the contiguous extent a multiple of " + std::to_string(vec));
}

} // namespace tb::layout
