// Host-side encoding of the values `fill` writes into device buffers: the element size of each protocol
// dtype, float -> f16/bf16 bit patterns with round-to-nearest-even, and the seeded generator whose formula
// docs/runner-protocol.md documents (so a client can reproduce a seeded fill).
#pragma once

#include <cstdint>
#include <string>

namespace tb::runner {

// Bytes per element of a protocol dtype (f32 f16 bf16 f64 i32 u32 i64 i8 u8); 0 for an unknown name.
int dtypeBytes(const std::string& dtype);
bool isFloatDtype(const std::string& dtype);

// IEEE binary16 / bfloat16 bits of a float, round-to-nearest-even (overflow to inf, subnormals kept).
uint16_t toHalfBits(float f);
uint16_t toBFloat16Bits(float f);

// Writes `v` as one element of `dtype` at `dst` (dtypeBytes(dtype) bytes). Integers truncate toward zero.
void storeValue(const std::string& dtype, double v, char* dst);

// The deterministic generator of `fill ... seed=S`.
uint64_t splitMix64(uint64_t x);

} // namespace tb::runner
