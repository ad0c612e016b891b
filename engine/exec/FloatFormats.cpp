// Rounding to narrow floating-point formats. One generic routine does the work: scale the value so that
// one unit in the last place of its binade (or of the subnormal range) becomes 1, round that to an
// integer with ties to even, scale back. It exists twice: roundToFormatByFrexp spells every step with
// frexp/ldexp/floor, roundToFormat does the same with bit operations (it rounds every element the
// benchmarks fill); tests check they agree. Scaling by a power of two is exact in double, so the only
// rounding that happens is the one we perform explicitly.
#include "engine/exec/FloatFormats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tb {

namespace {

constexpr FloatFormat kFloat16{10, -14, 65504.0, true};
constexpr FloatFormat kBFloat16{7, -126, 3.3895313892515355e38, true}; // (2 - 2^-7) * 2^127
constexpr FloatFormat kFloat8E4M3{3, -6, 448.0, false};
constexpr FloatFormat kFloat8E5M2{2, -14, 57344.0, true};

} // namespace

std::optional<FloatFormat> floatFormatOf(ir::DType type) {
    switch (type) {
    case ir::DType::Float16:
        return kFloat16;
    case ir::DType::BFloat16:
        return kBFloat16;
    case ir::DType::Float8E4M3:
        return kFloat8E4M3;
    case ir::DType::Float8E5M2:
        return kFloat8E5M2;
    case ir::DType::Float32:
        return FloatFormat{23, -126, static_cast<double>(std::numeric_limits<float>::max()), true};
    case ir::DType::Float64:
    case ir::DType::Bool:
    case ir::DType::Int8:
    case ir::DType::Int16:
    case ir::DType::Int32:
    case ir::DType::Int64:
    case ir::DType::UInt8:
    case ir::DType::UInt16:
    case ir::DType::UInt32:
    case ir::DType::UInt64:
        return std::nullopt;
    }
    return std::nullopt;
}

double roundToFormatByFrexp(double value, const FloatFormat& format) {
    if (std::isnan(value) || value == 0)
        return value; // keeps the sign of zero
    if (std::isinf(value))
        return format.hasInfinity ? value : std::copysign(format.maxFinite, value);
    double magnitude = std::fabs(value);
    int binade = 0;
    std::frexp(magnitude, &binade); // magnitude = m * 2^binade with m in [0.5, 1)
    // Below the normal range the spacing stays that of the smallest binade: gradual underflow.
    int exponent = std::max(binade - 1, format.minNormalExponent);
    double quantum = std::ldexp(1.0, exponent - format.mantissaBits);
    double scaled = magnitude / quantum; // exact: division by a power of two
    double whole = std::floor(scaled);
    double fraction = scaled - whole;
    if (fraction > 0.5 || (fraction == 0.5 && std::fmod(whole, 2.0) != 0))
        whole += 1;
    double rounded = whole * quantum;
    // IEEE overflow: the result rounded with an unbounded exponent exceeds the largest finite value.
    if (rounded > format.maxFinite)
        rounded = format.hasInfinity ? std::numeric_limits<double>::infinity() : format.maxFinite;
    return std::copysign(rounded, value);
}

double roundToFormat(double value, const FloatFormat& format) {
    if (std::isnan(value) || value == 0)
        return value;
    if (std::isinf(value))
        return format.hasInfinity ? value : std::copysign(format.maxFinite, value);
    // The same computation as roundToFormatByFrexp with the binade read from the exponent bits (a
    // subnormal double reads as -1023, below every format's normal range, which is all that matters)
    // and the power-of-two scalings built from bits: no library calls but the rounding itself.
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    int exponent = std::max(static_cast<int>((bits >> 52) & 0x7ff) - 1023, format.minNormalExponent);
    int quantumExponent = exponent - format.mantissaBits;
    uint64_t quantumBits = static_cast<uint64_t>(quantumExponent + 1023) << 52;
    uint64_t inverseBits = static_cast<uint64_t>(1023 - quantumExponent) << 52;
    double quantum = 0, inverse = 0;
    std::memcpy(&quantum, &quantumBits, sizeof quantum);
    std::memcpy(&inverse, &inverseBits, sizeof inverse);
    // Ties to even without a library call: the scaled magnitude is below 2^25, so adding and removing
    // 2^52 in round-to-nearest-even double arithmetic rounds it to an integer.
    constexpr double kTwo52 = 4503599627370496.0;
    double scaled = std::fabs(value) * inverse;
    double rounded = ((scaled + kTwo52) - kTwo52) * quantum;
    if (rounded > format.maxFinite)
        rounded = format.hasInfinity ? std::numeric_limits<double>::infinity() : format.maxFinite;
    return std::copysign(rounded, value);
}

double roundToFloat16(double value) {
    return roundToFormat(value, kFloat16);
}
double roundToBFloat16(double value) {
    return roundToFormat(value, kBFloat16);
}
double roundToFloat8E4M3(double value) {
    return roundToFormat(value, kFloat8E4M3);
}
double roundToFloat8E5M2(double value) {
    return roundToFormat(value, kFloat8E5M2);
}

double largestBelowOne(ir::DType type) {
    if (type == ir::DType::Float64)
        return 1.0 - std::ldexp(1.0, -53);
    if (auto format = floatFormatOf(type))
        return 1.0 - std::ldexp(1.0, -(format->mantissaBits + 1));
    return 0;
}

uint16_t bfloat16Bits(double value) {
    if (std::isnan(value))
        return std::signbit(value) ? 0xffc0 : 0x7fc0;
    return uint16_t(std::bit_cast<uint32_t>(static_cast<float>(roundToBFloat16(value))) >> 16);
}

double bfloat16Value(uint16_t bits) {
    return std::bit_cast<float>(uint32_t(bits) << 16);
}

uint8_t float8Bits(double value, ir::DType type) {
    const bool e4m3 = type == ir::DType::Float8E4M3;
    const FloatFormat& format = e4m3 ? kFloat8E4M3 : kFloat8E5M2;
    const int mbits = format.mantissaBits, minExp = format.minNormalExponent, bias = 1 - minExp;
    const uint8_t sign = std::signbit(value) ? 0x80 : 0;
    if (std::isnan(value))
        return uint8_t(sign | (e4m3 ? 0x7F : 0x7E));
    const double a = std::fabs(roundToFormat(value, format));
    if (std::isinf(a))
        return uint8_t(sign | 0x7C);
    if (a == 0)
        return sign;
    const int e = std::ilogb(a);
    if (e < minExp)
        return uint8_t(sign | unsigned(std::ldexp(a, mbits - minExp)));
    const unsigned mant = unsigned(std::ldexp(a, mbits - e)) - (1u << mbits);
    return uint8_t(sign | (unsigned(e + bias) << mbits) | mant);
}

double float8Value(uint8_t bits, ir::DType type) {
    const bool e4m3 = type == ir::DType::Float8E4M3;
    const FloatFormat& format = e4m3 ? kFloat8E4M3 : kFloat8E5M2;
    const int mbits = format.mantissaBits, bias = 1 - format.minNormalExponent;
    const double sign = (bits & 0x80) ? -1.0 : 1.0;
    const unsigned exp = unsigned(bits & 0x7F) >> mbits, mant = bits & ((1u << mbits) - 1);
    if (e4m3 && (bits & 0x7F) == 0x7F)
        return std::nan("");
    if (!e4m3 && exp == 0x1F)
        return mant ? std::nan("") : sign * std::numeric_limits<double>::infinity();
    if (exp == 0)
        return sign * std::ldexp(double(mant), 1 - bias - mbits);
    return sign * std::ldexp(double(mant | (1u << mbits)), int(exp) - bias - mbits);
}

} // namespace tb
