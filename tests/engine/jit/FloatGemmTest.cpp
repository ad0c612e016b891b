// The JIT's ahead-of-time float gemm (engine/jit/FloatGemm.h): every kernel the host runs must give, bit
// for bit, the interpreter's loop (each C element summing its products in k order, a rounding after every
// multiply and every add), over shapes with row and column tails, k = 0, clear on and off, transposed and
// strided views, and values whose products are exact (fp16) or not (float32). This file is built with
// -ffp-contract=off, so the loop below rounds twice per step as the interpreter's does.
#include "engine/jit/FloatGemm.h"

#include "engine/exec/FloatFormats.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace tb {
namespace {

using jit::FloatGemm;
using jit::FloatGemmIsa;
using jit::FloatMatrixView;

// The interpreter's single-precision gemm (Executor.cpp's execGemm), on views. `fused`: one rounding per
// step instead of two, to show that the data tells the two apart.
void referenceGemm(const FloatGemm& g, bool fused) {
    std::vector<float> result(size_t(g.m * g.n));
    for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) {
            float acc = g.clear ? 0.0f : g.c.at(i, j);
            for (int64_t kk = 0; kk < g.k; ++kk) {
                if (fused) {
                    acc = std::fma(g.a.at(i, kk), g.b.at(kk, j), acc);
                } else {
                    float product = g.a.at(i, kk) * g.b.at(kk, j);
                    acc = acc + product;
                }
            }
            result[size_t(i * g.n + j)] = acc;
        }
    for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j)
            g.c.at(i, j) = result[size_t(i * g.n + j)];
}

// Values for operands: float16 values (every product exact in float) or arbitrary float32 values.
std::vector<float> randomValues(size_t count, bool halves, std::mt19937& random) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> values(count);
    for (float& v : values)
        v = halves ? static_cast<float>(float16Value(float16Bits(normal(random)))) : normal(random);
    return values;
}

std::vector<FloatGemmIsa> hostKernels() {
    std::vector<FloatGemmIsa> kernels;
    for (FloatGemmIsa isa : {FloatGemmIsa::Avx512, FloatGemmIsa::Avx2, FloatGemmIsa::Portable})
        if (jit::floatGemmIsaAvailable(isa))
            kernels.push_back(isa);
    return kernels;
}

struct Shape {
    int64_t m, n, k;
};

// One gemm case: operands in buffers larger than the views (padding that must stay untouched), A and B
// optionally stored transposed, C optionally a transposed (column-strided) view.
struct GemmCase {
    Shape shape;
    bool transposeA = false, transposeB = false, transposeC = false, clear = false, halves = false;
    std::vector<float> a, b, c;

    void fill(std::mt19937& random) {
        a = randomValues(size_t(shape.m * shape.k + 7), halves, random);
        b = randomValues(size_t(shape.k * shape.n + 7), halves, random);
        c = randomValues(size_t(shape.m * shape.n + 7), halves, random);
    }
    FloatGemm gemm(std::vector<float>& cStorage) {
        auto view = [](std::vector<float>& storage, int64_t rows, int64_t cols, bool transposed) {
            // Offset by 3 elements; a transposed matrix is stored cols x rows.
            return transposed ? FloatMatrixView{storage.data() + 3, 1, rows}
                              : FloatMatrixView{storage.data() + 3, cols, 1};
        };
        FloatGemm g;
        g.a = view(a, shape.m, shape.k, transposeA);
        g.b = view(b, shape.k, shape.n, transposeB);
        g.c = view(cStorage, shape.m, shape.n, transposeC);
        g.m = shape.m;
        g.n = shape.n;
        g.k = shape.k;
        g.clear = clear;
        g.exactProducts = halves;
        return g;
    }
    std::string name(FloatGemmIsa isa) const {
        return std::string(jit::floatGemmIsaName(isa)) + " " + std::to_string(shape.m) + "x" +
               std::to_string(shape.n) + "x" + std::to_string(shape.k) + (transposeA ? " At" : "") +
               (transposeB ? " Bt" : "") + (transposeC ? " Ct" : "") + (clear ? " clear" : "") +
               (halves ? " fp16" : " fp32");
    }
};

size_t firstBitDifference(const std::vector<float>& x, const std::vector<float>& y) {
    for (size_t i = 0; i < x.size(); ++i)
        if (std::bit_cast<uint32_t>(x[i]) != std::bit_cast<uint32_t>(y[i]))
            return i;
    return x.size();
}

TEST(FloatGemm, EveryHostKernelGivesTheInterpretersSumsBitForBit) {
    const std::vector<Shape> shapes = {{1, 1, 1},    {4, 64, 64}, {128, 128, 64}, {3, 17, 5}, {5, 80, 7},
                                       {6, 200, 33}, {7, 9, 130}, {9, 16, 0},     {2, 48, 3}, {13, 100, 1}};
    std::mt19937 random(20261206);
    int cases = 0;
    for (FloatGemmIsa isa : hostKernels())
        for (const Shape& shape : shapes)
            for (int variant = 0; variant < 16; ++variant) {
                GemmCase c;
                c.shape = shape;
                c.transposeA = variant & 1;
                c.transposeB = variant & 2;
                c.transposeC = variant & 4;
                c.clear = variant & 8;
                c.halves = (variant + shape.k) % 3 == 0;
                c.fill(random);
                std::vector<float> want = c.c, got = c.c;
                referenceGemm(c.gemm(want), false);
                jit::runFloatGemm(c.gemm(got), isa);
                size_t at = firstBitDifference(want, got);
                ASSERT_EQ(at, want.size()) << c.name(isa) << ": element " << at << " is " << got[at]
                                           << ", the interpreter's loop gives " << want[at];
                ++cases;
            }
    EXPECT_GE(cases, 160);
}

// Inexact products: a kernel that fused the multiply and the add (or let the compiler contract them)
// would differ; the data is chosen so that the fused sums do differ, or the test could not see it.
TEST(FloatGemm, InexactProductsRoundBeforeTheAdd) {
    std::mt19937 random(7);
    for (FloatGemmIsa isa : hostKernels()) {
        GemmCase c;
        c.shape = {8, 96, 64};
        c.fill(random);
        std::vector<float> twoRoundings = c.c, fused = c.c, got = c.c;
        referenceGemm(c.gemm(twoRoundings), false);
        referenceGemm(c.gemm(fused), true);
        ASSERT_NE(firstBitDifference(twoRoundings, fused), twoRoundings.size()) << "the data cannot tell";
        jit::runFloatGemm(c.gemm(got), isa);
        EXPECT_EQ(firstBitDifference(twoRoundings, got), got.size()) << c.name(isa);
    }
}

TEST(FloatGemm, LeavesEverythingOutsideCAlone) {
    std::mt19937 random(11);
    for (FloatGemmIsa isa : hostKernels()) {
        GemmCase c;
        c.shape = {5, 37, 9};
        c.fill(random);
        std::vector<float> before = c.c, got = c.c;
        jit::runFloatGemm(c.gemm(got), isa);
        for (size_t i : {size_t(0), size_t(1), size_t(2), got.size() - 4, got.size() - 1})
            EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(before[i]))
                << c.name(isa) << ": padding element " << i;
    }
}

TEST(FloatGemm, TheHostKernelIsTheWidestAvailable) {
    FloatGemmIsa host = jit::hostFloatGemmIsa();
    EXPECT_TRUE(jit::floatGemmIsaAvailable(host));
    if (!std::getenv("TB_JIT_GEMM_ISA"))
        for (FloatGemmIsa wider : {FloatGemmIsa::Avx512, FloatGemmIsa::Avx2}) {
            if (wider == host)
                break;
            EXPECT_FALSE(jit::floatGemmIsaAvailable(wider)) << jit::floatGemmIsaName(wider);
        }
}

} // namespace
} // namespace tb
