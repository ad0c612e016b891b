// Parser tests, one per construct: each parses a small snippet and compares the printed tree, or checks
// the fields the printer does not show (ranges, flags).
#include "FrontendTestSupport.h"

#include <cmath>
#include <gtest/gtest.h>
#include <string>

namespace tb::test {
namespace {

using ast::ExprKind;
using ast::StmtKind;

TEST(Parser, Literals) {
    EXPECT_EQ(exprOf("42"), "42");
    EXPECT_EQ(exprOf("0x10"), "16");
    EXPECT_EQ(exprOf("2.5"), "2.5");
    EXPECT_EQ(exprOf("1e-05"), "1e-05");
    EXPECT_EQ(exprOf("'a' \"b\" '''c'''"), "\"abc\"");
    EXPECT_EQ(exprOf("b'x' b'y'"), "b\"xy\"");
    EXPECT_EQ(exprOf("f'{a}' 'b'"), "f\"{a}b\"");
    EXPECT_EQ(exprOf("True"), "True");
    EXPECT_EQ(exprOf("None"), "None");
    EXPECT_EQ(exprOf("..."), "...");
    EXPECT_EQ(exprOf("99999999999999999999"), "(int-overflow)");
}

TEST(Parser, LiteralFields) {
    auto p = parse("x = 1_000\ny = 1e999\nz = 2j\n");
    ASSERT_TRUE(p->diagnostics.diagnostics().empty());
    EXPECT_EQ(p->module.body[0]->value->intValue, 1000);
    EXPECT_EQ(p->module.body[0]->value->constantKind, ast::ConstantKind::Int);
    EXPECT_TRUE(std::isinf(p->module.body[1]->value->floatValue));
    EXPECT_EQ(p->module.body[2]->value->kind, ExprKind::Unsupported);
    EXPECT_EQ(p->module.body[2]->value->name, "complex number literal");
}

TEST(Parser, AttributesCallsAndKeywords) {
    EXPECT_EQ(exprOf("T.alloc_shared((block_M, block_K), dtype)"),
              "(call (. T alloc_shared) (tuple block_M block_K) dtype)");
    EXPECT_EQ(exprOf("f(a, *args, k=1, **kw)"), "(call f a (* args) (kw k 1) (** kw))");
    EXPECT_EQ(exprOf("f()"), "(call f)");
    EXPECT_EQ(exprOf("f(a,)"), "(call f a)");
    EXPECT_EQ(exprOf("a.b.c(d)(e)"), "(call (call (. (. a b) c) d) e)");
}

TEST(Parser, Subscripts) {
    EXPECT_EQ(exprOf("A[b, k*64:(k+1)*64, h, :]"),
              "(subscript A (tuple b (slice (* k 64) (* (+ k 1) 64) _) h (slice _ _ _)))");
    EXPECT_EQ(exprOf("x[::2]"), "(subscript x (slice _ _ 2))");
    EXPECT_EQ(exprOf("x[1:]"), "(subscript x (slice 1 _ _))");
    EXPECT_EQ(exprOf("x[:n, i]"), "(subscript x (tuple (slice _ n _) i))");
    EXPECT_EQ(exprOf("x[i,]"), "(subscript x (tuple i))");
    EXPECT_EQ(exprOf("C_local[i, j]"), "(subscript C_local (tuple i j))");
}

TEST(Parser, TuplesListsDicts) {
    EXPECT_EQ(exprOf("()"), "(tuple)");
    EXPECT_EQ(exprOf("(a,)"), "(tuple a)");
    EXPECT_EQ(exprOf("(a)"), "a");
    EXPECT_EQ(exprOf("a, b"), "(tuple a b)");
    EXPECT_EQ(exprOf("[]"), "(list)");
    EXPECT_EQ(exprOf("[1, [2, 3],]"), "(list 1 (list 2 3))");
    EXPECT_EQ(exprOf("{}"), "(dict)");
    EXPECT_EQ(exprOf("{'a': 1, **d, b: c}"), "(dict (\"a\" 1) (** d) (b c))");
    EXPECT_EQ(exprOf("(*a, b)"), "(tuple (* a) b)");

    auto p = parse("(a, b)\na, b\n(a)\n");
    EXPECT_TRUE(p->module.body[0]->value->parenthesized);
    EXPECT_FALSE(p->module.body[1]->value->parenthesized);
    EXPECT_TRUE(p->module.body[2]->value->parenthesized);
    EXPECT_EQ(p->module.body[0]->value->range.begin, 0u);
    EXPECT_EQ(p->module.body[0]->value->range.end, 6u); // the parentheses belong to the tuple
}

TEST(Parser, ComprehensionsAndGenerators) {
    EXPECT_EQ(exprOf("[x * 2 for x in range(n) if x if x > 1]"),
              "(listcomp (* x 2) (for x (call range n) (if x) (if (compare x > 1))))");
    EXPECT_EQ(exprOf("[a for a, b in p for c in q]"), "(listcomp a (for (tuple a b) p) (for c q))");
    EXPECT_EQ(exprOf("sum(x for x in y)"), "(call sum (genexp x (for x y)))");
    EXPECT_EQ(exprOf("(x for x in y)"), "(genexp x (for x y))");
    auto p = parse("sum(x for x in y)\n[x for x in y]\n");
    EXPECT_TRUE(p->module.body[0]->value->elements[0]->isGenerator);
    EXPECT_FALSE(p->module.body[1]->value->isGenerator);
}

TEST(Parser, LambdaAndConditional) {
    EXPECT_EQ(exprOf("lambda i, j=2: i + j"), "(lambda (params i (j = 2)) (+ i j))");
    EXPECT_EQ(exprOf("lambda: 0"), "(lambda (params) 0)");
    EXPECT_EQ(exprOf("a if c else b"), "(ifexp c a b)");
    EXPECT_EQ(exprOf("a if c else b if d else e"), "(ifexp c a (ifexp d b e))");
    EXPECT_EQ(exprOf("lambda x: x if x else 0"), "(lambda (params x) (ifexp x x 0))");
}

TEST(Parser, UnsupportedExpressionsAreNamed) {
    EXPECT_EQ(exprOf("(y := 3)"), "(unsupported \"assignment expression\")");
    EXPECT_EQ(exprOf("{1, 2}"), "(unsupported \"set display\")");
    EXPECT_EQ(exprOf("{x for x in y}"), "(unsupported \"set comprehension\")");
    EXPECT_EQ(exprOf("{k: v for k, v in y}"), "(unsupported \"dict comprehension\")");
    EXPECT_EQ(exprOf("(yield x)"), "(unsupported \"yield expression\")");
    EXPECT_EQ(exprOf("await f()"), "(unsupported \"await expression\")");
    EXPECT_EQ(dumpOf("if (n := len(a)) > 1:\n    pass\n"),
              "(module\n  (if (compare (unsupported \"assignment expression\") > 1)\n    (pass)))\n");
}

TEST(Parser, Assignments) {
    EXPECT_EQ(dumpOf("a = b = 1\n"), "(module\n  (assign a b 1))\n");
    EXPECT_EQ(dumpOf("a, b = f()\n"), "(module\n  (assign (tuple a b) (call f)))\n");
    EXPECT_EQ(dumpOf("a, *rest = x\n"), "(module\n  (assign (tuple a (* rest)) x))\n");
    EXPECT_EQ(dumpOf("[a, b] = 1, 2\n"), "(module\n  (assign (list a b) (tuple 1 2)))\n");
    EXPECT_EQ(dumpOf("x.y[i] += 1\n"), "(module\n  (+= (subscript (. x y) i) 1))\n");
    EXPECT_EQ(dumpOf("x //= 2\nx **= 2\nx @= m\nx >>= 1\n"),
              "(module\n  (//= x 2)\n  (**= x 2)\n  (@= x m)\n  (>>= x 1))\n");
    EXPECT_EQ(dumpOf("x: int = 1\ny: T.Tensor\n"),
              "(module\n  (annassign x int 1)\n  (annassign y (. T Tensor)))\n");
    EXPECT_EQ(dumpOf("x = 1; y = 2;\n"), "(module\n  (assign x 1)\n  (assign y 2))\n");
}

TEST(Parser, FunctionDefinitions) {
    EXPECT_EQ(
        dumpOf(
            "@tilelang.jit(out_idx=[-1])\n@T.prim_func\ndef f(a, b: int = 2, *args, c, d=3, **kw) -> int:\n"
            "    \"\"\"doc\"\"\"\n    return a\n"),
        "(module\n"
        "  (def f (params a (b : int = 2) *args kwonly:c (kwonly:d = 3) **kw) (-> int) "
        "(decorators (call (. tilelang jit) (kw out_idx (list (- 1)))) (. T prim_func))\n"
        "    (expr \"doc\")\n"
        "    (return a)))\n");
    EXPECT_EQ(dumpOf("def g(a, /, b, *, c):\n    pass\n"),
              "(module\n  (def g (params a b kwonly:c)\n    (pass)))\n");
    EXPECT_EQ(dumpOf("def h(): return 1, 2\n"), "(module\n  (def h (params)\n    (return (tuple 1 2))))\n");
}

TEST(Parser, ParameterKinds) {
    auto p = parse("def f(a, *b, c, **d):\n    pass\n");
    ASSERT_EQ(p->module.body.size(), 1u);
    const auto& params = p->module.body[0]->params;
    ASSERT_EQ(params.size(), 4u);
    EXPECT_EQ(params[0].kind, ast::ParamKind::Positional);
    EXPECT_EQ(params[1].kind, ast::ParamKind::VarArgs);
    EXPECT_EQ(params[2].kind, ast::ParamKind::KeywordOnly);
    EXPECT_EQ(params[3].kind, ast::ParamKind::VarKeywords);
    EXPECT_EQ(params[3].name, "d");
}

TEST(Parser, IfElifElse) {
    EXPECT_EQ(dumpOf("if a:\n    x\nelif b:\n    y\nelse:\n    z\n"),
              "(module\n  (if a\n    (expr x)\n    (else\n      (if b\n        (expr y)\n        (else\n"
              "          (expr z))))))\n");
    EXPECT_EQ(dumpOf("if a: x = 1\nelse: pass\n"),
              "(module\n  (if a\n    (assign x 1)\n    (else\n      (pass))))\n");
}

TEST(Parser, LoopsWithElse) {
    EXPECT_EQ(dumpOf("for i, j in T.Parallel(M, N):\n    break\nelse:\n    continue\n"),
              "(module\n  (for (tuple i j) (call (. T Parallel) M N)\n    (break)\n    (else\n      "
              "(continue))))\n");
    EXPECT_EQ(dumpOf("while not done:\n    step()\nelse:\n    pass\n"),
              "(module\n  (while (not done)\n    (expr (call step))\n    (else\n      (pass))))\n");
    EXPECT_EQ(dumpOf("for x in a, b:\n    pass\n"), "(module\n  (for x (tuple a b)\n    (pass)))\n");
}

TEST(Parser, WithStatements) {
    EXPECT_EQ(dumpOf("with T.Kernel(8, threads=128) as (bx, by):\n    pass\n"),
              "(module\n  (with ((call (. T Kernel) 8 (kw threads 128)) as (tuple bx by))\n    (pass)))\n");
    EXPECT_EQ(dumpOf("with a as x, b:\n    pass\n"), "(module\n  (with (a as x) (b)\n    (pass)))\n");
    EXPECT_EQ(dumpOf("with (open(p) as f, lock):\n    pass\n"),
              "(module\n  (with ((call open p) as f) (lock)\n    (pass)))\n");
    EXPECT_EQ(dumpOf("with (a, b) as c:\n    pass\n"), "(module\n  (with ((tuple a b) as c)\n    (pass)))\n");
}

TEST(Parser, ImportsAssertsAndScopes) {
    EXPECT_EQ(dumpOf("import tilelang\nimport tilelang.language as T, os\n"),
              "(module\n  (import tilelang)\n  (import (tilelang.language as T) os))\n");
    EXPECT_EQ(dumpOf("from .x import (a as b, c,)\nfrom x import *\nfrom .. import y\n"),
              "(module\n  (from .x (a as b) c)\n  (from x *)\n  (from .. y))\n");
    EXPECT_EQ(dumpOf("assert x > 0, \"x must be positive\"\nassert y\n"),
              "(module\n  (assert (compare x > 0) \"x must be positive\")\n  (assert y))\n");
    EXPECT_EQ(dumpOf("def f():\n    global a, b\n    nonlocal c\n"),
              "(module\n  (def f (params)\n    (global a b)\n    (nonlocal c)))\n");
}

TEST(Parser, UnsupportedStatementsKeepHostCodeLoading) {
    std::string source = "import torch\n"
                         "class Config(Base):\n"
                         "    size = 4\n"
                         "    def method(self):\n"
                         "        return self.size\n"
                         "@dataclass\n"
                         "class Point: x: int\n"
                         "try:\n"
                         "    import foo\n"
                         "except ImportError as e:\n"
                         "    raise\n"
                         "else:\n"
                         "    pass\n"
                         "finally:\n"
                         "    done()\n"
                         "async def go():\n"
                         "    await x\n"
                         "match command:\n"
                         "    case 1:\n"
                         "        pass\n"
                         "del a[0]; raise ValueError('x')\n"
                         "def gen():\n"
                         "    yield 1\n"
                         "x = 1\n";
    auto p = parse(source);
    ASSERT_TRUE(p->diagnostics.diagnostics().empty()) << p->report();
    EXPECT_EQ(ast::dumpModule(p->module), "(module\n"
                                          "  (import torch)\n"
                                          "  (class Config Base\n"
                                          "    (assign size 4)\n"
                                          "    (def method (params self)\n"
                                          "      (return (. self size))))\n"
                                          "  (class Point\n"
                                          "    (annassign x int))\n"
                                          "  (unsupported \"try statement\")\n"
                                          "  (unsupported \"async function definition\")\n"
                                          "  (unsupported \"match statement\")\n"
                                          "  (unsupported \"del statement\")\n"
                                          "  (unsupported \"raise statement\")\n"
                                          "  (def gen (params)\n"
                                          "    (unsupported \"yield statement\"))\n"
                                          "  (assign x 1))\n");
    // Classes are parsed (host code defines them); the range of a class or an unsupported compound
    // statement is its header line.
    const auto& cls = *p->module.body[1];
    EXPECT_EQ(source.substr(cls.range.begin, cls.range.end - cls.range.begin), "class Config(Base):");
    const auto& decorated = *p->module.body[2];
    EXPECT_EQ(source.substr(decorated.range.begin, decorated.range.end - decorated.range.begin),
              "class Point:");
}

TEST(Parser, SoftKeywordsStayNamesOutsideTheirStatements) {
    EXPECT_EQ(dumpOf("match = 1\nmatch(x)\ntype(x)\ntype X = int\nx = yield y\n"),
              "(module\n  (assign match 1)\n  (expr (call match x))\n  (expr (call type x))\n"
              "  (unsupported \"type alias statement\")\n  (assign x (unsupported \"yield expression\")))\n");
    EXPECT_EQ(dumpOf("def f():\n    async for x in y:\n        pass\n    else:\n        pass\n"
                     "    async with a as b:\n        pass\n    return 1\n"),
              "(module\n  (def f (params)\n    (unsupported \"async for statement\")\n"
              "    (unsupported \"async with statement\")\n    (return 1)))\n");
}

TEST(Parser, StatementRangesCoverTheirBodies) {
    std::string source = "if a:\n    b = 1\nx = f(1,\n      2)\n";
    auto p = parse(source);
    ASSERT_EQ(p->module.body.size(), 2u);
    const auto& s0 = *p->module.body[0];
    EXPECT_EQ(source.substr(s0.range.begin, s0.range.end - s0.range.begin), "if a:\n    b = 1");
    const auto& s1 = *p->module.body[1];
    EXPECT_EQ(source.substr(s1.range.begin, s1.range.end - s1.range.begin), "x = f(1,\n      2)");
    EXPECT_EQ(p->sources.describe(s1.value->elements[1]->range), "test.py:4:7");
}

TEST(Parser, ExprDepthIsRecorded) {
    auto p = parse("a + b * c\n");
    EXPECT_EQ(p->module.body[0]->value->depth, 3u);
    EXPECT_EQ(p->module.body[0]->value->a->depth, 1u);
}

} // namespace
} // namespace tb::test
