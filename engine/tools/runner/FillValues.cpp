// Value encodings for the runner's `fill` request (see FillValues.h).
#include "FillValues.h"

#include <cmath>
#include <cstring>

namespace tb::runner {

namespace {

uint32_t floatBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

} // namespace

int dtypeBytes(const std::string& dtype) {
    if (dtype == "f32" || dtype == "i32" || dtype == "u32")
        return 4;
    if (dtype == "f16" || dtype == "bf16")
        return 2;
    if (dtype == "f64" || dtype == "i64")
        return 8;
    if (dtype == "i8" || dtype == "u8")
        return 1;
    return 0;
}

bool isFloatDtype(const std::string& dtype) {
    return dtype == "f32" || dtype == "f16" || dtype == "bf16" || dtype == "f64";
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
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        ++half; // carries into the exponent correctly
    return static_cast<uint16_t>(sign | half);
}

uint16_t toBFloat16Bits(float f) {
    uint32_t x = floatBits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return static_cast<uint16_t>((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}

void storeValue(const std::string& dtype, double v, char* dst) {
    if (dtype == "f32") {
        float f = static_cast<float>(v);
        std::memcpy(dst, &f, 4);
    } else if (dtype == "f64") {
        std::memcpy(dst, &v, 8);
    } else if (dtype == "f16") {
        uint16_t h = toHalfBits(static_cast<float>(v));
        std::memcpy(dst, &h, 2);
    } else if (dtype == "bf16") {
        uint16_t h = toBFloat16Bits(static_cast<float>(v));
        std::memcpy(dst, &h, 2);
    } else if (dtype == "i32" || dtype == "u32") {
        auto i = static_cast<uint32_t>(static_cast<int64_t>(v));
        std::memcpy(dst, &i, 4);
    } else if (dtype == "i64") {
        auto i = static_cast<int64_t>(v);
        std::memcpy(dst, &i, 8);
    } else {
        *dst = static_cast<char>(static_cast<int64_t>(v));
    }
}

uint64_t splitMix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

} // namespace tb::runner
