// A tensor in host memory for the CPU reference executor and the naive references. Values are stored as
// doubles that are always exactly representable in the tensor's dtype (every store rounds), which keeps
// the executor simple and its rounding explicit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/ir/DType.h"

namespace tb {

struct HostTensor {
    std::string name;
    ir::DType dtype = ir::DType::Float32;
    std::vector<int64_t> shape;
    std::vector<double> data; // row-major

    HostTensor() = default;
    HostTensor(std::string name, ir::DType dtype, std::vector<int64_t> shape);

    int64_t elementCount() const;
    // Row-major linear offset of a multi-index (no bounds check).
    int64_t offset(const std::vector<int64_t>& index) const;
    double& at(const std::vector<int64_t>& index) { return data[offset(index)]; }
    double at(const std::vector<int64_t>& index) const { return data[offset(index)]; }
};

// Rounds a value to what the dtype can hold: IEEE round-to-nearest-even for float16/bfloat16/float32/fp8
// (with overflow to inf where the format has it, saturation for e4m3), two's-complement wrap for
// integers, 0/1 for bool.
double roundToDType(double value, ir::DType dtype);

// Fills with deterministic pseudo-random values in [-1, 1) (integers: in [-8, 8)), rounded to the dtype.
// The same (seed, name) always gives the same data, on every machine.
void fillRandom(HostTensor& tensor, uint64_t seed);

struct ComparisonResult {
    double maxAbsError = 0;
    double maxRelError = 0;
    int64_t mismatches = 0;                // elements outside tolerance
    std::vector<int64_t> firstMismatch;    // multi-index of the first one, empty if none
    double expectedAtMismatch = 0;
    double actualAtMismatch = 0;
    bool shapeMismatch = false;
    bool ok() const { return !shapeMismatch && mismatches == 0; }
};

// An element matches when |a - e| <= atol + rtol * |e| (NaNs match only NaNs).
ComparisonResult compareTensors(const HostTensor& actual, const HostTensor& expected, double atol, double rtol);

} // namespace tb
