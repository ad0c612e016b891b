// References for the GEMM samples: samples/02_gemm_relu.py (C = ReLU(A @ B)) and
// samples/03_gemm_transpose.py (C = op(A) @ op(B) with op chosen by the trans_A / trans_B jit flags), and
// for TileLang's GEMM examples: "gemm" (C = A @ B) and "gemm_nt" (C = A @ B^T, the float8 GEMMs' form).
// Both sum the K products in double and round once to C's dtype.
#include "engine/reference/ReferenceSupport.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::reference {

namespace {

// C[m, n] = sum_k opA(m, k) * opB(k, n), shapes checked against the flags. relu clamps at 0.
bool computeGemm(const ReferenceInvocation& in, bool transA, bool transB, bool relu,
                 std::map<int, HostTensor>& expected, std::string& error) {
    if (!expectParamCount(in, 3, "A, B, C", error) || !expectOutputMarked(in, 2, error))
        return false;
    for (int i = 0; i < 3; ++i)
        if (!expectRank(in, i, 2, error))
            return false;
    const HostTensor& a = in.params[0];
    const HostTensor& b = in.params[1];
    const int64_t m = transA ? a.shape[1] : a.shape[0];
    const int64_t k = transA ? a.shape[0] : a.shape[1];
    const int64_t n = transB ? b.shape[0] : b.shape[1];
    if (!expectShape(in, 1, transB ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, error) ||
        !expectShape(in, 2, {m, n}, error))
        return false;
    HostTensor c = likeParam(in, 2);
    // Row by row: c[i, :] accumulates opA(i, p) * opB(p, :) for p in order, so each element is the plain
    // sum over p in order; rows are independent and split over threads. opB is laid out [k, n] first.
    std::vector<double> bk(static_cast<size_t>(k * n));
    for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
            bk[p * n + j] = transB ? b.data[j * k + p] : b.data[p * n + j];
    // Four rows at a time share each row of opB (the sums are unchanged: each element still adds its
    // products in p order).
    constexpr int64_t kRows = 4;
    parallelRanges((m + kRows - 1) / kRows, [&](int64_t begin, int64_t end) {
        std::vector<double> sums(static_cast<size_t>(kRows * n));
        for (int64_t block = begin; block < end; ++block) {
            const int64_t i0 = block * kRows;
            const int64_t rows = std::min(kRows, m - i0);
            double* row[kRows];
            for (int64_t r = 0; r < kRows; ++r)
                row[r] = &sums[std::min(r, rows - 1) * n];
            std::fill(sums.begin(), sums.end(), 0.0);
            for (int64_t p = 0; p < k; ++p) {
                double av[kRows];
                for (int64_t r = 0; r < rows; ++r)
                    av[r] = transA ? a.data[p * m + i0 + r] : a.data[(i0 + r) * k + p];
                addScaledRows(row, av, rows, &bk[p * n], n);
            }
            for (int64_t r = 0; r < rows; ++r) {
                if (relu)
                    for (int64_t j = 0; j < n; ++j)
                        row[r][j] = std::max(row[r][j], 0.0);
                c.data.write(size_t((i0 + r) * n), std::span<const double>(row[r], size_t(n)));
            }
        }
    });
    expected.emplace(2, std::move(c));
    return true;
}

// float16 inputs, float32 accumulation, float16 output. The float32 sum of K products is off by at most
// ~K * 2^-24 * sum|a*b| (K=512, randn: ~1e-2 worst case, ~1e-4 typical), and the float16 result may land
// one ulp (2^-10 relative) away from the correctly rounded one: rtol 1e-2, atol 1e-2 as the TileLang
// examples use for GEMM.
constexpr double kGemmAtol = 1e-2;
constexpr double kGemmRtol = 1e-2;

// A reference over computeGemm with fixed transposes (the plain product and the ReLU sample).
Reference fixedGemmReference(const char* name, const char* summary, bool relu) {
    Reference r;
    r.name = name;
    r.summary = summary;
    r.compute = [relu](const ReferenceInvocation& in, std::map<int, HostTensor>& expected,
                       std::string& error) {
        return computeGemm(in, /*transA=*/false, /*transB=*/false, relu, expected, error);
    };
    r.atol = kGemmAtol;
    r.rtol = kGemmRtol;
    return r;
}

} // namespace

Reference makeGemmReference() {
    return fixedGemmReference("gemm", "C = A @ B, A[M,K], B[K,N]; params A, B, C (output 2)", /*relu=*/false);
}

Reference makeGemmReluReference() {
    return fixedGemmReference("gemm_relu", "C = relu(A @ B), A[M,K], B[K,N]; params A, B, C (output 2)",
                              /*relu=*/true);
}

Reference makeGemmNtReference() {
    // TileLang's float8 (and int8) GEMMs take B as [N][K]: both operands K-major, the tensor cores' own form.
    Reference r;
    r.name = "gemm_nt";
    r.summary = "C = A @ B^T, A[M,K], B[N,K]; params A, B, C (output 2)";
    r.compute = [](const ReferenceInvocation& in, std::map<int, HostTensor>& expected, std::string& error) {
        return computeGemm(in, /*transA=*/false, /*transB=*/true, /*relu=*/false, expected, error);
    };
    r.atol = kGemmAtol;
    r.rtol = kGemmRtol;
    return r;
}

Reference makeGemmTransposeReference() {
    Reference r;
    r.name = "gemm_transpose";
    r.summary = "C = op(A) @ op(B), A[K,M] if trans_A, B[N,K] if trans_B; params A, B, C (output 2)";
    r.compute = [](const ReferenceInvocation& in, std::map<int, HostTensor>& expected, std::string& error) {
        const std::optional<bool> transA = specBool(in.module, "trans_A");
        const std::optional<bool> transB = specBool(in.module, "trans_B");
        if (!transA || !transB) {
            error = std::string("the specialization has no boolean ") + (transA ? "trans_B" : "trans_A");
            return false;
        }
        return computeGemm(in, *transA, *transB, /*relu=*/false, expected, error);
    };
    r.atol = kGemmAtol;
    r.rtol = kGemmRtol;
    return r;
}

} // namespace tb::reference
