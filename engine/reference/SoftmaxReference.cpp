// Reference for samples/04_softmax.py: Y[i, :] = softmax(X[i, :]) along the last dimension.
#include "engine/reference/ReferenceSupport.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tb::reference {

Reference makeSoftmaxReference() {
    Reference r;
    r.name = "softmax";
    r.summary = "Y = softmax(X) over rows, X[M,N]; params X, Y (output 1)";
    r.compute = [](const ReferenceInvocation& in, std::map<int, HostTensor>& expected, std::string& error) {
        if (!expectParamCount(in, 2, "X, Y", error) || !expectOutputMarked(in, 1, error) ||
            !expectRank(in, 0, 2, error) || !expectShape(in, 1, in.params[0].shape, error))
            return false;
        const HostTensor& x = in.params[0];
        const int64_t m = x.shape[0];
        const int64_t n = x.shape[1];
        HostTensor y = likeParam(in, 1);
        parallelRanges(m, [&](int64_t begin, int64_t end) { // rows are independent
            std::vector<double> row(static_cast<size_t>(n)), out(static_cast<size_t>(n));
            for (int64_t i = begin; i < end; ++i) {
                x.data.read(size_t(i * n), row);
                // Subtracting the max changes nothing mathematically and keeps exp finite.
                double mx = -std::numeric_limits<double>::infinity();
                for (int64_t j = 0; j < n; ++j)
                    mx = std::max(mx, row[j]);
                double sum = 0;
                for (int64_t j = 0; j < n; ++j)
                    sum += std::exp(row[j] - mx);
                for (int64_t j = 0; j < n; ++j)
                    out[j] = std::exp(row[j] - mx) / sum;
                y.data.write(size_t(i * n), out);
            }
        });
        expected.emplace(1, std::move(y));
        return true;
    };
    // float32 exponentials and sums (relative error ~1e-6 even over 8k columns), one float16 rounding of
    // values in [0, 1]: the result may be one float16 ulp (2^-10 relative) from the correctly rounded
    // value, so rtol 2e-3; atol 1e-4 for the many tiny probabilities.
    r.atol = 1e-4;
    r.rtol = 2e-3;
    return r;
}

} // namespace tb::reference
