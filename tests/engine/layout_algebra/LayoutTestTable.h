// The table of layouts that the property tests run over: row-major and column-major tiles, the three XOR
// swizzles on shapes real gemms use, a padded layout, tiled (repeated) and expanded layouts, and one that is
// deliberately not injective.
#pragma once

#include "engine/layout/algebra/Layout.h"
#include "engine/layout/algebra/Swizzle.h"

#include <string>
#include <vector>

namespace tb::layout::fixtures {

struct LayoutCase {
    std::string name;
    Layout layout;
    bool bijective; // onto its output shape
    bool injective;
};

inline std::vector<LayoutCase> layoutTable() {
    std::vector<LayoutCase> table;
    table.push_back({"row-major 16x8", Layout::linear({16, 8}), true, true});
    table.push_back({"column-major 8x12",
                     Layout::fromFunction({8, 12},
                                          [](const std::vector<IndexExpr>& v) {
                                              return std::vector<IndexExpr>{v[1] * IndexExpr(8) + v[0]};
                                          }),
                     true, true});
    table.push_back({"transpose 2-d",
                     Layout::fromFunction({4, 6},
                                          [](const std::vector<IndexExpr>& v) {
                                              return std::vector<IndexExpr>{v[1], v[0]};
                                          }),
                     true, true});
    table.push_back({"swizzle 128B f16 64x64", *makeFullBankSwizzleLayout(64, 64, 16), true, true});
    table.push_back(
        {"swizzle 128B f16 32x128 (two panels)", *makeFullBankSwizzleLayout(32, 128, 16), true, true});
    table.push_back({"swizzle 64B f16 128x32", *makeHalfBankSwizzleLayout(128, 32, 16), true, true});
    table.push_back({"swizzle 32B f16 64x16", *makeQuarterBankSwizzleLayout(64, 16, 16), true, true});
    table.push_back({"swizzle 128B f32 16x32", *makeFullBankSwizzleLayout(16, 32, 32), true, true});
    table.push_back({"swizzle 128B int8 8x256", *makeFullBankSwizzleLayout(8, 256, 8), true, true});
    table.push_back({"padded f16 16x64", makePaddedLayout(16, 64, 16), false, true});
    table.push_back({"repeated row-major", Layout::linear({4, 8}).repeat(1, 3), true, true});
    table.push_back(
        {"expanded swizzle (stage dim)", makeFullBankSwizzleLayout(8, 64, 16)->expand({3}), true, true});
    table.push_back(
        {"cute Swizzle<2,3,3> on 8x32", cuteSwizzle(Layout::linear({8, 32}), 2, 3, 3), true, true});
    table.push_back(
        {"not injective (i + j)",
         Layout::fromFunction(
             {4, 4}, [](const std::vector<IndexExpr>& v) { return std::vector<IndexExpr>{v[0] + v[1]}; }),
         false, false});
    return table;
}

} // namespace tb::layout::fixtures
