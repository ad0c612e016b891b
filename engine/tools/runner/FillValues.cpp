// Value encodings for the runner's `fill` request (see FillValues.h).
#include "FillValues.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

namespace tb::runner {

namespace {

uint32_t floatBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// Writes elements [begin, end) of the fill. The loops are per mode and per element type (a template over
// `Encode`, which turns an element's double into its stored bits) so that a fill of millions of elements
// does no per-element dispatch; the arithmetic is the documented formula, unchanged.
template <class T, class Encode>
void fillAs(const FillSpec& spec, bool integer, size_t begin, size_t end, char* dst, Encode encode) {
    auto put = [dst](size_t i, T bits) { std::memcpy(dst + i * sizeof(T), &bits, sizeof(T)); };
    switch (spec.mode) {
    case FillSpec::Mode::Value: {
        const T bits = encode(spec.value);
        for (size_t i = begin; i < end; ++i)
            put(i, bits);
        return;
    }
    case FillSpec::Mode::Iota:
        for (size_t i = begin; i < end; ++i)
            put(i, encode(static_cast<double>(i)));
        return;
    case FillSpec::Mode::Seed: {
        const uint64_t base = spec.seed * 0x100000001b3ull;
        const double range = spec.hi - spec.lo;
        for (size_t i = begin; i < end; ++i) {
            double u = static_cast<double>(splitMix64(base + i) >> 11) * 0x1.0p-53;
            double v = spec.lo + u * range;
            if (integer)
                v = std::floor(v);
            put(i, encode(v));
        }
        return;
    }
    }
}

} // namespace

std::optional<FillDtype> parseFillDtype(const std::string& name) {
    static constexpr std::pair<const char*, FillDtype> kNames[] = {
        {"f32", FillDtype::F32}, {"f16", FillDtype::F16}, {"bf16", FillDtype::BF16},
        {"f64", FillDtype::F64}, {"i32", FillDtype::I32}, {"u32", FillDtype::U32},
        {"i64", FillDtype::I64}, {"i8", FillDtype::I8},   {"u8", FillDtype::U8}};
    for (const auto& [text, dtype] : kNames)
        if (name == text)
            return dtype;
    return std::nullopt;
}

int dtypeBytes(FillDtype dtype) {
    switch (dtype) {
    case FillDtype::F64:
    case FillDtype::I64:
        return 8;
    case FillDtype::F32:
    case FillDtype::I32:
    case FillDtype::U32:
        return 4;
    case FillDtype::F16:
    case FillDtype::BF16:
        return 2;
    case FillDtype::I8:
    case FillDtype::U8:
        return 1;
    }
    return 0;
}

bool isFloatDtype(FillDtype dtype) {
    return dtype == FillDtype::F32 || dtype == FillDtype::F16 || dtype == FillDtype::BF16 ||
           dtype == FillDtype::F64;
}

// IEEE binary16 with round-to-nearest-even (overflow to inf, subnormals kept).
uint16_t toHalfBits(float f) {
    uint32_t x = floatBits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t mag = x & 0x7fffffffu;
    if (mag >= 0x7f800000u) // inf or NaN
        return static_cast<uint16_t>(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0u));
    if (mag >= 0x477ff000u) // rounds to >= 65520: inf
        return static_cast<uint16_t>(sign | 0x7c00u);
    if (mag < 0x38800000u) { // below the smallest normal half: subnormal or zero
        float a;
        std::memcpy(&a, &mag, 4);
        float scaled = a * 16777216.0f; // 2^24: one unit = one half subnormal step
        uint32_t q = static_cast<uint32_t>(std::nearbyint(scaled));
        return static_cast<uint16_t>(sign | q);
    }
    uint32_t exp = ((mag >> 23) - 127 + 15);
    uint32_t mant = mag & 0x7fffffu;
    uint32_t half = (exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    // Round up when rest > 0x1000, or == 0x1000 and half is odd (ties to even); without a branch, which
    // random data would mispredict half the time. A carry into the exponent is correct.
    half += (rest + (half & 1u) + 0xfffu) >> 13;
    return static_cast<uint16_t>(sign | half);
}

uint16_t toBFloat16Bits(float f) {
    uint32_t x = floatBits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return static_cast<uint16_t>((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}

uint64_t splitMix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

namespace {

void fillRange(FillDtype dtype, const FillSpec& spec, size_t begin, size_t end, char* dst) {
    bool integer = !isFloatDtype(dtype);
    // Integers truncate toward zero through int64 (unsigned ones wrap to their width).
    auto toInt = [](double v) { return static_cast<int64_t>(v); };
    switch (dtype) {
    case FillDtype::F32:
        return fillAs<float>(spec, integer, begin, end, dst, [](double v) { return static_cast<float>(v); });
    case FillDtype::F64:
        return fillAs<double>(spec, integer, begin, end, dst, [](double v) { return v; });
    case FillDtype::F16:
        return fillAs<uint16_t>(spec, integer, begin, end, dst,
                                [](double v) { return toHalfBits(static_cast<float>(v)); });
    case FillDtype::BF16:
        return fillAs<uint16_t>(spec, integer, begin, end, dst,
                                [](double v) { return toBFloat16Bits(static_cast<float>(v)); });
    case FillDtype::I32:
    case FillDtype::U32:
        return fillAs<uint32_t>(spec, integer, begin, end, dst,
                                [&](double v) { return static_cast<uint32_t>(toInt(v)); });
    case FillDtype::I64:
        return fillAs<int64_t>(spec, integer, begin, end, dst, toInt);
    case FillDtype::I8:
    case FillDtype::U8:
        return fillAs<char>(spec, integer, begin, end, dst,
                            [&](double v) { return static_cast<char>(toInt(v)); });
    }
}

} // namespace

void fillValues(FillDtype dtype, const FillSpec& spec, size_t count, char* dst) {
    // A large fill is split across threads: element i depends on i alone, so the bytes are the same for
    // any split (a 1M-element f16 operand on the H200 host: 6 ms on one thread, 2.5 ms on four).
    constexpr size_t kMinElementsPerThread = size_t(1) << 18;
    constexpr size_t kMaxThreads = 8;
    size_t threads = std::min({count / kMinElementsPerThread, kMaxThreads,
                               static_cast<size_t>(std::max(1u, std::thread::hardware_concurrency()))});
    if (threads <= 1)
        return fillRange(dtype, spec, 0, count, dst);
    size_t chunk = (count + threads - 1) / threads;
    std::vector<std::thread> helpers;
    for (size_t t = 1; t < threads; ++t)
        helpers.emplace_back(fillRange, dtype, std::cref(spec), t * chunk, std::min(count, (t + 1) * chunk),
                             dst);
    fillRange(dtype, spec, 0, chunk, dst);
    for (std::thread& helper : helpers)
        helper.join();
}

} // namespace tb::runner
