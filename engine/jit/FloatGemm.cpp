// The ahead-of-time float gemm of JIT-compiled kernels: operands whose columns are not contiguous are
// copied row-major into per-thread scratch, then one register-blocked kernel runs (FloatGemmKernel.inc,
// built here for AVX-512, for AVX2 with FMA, and for the compiler's generic 4-float vectors). This file is
// built with -ffp-contract=off: a multiply and an add stay two roundings.
#include "engine/jit/FloatGemm.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

// The x86 kernels need GCC's `#pragma GCC target` regions (Clang builds take the generic kernel).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define TILEBENCH_X86_GEMM_KERNELS 1
#endif

namespace tb::jit {

namespace {

// Row-major views: element (i, j) of A at a[i * lda + j], and so on.
struct RowMajorGemm {
    const float* a = nullptr;
    int64_t lda = 0;
    const float* b = nullptr;
    int64_t ldb = 0;
    float* c = nullptr;
    int64_t ldc = 0;
    int64_t m = 0, n = 0, k = 0;
    bool clear = false, exactProducts = false;
};

// Columns [j0, n) of rows [i0, i0 + rows) (fewer than a vector's lanes), one row at a time through an
// accumulator row: the interpreter's loop order. The products are rounded before the add even where they
// are exact (then the fused form would round the same).
void portableColumns(const RowMajorGemm& g, int64_t i0, int64_t rows, int64_t j0) {
    constexpr int64_t kChunk = 64;
    float acc[kChunk];
    for (int64_t i = i0; i < i0 + rows; ++i) {
        const float* aRow = g.a + i * g.lda;
        float* cRow = g.c + i * g.ldc;
        for (int64_t start = j0; start < g.n; start += kChunk) {
            const int64_t width = std::min(kChunk, g.n - start);
            for (int64_t j = 0; j < width; ++j)
                acc[j] = g.clear ? 0.0f : cRow[start + j];
            for (int64_t kk = 0; kk < g.k; ++kk) {
                const float a = aRow[kk];
                const float* bRow = g.b + kk * g.ldb + start;
                for (int64_t j = 0; j < width; ++j)
                    acc[j] = acc[j] + a * bRow[j];
            }
            std::memcpy(cRow + start, acc, size_t(width) * sizeof(float));
        }
    }
}

} // namespace

#if TILEBENCH_X86_GEMM_KERNELS

#pragma GCC push_options
#pragma GCC target("avx512f,fma")
namespace avx512 {
struct Ops {
    using Vec = __m512;
    static constexpr int64_t kLanes = 16;
    static constexpr int kVectors = 4; // 16 accumulators and 4 vectors of op(B) in 32 zmm registers
    static constexpr int kRows = 4;
    static Vec load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
    static Vec zero() { return _mm512_setzero_ps(); }
    static Vec broadcast(float x) { return _mm512_set1_ps(x); }
    static Vec mulAdd(Vec a, Vec b, Vec acc) { return _mm512_add_ps(acc, _mm512_mul_ps(a, b)); }
    static Vec fusedMulAdd(Vec a, Vec b, Vec acc) { return _mm512_fmadd_ps(a, b, acc); }
};
#include "engine/jit/FloatGemmKernel.inc"
} // namespace avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
struct Ops {
    using Vec = __m256;
    static constexpr int64_t kLanes = 8;
    // 12 accumulators (enough independent chains for two FMA ports), 2 vectors of op(B) and a broadcast: 15
    // of 16 ymm registers; 6% faster than 4 rows here.
    static constexpr int kVectors = 2;
    static constexpr int kRows = 6;
    static Vec load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
    static Vec zero() { return _mm256_setzero_ps(); }
    static Vec broadcast(float x) { return _mm256_set1_ps(x); }
    static Vec mulAdd(Vec a, Vec b, Vec acc) { return _mm256_add_ps(acc, _mm256_mul_ps(a, b)); }
    static Vec fusedMulAdd(Vec a, Vec b, Vec acc) { return _mm256_fmadd_ps(a, b, acc); }
};
#include "engine/jit/FloatGemmKernel.inc"
} // namespace avx2
#pragma GCC pop_options

#endif

// Everywhere else: vectors of four floats in the compiler's generic vector extension (SSE2, NEON).
namespace generic {
struct Ops {
    using Vec = float __attribute__((vector_size(16)));
    static constexpr int64_t kLanes = 4;
    static constexpr int kVectors = 2; // 8 accumulators, 2 vectors of op(B) and a broadcast: 11 of 16 xmm
    static constexpr int kRows = 4;
    static Vec load(const float* p) {
        Vec v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    static void store(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }
    static Vec zero() { return Vec{}; }
    static Vec broadcast(float x) { return Vec{x, x, x, x}; }
    static Vec mulAdd(Vec a, Vec b, Vec acc) { return acc + a * b; } // not contracted: -ffp-contract=off
    static Vec fusedMulAdd(Vec a, Vec b, Vec acc) { return mulAdd(a, b, acc); } // exact products: the same
};
#include "engine/jit/FloatGemmKernel.inc"
} // namespace generic

namespace {

// Per-thread copies of operands whose columns are not contiguous (a transposed operand, a strided view).
struct GemmScratch {
    std::vector<float> a, b, c;
};

// `view` as a row-major matrix: itself when its columns are contiguous, else a copy in `scratch`
// (`copyIn` false: the caller only writes it).
const float* rowMajor(const FloatMatrixView& view, int64_t rows, int64_t cols, std::vector<float>& scratch,
                      bool copyIn, int64_t& ld) {
    if (view.colStride == 1 || cols == 0) {
        ld = view.rowStride;
        return view.data;
    }
    scratch.resize(size_t(rows * cols));
    if (copyIn)
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j)
                scratch[size_t(i * cols + j)] = view.at(i, j);
    ld = cols;
    return scratch.data();
}

FloatGemmIsa detectHostIsa() {
    if (const char* forced = std::getenv("TB_JIT_GEMM_ISA")) // measurements: avx2, portable
        for (FloatGemmIsa isa : {FloatGemmIsa::Avx512, FloatGemmIsa::Avx2, FloatGemmIsa::Portable})
            if (std::strcmp(forced, floatGemmIsaName(isa)) == 0 && floatGemmIsaAvailable(isa))
                return isa;
    for (FloatGemmIsa isa : {FloatGemmIsa::Avx512, FloatGemmIsa::Avx2})
        if (floatGemmIsaAvailable(isa))
            return isa;
    return FloatGemmIsa::Portable;
}

} // namespace

bool floatGemmIsaAvailable(FloatGemmIsa isa) {
    switch (isa) {
#if TILEBENCH_X86_GEMM_KERNELS
    case FloatGemmIsa::Avx512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
    case FloatGemmIsa::Avx2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    case FloatGemmIsa::Avx512:
    case FloatGemmIsa::Avx2:
        return false;
#endif
    case FloatGemmIsa::Portable:
        return true;
    }
    return false;
}

const char* floatGemmIsaName(FloatGemmIsa isa) {
    switch (isa) {
    case FloatGemmIsa::Avx512:
        return "avx512";
    case FloatGemmIsa::Avx2:
        return "avx2";
    case FloatGemmIsa::Portable:
        return "portable";
    }
    return "?";
}

FloatGemmIsa hostFloatGemmIsa() {
    static const FloatGemmIsa isa = detectHostIsa();
    return isa;
}

void runFloatGemm(const FloatGemm& gemm) {
    runFloatGemm(gemm, hostFloatGemmIsa());
}

void runFloatGemm(const FloatGemm& gemm, FloatGemmIsa isa) {
    if (gemm.m <= 0 || gemm.n <= 0)
        return;
    thread_local GemmScratch scratch;
    RowMajorGemm g;
    g.m = gemm.m;
    g.n = gemm.n;
    g.k = std::max<int64_t>(gemm.k, 0);
    g.clear = gemm.clear;
    g.exactProducts = gemm.exactProducts;
    g.a = rowMajor(gemm.a, g.m, g.k, scratch.a, true, g.lda);
    g.b = rowMajor(gemm.b, g.k, g.n, scratch.b, true, g.ldb);
    g.c = const_cast<float*>(rowMajor(gemm.c, g.m, g.n, scratch.c, !gemm.clear, g.ldc));
    switch (isa) {
#if TILEBENCH_X86_GEMM_KERNELS
    case FloatGemmIsa::Avx512:
        avx512::run(g);
        break;
    case FloatGemmIsa::Avx2:
        avx2::run(g);
        break;
#endif
    default:
        generic::run(g);
    }
    if (g.c != gemm.c.data) // a staged C goes back to its view
        for (int64_t i = 0; i < g.m; ++i)
            for (int64_t j = 0; j < g.n; ++j)
                gemm.c.at(i, j) = g.c[i * g.ldc + j];
}

} // namespace tb::jit

extern "C" void tbjit_gemm_f32(float* a, int64_t aRowStride, int64_t aColStride, float* b, int64_t bRowStride,
                               int64_t bColStride, float* c, int64_t cRowStride, int64_t cColStride,
                               int64_t m, int64_t n, int64_t k, int64_t flags) {
    tb::jit::FloatGemm gemm;
    gemm.a = {a, aRowStride, aColStride};
    gemm.b = {b, bRowStride, bColStride};
    gemm.c = {c, cRowStride, cColStride};
    gemm.m = m;
    gemm.n = n;
    gemm.k = k;
    gemm.clear = (flags & 1) != 0;
    gemm.exactProducts = (flags & 2) != 0;
    tb::jit::runFloatGemm(gemm);
}
