// The XOR swizzle makers, CuTe's swizzle function, the padded layout and swizzle detection.
#include "engine/layout/algebra/Swizzle.h"

#include "engine/layout/algebra/LayoutEquality.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tb::layout {

const char* swizzleKindName(SwizzleKind kind) {
    switch (kind) {
    case SwizzleKind::Quarter32B:
        return "32B";
    case SwizzleKind::Half64B:
        return "64B";
    case SwizzleKind::Full128B:
        return "128B";
    }
    return "?";
}

int swizzleBytes(SwizzleKind kind) {
    return swizzleChunks(kind) * 16;
}

int swizzleChunks(SwizzleKind kind) {
    switch (kind) {
    case SwizzleKind::Quarter32B:
        return 2;
    case SwizzleKind::Half64B:
        return 4;
    case SwizzleKind::Full128B:
        return 8;
    }
    return 8;
}

namespace {

int64_t vectorElements(int elementBits) {
    return elementBits > 0 ? 128 / elementBits : 1;
}

} // namespace

Layout swizzleTiling(SwizzleKind kind, int64_t rows, int64_t cols, int elementBits) {
    int64_t vec = vectorElements(elementBits);
    int64_t w = swizzleChunks(kind);
    return Layout::fromFunction({rows, cols}, [&](const std::vector<IndexExpr>& v) {
        const IndexExpr &i = v[0], &j = v[1];
        return std::vector<IndexExpr>{floorDiv(j, w * vec), floorDiv(i, 8), floorMod(i, 8),
                                      floorMod(floorDiv(j, vec), w), floorMod(j, vec)};
    });
}

Layout swizzleFunction(SwizzleKind kind, int64_t rows, int64_t cols, int elementBits) {
    int64_t vec = vectorElements(elementBits);
    int64_t w = swizzleChunks(kind);
    int64_t rowShift = 8 / w; // f(s) = s // (8/W): the XOR pattern repeats every 8 rows for all three
    std::vector<int64_t> shape{std::max<int64_t>(cols / (w * vec), 1), std::max<int64_t>(rows / 8, 1), 8, w,
                               vec};
    return Layout::fromFunction(shape, [&](const std::vector<IndexExpr>& v) {
        const IndexExpr &tc = v[0], &ts = v[1], &s = v[2], &c = v[3], &e = v[4];
        return std::vector<IndexExpr>{
            tc, ts, e + IndexExpr(vec) * (bitXor(c, floorDiv(s, rowShift)) + IndexExpr(w) * s)};
    });
}

LayoutResult<Layout> makeSwizzledLayout(SwizzleKind kind, int64_t rows, int64_t cols, int elementBits) {
    std::string name = swizzleKindName(kind);
    if (elementBits <= 0 || elementBits > 128 || 128 % elementBits != 0)
        return layoutError("swizzle-element-bits",
                           "a " + name + " swizzle needs an element width that divides 128 bits, got " +
                               std::to_string(elementBits));
    int64_t vec = vectorElements(elementBits);
    int64_t w = swizzleChunks(kind);
    if (rows < 8 || rows % 8 != 0)
        return layoutError("swizzle-rows",
                           "a " + name + " swizzle repeats every 8 rows, but the buffer has " +
                               std::to_string(rows),
                           "use a row count that is a multiple of 8, or a padded layout");
    if (cols < w * vec || cols % (w * vec) != 0)
        return layoutError("swizzle-cols",
                           "a " + name + " swizzle of " + std::to_string(elementBits) +
                               "-bit elements needs " + "a multiple of " + std::to_string(w * vec) +
                               " columns, the buffer has " + std::to_string(cols),
                           "pick a smaller swizzle or a padded layout");
    return compose(swizzleTiling(kind, rows, cols, elementBits),
                   swizzleFunction(kind, rows, cols, elementBits));
}

Layout cuteSwizzle(const Layout& layout, int bits, int base, int shift) {
    if (bits < 0 || base < 0 || shift < 0 || bits > 20 || base > 20 || shift > 20)
        return layout;
    Layout flat = layout.linearized();
    const IndexExpr& x = flat.forwardIndex()[0];
    IndexExpr mask = floorMod(floorDiv(x, int64_t(1) << (base + shift)), int64_t(1) << bits);
    return Layout(flat.inputShape(), {bitXor(x, mask * IndexExpr(int64_t(1) << base))});
}

Layout makePaddedLayout(int64_t rows, int64_t cols, int elementBits) {
    int64_t pitch = cols;
    if (elementBits > 0 && 128 % elementBits == 0 && (int64_t(elementBits) * cols) % 256 == 0)
        pitch = cols + 128 / elementBits;
    return Layout::fromFunction({rows, cols}, [&](const std::vector<IndexExpr>& v) {
        return std::vector<IndexExpr>{v[0] * IndexExpr(pitch) + v[1]};
    });
}

std::optional<SwizzleKind> detectSwizzleKind(const Layout& layout, int elementBits) {
    if (layout.inputShape().size() != 2)
        return std::nullopt;
    int64_t rows = layout.inputShape()[0], cols = layout.inputShape()[1];
    Layout flat = layout.linearized();
    for (SwizzleKind kind : {SwizzleKind::Full128B, SwizzleKind::Half64B, SwizzleKind::Quarter32B}) {
        LayoutResult<Layout> candidate = makeSwizzledLayout(kind, rows, cols, elementBits);
        if (!candidate)
            continue;
        LayoutResult<bool> same = layoutsEqual(flat, candidate->linearized());
        if (same && *same)
            return kind;
    }
    return std::nullopt;
}

SwizzleKind mergeSwizzleKinds(SwizzleKind a, SwizzleKind b) {
    return swizzleChunks(a) <= swizzleChunks(b) ? a : b;
}

} // namespace tb::layout
