// Host tensors and the scalar numerics the CPU reference executor is built on: rounding to a dtype,
// integer wrap-around, casts, deterministic random fill and tolerance comparison.
#include "engine/exec/HostTensor.h"

#include "engine/exec/FloatFormats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <thread>
#include <utility>
#include <vector>

namespace tb {

HostTensor::HostTensor(std::string name, ir::DType dtype, std::vector<int64_t> shape)
    : name(std::move(name)), dtype(dtype), shape(std::move(shape)) {
    int64_t count = elementCount();
    data = TensorStorage(dtype, static_cast<size_t>(count > 0 ? count : 0));
}

int64_t HostTensor::elementCount() const {
    int64_t count = 1;
    for (int64_t extent : shape)
        count *= extent;
    return count;
}

int64_t HostTensor::offset(const std::vector<int64_t>& index) const {
    int64_t linear = 0;
    for (size_t i = 0; i < shape.size() && i < index.size(); ++i)
        linear = linear * shape[i] + index[i];
    return linear;
}

namespace {

constexpr double kTwo63 = 9223372036854775808.0;
constexpr double kTwo64 = 18446744073709551616.0;

// A finite integral double reduced modulo 2^64 into int64 (exact: fmod and the +-2^64 shift are exact
// for doubles of this magnitude).
int64_t wrapDoubleTo64(double integral) {
    if (std::fabs(integral) < kTwo63)
        return static_cast<int64_t>(integral);
    double m = std::fmod(integral, kTwo64);
    if (m >= kTwo63)
        m -= kTwo64;
    else if (m < -kTwo63)
        m += kTwo64;
    if (m >= kTwo63) // cannot happen after the shift, but keep the conversion defined
        return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(m);
}

struct IntRange {
    double lo;
    double hi;
};

IntRange integerRange(ir::DType type) {
    switch (type) {
    case ir::DType::Bool:
        return {0, 1};
    case ir::DType::Int8:
        return {-128.0, 127.0};
    case ir::DType::Int16:
        return {-32768.0, 32767.0};
    case ir::DType::Int32:
        return {-2147483648.0, 2147483647.0};
    case ir::DType::Int64:
        return {-kTwo63, kTwo63};
    case ir::DType::UInt8:
        return {0, 255.0};
    case ir::DType::UInt16:
        return {0, 65535.0};
    case ir::DType::UInt32:
        return {0, 4294967295.0};
    case ir::DType::UInt64:
        return {0, kTwo64};
    case ir::DType::Float8E4M3:
    case ir::DType::Float8E5M2:
    case ir::DType::Float16:
    case ir::DType::BFloat16:
    case ir::DType::Float32:
    case ir::DType::Float64:
        break;
    }
    return {-kTwo63, kTwo63};
}

uint64_t fnv1a(const std::string& text) {
    uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    return hash;
}

uint64_t splitMix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

} // namespace

int64_t wrapInteger(int64_t value, ir::DType dtype) {
    switch (dtype) {
    case ir::DType::Bool:
        return value != 0 ? 1 : 0;
    case ir::DType::Int8:
        return static_cast<int8_t>(value);
    case ir::DType::Int16:
        return static_cast<int16_t>(value);
    case ir::DType::Int32:
        return static_cast<int32_t>(value);
    case ir::DType::UInt8:
        return static_cast<uint8_t>(value);
    case ir::DType::UInt16:
        return static_cast<uint16_t>(value);
    case ir::DType::UInt32:
        return static_cast<uint32_t>(value);
    case ir::DType::Int64:
    case ir::DType::UInt64:
    case ir::DType::Float8E4M3:
    case ir::DType::Float8E5M2:
    case ir::DType::Float16:
    case ir::DType::BFloat16:
    case ir::DType::Float32:
    case ir::DType::Float64:
        return value;
    }
    return value;
}

int64_t storedToInteger(double value) {
    if (!std::isfinite(value))
        return 0;
    return wrapDoubleTo64(std::trunc(value));
}

double integerToStored(int64_t value, ir::DType dtype) {
    if (dtype == ir::DType::UInt64)
        return static_cast<double>(static_cast<uint64_t>(value));
    return static_cast<double>(value);
}

double roundToDType(double value, ir::DType dtype) {
    switch (dtype) {
    case ir::DType::Float64:
        return value;
    case ir::DType::Float32:
        return static_cast<double>(static_cast<float>(value)); // the hardware conversion is RNE
    case ir::DType::Float16:
        return roundToFloat16(value);
    case ir::DType::BFloat16:
        return roundToBFloat16(value);
    case ir::DType::Float8E4M3:
        return roundToFloat8E4M3(value);
    case ir::DType::Float8E5M2:
        return roundToFloat8E5M2(value);
    case ir::DType::Bool:
        return value != 0 ? 1.0 : 0.0; // NaN != 0
    case ir::DType::Int8:
    case ir::DType::Int16:
    case ir::DType::Int32:
    case ir::DType::Int64:
    case ir::DType::UInt8:
    case ir::DType::UInt16:
    case ir::DType::UInt32:
    case ir::DType::UInt64:
        return integerToStored(wrapInteger(storedToInteger(value), dtype), dtype);
    }
    return value;
}

double convertValue(double value, ir::DType from, ir::DType to) {
    if (ir::isFloat(to))
        return roundToDType(value, to);
    if (to == ir::DType::Bool)
        return value != 0 ? 1.0 : 0.0;
    if (!ir::isFloat(from))
        return roundToDType(value, to);
    // float -> integer: truncate and saturate, like CUDA's cvt.rzi.sat.
    if (std::isnan(value))
        return 0;
    IntRange range = integerRange(to);
    double t = std::trunc(value);
    if (t <= range.lo)
        return range.lo;
    if (t >= range.hi) // for 64-bit types hi is 2^63 / 2^64, one past the largest value
        return to == ir::DType::Int64 || to == ir::DType::UInt64
                   ? integerToStored(to == ir::DType::Int64 ? std::numeric_limits<int64_t>::max()
                                                            : static_cast<int64_t>(~0ull),
                                     to)
                   : range.hi;
    return t;
}

uint64_t seededDraw(uint64_t seed, const std::string& name, int64_t index) {
    uint64_t s = (seed ^ fnv1a(name)) + static_cast<uint64_t>(index) * 0x9E3779B97F4A7C15ull;
    return splitMix64(s);
}

void fillRandom(HostTensor& tensor, uint64_t seed) {
    const uint64_t state = seed ^ fnv1a(tensor.name);
    int64_t count = tensor.elementCount();
    tensor.data.resize(static_cast<size_t>(count > 0 ? count : 0));
    const bool isFloatType = ir::isFloat(tensor.dtype);
    const double belowOne = largestBelowOne(tensor.dtype);
    // A draw at or above the midpoint between belowOne and 1.0 would round to 1.0 (the tie goes to 1.0,
    // whose mantissa is even): it becomes belowOne instead, so every value stays in [-1, 1).
    const double roundsToOne = tensor.dtype == ir::DType::Float64 ? 1.0 : (1.0 + belowOne) / 2;
    // SplitMix64's state only advances by its constant, so element i's draw is computable on its own:
    // large tensors are filled by several threads with exactly the sequential values. Values are made a
    // chunk at a time and written with TensorStorage::write (one dtype dispatch per chunk).
    auto fill = [&](int64_t begin, int64_t end) {
        uint64_t s = state + static_cast<uint64_t>(begin) * 0x9E3779B97F4A7C15ull;
        constexpr int64_t kChunk = 4096;
        double chunk[kChunk];
        for (int64_t start = begin; start < end; start += kChunk) {
            const int64_t n = std::min(kChunk, end - start);
            for (int64_t k = 0; k < n; ++k) {
                const uint64_t bits = splitMix64(s);
                double& element = chunk[k];
                if (isFloatType) {
                    const double value = 2.0 * (static_cast<double>(bits >> 11) * 0x1.0p-53) - 1.0; // [-1, 1)
                    element = value >= roundsToOne ? belowOne : value;
                } else if (tensor.dtype == ir::DType::Bool) {
                    element = static_cast<double>(bits >> 63);
                } else if (ir::isUnsignedInt(tensor.dtype)) {
                    element = static_cast<double>(bits >> 61); // [0, 8)
                } else {
                    element = static_cast<double>(static_cast<int64_t>(bits >> 60) - 8); // [-8, 8)
                }
            }
            tensor.data.write(static_cast<size_t>(start),
                              std::span<const double>(chunk, static_cast<size_t>(n)));
        }
    };
    const int64_t threads = std::min<int64_t>(std::max(1u, std::thread::hardware_concurrency()), 16);
    if (count < (int64_t(1) << 20) || threads == 1) {
        fill(0, count);
        return;
    }
    std::vector<std::thread> workers;
    for (int64_t t = 0; t < threads; ++t)
        workers.emplace_back(fill, count * t / threads, count * (t + 1) / threads);
    for (std::thread& w : workers)
        w.join();
}

namespace {

// compareTensors over [begin, end): the same per-element rule, the first mismatch by position.
ComparisonResult compareRange(const HostTensor& actual, const HostTensor& expected, double atol, double rtol,
                              size_t begin, size_t end, size_t& firstMismatch) {
    ComparisonResult result;
    const double inf = std::numeric_limits<double>::infinity();
    firstMismatch = SIZE_MAX;
    // Decoded a chunk at a time (TensorStorage::read), not element by element.
    constexpr size_t kChunk = 4096;
    double actualChunk[kChunk], expectedChunk[kChunk];
    for (size_t i = begin; i < end; ++i) {
        const size_t k = (i - begin) % kChunk;
        if (k == 0) {
            const size_t n = std::min(kChunk, end - i);
            actual.data.read(i, std::span(actualChunk, n));
            expected.data.read(i, std::span(expectedChunk, n));
        }
        double a = actualChunk[k];
        double e = expectedChunk[k];
        bool match = false;
        if (std::isnan(a) || std::isnan(e)) {
            match = std::isnan(a) && std::isnan(e);
            if (!match)
                result.maxAbsError = inf;
        } else if (std::isinf(a) || std::isinf(e)) {
            match = a == e;
            if (!match)
                result.maxAbsError = inf;
        } else {
            double diff = std::fabs(a - e);
            result.maxAbsError = std::max(result.maxAbsError, diff);
            // Relative error is only meaningful where |e| stands above the absolute tolerance.
            if (std::fabs(e) > atol && e != 0)
                result.maxRelError = std::max(result.maxRelError, diff / std::fabs(e));
            match = diff <= atol + rtol * std::fabs(e);
        }
        if (match)
            continue;
        if (result.mismatches == 0) {
            firstMismatch = i;
            result.expectedAtMismatch = e;
            result.actualAtMismatch = a;
        }
        ++result.mismatches;
    }
    return result;
}

} // namespace

ComparisonResult compareTensors(const HostTensor& actual, const HostTensor& expected, double atol,
                                double rtol) {
    ComparisonResult result;
    if (actual.shape != expected.shape || actual.data.size() != expected.data.size()) {
        result.shapeMismatch = true;
        return result;
    }
    // Large tensors in slices on several threads, merged in order (the result does not depend on the split).
    const size_t count = actual.data.size();
    const size_t slices = count < (size_t(1) << 22)
                              ? 1
                              : std::min<size_t>(16, std::max(1u, std::thread::hardware_concurrency()));
    std::vector<ComparisonResult> parts(slices);
    std::vector<size_t> firsts(slices, SIZE_MAX);
    auto run = [&](size_t k) {
        parts[k] = compareRange(actual, expected, atol, rtol, count * k / slices, count * (k + 1) / slices,
                                firsts[k]);
    };
    std::vector<std::thread> workers;
    for (size_t k = 1; k < slices; ++k)
        workers.emplace_back(run, k);
    run(0);
    for (std::thread& w : workers)
        w.join();
    size_t first = SIZE_MAX;
    for (size_t k = 0; k < slices; ++k) {
        const ComparisonResult& p = parts[k];
        result.maxAbsError = std::max(result.maxAbsError, p.maxAbsError);
        result.maxRelError = std::max(result.maxRelError, p.maxRelError);
        if (p.mismatches && first == SIZE_MAX) {
            first = firsts[k];
            result.expectedAtMismatch = p.expectedAtMismatch;
            result.actualAtMismatch = p.actualAtMismatch;
        }
        result.mismatches += p.mismatches;
    }
    if (first != SIZE_MAX) {
        // Unflatten the row-major position into a multi-index.
        result.firstMismatch.assign(expected.shape.size(), 0);
        int64_t rest = static_cast<int64_t>(first);
        for (size_t d = expected.shape.size(); d-- > 0;) {
            int64_t extent = expected.shape[d] > 0 ? expected.shape[d] : 1;
            result.firstMismatch[d] = rest % extent;
            rest /= extent;
        }
    }
    return result;
}

} // namespace tb
