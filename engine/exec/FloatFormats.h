// Bit-exact rounding of doubles to the narrow floating-point formats of tile programs (float16, bfloat16,
// float8 e4m3 and e5m2, float32). Every format is described by its mantissa width, its exponent range and
// what happens on overflow, and one routine rounds to any of them with IEEE round-to-nearest-even,
// gradual underflow (subnormals) and signed zeros.
//
// float8_e4m3 is the "fn" variant that TileLang and torch use (float8_e4m3fn): no infinities, one NaN
// encoding, largest finite 448. Overflow (including +-inf) saturates to +-448, which is what the CUDA
// conversion the generated code uses does (__nv_fp8_e4m3(float) converts with __NV_SATFINITE); torch's
// own cast would give NaN instead. The other formats overflow to +-inf like IEEE.
#pragma once

#include "engine/ir/DType.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>

namespace tb {

struct FloatFormat {
    int mantissaBits = 0;      // explicit fraction bits (float16: 10)
    int minNormalExponent = 0; // unbiased exponent of the smallest normal (float16: -14)
    double maxFinite = 0;      // largest finite value (float16: 65504)
    bool hasInfinity = true;   // false: overflow saturates to +-maxFinite
};

// The format of a floating-point dtype narrower than double; nullopt for float64 and non-float types.
std::optional<FloatFormat> floatFormatOf(ir::DType type);

// Rounds to the nearest representable value, ties to even. NaN stays NaN.
double roundToFormat(double value, const FloatFormat& format);
// The same rounding spelled step by step with frexp/ldexp/floor (slower): the check of roundToFormat.
double roundToFormatByFrexp(double value, const FloatFormat& format);

double roundToFloat16(double value);
double roundToBFloat16(double value);
double roundToFloat8E4M3(double value);
double roundToFloat8E5M2(double value);

// The bits of a float16 or bfloat16 value (the value is rounded to the format first; NaN gives a quiet NaN
// of its sign) and back: the encodings the GPU stores.
inline uint16_t float16Bits(double value);
inline double float16Value(uint16_t bits);
uint16_t bfloat16Bits(double value);
double bfloat16Value(uint16_t bits);

// The byte of a float8 value (e4m3fn or e5m2; the value is rounded to the format first) and back: the
// encodings the GPU stores (e4m3fn: bias 7, NaN 0x7F; e5m2: bias 15, inf 0x7C, NaN 0x7E).
uint8_t float8Bits(double value, ir::DType type);
double float8Value(uint8_t bits, ir::DType type);

// The largest value below 1.0 that the dtype represents (1 - 2^-(mantissa+1)); 0 for integers and bool.
double largestBelowOne(ir::DType type);

// Inline: fills, tensor reads and writes and comparisons convert hundreds of millions of halves.
inline uint16_t float16Bits(double value) {
    // Straight from the double's bits, rounding the dropped mantissa bits to nearest even. No branches
    // (every case is a select), so that loops of it vectorize: fills and tensor writes encode hundreds of
    // millions of halves, and on random data the rounding direction is a coin toss.
    const uint64_t bits = std::bit_cast<uint64_t>(value);
    const uint64_t sign = (bits >> 48) & 0x8000;
    const uint64_t magnitude = bits & 0x7fffffffffffffffull;
    const int64_t exponent = int64_t(magnitude >> 52) - 1023;
    const uint64_t mantissa = (magnitude & ((1ull << 52) - 1)) | (1ull << 52);
    // Units of the result's last place: 2^(exponent - 10) for a normal half, 2^-24 below the normal range
    // (a shift past 53 bits leaves 0, below half the smallest subnormal; 63 keeps the shift defined).
    const int64_t shift = exponent >= -14 ? 42 : std::min<int64_t>(28 - exponent, 63);
    const uint64_t rest = mantissa & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
    const uint64_t truncated = mantissa >> shift;
    const uint64_t kept =
        truncated + (uint64_t(rest > halfway) | (uint64_t(rest == halfway) & (truncated & 1)));
    // A normal half is (biased exponent << 10) + mantissa; a rounding carry moves into the exponent, and
    // past the largest finite value lands exactly on infinity (0x7c00). A subnormal is `kept` itself (a
    // carry to 1024 is the smallest normal).
    const uint64_t finite = exponent >= -14 ? (uint64_t(exponent + 15) << 10) + (kept - 1024) : kept;
    const uint64_t field = magnitude > 0x7ff0000000000000ull ? 0x7e00 // NaN
                           : exponent > 15                   ? 0x7c00 // inf, or beyond the halves
                                                             : finite;
    return uint16_t(sign | field);
}

// A normal half is built from its bits (sign, rebiased exponent, mantissa shifted up), not with ldexp:
// downloads and tensor reads convert millions of them.
inline double float16Value(uint16_t bits) {
    const bool negative = (bits & 0x8000) != 0;
    const int exponent = (bits >> 10) & 31, mantissa = bits & 1023;
    if (exponent == 0) {
        const double v = double(mantissa) * 0x1p-24;
        return negative ? -v : v;
    }
    if (exponent == 31)
        return mantissa   ? std::numeric_limits<double>::quiet_NaN()
               : negative ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
    return std::bit_cast<double>((uint64_t(negative) << 63) | (uint64_t(exponent - 15 + 1023) << 52) |
                                 (uint64_t(mantissa) << 42));
}

} // namespace tb
