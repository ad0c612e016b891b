// A tensor in host memory for the CPU reference executor and the naive references. Its elements are stored
// at the dtype's width, as the GPU stores them (TensorStorage), and read and written as doubles: every
// value read is exactly representable in the dtype, every store rounds.
#pragma once

#include "engine/exec/TensorStorage.h"
#include "engine/ir/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct HostTensor {
    std::string name;
    ir::DType dtype = ir::DType::Float32; // the dtype `data` was made with
    std::vector<int64_t> shape;
    TensorStorage data{ir::DType::Float32}; // row-major

    HostTensor() = default;
    HostTensor(std::string name, ir::DType dtype, std::vector<int64_t> shape);

    int64_t elementCount() const;
    // Row-major linear offset of a multi-index (no bounds check).
    int64_t offset(const std::vector<int64_t>& index) const;
    TensorStorage::ElementRef at(const std::vector<int64_t>& index) { return data[size_t(offset(index))]; }
    double at(const std::vector<int64_t>& index) const { return data[size_t(offset(index))]; }
};

// Rounds a value to what the dtype can hold: IEEE round-to-nearest-even for float16/bfloat16/float32/fp8
// (with overflow to inf where the format has it, saturation to +-448 for e4m3, see FloatFormats.h),
// two's-complement wrap for integers (a fraction is truncated toward zero first; NaN and inf give 0),
// 0/1 for bool (anything non-zero, NaN included, is 1). float64 is returned unchanged.
double roundToDType(double value, ir::DType dtype);

// Wraps a 64-bit integer to the dtype's width (two's complement); bool gives 0/1. For uint64 the bit
// pattern is kept. Float dtypes return the value unchanged.
int64_t wrapInteger(int64_t value, ir::DType dtype);

// A stored value of an integer dtype as an int64 (uint64 values >= 2^63 come back as their bit pattern).
int64_t storedToInteger(double value);
// The double that stores an (already wrapped) integer of the dtype.
double integerToStored(int64_t value, ir::DType dtype);

// Converts a value of dtype `from` to dtype `to` the way a cast in the generated CUDA does: float ->
// integer truncates toward zero and saturates to the target range (NaN gives 0), like cvt.rzi.sat;
// integer -> integer wraps; anything -> bool is `!= 0`; anything -> float rounds to nearest even.
double convertValue(double value, ir::DType from, ir::DType to);

// Fills with deterministic pseudo-random values in [-1, 1) (signed integers: in [-8, 8), unsigned: in
// [0, 8), bool: 0 or 1), rounded to the dtype (a float that would round up to 1.0 becomes the largest
// value below 1). The generator is SplitMix64 seeded with seed ^ FNV-1a-64(name), so the same
// (seed, name) always gives the same data, on every machine.
void fillRandom(HostTensor& tensor, uint64_t seed);

// The index-th 64-bit draw of fillRandom's generator for a tensor named `name` (other fills of the same
// (seed, name) use it, so that they are as reproducible).
uint64_t seededDraw(uint64_t seed, const std::string& name, int64_t index);

struct ComparisonResult {
    double maxAbsError = 0;
    double maxRelError = 0;
    int64_t mismatches = 0;             // elements outside tolerance
    std::vector<int64_t> firstMismatch; // multi-index of the first one, empty if none
    double expectedAtMismatch = 0;
    double actualAtMismatch = 0;
    bool shapeMismatch = false;
    bool ok() const { return !shapeMismatch && mismatches == 0; }
};

// An element matches when |a - e| <= atol + rtol * |e| (NaNs match only NaNs; an infinity matches only the
// same infinity). maxAbsError is the largest |a - e| over all elements (inf when non-finite values
// disagree), maxRelError the largest |a - e| / |e| over finite elements with |e| > atol (below it, relative
// error measures noise). A shape mismatch sets shapeMismatch and compares nothing; dtypes may differ.
ComparisonResult compareTensors(const HostTensor& actual, const HostTensor& expected, double atol,
                                double rtol);

} // namespace tb
