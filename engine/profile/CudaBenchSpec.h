// Hand-written CUDA kernels as bench subjects: a `.cu` file whose comment directives say how to run it, so
// that `tilec bench/profile/sweep` work on real kernels before (and beside) the tile-program GPU path.
//
//   // tilebench-param: BLOCK=32                     default of a parameter (-p BLOCK=64 overrides)
//   // tilebench-kernel: transpose_${BLOCK}          the extern "C" kernel to run
//   // tilebench-buffer: in f32 1048576 seed=1      name, dtype, element count, init (seed=N | zero | iota)
//   // tilebench-launch: grid=32,32 block=32,8 smem=0 args=buf:in,buf:out,i32:1024
//   // tilebench-work: flops=0 bytes=8388608          counted work of one launch (for TFLOP/s and GB/s)
//   // tilebench-gemm: m=4096 n=4096 k=4096           the shape `--vs cublas` compares with
//   // tilebench-device-header: hopper wgmma=m64n256k16_f32_f16_ss
//        prepend TileBench's generated device header (the portable part; `hopper` adds the sm_90a part, with
//        the listed wgmma wrappers), so a hand-written kernel is built from the same primitives as generated
//        ones
//   // tilebench-tensormap: tA a dtype=f16 rank=2 dims=${K},${M} strides=${K}*2 box=64,128 swizzle=128B
//        a TMA tensor map over buffer `a` (the runner's `tensormap` fields; dims/strides/box may be
//        products), passed to the kernel as args=tmap:tA
//
// `${NAME}` is replaced by the parameter's value in every directive, and each parameter is also defined
// for the compiler (`#define NAME VALUE` before the source). Values of counts may be products (`1024*1024`).
#pragma once

#include "engine/gpu/TensorMapSpec.h"
#include "engine/support/Diagnostics.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tb::profile {

struct BenchBuffer {
    std::string name;
    std::string dtype; // a runner fill dtype: f32 f16 bf16 f64 i32 u32 i64 i8 u8
    uint64_t count = 0;
    std::string init; // "seed=N", "zero", "iota"
};

struct CudaBenchSpec {
    std::string source; // the #defines of the parameters, `#line 1`, then the file
    std::string kernel;
    std::vector<BenchBuffer> buffers;
    std::string launchFields; // grid=.. block=.. smem=.. args=..
    double flops = 0, bytes = 0;
    int gemmM = 0, gemmN = 0, gemmK = 0;
    std::vector<std::pair<std::string, gpu::TensorMapSpec>> tensorMaps; // (name, spec), created after buffers
    std::string
        deviceHeader; // the generated header text prepended to the source (empty without the directive)
    std::vector<std::pair<std::string, std::string>> params; // final values, sorted by name
};

// Bytes per element of a fill dtype; 0 for an unknown one.
int benchDtypeBytes(const std::string& dtype);

// Parses the directives of `text` with `overrides` applied. False after reporting (codes bench-*).
bool parseCudaBenchSpec(const std::string& text,
                        const std::vector<std::pair<std::string, std::string>>& overrides,
                        CudaBenchSpec& spec, DiagnosticEngine& diags);

} // namespace tb::profile
