// Error tests: each malformed snippet must give exactly the listed diagnostics, as "code@line:col",
// in order. Named after the mistake they make. Then recovery (several errors in one run) and the cap.
#include "FrontendTestSupport.h"

#include <cctype>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::test {
namespace {

struct ErrorCase {
    const char* name;
    const char* source;
    std::vector<std::string> expected;
};

const ErrorCase kCases[] = {
    {"missing_colon_after_if", "if x\n    pass\n", {"unexpected-token@1:5"}},
    {"missing_colon_after_def", "def f(a)\n    return a\n", {"unexpected-token@1:9"}},
    {"unterminated_string", "x = 'abc\ny = 2\n", {"unterminated-string@1:5"}},
    {"unterminated_triple_string", "x = 1\ndoc = \"\"\"text\nmore\n", {"unterminated-string@2:7"}},
    {"unindent_mismatch", "if a:\n    b\n  c\n", {"inconsistent-indentation@3:1"}},
    {"unexpected_indent", "x = 1\n    y = 2\n", {"unexpected-indent@2:5"}},
    {"missing_block_after_def", "def f():\nreturn 1\n", {"expected-indented-block@2:1"}},
    {"missing_block_at_end_of_file", "for i in x:\n", {"expected-indented-block@2:1"}},
    {"unclosed_paren", "x = f(1,\n      2\n", {"unbalanced-bracket@1:6"}},
    {"unclosed_bracket_before_next_line", "x = [1, 2\ny = 3\n", {"unbalanced-bracket@1:5"}},
    {"unclosed_paren_before_def",
     "x = f(a,\ndef g():\n    pass\nz = (\n",
     {"unbalanced-bracket@1:6", "unbalanced-bracket@4:5"}},
    {"mismatched_bracket", "x = (1 + 2]\n", {"unbalanced-bracket@1:11"}},
    {"unmatched_closer", "x = 1)\n", {"unbalanced-bracket@1:6"}},
    {"invalid_character", "x = a $ b\n", {"invalid-character@1:7"}},
    {"invalid_number", "x = 0b12\n", {"invalid-number@1:5"}},
    {"leading_zero", "x = 007\n", {"invalid-number@1:5"}},
    {"assign_to_literal", "1 = x\n", {"assign-to-literal@1:1"}},
    {"assign_to_literal_in_tuple", "a, 'b' = x\n", {"assign-to-literal@1:4"}},
    {"assign_to_call", "f() = 3\n", {"invalid-assignment-target@1:1"}},
    {"augmented_assign_to_tuple", "a, b += 1\n", {"invalid-assignment-target@1:1"}},
    {"ambiguous_tabs", "if a:\n\tb\n        c\n", {"inconsistent-tabs@3:1"}},
    {"duplicate_parameter", "def f(a, a):\n    pass\n", {"duplicate-parameter@1:10"}},
    {"non_default_after_default", "def f(a=1, b):\n    pass\n", {"invalid-parameters@1:12"}},
    {"for_without_in", "for x of y:\n    pass\n", {"unexpected-token@1:7"}},
    {"orphan_else", "else:\n    pass\nx = 1\n", {"unexpected-token@1:1"}},
    {"missing_operand", "x = 1 +\n", {"unexpected-token@1:8"}},
    {"python2_print", "print \"hello\"\n", {"unexpected-token@1:7"}},
    {"missing_attribute_name", "x = a.\n", {"unexpected-token@1:7"}},
    {"missing_comma_in_call", "f(a b)\n", {"unexpected-token@1:5"}},
    {"keyword_expression_name", "f(a.b=1)\n", {"unexpected-token@1:6"}},
    {"ifexp_without_else", "x = a if b\n", {"unexpected-token@1:11"}},
    {"lambda_without_colon", "f = lambda x x\n", {"unexpected-token@1:14"}},
    {"positional_after_keyword", "f(a=1, b)\n", {"argument-order@1:8"}},
    {"unparenthesized_generator", "f(x for x in y, 1)\n", {"unexpected-token@1:3"}},
    {"decorator_without_def", "@dec\nx = 1\n", {"unexpected-token@2:1"}},
    {"bad_escape", "s = '\\x4'\n", {"invalid-escape@1:6"}},
    {"import_without_name", "import\n", {"unexpected-token@1:7"}},
    {"from_without_import", "from x y\n", {"unexpected-token@1:8"}},
    {"empty_subscript", "x = a[]\n", {"unexpected-token@1:7"}},
    {"diamond_operator", "if a <> b:\n    pass\n", {"unexpected-token@1:6"}},
    {"statement_after_colon", "if a: for b in c: pass\n", {"unexpected-token@1:7"}},
};

class ParserErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParserErrors, ReportsExactlyTheExpectedDiagnostics) {
    const ErrorCase& c = GetParam();
    auto p = parse(c.source);
    EXPECT_EQ(p->codes(), c.expected) << p->report();
    for (const Diagnostic& d : p->diagnostics.diagnostics()) {
        EXPECT_FALSE(d.message.empty());
        EXPECT_FALSE(d.hint.empty()) << d.code << ": every syntax error says how to fix it";
        EXPECT_TRUE(d.range.valid);
        // Messages are lower case and end without a period.
        EXPECT_FALSE(std::isupper(static_cast<unsigned char>(d.message[0]))) << d.message;
        EXPECT_NE(d.message.back(), '.') << d.message;
    }
}

INSTANTIATE_TEST_SUITE_P(Frontend, ParserErrors, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                             return std::string(info.param.name);
                         });

TEST(ParserErrorMessages, MissingColonSaysWhatAndHow) {
    auto p = parse("if x > 0\n    y = 1\n");
    ASSERT_EQ(p->diagnostics.diagnostics().size(), 1u);
    const Diagnostic& d = p->diagnostics.diagnostics()[0];
    EXPECT_EQ(d.message, "expected ':' after 'if' condition");
    EXPECT_EQ(d.hint, "add ':' at the end of the line");
    EXPECT_EQ(formatDiagnostic(p->sources, d), "test.py:1:9: error: expected ':' after 'if' condition "
                                               "[unexpected-token]\n"
                                               "  1 | if x > 0\n"
                                               "    |         ^\n"
                                               "  hint: add ':' at the end of the line\n");
}

TEST(ParserErrorMessages, UnclosedBracketPointsAtTheOpener) {
    auto p = parse("y = T.copy(A[0, 0], B\n");
    ASSERT_EQ(p->diagnostics.diagnostics().size(), 1u);
    EXPECT_EQ(p->diagnostics.diagnostics()[0].message, "'(' was never closed");
    EXPECT_EQ(p->codes()[0], "unbalanced-bracket@1:11");
}

TEST(ParserErrorMessages, MismatchedBracketNotesTheOpener) {
    auto p = parse("x = (1,\n     2]\n");
    ASSERT_EQ(p->diagnostics.diagnostics().size(), 1u);
    const Diagnostic& d = p->diagnostics.diagnostics()[0];
    EXPECT_EQ(d.message, "closing ']' does not match opening '('");
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_EQ(p->sources.describe(d.notes[0].range), "test.py:1:5");
}

TEST(ParserErrorMessages, IndentationMessages) {
    auto p = parse("if a:\n    b\n  c\n");
    EXPECT_EQ(p->diagnostics.diagnostics()[0].message, "unindent does not match any outer indentation level");
    auto q = parse("def f():\nreturn 1\n");
    EXPECT_EQ(q->diagnostics.diagnostics()[0].message,
              "expected an indented block after function definition 'f' on line 1");
    auto r = parse("1 = x\n");
    EXPECT_EQ(r->diagnostics.diagnostics()[0].message, "cannot assign to a literal");
}

TEST(ParserRecovery, ThreeErrorsGiveThreeDiagnosticsInSourceOrder) {
    auto p = parse("import tilelang\n"
                   "if x\n"
                   "    pass\n"
                   "y = 'abc\n"
                   "def f(a b):\n"
                   "    pass\n"
                   "z = 2\n"
                   "def g():\n"
                   "    return z\n");
    // The lexer's diagnostic (line 4) sits between the parser's, although the lexer ran first.
    EXPECT_EQ(p->codes(), (std::vector<std::string>{"unexpected-token@2:5", "unterminated-string@4:5",
                                                    "unexpected-token@5:9"}))
        << p->report();
    // The good statements around the broken ones are still there.
    EXPECT_EQ(ast::dumpModule(p->module),
              "(module\n  (import tilelang)\n  (assign y \"abc\")\n  (assign z 2)\n"
              "  (def g (params)\n    (return z)))\n");
}

TEST(ParserRecovery, ErrorsInsideBlocksDoNotLoseTheBlock) {
    auto p = parse("def f():\n"
                   "    a = = 1\n"
                   "    b = 2\n"
                   "    if c\n"
                   "        d = 3\n"
                   "    return b\n");
    EXPECT_EQ(p->codes(), (std::vector<std::string>{"unexpected-token@2:9", "unexpected-token@4:9"}));
    EXPECT_EQ(ast::dumpModule(p->module), "(module\n  (def f (params)\n    (assign b 2)\n    (return b)))\n");
}

TEST(ParserRecovery, BrokenInlineBodyKeepsTheElse) {
    auto p = parse("if a: x = = 1\nelse: y = 2\n");
    EXPECT_EQ(p->codes(), (std::vector<std::string>{"unexpected-token@1:11"}));
    EXPECT_EQ(ast::dumpModule(p->module), "(module\n  (if a\n    (else\n      (assign y 2))))\n");
}

TEST(ParserRecovery, ErrorsAreCappedByTheDiagnosticEngine) {
    std::string source;
    for (int i = 0; i < 500; ++i)
        source += "x = = " + std::to_string(i) + "\n";
    auto p = parse(source);
    EXPECT_EQ(p->diagnostics.errorCount(), 500u); // one per line, each line recovered
    EXPECT_EQ(p->diagnostics.diagnostics().size(), 100u);
}

} // namespace
} // namespace tb::test
