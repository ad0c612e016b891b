// The functions JIT-compiled kernels call by name (tbjit_*): libm math through wrappers that call exactly
// what the interpreter calls (so LLVM cannot recognize and substitute them), the rare slow paths of the
// interpreter's numerics, and the float gemm kernel (FloatGemm.h). No LLVM here.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tb::jit {

// (symbol name, address) of every runtime function.
std::vector<std::pair<std::string, void*>> runtimeSymbols();

} // namespace tb::jit
