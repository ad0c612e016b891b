// The small device-side library every generated translation unit starts with, emitted inline as text so the
// source is self-contained: NVRTC compiles it without include paths (no CUTLASS, CuTe, CCCL or cuda_fp16.h).
// fp16/bf16 are 16-bit structs converted with PTX cvt; cp.async, ldmatrix and mma.sync are inline PTX.
#pragma once

namespace tb::codegen {

// The header text (ends with a blank line). Every helper is `static __device__ __forceinline__` and named
// tb_*, so it cannot collide with names from a tile program.
const char* cudaDeviceHeader();

} // namespace tb::codegen
