// One handler per primitive (private to engine/elaborate). TileLang's kernel vocabulary (T.copy, T.gemm,
// T.Parallel, ...), its layout constructors (tilelang.layout.make_swizzled_layout, ...) and the host builtins
// the elaborator models (len, math.ceil, argparse, torch constructors, ...) are each a function from a call
// to a value, registered by name in the table of its family's file:
//   TileLoops.cpp      T.Kernel, tile loops, thread bindings, @T.prim_func / @T.macro used as calls
//   TileMemory.cpp     allocations, T.copy, T.fill / T.clear, T.atomic_add
//   TileCompute.cpp    T.gemm, reductions
//   TileMath.cpp       element math, casts, min/max, integer division helpers, dtype limits
//   TileLayouts.cpp    layout constructors, T.annotate_layout, T.use_swizzle, T.print, scheduling hints
//   TileTypes.cpp      T.Tensor, T.dynamic, T.const, T.empty, T.dtype
//   TileSynchronization.cpp  T.ws, T.alloc_barrier, the mbarrier operations, T.tma_copy, T.sync_grid
//   TileAsyncCopy.cpp  T.access_ptr, T.ptx_cp_async
//   TileScans.cpp      T.cumsum
//   TileIntrinsics.cpp tilelang.intrinsics: get_swizzle_layout, TensorCoreIntrinEmitter and its methods
//   TileIm2col.cpp     T.im2col (T.c2d_im2col)
//   HostBuiltins.cpp   Python builtins (range, len, int, min, sorted, ...)
//   HostMath.cpp       the math module
//   HostMethods.cpp    methods of str, list, tuple, dict, int and float
//   HostLibraries.cpp  argparse, tilelang's host side (jit, compile, autotune, get_num_sms), functools
//   HostTensors.cpp    torch (and fla's l2norm_fwd): tensors as shape, dtype and device (HostTensors.h)
//   HostClasses.cpp    classes in host code, torch.autograd.Function.apply
// Interpreter::callTileOp and Interpreter::callHostBuiltin (PrimitiveTable.cpp) look names up in these
// tables. Adding a primitive is one handler and one table row.
#pragma once

#include "engine/elaborate/Interpreter.h"

#include <cstddef>
#include <span>
#include <string>

namespace tb::elab {

// One call of a primitive, as the handler sees it.
struct PrimitiveCall {
    const std::string& name; // as called: "T.copy", "layout.make_swizzled_layout", "builtins.len"
    const std::string& op;   // the part after the namespace: "copy", "make_swizzled_layout", "len"
    const Value* self;       // a method's receiver (the list of list.append), else null
    CallArgs& args;
    SourceRange range; // the whole call

    // The range of positional argument k, or the call's.
    SourceRange at(size_t k) const {
        return k < args.positionalRanges.size() ? args.positionalRanges[k] : range;
    }
};

using PrimitiveHandler = Value (*)(Interpreter& in, PrimitiveCall& call);

// A table row. Tile rows are named without their namespace ("copy"); host rows by their full name
// ("builtins.len"), and a host row whose name ends with '.' ("builtins.") handles every name with that
// prefix that no other row names.
struct PrimitiveRow {
    const char* name;
    PrimitiveHandler handler;
};

// The families, one table per file. T.<op> looks in the tile tables, tilelang.layout.<op> in
// layoutModulePrimitives.
std::span<const PrimitiveRow> loopAndKernelPrimitives();
std::span<const PrimitiveRow> memoryPrimitives();
std::span<const PrimitiveRow> computePrimitives();
std::span<const PrimitiveRow> elementMathPrimitives();
std::span<const PrimitiveRow> layoutPrimitives();
std::span<const PrimitiveRow> layoutModulePrimitives();
std::span<const PrimitiveRow> typePrimitives();
std::span<const PrimitiveRow> synchronizationPrimitives();
std::span<const PrimitiveRow> asyncCopyPrimitives();
std::span<const PrimitiveRow> scanPrimitives();
std::span<const PrimitiveRow> im2colPrimitives();
std::span<const PrimitiveRow> pythonBuiltins();
std::span<const PrimitiveRow> mathModule();
std::span<const PrimitiveRow> valueMethods();
std::span<const PrimitiveRow> hostLibraries();
std::span<const PrimitiveRow> torchTensors();
std::span<const PrimitiveRow> hostClasses();
std::span<const PrimitiveRow> intrinsicsModule();

// Shared argument checks of host builtins.
// Reports wrong-arguments unless lo <= positional count <= hi.
bool requirePositionalCount(Interpreter& in, const PrimitiveCall& call, size_t lo, size_t hi);
// Positional argument k as a double, if it is a number.
bool numberArg(const PrimitiveCall& call, size_t k, double& out);

} // namespace tb::elab
