// Operator precedence and associativity, loosest to tightest, as Python defines them.
#include "FrontendTestSupport.h"

#include <gtest/gtest.h>

namespace tb::test {
namespace {

TEST(Precedence, ArithmeticLevels) {
    EXPECT_EQ(exprOf("a + b * c"), "(+ a (* b c))");
    EXPECT_EQ(exprOf("a * b + c"), "(+ (* a b) c)");
    EXPECT_EQ(exprOf("a - b - c"), "(- (- a b) c)");
    EXPECT_EQ(exprOf("a // b % c @ d / e"), "(/ (@ (% (// a b) c) d) e)");
    EXPECT_EQ(exprOf("(a + b) * c"), "(* (+ a b) c)");
}

TEST(Precedence, PowerIsRightAssociativeAndBindsTighterThanUnaryOnItsLeft) {
    EXPECT_EQ(exprOf("a ** b ** c"), "(** a (** b c))");
    EXPECT_EQ(exprOf("-2 ** 2"), "(- (** 2 2))");
    EXPECT_EQ(exprOf("2 ** -1"), "(** 2 (- 1))");
    EXPECT_EQ(exprOf("-a.b ** -c[0]"), "(- (** (. a b) (- (subscript c 0))))");
    EXPECT_EQ(exprOf("~-+x"), "(~ (- (+ x)))");
}

TEST(Precedence, BitwiseAndShiftLevels) {
    EXPECT_EQ(exprOf("a | b ^ c & d << e + f"), "(| a (^ b (& c (<< d (+ e f)))))");
    EXPECT_EQ(exprOf("a << b >> c"), "(>> (<< a b) c)");
    EXPECT_EQ(exprOf("a & b | c & d"), "(| (& a b) (& c d))");
}

TEST(Precedence, ComparisonsChain) {
    EXPECT_EQ(exprOf("a < b <= c"), "(compare a < b <= c)");
    EXPECT_EQ(exprOf("a is not b"), "(compare a is not b)");
    EXPECT_EQ(exprOf("a not in b"), "(compare a not in b)");
    EXPECT_EQ(exprOf("a == b != c in d is e"), "(compare a == b != c in d is e)");
    EXPECT_EQ(exprOf("a | b < c + d"), "(compare (| a b) < (+ c d))");
}

TEST(Precedence, BooleanLevels) {
    EXPECT_EQ(exprOf("a or b and c"), "(or a (and b c))");
    EXPECT_EQ(exprOf("a and b or c and d"), "(or (and a b) (and c d))");
    EXPECT_EQ(exprOf("a or b or c"), "(or a b c)");
    EXPECT_EQ(exprOf("not a == b"), "(not (compare a == b))");
    EXPECT_EQ(exprOf("not a and not b"), "(and (not a) (not b))");
    EXPECT_EQ(exprOf("not not a"), "(not (not a))");
}

TEST(Precedence, ConditionalAndLambdaAreLoosest) {
    EXPECT_EQ(exprOf("a or b if c and d else e"), "(ifexp (and c d) (or a b) e)");
    EXPECT_EQ(exprOf("lambda: a if b else c"), "(lambda (params) (ifexp b a c))");
    EXPECT_EQ(exprOf("f(lambda x: x + 1, y)"), "(call f (lambda (params x) (+ x 1)) y)");
}

TEST(Precedence, PrimaryBindsTightest) {
    EXPECT_EQ(exprOf("-a.b(c)[d]"), "(- (subscript (call (. a b) c) d))");
    EXPECT_EQ(exprOf("a.b ** 2"), "(** (. a b) 2)");
    EXPECT_EQ(exprOf("by * block_M + i"), "(+ (* by block_M) i)");
}

} // namespace
} // namespace tb::test
