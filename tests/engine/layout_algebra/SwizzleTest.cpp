// The XOR swizzles of reference §4: the offsets match the closed formulas, a swizzle only permutes 16-byte
// chunks within each 8-row x atom-width group, a swizzle of a shape is a permutation of the unswizzled
// layout of the same shape, CuTe equivalence, preconditions, detection and merging.
#include "engine/layout/algebra/Swizzle.h"

#include "engine/layout/algebra/LayoutEquality.h"
#include "engine/layout/algebra/LayoutInverse.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

using namespace tb::layout;

namespace {

struct SwizzleCase {
    SwizzleKind kind;
    int64_t rows, cols;
    int bits;
};

std::vector<SwizzleCase> swizzleCases() {
    return {
        {SwizzleKind::Full128B, 64, 64, 16},   {SwizzleKind::Full128B, 32, 128, 16},
        {SwizzleKind::Full128B, 16, 32, 32},   {SwizzleKind::Full128B, 8, 256, 8},
        {SwizzleKind::Half64B, 128, 32, 16},   {SwizzleKind::Half64B, 16, 64, 16},
        {SwizzleKind::Half64B, 8, 16, 32},     {SwizzleKind::Quarter32B, 64, 16, 16},
        {SwizzleKind::Quarter32B, 24, 32, 16}, {SwizzleKind::Quarter32B, 8, 32, 8},
    };
}

// The reference's closed form: tc*S*W*vec + i*W*vec + vec*(((j/vec)%W) ^ f(i%8)) + j%vec.
int64_t referenceOffset(const SwizzleCase& c, int64_t i, int64_t j) {
    int64_t vec = 128 / c.bits, w = swizzleChunks(c.kind);
    int64_t f = (i % 8) / (8 / w);
    return (j / (w * vec)) * c.rows * w * vec + i * w * vec + vec * (((j / vec) % w) ^ f) + j % vec;
}

std::string label(const SwizzleCase& c) {
    return std::string(swizzleKindName(c.kind)) + " " + std::to_string(c.rows) + "x" +
           std::to_string(c.cols) + " " + std::to_string(c.bits) + "-bit";
}

} // namespace

TEST(Swizzle, MatchesTheReferenceFormula) {
    for (const SwizzleCase& c : swizzleCases()) {
        LayoutResult<Layout> layout = makeSwizzledLayout(c.kind, c.rows, c.cols, c.bits);
        ASSERT_TRUE(layout.ok()) << label(c) << ": " << layout.error().message;
        for (int64_t i = 0; i < c.rows; ++i)
            for (int64_t j = 0; j < c.cols; ++j)
                ASSERT_EQ(layout->offset({i, j}), referenceOffset(c, i, j))
                    << label(c) << " at " << i << "," << j;
    }
}

TEST(Swizzle, OnlyPermutesChunksWithinEachRowGroup) {
    for (const SwizzleCase& c : swizzleCases()) {
        Layout layout = *makeSwizzledLayout(c.kind, c.rows, c.cols, c.bits);
        int64_t vec = 128 / c.bits, w = swizzleChunks(c.kind), rowElems = w * vec;
        // For each (panel, row): the chunk permutation is a bijection of [0, W) and each 16-byte chunk moves
        // whole (the element's position inside the chunk is kept) within the same 8-row group of its panel.
        for (int64_t i = 0; i < c.rows; ++i)
            for (int64_t tc = 0; tc < c.cols / rowElems; ++tc) {
                std::set<int64_t> chunks;
                for (int64_t j = tc * rowElems; j < (tc + 1) * rowElems; ++j) {
                    int64_t offset = *layout.offset({i, j});
                    int64_t panelBase = tc * c.rows * rowElems;
                    int64_t groupBase = panelBase + (i / 8) * 8 * rowElems;
                    ASSERT_GE(offset, groupBase) << label(c);
                    ASSERT_LT(offset, groupBase + 8 * rowElems) << label(c);
                    ASSERT_EQ((offset - panelBase) / rowElems, i) << label(c) << ": chunk left its row";
                    ASSERT_EQ(offset % vec, j % vec) << label(c) << ": chunk split";
                    chunks.insert((offset % rowElems) / vec);
                }
                EXPECT_EQ(int64_t(chunks.size()), w) << label(c);
            }
        // Rows with i % 8 == 0 are not permuted at all.
        for (int64_t j = 0; j < c.cols; ++j)
            EXPECT_EQ(layout.offset({0, j}), referenceOffset({c.kind, c.rows, c.cols, c.bits}, 0, j));
    }
}

TEST(Swizzle, IsAPermutationOfTheUnswizzledPanelLayout) {
    for (const SwizzleCase& c : swizzleCases()) {
        Layout layout = *makeSwizzledLayout(c.kind, c.rows, c.cols, c.bits);
        EXPECT_TRUE(*isBijective(layout)) << label(c);
        EXPECT_EQ(layout.outputSize(), c.rows * c.cols) << label(c);
        // Same offsets as the panel-major unswizzled layout of the same shape, as a set.
        std::vector<int64_t> swizzled, plain;
        int64_t rowElems = swizzleChunks(c.kind) * 128 / c.bits;
        for (int64_t i = 0; i < c.rows; ++i)
            for (int64_t j = 0; j < c.cols; ++j) {
                swizzled.push_back(*layout.offset({i, j}));
                plain.push_back((j / rowElems) * c.rows * rowElems + i * rowElems + j % rowElems);
            }
        std::sort(swizzled.begin(), swizzled.end());
        std::sort(plain.begin(), plain.end());
        EXPECT_EQ(swizzled, plain) << label(c);
    }
}

TEST(Swizzle, FullBankF16IsCuteSwizzle333) {
    for (int64_t rows : {8, 32, 64}) {
        Layout ours = makeFullBankSwizzleLayout(rows, 64, 16)->linearized();
        Layout cute = cuteSwizzle(Layout::linear({rows, 64}), 3, 3, 3);
        EXPECT_TRUE(*layoutsEqual(ours, cute)) << rows;
    }
    EXPECT_TRUE(*layoutsEqual(makeHalfBankSwizzleLayout(16, 32, 16)->linearized(),
                              cuteSwizzle(Layout::linear({16, 32}), 2, 3, 3)));
}

TEST(Swizzle, BuiltAsAFunctionComposedOntoATiling) {
    SwizzleCase c{SwizzleKind::Full128B, 16, 128, 16};
    LayoutResult<Layout> composed = compose(swizzleTiling(c.kind, c.rows, c.cols, c.bits),
                                            swizzleFunction(c.kind, c.rows, c.cols, c.bits));
    ASSERT_TRUE(composed.ok());
    EXPECT_TRUE(*layoutsEqual(*composed, *makeFullBankSwizzleLayout(16, 128, 16)));
    EXPECT_EQ(composed->outputShape(), (std::vector<int64_t>{2, 2, 512}));
}

TEST(Swizzle, Preconditions) {
    EXPECT_EQ(makeFullBankSwizzleLayout(12, 64, 16).error().code, "swizzle-rows");
    EXPECT_EQ(makeFullBankSwizzleLayout(64, 32, 16).error().code, "swizzle-cols");
    EXPECT_NE(makeFullBankSwizzleLayout(64, 32, 16).error().message.find("64 columns"), std::string::npos);
    EXPECT_TRUE(makeHalfBankSwizzleLayout(64, 32, 16).ok());
    EXPECT_EQ(makeQuarterBankSwizzleLayout(64, 8, 16).error().code, "swizzle-cols");
    EXPECT_EQ(makeFullBankSwizzleLayout(64, 64, 24).error().code, "swizzle-element-bits");
}

TEST(Swizzle, DetectAndMerge) {
    for (const SwizzleCase& c : swizzleCases())
        EXPECT_EQ(detectSwizzleKind(*makeSwizzledLayout(c.kind, c.rows, c.cols, c.bits), c.bits), c.kind)
            << label(c);
    EXPECT_FALSE(detectSwizzleKind(Layout::linear({64, 64}), 16).has_value());
    EXPECT_EQ(mergeSwizzleKinds(SwizzleKind::Full128B, SwizzleKind::Half64B), SwizzleKind::Half64B);
    EXPECT_EQ(mergeSwizzleKinds(SwizzleKind::Quarter32B, SwizzleKind::Full128B), SwizzleKind::Quarter32B);
}

TEST(Swizzle, PaddedLayout) {
    Layout padded = makePaddedLayout(16, 64, 16); // 128-byte rows: pitch 64 + 8
    EXPECT_EQ(padded.offset({1, 0}), 72);
    Layout unpadded = makePaddedLayout(16, 24, 16); // 48-byte rows are not a multiple of 32 bytes
    EXPECT_EQ(unpadded.offset({1, 0}), 24);
}
