// The CPU reference executor: runs a Tile IR PrimFunc with its tile-level meaning on host tensors. It is
// the oracle every GPU backend is checked against, so it favours obviously-right over clever.
//
// Model. Kernel statements run one after another. Inside a kernel the blocks run one after another over
// the whole grid (blockIdx.x fastest, then y, then z); each block's tile-level code runs once, as if by one
// thread that sees the whole tile. Every block gets fresh shared, fragment, local and local.var buffers:
// TileLang leaves them uninitialized, so floating-point ones are filled with NaN (integer ones with their
// dtype's minimum, unsigned ones with their maximum, bool with 0) so that a read before a write shows up
// in the results; a local.var with init= starts at its init. T.alloc_global workspaces are zero-filled
// once per execution and persist across kernels.
//
// Grid barriers. A kernel with a T.sync_grid runs phase by phase: every block runs up to the barrier, then
// every block runs from it to the next, each block keeping its own shared, fragment, local and local.var
// buffers and vars across the barrier. A loop or branch around a barrier must take the same path in every
// block ("grid-sync-divergent" otherwise: on the GPU the grid would deadlock). Such a kernel is never
// sampled (blockSample does not apply): its blocks depend on each other.
//
// T.ws scopes and mbarriers. Each block's mbarriers count phases and arrivals (an arrive in a T.ws scope
// counts all its threads, one outside as the block's). Consecutive scopes that run concurrently on the GPU
// (ir::concurrentWarpGroupRun) run as cooperating scopes, one at a time: a scope runs until an mbarrier wait
// whose phase has not completed, then the next one that can run, round robin; every unfinished scope
// waiting is "execution-mbarrier-deadlock". Elsewhere statements run in program order and waits pass
// (docs/warp-specialization.md, "On the CPU").
//
// Tile ops. Copy pairs the non-unit extents of src and dst in order and converts each element to dst's
// dtype; out-of-bounds global reads give 0 and out-of-bounds global writes are skipped (TileLang's copy
// bound guards), while any out-of-bounds access to a non-global buffer is a "runtime-out-of-bounds" error.
// Gemm: C = (clear_accum ? 0 : C) + op(A) @ op(B) over the last two dims, products and the running sum in
// single precision for float8/float16/bfloat16/float32 inputs (double for float64, int64 for integer
// inputs, i.e. int32 wrap-around for an int32 C), summed over k in order, rounded once to C's dtype.
// Reduce accumulates in double (int64 for integer buffers) and rounds once to dst's dtype; clear=False
// combines with the existing dst (sum: dst + r, max: max(dst, r), ...); max/min ignore NaN like fmaxf
// and order -0.0 below +0.0 (IEEE 754-2019 minimumNumber/maximumNumber).
// Fill and AtomicAdd convert and round to dst's dtype. Loops of every kind run their iterations in order;
// layout annotations and swizzles do not change results. T.print output goes to ExecutionLog::prints.
//
// Scalars. Integer arithmetic is done in 64 bits and wrapped to the node's dtype (Div truncates,
// FloorDiv/FloorMod floor, division by zero is "runtime-division-by-zero"); float arithmetic and
// intrinsics are computed in double and rounded to the node's dtype after every operation; casts follow
// convertValue (float -> int truncates and saturates). Select, `and` and `or` evaluate lazily.
#pragma once

#include "engine/exec/HostTensor.h"
#include "engine/exec/InputFill.h"
#include "engine/ir/Module.h"
#include "engine/support/Diagnostics.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tb {

struct ExecutionLimits {
    // Statements executed plus elements touched by tile ops plus gemm multiply-adds. Past it the run stops
    // with "execution-limit" instead of hanging.
    int64_t maxSteps = int64_t(1) << 32;
    // Largest element count of any one buffer (parameters included).
    int64_t maxBufferElements = int64_t(1) << 28;
    // Deepest nesting of statements plus expressions.
    int maxDepth = 2000;
    // When a kernel has more blocks than this (and it is not 0), only this many run: a sampled check of a
    // problem too large to execute whole. The blocks run are sampledBlocks(grid size, this). A kernel with
    // a grid barrier runs every block regardless.
    int64_t blockSample = 0;
};

// `samples` block indices spread evenly over [0, blocks), the first and the last included, in order; all of
// them when samples is 0 or not smaller than blocks.
std::vector<int64_t> sampledBlocks(int64_t blocks, int64_t samples);

struct ExecutionLog {
    std::vector<std::string> prints; // one entry per executed T.print, in execution order
    int64_t steps = 0;               // as counted against ExecutionLimits::maxSteps
};

// What an uninitialized on-chip buffer holds (shared, fragment, local): NaN for floats, the most negative
// value for signed integers, all ones for unsigned ones, so that a read before a write shows. The JIT fills
// its buffers with the same values.
double uninitializedValue(ir::DType type);

// Runs `func` on `params` (one tensor per PrimFunc parameter, in order, with the parameter's dtype and
// shape), writing outputs in place. Dynamic dims are looked up by var name. Returns false after reporting
// an error diagnostic; params may then be partly written.
bool executePrimFunc(const ir::Module& module, const ir::PrimFunc& func, std::vector<HostTensor>& params,
                     const std::map<std::string, int64_t>& dynamicDims, DiagnosticEngine& diags,
                     const ExecutionLimits& limits = {}, ExecutionLog* log = nullptr);

// One tensor per parameter with the parameter's name, dtype and shape (dynamic dims from the map):
// outputs (Buffer::isOutput) zero-filled, inputs filled by fillRandom(tensor, seed) unless `fillInputs` is
// false (then zero too). Returns an empty vector after reporting an error when a shape cannot be evaluated.
std::vector<HostTensor> allocateParams(const ir::PrimFunc& func,
                                       const std::map<std::string, int64_t>& dynamicDims, uint64_t seed,
                                       DiagnosticEngine& diags, const ExecutionLimits& limits = {},
                                       bool fillInputs = true, const InputFills& fills = {});

} // namespace tb
