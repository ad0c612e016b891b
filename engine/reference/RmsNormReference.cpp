// Reference for samples/05_rmsnorm_silu.py: y = silu(x * rsqrt(mean(x^2) + eps) * gamma) per row of C
// channels, silu(v) = v / (1 + exp(-v)).
#include "engine/reference/ReferenceSupport.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tb::reference {

Reference makeRmsNormSiluReference() {
    Reference r;
    r.name = "rmsnorm_silu";
    r.summary = "Y = silu(X * rsqrt(mean(X^2, -1) + eps) * gamma), X[M,C]; params X, gamma, Y (output 2)";
    r.compute = [](const ReferenceInvocation& in, std::map<int, HostTensor>& expected, std::string& error) {
        if (!expectParamCount(in, 3, "X, gamma, Y", error) || !expectOutputMarked(in, 2, error) ||
            !expectRank(in, 0, 2, error))
            return false;
        const HostTensor& x = in.params[0];
        const HostTensor& gamma = in.params[1];
        const int64_t m = x.shape[0];
        const int64_t c = x.shape[1];
        if (!expectShape(in, 1, {c}, error) || !expectShape(in, 2, x.shape, error))
            return false;
        // The sample's default; a program that changes eps has it in its specialization.
        const double eps = specDouble(in.module, "eps").value_or(1e-5);
        HostTensor y = likeParam(in, 2);
        const std::vector<double> g = gamma.data.values();
        parallelRanges(m, [&](int64_t begin, int64_t end) { // rows are independent
            std::vector<double> row(static_cast<size_t>(c)), v(static_cast<size_t>(c)),
                e(static_cast<size_t>(c));
            for (int64_t i = begin; i < end; ++i) {
                x.data.read(size_t(i * c), row);
                double sumSquares = 0;
                for (int64_t j = 0; j < c; ++j)
                    sumSquares += row[j] * row[j];
                const double rinv = 1.0 / std::sqrt(sumSquares / static_cast<double>(c) + eps);
                for (int64_t j = 0; j < c; ++j)
                    v[j] = -(row[j] * rinv * g[j]);
                expRow(v.data(), e.data(), c); // exp(-v)
                for (int64_t j = 0; j < c; ++j)
                    row[j] = -v[j] / (1.0 + e[j]);
                y.data.write(size_t(i * c), row);
            }
        });
        expected.emplace(2, std::move(y));
        return true;
    };
    // float32 sum of squares, rsqrt and exp (relative error ~1e-6), then one float16 rounding: the result
    // may be one float16 ulp (2^-10 relative) from the correctly rounded value, so rtol 2e-3; atol 1e-3
    // for outputs near 0, where silu's slope of 1/2 passes the float32 error of v straight through.
    r.atol = 1e-3;
    r.rtol = 2e-3;
    return r;
}

} // namespace tb::reference
