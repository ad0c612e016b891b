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

// The grid barrier of T.sync_grid (tb_grid_sync), emitted after the header only where a kernel has one. A
// kernel that calls it is launched cooperatively (cuLaunchCooperativeKernel), which guarantees that every
// block of the grid is resident at once; the barrier itself needs no CUDA header: cooperative_groups'
// grid.sync() algorithm (one arrival word whose top bit flips when the last block arrives) on a __device__
// word of the translation unit, with release/acquire atomics at GPU scope.
const char* cudaGridSyncHeader();
// mma.sync m16n8k32 with float8 operands (e4m3fn or e5m2, mixed pairs too) and fp32 accumulators, which
// exists from sm_89 on: its helper's name for one (A, B) pair ("tb_mma_e4m3_e5m2") and its definition,
// emitted after the float8 header only for kernels that issue it (so sm_80 units never see the instruction).
std::string float8MmaFunction(ir::DType a, ir::DType b);
std::string float8MmaDefinition(ir::DType a, ir::DType b);
// The program's own cp.async (T.ptx_cp_async: tb_cp_async_4/8 through L1, the header's tb_cp_async_16 and
// tb_cp_async_16_fill bypassing it, and 4/8-byte zero-filling forms) and the noinc mbarrier arrive
// (T.cp_async_barrier_noinc), emitted after the header only where a kernel uses them.
const char* cudaCpAsyncHeader();

// The header's rounding of a float expression to dtype `t`'s grid (tb_round_f16, tb_round_bf16,
// tb_round_e4m3, tb_round_e5m2): how a value narrower than float32 stays what its type can hold while
// registers keep it as float. Other types: `value` itself.
std::string roundedTo(ir::DType t, const std::string& value);

} // namespace tb::codegen
