// The single-precision T.gemm of JIT-compiled kernels, compiled ahead of time: C = (clear ? 0 : C) +
// op(A) op(B) over float arrays, every C element summing its products in k order and rounding after each
// multiply and each add, exactly as the interpreter's gemm (Executor.cpp) does. The JIT lowers a float
// gemm to one call of `tbjit_gemm_f32` on float views of its tiles (GemmReduceLowering.cpp) instead of
// generating the register-blocked loops itself: they were half of the LLVM compile time of a GEMM
// program, and a kernel built here for each instruction set runs at least as fast. No LLVM here.
#pragma once

#include <cstdint>

namespace tb::jit {

// A float matrix: element (i, j) at data[i * rowStride + j * colStride].
struct FloatMatrixView {
    float* data = nullptr;
    int64_t rowStride = 0;
    int64_t colStride = 0;

    float& at(int64_t i, int64_t j) const { return data[i * rowStride + j * colStride]; }
};

struct FloatGemm {
    FloatMatrixView a; // op(A): m x k (a transposed operand is a view with swapped strides)
    FloatMatrixView b; // op(B): k x n
    FloatMatrixView c; // C: m x n; must not overlap A or B
    int64_t m = 0, n = 0, k = 0;
    bool clear = false; // start every sum from 0 instead of C
    // Every product is exact in float (fp16, fp8, 8-bit integer operands): a fused multiply-add then
    // rounds exactly as the multiply and add do, and the kernels may use one.
    bool exactProducts = false;
};

// The kernels, widest first; `Portable` runs everywhere (4-float vectors: SSE2 on x86-64, NEON on ARM).
enum class FloatGemmIsa { Avx512, Avx2, Portable };

// The widest kernel the host CPU runs.
FloatGemmIsa hostFloatGemmIsa();
bool floatGemmIsaAvailable(FloatGemmIsa isa);
const char* floatGemmIsaName(FloatGemmIsa isa);

// Runs the gemm with the host's kernel, or with `isa` (which must be available).
void runFloatGemm(const FloatGemm& gemm);
void runFloatGemm(const FloatGemm& gemm, FloatGemmIsa isa);

} // namespace tb::jit

// The symbol JIT-compiled code calls (JitRuntime.cpp registers it): runFloatGemm on these fields, `flags`
// bit 0 for `clear` and bit 1 for `exactProducts`.
extern "C" void tbjit_gemm_f32(float* a, int64_t aRowStride, int64_t aColStride, float* b, int64_t bRowStride,
                               int64_t bColStride, float* c, int64_t cRowStride, int64_t cColStride,
                               int64_t m, int64_t n, int64_t k, int64_t flags);
