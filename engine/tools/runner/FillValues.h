// Host-side encoding of the values `fill` writes into device buffers: the element size of each protocol
// dtype, float -> f16/bf16 bit patterns with round-to-nearest-even, and the seeded generator whose formula
// docs/runner-protocol.md documents (so a client can reproduce a seeded fill).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tb::runner {

// The element types of `fill` (f32 f16 bf16 f64 i32 u32 i64 i8 u8).
enum class FillDtype { F32, F16, BF16, F64, I32, U32, I64, I8, U8 };

// nullopt for a name that is not a protocol dtype.
std::optional<FillDtype> parseFillDtype(const std::string& name);
int dtypeBytes(FillDtype dtype);
bool isFloatDtype(FillDtype dtype);

// IEEE binary16 / bfloat16 bits of a float, round-to-nearest-even (overflow to inf, subnormals kept).
uint16_t toHalfBits(float f);
uint16_t toBFloat16Bits(float f);

// The deterministic generator of `fill ... seed=S`.
uint64_t splitMix64(uint64_t x);

// What one `fill` request asks for: exactly one of a seeded uniform range, a constant, or 0, 1, 2, ...
struct FillSpec {
    enum class Mode { Seed, Value, Iota };
    Mode mode = Mode::Value;
    uint64_t seed = 0;
    double lo = -1.0, hi = 1.0; // seeded values lie in [lo, hi); integer dtypes take the floor
    double value = 0;
};

// Writes elements 0 .. count-1 of the fill at `dst` (count * dtypeBytes(dtype) bytes). Element i is
// documented in docs/runner-protocol.md; floats round through float (f16, bf16, f32), integers truncate
// toward zero.
void fillValues(FillDtype dtype, const FillSpec& spec, size_t count, char* dst);

} // namespace tb::runner
