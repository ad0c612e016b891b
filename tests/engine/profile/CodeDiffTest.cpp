// Line diffs (a shortest edit script, the unified text `diff -u` prints) and the generated-code diff between
// two settings of a sample: a jit parameter as an override, a keyword literal edited, an unknown name.
#include "engine/profile/CodeDiff.h"

#include "engine/catalog/SampleCatalog.h"
#include "engine/support/LineDiff.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <utility>
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

// The GEMM sample and its compile with default options: the first setting of a diff.
struct GemmSample {
    std::string fileName, text;
    CompileOptions options;
    std::unique_ptr<CompileResult> base;
    profile::GeneratedCodeDiff
    against(const std::vector<std::pair<std::string, std::string>>& setting) const {
        return profile::diffGeneratedCuda(fileName, text, *base, options, setting);
    }
};

GemmSample gemmSample() {
    GemmSample g;
    auto sample = findSample("gemm_relu");
    EXPECT_TRUE(sample);
    if (sample) {
        g.fileName = sample->fileName;
        EXPECT_TRUE(readTextFile(sample->path, g.text));
    }
    g.base = compileTileProgram(g.fileName, g.text, g.options);
    EXPECT_TRUE(g.base->ok()) << g.base->formattedDiagnostics();
    return g;
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
    GemmSample g = gemmSample();
    ASSERT_TRUE(g.base->ok());
    profile::GeneratedCodeDiff d = g.against({{"num_stages", "2"}});
    ASSERT_TRUE(d.ok) << d.error;
    EXPECT_EQ(d.nameB, g.fileName + " num_stages=2");
    EXPECT_GT(d.removed, 0);
    EXPECT_GT(d.added, 0);
    const std::string u = d.unified();
    EXPECT_NE(u.find("-    // T.Pipelined(num_stages=3)"), std::string::npos) << u;
    EXPECT_NE(u.find("+    // T.Pipelined(num_stages=2)"), std::string::npos);
    // The same setting as the base: no difference.
    profile::GeneratedCodeDiff same = g.against({{"num_stages", "3"}});
    ASSERT_TRUE(same.ok) << same.error;
    EXPECT_EQ(same.removed + same.added, 0);
    EXPECT_EQ(same.unified(), "");
}

TEST(GeneratedCodeDiff, AJitParameterAndAnUnknownName) {
    GemmSample g = gemmSample();
    ASSERT_TRUE(g.base->ok());
    profile::GeneratedCodeDiff bigger = g.against({{"M", "2048"}});
    ASSERT_TRUE(bigger.ok) << bigger.error;
    EXPECT_GT(bigger.added, 0); // the grid and the bounds change
    profile::GeneratedCodeDiff unknown = g.against({{"no_such", "1"}});
    EXPECT_FALSE(unknown.ok);
    EXPECT_NE(unknown.error.find("no_such"), std::string::npos) << unknown.error;
}

} // namespace tb
