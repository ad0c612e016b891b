// The small device-side library every generated translation unit starts with, emitted inline as text so the
// source is self-contained: NVRTC compiles it without include paths (no CUTLASS, CuTe, CCCL or cuda_fp16.h).
// fp16/bf16 are 16-bit structs converted with PTX cvt; cp.async, ldmatrix and mma.sync are inline PTX.
#pragma once

#include "engine/ir/DType.h"

#include <string>

namespace tb::codegen {

// The header text (ends with a blank line). Every helper is `static __device__ __forceinline__` and named
// tb_*, so it cannot collide with names from a tile program.
const char* cudaDeviceHeader();

// float8 e4m3 (TileLang's float8_e4m3fn) and e5m2 <-> fp32, emitted after the header only where a kernel uses
// them: round to nearest even with subnormals, e4m3 saturating at +-448 and e5m2 overflowing to +-inf,
// exactly as the CPU executor rounds (engine/exec/FloatFormats.h). Software conversions, so sm_80 has them.
const char* cudaFloat8Header();

// The program's own cp.async (T.ptx_cp_async: tb_cp_async_4/8 through L1, the header's tb_cp_async_16 and
// tb_cp_async_16_fill bypassing it, and 4/8-byte zero-filling forms) and the noinc mbarrier arrive
// (T.cp_async_barrier_noinc), emitted after the header only where a kernel uses them.
const char* cudaCpAsyncHeader();

// The header's rounding of a float expression to dtype `t`'s grid (tb_round_f16, tb_round_bf16,
// tb_round_e4m3, tb_round_e5m2): how a value narrower than float32 stays what its type can hold while
// registers keep it as float. Other types: `value` itself.
std::string roundedTo(ir::DType t, const std::string& value);

} // namespace tb::codegen
