// Reference for samples/01_elementwise_add.py: C = A + B, element by element.
#include "engine/reference/ReferenceSupport.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tb::reference {

Reference makeElementwiseAddReference() {
    Reference r;
    r.name = "elementwise_add";
    r.summary = "C = A + B elementwise; params A, B, C (output 2)";
    r.compute = [](const ReferenceInvocation& in, std::map<int, HostTensor>& expected, std::string& error) {
        if (!expectParamCount(in, 3, "A, B, C", error) || !expectOutputMarked(in, 2, error))
            return false;
        const std::vector<int64_t>& shape = in.params[0].shape;
        if (!expectShape(in, 1, shape, error) || !expectShape(in, 2, shape, error))
            return false;
        HostTensor c = likeParam(in, 2);
        for (size_t i = 0; i < c.data.size(); ++i)
            c.data[i] = in.params[0].data[i] + in.params[1].data[i];
        expected.emplace(2, std::move(c));
        return true;
    };
    // One addition rounded once to C's dtype: exact up to that rounding. Computing in the input dtype first
    // (float16 in, float32 out, or the reverse) can add one more rounding: rtol covers a float16 ulp
    // (2^-10 ~ 9.8e-4 relative), atol covers sums that cancel to ~0.
    r.atol = 1e-6;
    r.rtol = 1e-3;
    return r;
}

} // namespace tb::reference
