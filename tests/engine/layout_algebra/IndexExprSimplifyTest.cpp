// IndexExpr simplification: a table of inputs and their canonical forms, and the property that simplify()
// never changes the value at any point of the variables' ranges.
#include "engine/layout/algebra/IndexExpr.h"

#include <cstdint>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <vector>

using namespace tb::layout;

namespace {

IndexExpr i = IndexExpr::var("i", 16);
IndexExpr j = IndexExpr::var("j", 8);
IndexExpr k = IndexExpr::var("k", 4);
IndexExpr big = IndexExpr::var("n", 64);

struct Case {
    const char* name;
    IndexExpr input;
    const char* expected;
};

std::vector<Case> simplificationTable() {
    return {
        {"constant fold", IndexExpr(3) * IndexExpr(4) + IndexExpr(2), "14"},
        {"affine merge", i + i + 2 * i - i, "3*i"},
        {"term order and constant last", IndexExpr(5) + j + 2 * i, "2*i + j + 5"},
        {"mod in range", floorMod(j, 8), "j"},
        {"div in range", floorDiv(j, 8), "0"},
        {"div of split", floorDiv(i * 8 + j, 8), "i"},
        {"mod of split", floorMod(i * 8 + j, 8), "j"},
        {"nested div", floorDiv(floorDiv(big, 4), 2), "n//8"},
        {"nested mod", floorMod(floorMod(big, 16), 8), "n%8"},
        {"mod of smaller mod", floorMod(floorMod(big, 4), 8), "n%4"},
        {"gcd div", floorDiv(4 * i + k, 8), "i//2"},
        {"gcd mod", floorMod(8 * big + j, 16), "j + 8*(n%2)"},
        {"div-mod recombine", 8 * floorDiv(big, 8) + floorMod(big, 8), "n"},
        {"distribute constant", 4 * (i + 2 * j), "4*i + 8*j"},
        {"lane formula", 4 * floorMod(i, 8) + floorDiv(floorMod(j, 8), 2), "4*(i%8) + j//2"},
        {"negative coefficient", i - 2 * j, "i - 2*j"},
        {"constant mod normalises", floorMod(big + 67, 64), "(n + 3)%64"},
        {"xor with zero", bitXor(big, 0), "n"},
        {"xor self", bitXor(big, big), "0"},
        {"xor constants", bitXor(IndexExpr(6), IndexExpr(3)), "5"},
        {"and low mask", bitAnd(big, 7), "n%8"},
        {"and zero", bitAnd(big, 0), "0"},
        {"or zero", bitOr(0, i), "i"},
        {"min by range", minOf(j, IndexExpr(100)), "j"},
        {"max by range", maxOf(j, IndexExpr(100)), "100"},
        {"min kept", minOf(i, j), "min(i, j)"},
        {"div by one", floorDiv(i, 1), "i"},
        {"mod by one", floorMod(i, 1), "0"},
        {"div of shifted range", floorDiv(j + 16, 8), "2"},
        {"xor kept", bitXor(floorMod(floorDiv(big, 8), 8), floorMod(i, 8)), "(n//8) ^ (i%8)"},
    };
}

// Checks that two expressions agree at every point of i, j, k and at every fifth n.
void expectSameEverywhere(const IndexExpr& a, const IndexExpr& b, const std::string& what) {
    std::vector<std::string> order{"i", "j", "k", "n"};
    CompiledIndexExpr ca(a, order), cb(b, order);
    ASSERT_TRUE(ca.valid() && cb.valid()) << what;
    for (int64_t x = 0; x < 16; ++x)
        for (int64_t y = 0; y < 8; ++y)
            for (int64_t z = 0; z < 4; ++z)
                for (int64_t w = 0; w < 64; w += 5) {
                    int64_t slots[] = {x, y, z, w};
                    ASSERT_EQ(ca.evaluate(slots), cb.evaluate(slots))
                        << what << " at " << x << "," << y << "," << z << "," << w;
                }
}

} // namespace

TEST(IndexExprSimplify, CanonicalForms) {
    for (const Case& c : simplificationTable())
        EXPECT_EQ(simplify(c.input).toString(), c.expected) << c.name << ": " << c.input.toString();
}

TEST(IndexExprSimplify, PreservesValueEverywhere) {
    for (const Case& c : simplificationTable()) {
        expectSameEverywhere(c.input, simplify(c.input), c.name);
    }
}

TEST(IndexExprSimplify, IsIdempotent) {
    for (const Case& c : simplificationTable()) {
        IndexExpr once = simplify(c.input);
        EXPECT_EQ(simplify(once).toString(), once.toString()) << c.name;
    }
}

TEST(IndexExprSimplify, PreservesValueOnGeneratedExpressions) {
    // A deterministic generator of nested expressions over the four variables.
    uint64_t state = 12345;
    auto next = [&](uint64_t n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return (state >> 33) % n;
    };
    std::function<IndexExpr(int)> gen = [&](int depth) -> IndexExpr {
        if (depth == 0 || next(4) == 0) {
            switch (next(5)) {
            case 0:
                return i;
            case 1:
                return j;
            case 2:
                return k;
            case 3:
                return big;
            default:
                return IndexExpr(int64_t(next(20)));
            }
        }
        IndexExpr a = gen(depth - 1);
        IndexExpr b = gen(depth - 1);
        int64_t c = int64_t(1) << next(5);
        switch (next(8)) {
        case 0:
            return a + b;
        case 1:
            return a * IndexExpr(int64_t(next(9)) - 2);
        case 2:
            return floorDiv(a, c);
        case 3:
            return floorMod(a, c);
        case 4:
            return bitXor(a, b);
        case 5:
            return floorDiv(a * IndexExpr(c) + b, c * 2);
        case 6:
            return floorMod(a * IndexExpr(c) + b, c * 4);
        default:
            return a - b;
        }
    };
    for (int n = 0; n < 150; ++n) {
        IndexExpr e = gen(4);
        IndexExpr s = simplify(e);
        expectSameEverywhere(e, s, e.toString() + " -> " + s.toString());
    }
}

TEST(IndexExprSimplify, BoundsAreSound) {
    IndexExpr e = simplify(4 * floorMod(big, 8) + floorDiv(j, 2));
    IndexBounds b = boundsOf(e);
    EXPECT_EQ(b.lo, 0);
    EXPECT_EQ(b.hi, 31);
    IndexBounds x = boundsOf(bitXor(floorMod(big, 8), j));
    EXPECT_EQ(x.lo, 0);
    EXPECT_EQ(x.hi, 7);
}

TEST(IndexExprSimplify, EvaluationReportsErrors) {
    EXPECT_FALSE(evaluate(floorDiv(i, 0), {{"i", 3}}).has_value());
    EXPECT_FALSE(evaluate(floorMod(i, 0), {{"i", 3}}).has_value());
    EXPECT_FALSE(evaluate(i + j, {{"i", 3}}).has_value()); // j unbound
    EXPECT_FALSE(evaluate(IndexExpr(INT64_MAX) + i, {{"i", 3}}).has_value());
    EXPECT_EQ(evaluate(floorDiv(IndexExpr(-7), 2), {}), -4); // Python floor semantics
    EXPECT_EQ(evaluate(floorMod(IndexExpr(-7), 2), {}), 1);
    EXPECT_EQ(simplify(floorDiv(i, 0)).toString(), "i//0"); // kept for evaluation to report
}

TEST(IndexExprSimplify, DeepTreesDoNotExhaustTheStack) {
    IndexExpr e = i;
    for (int n = 0; n < 5000; ++n)
        e = e + IndexExpr(1);
    IndexExpr s = simplify(e); // beyond the depth guard: returned unchanged, still evaluable
    EXPECT_EQ(evaluate(s, {{"i", 2}}), 5002);
}
