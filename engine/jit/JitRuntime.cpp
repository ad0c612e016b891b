// Runtime functions of JIT-compiled kernels. Each math wrapper is the interpreter's expression for the
// intrinsic (Executor.cpp's evalCall), so both backends call the same libm entry with the same argument.
#include "engine/jit/JitRuntime.h"

#include "engine/exec/FloatFormats.h"
#include "engine/exec/HostTensor.h"
#include "engine/jit/FloatGemm.h"

#include <cmath>
#include <cstdint>

namespace {

extern "C" {
double tbjit_exp(double x) {
    return std::exp(x);
}
double tbjit_exp2(double x) {
    return std::exp2(x);
}
// T.exp and T.exp2 of float32 dtype: the interpreter's value rounded to float (VectorExp.h).
double tbjit_exp_f32(double x) {
    return static_cast<float>(std::exp(x));
}
double tbjit_exp2_f32(double x) {
    return static_cast<float>(std::exp2(x));
}
double tbjit_log(double x) {
    return std::log(x);
}
double tbjit_log2(double x) {
    return std::log2(x);
}
double tbjit_log10(double x) {
    return std::log10(x);
}
double tbjit_tanh(double x) {
    return std::tanh(x);
}
double tbjit_sin(double x) {
    return std::sin(x);
}
double tbjit_cos(double x) {
    return std::cos(x);
}
double tbjit_erf(double x) {
    return std::erf(x);
}
double tbjit_pow(double x, double y) {
    return std::pow(x, y);
}
int64_t tbjit_storedToInteger(double x) {
    return tb::storedToInteger(x);
}
// The byte a global float8 tensor stores for a value (already rounded to the format): `e4m3` nonzero for
// float8_e4m3, else float8_e5m2.
int64_t tbjit_float8Bits(double x, int64_t e4m3) {
    return tb::float8Bits(x, e4m3 ? tb::ir::DType::Float8E4M3 : tb::ir::DType::Float8E5M2);
}

// Integer power as the interpreter computes it (before wrapping to the dtype).
int64_t tbjit_ipow(int64_t a, int64_t b) {
    if (b < 0) // 1/x^n truncates to 0 except for |x| = 1
        return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
    uint64_t result = 1, base = static_cast<uint64_t>(a);
    for (uint64_t n = static_cast<uint64_t>(b); n; n >>= 1) {
        if (n & 1)
            result *= base;
        base *= base;
    }
    return static_cast<int64_t>(result);
}
}

} // namespace

namespace tb::jit {

std::vector<std::pair<std::string, void*>> runtimeSymbols() {
    return {
        {"tbjit_exp", reinterpret_cast<void*>(&tbjit_exp)},
        {"tbjit_exp2", reinterpret_cast<void*>(&tbjit_exp2)},
        {"tbjit_exp_f32", reinterpret_cast<void*>(&tbjit_exp_f32)},
        {"tbjit_exp2_f32", reinterpret_cast<void*>(&tbjit_exp2_f32)},
        {"tbjit_log", reinterpret_cast<void*>(&tbjit_log)},
        {"tbjit_log2", reinterpret_cast<void*>(&tbjit_log2)},
        {"tbjit_log10", reinterpret_cast<void*>(&tbjit_log10)},
        {"tbjit_tanh", reinterpret_cast<void*>(&tbjit_tanh)},
        {"tbjit_sin", reinterpret_cast<void*>(&tbjit_sin)},
        {"tbjit_cos", reinterpret_cast<void*>(&tbjit_cos)},
        {"tbjit_erf", reinterpret_cast<void*>(&tbjit_erf)},
        {"tbjit_pow", reinterpret_cast<void*>(&tbjit_pow)},
        {"tbjit_storedToInteger", reinterpret_cast<void*>(&tbjit_storedToInteger)},
        {"tbjit_ipow", reinterpret_cast<void*>(&tbjit_ipow)},
        {"tbjit_float8Bits", reinterpret_cast<void*>(&tbjit_float8Bits)},
        {"tbjit_gemm_f32", reinterpret_cast<void*>(&tbjit_gemm_f32)},
    };
}

} // namespace tb::jit
