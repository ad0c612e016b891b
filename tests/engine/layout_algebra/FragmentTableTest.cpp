// Fragment tables (element -> thread, register), their inverse, the table printer and canonical text.
#include "engine/layout/algebra/FragmentTable.h"

#include "engine/layout/algebra/GemmFragments.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace tb::layout;

TEST(FragmentTable, WorkedExample) {
    LayoutResult<FragmentTable> table = tabulateFragment(mmaAtomC());
    ASSERT_TRUE(table.ok());
    EXPECT_EQ(table->threadExtent, 32);
    EXPECT_EQ(table->registers, 4);
    const FragmentCell& cell = table->at(9 * 8 + 3);
    EXPECT_EQ(cell.thread, 4 * 1 + 1);
    EXPECT_EQ(cell.reg, 1 + 2);
}

TEST(FragmentTable, InverseRoundTrips) {
    Fragment f = mmaAtomC16x16().replicate(2);
    LayoutResult<FragmentInverseTable> inverse = inverseFragment(f);
    ASSERT_TRUE(inverse.ok());
    for (int64_t t = 0; t < inverse->threads; ++t)
        for (int64_t r = 0; r < inverse->registers; ++r) {
            auto logical = inverse->logicalOf(t, r);
            ASSERT_TRUE(logical.has_value());
            EXPECT_EQ(f.threadOf(logical->first, logical->second), t);
            EXPECT_EQ(f.registerOf(logical->first), r);
        }
}

TEST(FragmentTable, NotInjectiveIsAnError) {
    Fragment clash = Fragment::fromFunctions(
        {4, 4}, [](const std::vector<IndexExpr>& v, const IndexExpr&) { return v[0]; },
        [](const std::vector<IndexExpr>&) { return std::vector<IndexExpr>{IndexExpr(0)}; });
    LayoutResult<FragmentInverseTable> inverse = inverseFragment(clash);
    ASSERT_FALSE(inverse.ok());
    EXPECT_EQ(inverse.error().code, "fragment-not-injective");
}

TEST(FragmentTable, RefusesTooLargeDomains) {
    Fragment huge = Fragment::fullyReplicated({1024, 64}, 1024);
    EXPECT_EQ(tabulateFragment(huge).error().code, "layout-domain-too-large");
}

TEST(FragmentTable, PrinterAndCanonicalText) {
    std::string table = printFragmentTable(mmaAtomC());
    EXPECT_EQ(table.substr(0, table.find('\n')),
              "fragment [16, 8]: 32 threads, 4 registers/thread, replicate 1");
    // Row 9: lanes 4..7, registers 2 and 3.
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t end; (end = table.find('\n', start)) != std::string::npos; start = end + 1)
        lines.push_back(table.substr(start, end - start));
    ASSERT_EQ(lines.size(), 17u);
    EXPECT_EQ(lines[10], " T4:2  T4:3  T5:2  T5:3  T6:2  T6:3  T7:2  T7:3"); // right-aligned to "T31:3"
    EXPECT_EQ(mmaAtomC().toString(), "Fragment(shape=[16, 8], thread=4*(i%8) + j//2, index=[2*(i//8) + j%2], "
                                     "replicate=1)");
    std::string bound = mmaAtomC().bindThreadRange(128, 32).toString();
    EXPECT_EQ(bound.substr(bound.size() - 21), ", threads=[128, 160))");
}
