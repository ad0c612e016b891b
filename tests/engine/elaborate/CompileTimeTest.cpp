// Compile-time Python semantics: each expression is the default of a jit parameter, so its value comes
// back as the specialization's literal text.
#include "ElaborateTestSupport.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::test {
namespace {

std::string program(const std::string& expr) {
    return "import math\n"
           "import tilelang\n"
           "import tilelang.language as T\n"
           "@tilelang.jit\n"
           "def f(v=" +
           expr +
           "):\n"
           "    @T.prim_func\n"
           "    def main(A: T.Tensor((32,), \"float32\")):\n"
           "        with T.Kernel(1, threads=32) as bx:\n"
           "            T.clear(A)\n"
           "    return main\n";
}

std::string valueOf(const std::string& expr) {
    auto e = elaborateText(program(expr));
    if (!e->module)
        return "error:\n" + e->report();
    const ir::SpecializationParam* p = e->param("v");
    return p ? p->text : "no param";
}

struct Case {
    const char* expr;
    const char* expected;
};

TEST(CompileTime, ArithmeticFollowsPython) {
    const Case cases[] = {
        {"7 // 2", "3"},
        {"-7 // 2", "-4"},
        {"7 // -2", "-4"},
        {"-7 % 3", "2"},
        {"7 % -3", "-2"},
        {"7 / 2", "3.5"},
        {"6 / 3", "2.0"},
        {"2 ** 10", "1024"},
        {"2 ** -1", "0.5"},
        {"-7.5 // 2", "-4.0"},
        {"-7.5 % 2", "0.5"},
        {"1 << 4", "16"},
        {"0xF0 >> 4", "15"},
        {"6 & 3", "2"},
        {"6 | 3", "7"},
        {"6 ^ 3", "5"},
        {"~5", "-6"},
        {"True + 1", "2"},
        {"True & False", "False"},
        {"1 < 2 < 3", "True"},
        {"1 < 3 < 2", "False"},
        {"3 if 1 > 2 else 4", "4"},
        {"0 or 5", "5"},
        {"0 and 5", "0"},
        {"not 0", "True"},
        {"(1, 2) < (1, 3)", "True"},
        {"'float' + '16'", "'float16'"},
        {"3 in (1, 2, 3)", "True"},
        {"'x' not in 'abc'", "True"},
        {"None is None", "True"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(valueOf(c.expr), c.expected) << c.expr;
}

TEST(CompileTime, BuiltinsAndContainers) {
    const Case cases[] = {
        {"min(3, 1, 2)", "1"},
        {"max([4, 9])", "9"},
        {"len((1, 2, 3))", "3"},
        {"sum(range(5))", "10"},
        {"sum(range(10, 0, -3))", "22"},
        {"[i * i for i in range(4)][3]", "9"},
        {"[x for x in range(10) if x % 3 == 0]", "[0, 3, 6, 9]"},
        {"(1, 2, 3)[-1]", "3"},
        {"(1, 2, 3, 4)[1:3]", "(2, 3)"},
        {"[1, 2, 3, 4][::-2]", "[4, 2]"},
        {"'abc'[1:]", "'bc'"},
        {"{'a': 1, 'b': 2}['b']", "2"},
        {"dict(a=1)['a']", "1"},
        {"int(7.9)", "7"},
        {"int(-7.9)", "-7"},
        {"int('42')", "42"},
        {"round(2.5)", "2"},
        {"round(3.5)", "4"},
        {"abs(-3)", "3"},
        {"float(3)", "3.0"},
        {"T.ceildiv(1000, 128)", "8"},
        {"T.max(3, 8)", "8"},
        {"T.min(3, 8)", "3"},
        {"math.sqrt(16.0)", "4.0"},
        {"math.log2(1024)", "10.0"},
        {"math.ceil(2.1)", "3"},
        {"isinstance(3, int)", "True"},
        {"isinstance(3.0, (int, str))", "False"},
        {"tuple(x for x in range(3))", "(0, 1, 2)"},
        {"(lambda x, y=2: x * y)(21)", "42"},
        {"list(zip([1, 2], [3, 4]))[1]", "(2, 4)"},
        {"list(enumerate('ab'))[1]", "(1, 'b')"},
        {"[1, 2] * 2", "[1, 2, 1, 2]"},
        {"divmod(-7, 2)", "(-4, 1)"},
        {"sorted([3, 1, 2], reverse=True)", "[3, 2, 1]"},
        {"'-'.join(['a', 'b'])", "'a-b'"},
        {"'M, N'.split(', ')", "['M', 'N']"},
        {"all([1, 2]) and not any([0, 0])", "True"},
        {"'float16'", "'float16'"},
        {"T.float16", "T.float16"},
        {"T.GemmWarpPolicy.FullRow", "T.GemmWarpPolicy.FullRow"},
        {"(1.0 / 576) ** 0.5 * 2", "0.08333333333333333"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(valueOf(c.expr), c.expected) << c.expr;
}

TEST(CompileTime, StatementsRunInTheJitBody) {
    // Loops, unpacking, augmented assignment, while with break, nested functions and closures; the result
    // is checked by asserts (a failing one is a diagnostic).
    auto e = elaborateText(R"(import tilelang
import tilelang.language as T

@tilelang.jit
def f(n=5):
    total = 0
    for i in range(n):
        if i == 3:
            continue
        total += i
    assert total == 7, "for/continue"
    a, (b, *rest) = 1, [2, 3, 4]
    assert (a, b, rest) == (1, 2, [3, 4]), "unpacking"
    k = 0
    while True:
        k += 1
        if k * k > 50:
            break
    assert k == 8, "while/break"
    def make_adder(x):
        return lambda y: x + y
    assert make_adder(40)(2) == 42, "closure"
    items = []
    for j, name in enumerate(["a", "b"]):
        items.append(name * (j + 1))
    assert items == ["a", "bb"], "list methods"
    d = {}
    d["k"] = 3
    d["k"] += 1
    assert d == {"k": 4}, "dict"
    counter = [0]
    def bump():
        counter[0] += 1
    bump()
    bump()
    assert counter[0] == 2, "mutation through a closure"
    x = 10
    def g():
        global x
        x = 11
    g()
    assert x == 11, "global"

    @T.prim_func
    def main(A: T.Tensor((32,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            T.clear(A)
    return main
)");
    EXPECT_TRUE(e->module != nullptr) << e->report();
    EXPECT_TRUE(e->diagnostics.diagnostics().empty()) << e->report();
}

TEST(CompileTime, FalseAssertsAreReportedWithTheirMessage) {
    auto e = elaborateText(R"(import tilelang
import tilelang.language as T

@tilelang.jit
def f(block_M=96):
    assert block_M % 64 == 0, f"block_M={block_M} must be a multiple of 64"

    @T.prim_func
    def main(A: T.Tensor((32,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            T.clear(A)
    return main
)");
    EXPECT_EQ(e->module, nullptr);
    ASSERT_EQ(e->codes(), std::vector<std::string>{"assertion-failed@6:5"}) << e->report();
    EXPECT_EQ(e->diagnostics.diagnostics()[0].message,
              "assertion failed: block_M=96 must be a multiple of 64");
    EXPECT_NE(e->diagnostics.diagnostics()[0].hint.find("block_M % 64 == 0"), std::string::npos);
}

} // namespace
} // namespace tb::test
