// Lexer tests: layout tokens (indentation stack, line joining, blank lines, tabs, CRLF), numbers in every
// notation, and strings in every form with their escapes decoded.
#include "FrontendTestSupport.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>

namespace tb::test {
namespace {

TEST(Lexer, IndentAndDedentFollowTheIndentationStack) {
    auto l = lex("if a:\n    b\n    if c:\n        d\ne\n");
    EXPECT_EQ(l->kinds(), "if a : NL IN b NL if c : NL IN d NL DE DE e NL EOF");
    EXPECT_TRUE(l->diagnostics.diagnostics().empty());
}

TEST(Lexer, DedentsAreClosedAtEndOfFileWithoutTrailingNewline) {
    auto l = lex("def f():\n  if x:\n    y");
    EXPECT_EQ(l->kinds(), "def f ( ) : NL IN if x : NL IN y NL DE DE EOF");
}

TEST(Lexer, BlankLinesAndCommentsDoNotProduceLayoutTokens) {
    auto l = lex("a\n\n   # indented comment\n\t\n  \nb # trailing\n# last");
    EXPECT_EQ(l->kinds(), "a NL b NL EOF");
}

TEST(Lexer, BracketsJoinLinesAndIgnoreIndentation) {
    auto l = lex("x = f(1,\n        2,\n  3)\ny = [\n]\n");
    EXPECT_EQ(l->kinds(), "x = f ( 1 , 2 , 3 ) NL y = [ ] NL EOF");
}

TEST(Lexer, BackslashContinuationJoinsLines) {
    auto l = lex("x = 1 + \\\n        2\ny = 3 \\\r\n  + 4\n");
    EXPECT_EQ(l->kinds(), "x = 1 + 2 NL y = 3 + 4 NL EOF");
    EXPECT_TRUE(l->diagnostics.diagnostics().empty());
}

TEST(Lexer, CrlfAndTabsIndentLikeSpaces) {
    auto l = lex("if a:\r\n\tb\r\n\tc\r\nd\r\n");
    EXPECT_EQ(l->kinds(), "if a : NL IN b NL c NL DE d NL EOF");
    EXPECT_TRUE(l->diagnostics.diagnostics().empty());
    // Token lines count '\n' only, so CRLF files report the same lines as LF files.
    EXPECT_EQ(l->tokens()[5].line, 2u);
    EXPECT_EQ(l->tokens()[7].line, 3u);
}

TEST(Lexer, OperatorsUseLongestMatch) {
    auto l = lex("a //= b ** c // d << e >>= f -> g := h @ i @= j != k ... l\n");
    EXPECT_EQ(l->kinds(), "a //= b ** c // d << e >>= f -> g := h @ i @= j != k ... l NL EOF");
    EXPECT_EQ(l->tokens()[1].kind, TokenKind::DoubleSlashEqual);
    EXPECT_EQ(l->tokens()[3].kind, TokenKind::DoubleStar);
    EXPECT_EQ(l->tokens()[11].kind, TokenKind::Arrow);
    EXPECT_EQ(l->tokens()[13].kind, TokenKind::ColonEqual);
    EXPECT_EQ(l->tokens()[21].kind, TokenKind::Ellipsis);
}

TEST(Lexer, KeywordsAreTokensAndSoftKeywordsStayNames) {
    auto l = lex("not in is lambda match type None True\n");
    EXPECT_EQ(l->tokens()[0].kind, TokenKind::KwNot);
    EXPECT_EQ(l->tokens()[1].kind, TokenKind::KwIn);
    EXPECT_EQ(l->tokens()[2].kind, TokenKind::KwIs);
    EXPECT_EQ(l->tokens()[3].kind, TokenKind::KwLambda);
    EXPECT_EQ(l->tokens()[4].kind, TokenKind::Name);
    EXPECT_EQ(l->tokens()[5].kind, TokenKind::Name);
    EXPECT_EQ(l->tokens()[6].kind, TokenKind::KwNone);
    EXPECT_EQ(l->tokens()[7].kind, TokenKind::KwTrue);
}

TEST(Lexer, IntegerLiteralsInEveryBase) {
    auto l = lex("0 42 1_000_000 0x_Ff 0o17 0b1010 00 9223372036854775807\n");
    const auto& t = l->tokens();
    ASSERT_GE(t.size(), 8u);
    int64_t expected[] = {0, 42, 1000000, 255, 15, 10, 0, INT64_MAX};
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(t[i].kind, TokenKind::Int) << i;
        EXPECT_EQ(t[i].intValue, expected[i]) << i;
        EXPECT_FALSE(t[i].intOverflow) << i;
    }
    EXPECT_TRUE(l->diagnostics.diagnostics().empty());
}

TEST(Lexer, IntegersBeyondInt64AreFlagged) {
    auto l = lex("9223372036854775808 0xFFFFFFFFFFFFFFFF 123456789012345678901234567890\n");
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(l->tokens()[i].kind, TokenKind::Int);
        EXPECT_TRUE(l->tokens()[i].intOverflow) << i;
    }
    EXPECT_TRUE(l->diagnostics.diagnostics().empty());
}

TEST(Lexer, FloatLiterals) {
    auto l = lex("1.0 1e-5 .5 1_000.0 2. 3E+2 1e999\n");
    double expected[] = {1.0, 1e-5, 0.5, 1000.0, 2.0, 300.0, HUGE_VAL};
    for (int i = 0; i < 7; ++i) {
        EXPECT_EQ(l->tokens()[i].kind, TokenKind::Float) << i;
        EXPECT_EQ(l->tokens()[i].floatValue, expected[i]) << i;
    }
    auto j = lex("2j 1.5J\n");
    EXPECT_EQ(j->tokens()[0].kind, TokenKind::Imaginary);
    EXPECT_EQ(j->tokens()[1].kind, TokenKind::Imaginary);
}

TEST(Lexer, MalformedNumbersAreReportedOnce) {
    for (const char* bad :
         {"x = 0x\n", "x = 1__0\n", "x = 1_\n", "x = 0b102\n", "x = 12abc\n", "x = 0123\n"}) {
        auto l = lex(bad);
        ASSERT_EQ(l->diagnostics.diagnostics().size(), 1u) << bad;
        EXPECT_EQ(l->diagnostics.diagnostics()[0].code, "invalid-number") << bad;
        EXPECT_EQ(l->diagnostics.diagnostics()[0].range.begin, 4u) << bad;
    }
}

TEST(Lexer, StringFormsAndEscapes) {
    auto l = lex(R"(a = 'x\ty' "q\"z" r'\n' b'\x41\101' '\u00e9' f"{x}\n" '''multi
line''' "\N{DASH}" '\q')"
                 "\n");
    const auto& t = l->tokens();
    ASSERT_TRUE(l->diagnostics.diagnostics().empty())
        << formatDiagnostics(l->sources, l->diagnostics.diagnostics());
    EXPECT_EQ(t[2].text, "x\ty");
    EXPECT_EQ(t[3].text, "q\"z");
    EXPECT_EQ(t[4].text, "\\n"); // raw: the backslash stays
    EXPECT_EQ(t[5].text, "AA");
    EXPECT_TRUE(t[5].isBytes);
    EXPECT_EQ(t[6].text, "\xC3\xA9"); // é in UTF-8
    EXPECT_TRUE(t[7].isFString);
    EXPECT_EQ(t[7].text, "{x}\\n"); // f-strings keep their raw text
    EXPECT_EQ(t[8].text, "multi\nline");
    EXPECT_EQ(t[9].text, "\\N{DASH}");
    EXPECT_EQ(t[10].text, "\\q"); // unknown escapes stay as written
}

TEST(Lexer, StringPrefixesInAnyCase) {
    auto l = lex("Rb'\\d' BR'x' F'y' u'z' rf'w'\n");
    const auto& t = l->tokens();
    ASSERT_TRUE(l->diagnostics.diagnostics().empty());
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(t[i].kind, TokenKind::String) << i;
    EXPECT_EQ(t[0].text, "\\d");
    EXPECT_TRUE(t[0].isBytes);
    EXPECT_TRUE(t[2].isFString);
    EXPECT_TRUE(t[4].isFString);
}

TEST(Lexer, UnterminatedStringsAreReportedAtTheOpeningQuote) {
    auto l = lex("x = 'abc\ny = 2\n");
    ASSERT_EQ(l->diagnostics.diagnostics().size(), 1u);
    EXPECT_EQ(l->diagnostics.diagnostics()[0].code, "unterminated-string");
    EXPECT_EQ(l->diagnostics.diagnostics()[0].range.begin, 4u);
    EXPECT_EQ(l->kinds(), "x = STR NL y = 2 NL EOF"); // lexing goes on at the next line

    auto triple = lex("x = 1\ns = \"\"\"never closed\n\n");
    ASSERT_EQ(triple->diagnostics.diagnostics().size(), 1u);
    EXPECT_EQ(triple->diagnostics.diagnostics()[0].code, "unterminated-string");
    EXPECT_EQ(triple->diagnostics.diagnostics()[0].range.begin, 10u);
}

TEST(Lexer, InconsistentDedentIsReported) {
    auto l = lex("if a:\n    b\n  c\n");
    ASSERT_EQ(l->diagnostics.diagnostics().size(), 1u);
    EXPECT_EQ(l->diagnostics.diagnostics()[0].code, "inconsistent-indentation");
    EXPECT_EQ(l->diagnostics.diagnostics()[0].message, "unindent does not match any outer indentation level");
    // Recovery keeps the odd line in the block it follows; layout tokens stay balanced.
    EXPECT_EQ(l->kinds(), "if a : NL IN b NL c NL DE EOF");
}

TEST(Lexer, InconsistentDedentDoesNotCascade) {
    // The line after the odd one is back at the block's own indentation: no second error.
    auto l = lex("if a:\n    b\n  c\n    d\ne\n");
    ASSERT_EQ(l->diagnostics.diagnostics().size(), 1u);
    EXPECT_EQ(l->kinds(), "if a : NL IN b NL c NL d NL DE e NL EOF");
}

TEST(Lexer, UnterminatedStringInsideBracketsIsOneError) {
    // The string swallows the closing parenthesis; the unclosed '(' is a consequence, not a second error.
    auto l = lex("f(a, \"b)\nx = 1\n");
    ASSERT_EQ(l->diagnostics.diagnostics().size(), 1u);
    EXPECT_EQ(l->diagnostics.diagnostics()[0].code, "unterminated-string");
}

TEST(Lexer, AmbiguousTabsAreReported) {
    // A tab then a space versus eight spaces: equal at tab size 8, different at tab size 1.
    auto l = lex("if a:\n\t b\n         c\n");
    ASSERT_EQ(l->diagnostics.diagnostics().size(), 1u);
    EXPECT_EQ(l->diagnostics.diagnostics()[0].code, "inconsistent-tabs");
}

TEST(Lexer, InvalidCharactersAreGroupedAndSkipped) {
    auto l = lex("x = $$ + 1\ny = a ? b\n");
    ASSERT_EQ(l->diagnostics.diagnostics().size(), 2u);
    EXPECT_EQ(l->diagnostics.diagnostics()[0].code, "invalid-character");
    EXPECT_EQ(l->diagnostics.diagnostics()[0].range.begin, 4u);
    EXPECT_EQ(l->diagnostics.diagnostics()[0].range.end, 6u);
    EXPECT_EQ(l->kinds(), "x = + 1 NL y = a b NL EOF");
}

TEST(Lexer, FullWidthPunctuationGetsAHint) {
    auto l = lex("f(a\xEF\xBC\x8C b)\n"); // U+FF0C FULLWIDTH COMMA
    ASSERT_EQ(l->diagnostics.diagnostics().size(), 1u);
    EXPECT_EQ(l->diagnostics.diagnostics()[0].code, "invalid-character");
    EXPECT_EQ(l->diagnostics.diagnostics()[0].hint, "did you mean ','?");
}

TEST(Lexer, NonAsciiLettersAreNames) {
    auto l = lex("\xCF\x80 = 3.14  # \xE5\x85\xB1\xE4\xBA\xAB\n"); // π = 3.14  # 共享
    EXPECT_TRUE(l->diagnostics.diagnostics().empty());
    EXPECT_EQ(l->tokens()[0].kind, TokenKind::Name);
    EXPECT_EQ(l->tokens()[0].end, 2u);
}

} // namespace
} // namespace tb::test
