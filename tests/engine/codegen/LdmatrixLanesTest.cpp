// The ldmatrix lane formulas are written once and used twice: with numbers (solving every thread's address)
// and as C text (the emitted lane offset and the per-load fallback). These tests evaluate the text for every
// lane and check it gives the numbers, and pin the text's shape and parentheses.
#include "engine/codegen/LdmatrixLanes.h"

#include <cctype>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <utility>

namespace tb::codegen {
namespace {

// Evaluates C integer text made of numbers, `lane`, + * / % and parentheses, with C precedence.
class TextEvaluator {
public:
    TextEvaluator(const std::string& text, int64_t lane) : m_text(text), m_lane(lane) {}
    int64_t evaluate() {
        int64_t v = sum();
        EXPECT_EQ(m_pos, m_text.size()) << "trailing text in " << m_text;
        return v;
    }

private:
    void skipSpaces() {
        while (m_pos < m_text.size() && m_text[m_pos] == ' ')
            ++m_pos;
    }
    int64_t sum() {
        int64_t v = product();
        for (skipSpaces(); m_pos < m_text.size() && m_text[m_pos] == '+'; skipSpaces()) {
            ++m_pos;
            v += product();
        }
        return v;
    }
    int64_t product() {
        int64_t v = atom();
        for (skipSpaces();
             m_pos < m_text.size() && std::string("*/%").find(m_text[m_pos]) != std::string::npos;
             skipSpaces()) {
            char op = m_text[m_pos++];
            int64_t r = atom();
            v = op == '*' ? v * r : op == '/' ? v / r : v % r;
        }
        return v;
    }
    int64_t atom() {
        skipSpaces();
        if (m_text[m_pos] == '(') {
            ++m_pos;
            int64_t v = sum();
            skipSpaces();
            EXPECT_EQ(m_text[m_pos], ')');
            ++m_pos;
            return v;
        }
        if (m_text.compare(m_pos, 4, "lane") == 0) {
            m_pos += 4;
            return m_lane;
        }
        size_t start = m_pos;
        while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
        EXPECT_GT(m_pos, start) << "unexpected text at " << m_pos << " in " << m_text;
        return std::stoll(m_text.substr(start, m_pos - start));
    }

    const std::string& m_text;
    int64_t m_lane;
    size_t m_pos = 0;
};

TEST(LdmatrixLanes, TextGivesTheNumbersForEveryLane) {
    const CText lane = CText::var("lane");
    for (bool transposed : {false, true}) {
        for (bool x4 : {true, false}) {
            for (int64_t origin : {0, 16, 48}) {
                for (int64_t k0 : {0, 32}) {
                    const CText o = CText::var(std::to_string(origin)), k = CText::var(std::to_string(k0));
                    auto [rowA, colA] = ldmatrixLaneA(transposed, o, k, lane);
                    auto [rowB, colB] = ldmatrixLaneB(transposed, x4, o, k, lane);
                    for (int64_t l = 0; l < 32; ++l) {
                        auto [ra, ca] = ldmatrixLaneA<int64_t>(transposed, origin, k0, l);
                        EXPECT_EQ(TextEvaluator(rowA.text, l).evaluate(), ra) << rowA.text;
                        EXPECT_EQ(TextEvaluator(colA.text, l).evaluate(), ca) << colA.text;
                        auto [rb, cb] = ldmatrixLaneB<int64_t>(transposed, x4, origin, k0, l);
                        EXPECT_EQ(TextEvaluator(rowB.text, l).evaluate(), rb) << rowB.text;
                        EXPECT_EQ(TextEvaluator(colB.text, l).evaluate(), cb) << colB.text;
                    }
                }
            }
        }
    }
}

using Point = std::pair<int64_t, int64_t>;

TEST(LdmatrixLanes, NumbersFollowTheLdmatrixRowOrder) {
    // A, not transposed: lanes 0..15 address rows 0..15 of the left 8 columns, lanes 16..31 the right ones.
    EXPECT_EQ(ldmatrixLaneA<int64_t>(false, 0, 0, 5), Point(5, 0));
    EXPECT_EQ(ldmatrixLaneA<int64_t>(false, 0, 0, 21), Point(5, 8));
    // B with .x2, transposed: lanes 8..15 give the second k half of the same 8 rows.
    EXPECT_EQ(ldmatrixLaneB<int64_t>(true, false, 0, 0, 11), Point(3, 8));
}

TEST(LdmatrixLanes, EightBitKMajorRowsAreTheSixteenBitOnesInBytes) {
    // chunk = 16 (8-bit operands, m16n8k32): a lane addresses the same byte as in a 16-bit tile of half the
    // columns, and its text still evaluates to its numbers.
    const CText lane = CText::var("lane");
    for (int64_t k0 : {0, 32})
        for (int64_t l = 0; l < 32; ++l) {
            auto [r8, c8] = ldmatrixLaneA<int64_t>(false, 16, k0, l, 16);
            auto [r16, c16] = ldmatrixLaneA<int64_t>(false, 16, k0 / 2, l);
            EXPECT_EQ(r8, r16);
            EXPECT_EQ(c8, 2 * c16) << "lane " << l;
            for (bool x4 : {true, false}) {
                auto [n8, k8] = ldmatrixLaneB<int64_t>(true, x4, 8, k0, l, 16);
                auto [n16, k16] = ldmatrixLaneB<int64_t>(true, x4, 8, k0 / 2, l);
                EXPECT_EQ(n8, n16);
                EXPECT_EQ(k8, 2 * k16) << "lane " << l;
                auto [rowB, colB] =
                    ldmatrixLaneB(true, x4, CText::var("8"), CText::var(std::to_string(k0)), lane, 16);
                EXPECT_EQ(TextEvaluator(colB.text, l).evaluate(), k8) << colB.text;
            }
            auto [rowA, colA] =
                ldmatrixLaneA(false, CText::var("16"), CText::var(std::to_string(k0)), lane, 16);
            EXPECT_EQ(TextEvaluator(colA.text, l).evaluate(), c8) << colA.text;
        }
    EXPECT_EQ(ldmatrixLaneA<int64_t>(false, 0, 0, 21, 16), Point(5, 16));
}

TEST(LdmatrixLanes, TextParenthesizesOperandsOfProductsOnly) {
    const CText lane = CText::var("lane");
    CText m0{"warp_m * 64", true};
    auto [row, col] = ldmatrixLaneA(true, m0, CText::var("0"), lane);
    EXPECT_EQ(row.text, "0 + 8 * (lane / 16) + lane % 8");
    EXPECT_EQ(col.text, "warp_m * 64 + 8 * ((lane % 16) / 8)");
    auto [rowB, colB] = ldmatrixLaneB(false, true, m0, CText::var("16"), lane);
    EXPECT_EQ(rowB.text, "16 + lane % 16");
    EXPECT_EQ(colB.text, "warp_m * 64 + (lane / 16) * 8");
}

} // namespace
} // namespace tb::codegen
