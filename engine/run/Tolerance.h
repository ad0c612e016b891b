// How closely a GPU output must agree with the CPU oracle. The GPU does not round the way the oracle does:
// NVRTC contracts a * b + c into one fused multiply-add (TileLang's kernels are compiled the same way), and
// exp2 is MUFU's approximation. Each such difference is a float32 ulp or so, but a value then stored into a
// bfloat16 fragment can land on the other side of a bfloat16 rounding step: one bfloat16 ulp, carried into
// a float32 output. So an output is checked at the precision of the least precise place the kernel rounds a
// computed value into, not only at its own dtype's.
#pragma once

#include "engine/ir/DType.h"
#include "engine/ir/Module.h"

#include <string>

namespace tb::run {

struct OutputTolerance {
    double atol = 0;
    double rtol = 0;
    // The buffer whose dtype set the tolerance: the output itself, or an intermediate that rounds values on
    // their way to it ("C_f (bfloat16)").
    std::string setBy;
};

// Tolerances used for a dtype: float16 1e-2/1e-2, bfloat16 3e-2/3e-2, float8 1.25e-1, float32 1e-4/1e-3,
// integers exact.
void toleranceFor(ir::DType type, double& atol, double& rtol);

// The tolerance of `output` in `func`: the loosest of its own dtype's and those of the buffers into which
// the kernel rounds computed values (stores, reductions and gemm accumulators, copies that change the
// dtype). The accumulator of a float8 gemm counts as 3e-2/3e-2 whatever its dtype: float8 tensor cores keep
// about 13 mantissa bits while they accumulate ("C_local (float32 accumulator of float8 tensor cores)"). A
// copy that keeps the dtype rounds nothing; an input is exact on both sides. Every such buffer counts for
// every output: a value may flow from any of them to any output, and a tighter per-output data flow would buy
// little on tile programs, which round through a handful of fragments.
OutputTolerance outputTolerance(const ir::PrimFunc& func, const ir::Buffer& output);

} // namespace tb::run
