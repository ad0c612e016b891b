// The line map: generated lines <-> tile-program lines, both ways.
#include "CodegenTestSupport.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace tb;
using namespace tb::codegen;
using namespace tb::codegen::test;

namespace {

int lineContaining(const std::string& text, const std::string& needle) {
    size_t p = text.find(needle);
    if (p == std::string::npos)
        return 0;
    return int(std::count(text.begin(), text.begin() + long(p), '\n')) + 1;
}

std::string generatedLine(const std::string& source, int line) {
    size_t start = 0;
    for (int i = 1; i < line; ++i)
        start = source.find('\n', start) + 1;
    return source.substr(start, source.find('\n', start) - start);
}

} // namespace

TEST(LineMap, GemmLinesMapBothWays) {
    PlannedProgram p = planSample("02_gemm_relu.py");
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const GeneratedUnit& unit = code.units[0];
    const std::string& program = p.result->sources.file(p.result->file).text();
    int gemmLine = lineContaining(program, "T.gemm(A_shared, B_shared, C_local)");
    int reluLine = lineContaining(program, "C_local[i, j] = T.max(C_local[i, j], 0)");
    ASSERT_GT(gemmLine, 0);
    // Every mma.sync line comes from the T.gemm line.
    int mmaLine = lineContaining(unit.source, "tb_mma_f16(C_local");
    ASSERT_GT(mmaLine, 0);
    EXPECT_EQ(unit.lineMap.sourceLineOf(mmaLine), gemmLine);
    // And the other way: the gemm's generated lines include the mma.sync lines and nothing from the ReLU.
    std::vector<int> lines = unit.lineMap.generatedLinesOf(gemmLine);
    ASSERT_FALSE(lines.empty());
    size_t mmas = 0;
    for (int l : lines) {
        std::string text = generatedLine(unit.source, l);
        mmas += text.find("tb_mma_f16(C_local") != std::string::npos;
        EXPECT_EQ(text.find("tb_max"), std::string::npos) << text;
    }
    EXPECT_EQ(mmas, 4u); // 4 k steps, each a loop nest over 4 x 8 atoms
    // The ReLU's element statement maps to its line.
    int maxLine = lineContaining(unit.source, "tb_max(C_local[");
    ASSERT_GT(maxLine, 0);
    EXPECT_EQ(unit.lineMap.sourceLineOf(maxLine), reluLine);
    // The header has no source lines.
    EXPECT_EQ(unit.lineMap.sourceLineOf(1), 0);
    EXPECT_FALSE(unit.lineMap.rangeOf(2).has_value());
    // Comments say which line an op comes from.
    EXPECT_NE(unit.source.find("(line " + std::to_string(gemmLine) + ")"), std::string::npos);
}
