// Line diffs (a shortest edit script, the unified text `diff -u` prints) and the generated-code diff between
// two settings of a sample: a jit parameter as an override, a keyword literal edited, an unknown name.
#include "engine/profile/CodeDiff.h"

#include "engine/catalog/SampleCatalog.h"
#include "engine/support/LineDiff.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace tb {

namespace {

std::string ops(const std::vector<DiffLine>& lines) {
    std::string s;
    for (const DiffLine& l : lines)
        s += l.op == DiffOp::Same ? '=' : l.op == DiffOp::Removed ? '-' : '+';
    return s;
}

std::vector<std::string> sideOf(const std::vector<DiffLine>& lines, DiffOp skip) {
    std::vector<std::string> out;
    for (const DiffLine& l : lines)
        if (l.op != skip)
            out.push_back(l.text);
    return out;
}

} // namespace

TEST(LineDiff, AShortestEditScriptThatRebuildsBothSides) {
    // Myers' own example: ABCABBA -> CBABAC takes 5 edits.
    std::vector<std::string> a = {"A", "B", "C", "A", "B", "B", "A"}, b = {"C", "B", "A", "B", "A", "C"};
    std::vector<DiffLine> d = diffLines(a, b);
    int edits = 0;
    for (const DiffLine& l : d)
        edits += l.op != DiffOp::Same;
    EXPECT_EQ(edits, 5);
    EXPECT_EQ(sideOf(d, DiffOp::Added), a);
    EXPECT_EQ(sideOf(d, DiffOp::Removed), b);
    EXPECT_EQ(ops(diffLines({"x", "y"}, {"x", "y"})), "==");
    EXPECT_EQ(ops(diffLines({}, {"x"})), "+");
    EXPECT_EQ(ops(diffLines({"x"}, {})), "-");
    // Past the edit limit the middle is replaced as a whole, still rebuilding both sides.
    std::vector<DiffLine> capped = diffLines(a, b, 2);
    EXPECT_EQ(sideOf(capped, DiffOp::Added), a);
    EXPECT_EQ(sideOf(capped, DiffOp::Removed), b);
}

TEST(LineDiff, UnifiedHunksWithContextAndLineNumbers) {
    std::vector<std::string> a, b;
    for (int i = 1; i <= 20; ++i)
        a.push_back("line " + std::to_string(i));
    b = a;
    b[4] = "changed 5";                 // line 5
    b.insert(b.begin() + 15, "new 16"); // after line 15
    EXPECT_EQ(unifiedDiff(diffLines(a, b), "a", "b", 1),
              "--- a\n+++ b\n"
              "@@ -4,3 +4,3 @@\n line 4\n-line 5\n+changed 5\n line 6\n"
              "@@ -15,2 +15,3 @@\n line 15\n+new 16\n line 16\n");
    EXPECT_EQ(unifiedDiff(diffLines(a, a), "a", "b"), "");
    EXPECT_EQ(splitTextLines("a\nb\n"), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(splitTextLines("a\n\nb"), (std::vector<std::string>{"a", "", "b"}));
}

TEST(GeneratedCodeDiff, GemmStagesAsAnEditedLiteral) {
    auto sample = findSample("gemm_relu");
    ASSERT_TRUE(sample);
    std::string text;
    ASSERT_TRUE(readTextFile(sample->path, text));
    CompileOptions options;
    auto base = compileTileProgram(sample->fileName, text, options);
    ASSERT_TRUE(base->ok());
    profile::GeneratedCodeDiff d =
        profile::diffGeneratedCuda(sample->fileName, text, *base, options, {{"num_stages", "2"}});
    ASSERT_TRUE(d.ok) << d.error;
    EXPECT_EQ(d.nameB, sample->fileName + " num_stages=2");
    EXPECT_GT(d.removed, 0);
    EXPECT_GT(d.added, 0);
    const std::string u = d.unified();
    EXPECT_NE(u.find("-    // T.Pipelined(num_stages=3)"), std::string::npos) << u;
    EXPECT_NE(u.find("+    // T.Pipelined(num_stages=2)"), std::string::npos);
    // The same setting as the base: no difference.
    profile::GeneratedCodeDiff same =
        profile::diffGeneratedCuda(sample->fileName, text, *base, options, {{"num_stages", "3"}});
    ASSERT_TRUE(same.ok) << same.error;
    EXPECT_EQ(same.removed + same.added, 0);
    EXPECT_EQ(same.unified(), "");
}

TEST(GeneratedCodeDiff, AJitParameterAndAnUnknownName) {
    auto sample = findSample("gemm_relu");
    ASSERT_TRUE(sample);
    std::string text;
    ASSERT_TRUE(readTextFile(sample->path, text));
    CompileOptions options;
    auto base = compileTileProgram(sample->fileName, text, options);
    ASSERT_TRUE(base->ok());
    profile::GeneratedCodeDiff bigger =
        profile::diffGeneratedCuda(sample->fileName, text, *base, options, {{"M", "2048"}});
    ASSERT_TRUE(bigger.ok) << bigger.error;
    EXPECT_GT(bigger.added, 0); // the grid and the bounds change
    profile::GeneratedCodeDiff unknown =
        profile::diffGeneratedCuda(sample->fileName, text, *base, options, {{"no_such", "1"}});
    EXPECT_FALSE(unknown.ok);
    EXPECT_NE(unknown.error.find("no_such"), std::string::npos) << unknown.error;
}

} // namespace tb
