// Shared-memory XOR swizzles (reference §4), each built as a function composed onto a tiling of the buffer:
//   tiling   (i, j) -> (tc, ts, s, c, e) = (j // (W*vec), i // 8, i % 8, (j // vec) % W, j % vec)
//   swizzle  (tc, ts, s, c, e) -> (tc, ts, e + vec*((c ^ f(s)) + W*s))
// with vec = 128/bits elements (one 16-byte chunk), W = 8/4/2 chunks per row of a 128/64/32-byte swizzle
// atom and f(s) = s, s//2, s//4 respectively. The output is (column panel, 8-row group, offset in the atom),
// so the linear offset is tc*S*W*vec + i*W*vec + vec*(((j//vec)%W) ^ f(i%8)) + j%vec: the tile is cut into
// W*16-byte-wide column panels stored one after another, and inside a panel each row's 16-byte chunks are
// permuted by XOR with (a function of) the row. For f16 and 64 columns this is CuTe's Swizzle<3,3,3>.
#pragma once

#include "engine/layout/algebra/Layout.h"
#include "engine/layout/algebra/LayoutResult.h"

#include <cstdint>
#include <optional>

namespace tb::layout {

enum class SwizzleKind { Quarter32B, Half64B, Full128B };

const char* swizzleKindName(SwizzleKind kind); // "32B", "64B", "128B"
int swizzleBytes(SwizzleKind kind);            // 32, 64, 128
int swizzleChunks(SwizzleKind kind);           // W = 2, 4, 8 sixteen-byte chunks per atom row

// Pre: 128 % elementBits == 0 ("swizzle-element-bits"), rows % 8 == 0 ("swizzle-rows"),
// cols % (W * 128/elementBits) == 0 ("swizzle-cols").
// Example: makeSwizzledLayout(Full128B, 64, 64, 16) sends (1, 8) to offset 64 + 8*(1 ^ 1) + 0 = 64.
LayoutResult<Layout> makeSwizzledLayout(SwizzleKind kind, int64_t rows, int64_t cols, int elementBits);
inline LayoutResult<Layout> makeFullBankSwizzleLayout(int64_t rows, int64_t cols, int elementBits) {
    return makeSwizzledLayout(SwizzleKind::Full128B, rows, cols, elementBits);
}
inline LayoutResult<Layout> makeHalfBankSwizzleLayout(int64_t rows, int64_t cols, int elementBits) {
    return makeSwizzledLayout(SwizzleKind::Half64B, rows, cols, elementBits);
}
inline LayoutResult<Layout> makeQuarterBankSwizzleLayout(int64_t rows, int64_t cols, int elementBits) {
    return makeSwizzledLayout(SwizzleKind::Quarter32B, rows, cols, elementBits);
}

// The two halves of the construction, exposed so that tests and views can show them.
// The tiling (i, j) -> (tc, ts, s, c, e); same preconditions as makeSwizzledLayout.
Layout swizzleTiling(SwizzleKind kind, int64_t rows, int64_t cols, int elementBits);
// The XOR function over the tiling's output shape.
Layout swizzleFunction(SwizzleKind kind, int64_t rows, int64_t cols, int elementBits);

// CuTe's Swizzle<bits, base, shift> composed onto the linear offset x of a layout:
// x ^ (((x // 2^(base+shift)) % 2^bits) * 2^base). Pre: 0 <= bits, base, shift <= 20.
// Example: cuteSwizzle(Layout::linear({8, 64}), 3, 3, 3) equals makeFullBankSwizzleLayout(8, 64, 16)
// linearized.
Layout cuteSwizzle(const Layout& layout, int bits, int base, int shift);

// Padded row-major layout: pitch = cols + 128/elementBits when (elementBits*cols) % 256 == 0 (rows that are a
// multiple of 32 bytes would otherwise start in the same bank), else cols; offset = i*pitch + j.
Layout makePaddedLayout(int64_t rows, int64_t cols, int elementBits);

// Which of the three swizzles `layout` is, by exact equality against the makers; nullopt for none.
std::optional<SwizzleKind> detectSwizzleKind(const Layout& layout, int elementBits);

// Two ops asked for different swizzles on one buffer: keep the smaller granularity (32B < 64B < 128B),
// which every access pattern of the larger one also tolerates (TileLang's MergeSwizzleLayouts).
SwizzleKind mergeSwizzleKinds(SwizzleKind a, SwizzleKind b);

} // namespace tb::layout
