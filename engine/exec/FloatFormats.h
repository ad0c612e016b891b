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

#include <cstdint>
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

// The byte of a float8 value (e4m3fn or e5m2; the value is rounded to the format first) and back: the
// encodings the GPU stores (e4m3fn: bias 7, NaN 0x7F; e5m2: bias 15, inf 0x7C, NaN 0x7E).
uint8_t float8Bits(double value, ir::DType type);
double float8Value(uint8_t bits, ir::DType type);

// The largest value below 1.0 that the dtype represents (1 - 2^-(mantissa+1)); 0 for integers and bool.
double largestBelowOne(ir::DType type);

} // namespace tb
