// Shared helpers of the naive references: specialization lookup, parameter checks, output tensors.
#include "engine/reference/ReferenceSupport.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <thread>
#include <variant>
#include <vector>

namespace tb::reference {

namespace {

const ir::SpecializationParam* findSpec(const ir::Module& module, std::string_view name) {
    for (const ir::SpecializationParam& p : module.specialization)
        if (p.name == name)
            return &p;
    return nullptr;
}

const ir::PrimFunc* invokedFunc(const ReferenceInvocation& invocation) {
    if (invocation.func)
        return invocation.func;
    return invocation.module.funcs.empty() ? nullptr : &invocation.module.funcs.front();
}

} // namespace

std::optional<int64_t> specInt(const ir::Module& module, std::string_view name) {
    const ir::SpecializationParam* p = findSpec(module, name);
    if (!p)
        return std::nullopt;
    if (const auto* i = std::get_if<int64_t>(&p->value))
        return *i;
    if (const auto* b = std::get_if<bool>(&p->value))
        return *b ? 1 : 0;
    return std::nullopt;
}

std::optional<bool> specBool(const ir::Module& module, std::string_view name) {
    const ir::SpecializationParam* p = findSpec(module, name);
    if (!p)
        return std::nullopt;
    if (const auto* b = std::get_if<bool>(&p->value))
        return *b;
    if (const auto* i = std::get_if<int64_t>(&p->value))
        return *i != 0;
    return std::nullopt;
}

std::optional<double> specDouble(const ir::Module& module, std::string_view name) {
    const ir::SpecializationParam* p = findSpec(module, name);
    if (!p)
        return std::nullopt;
    if (const auto* d = std::get_if<double>(&p->value))
        return *d;
    if (const auto* i = std::get_if<int64_t>(&p->value))
        return static_cast<double>(*i);
    return std::nullopt;
}

std::string shapeText(const std::vector<int64_t>& shape) {
    std::ostringstream out;
    out << '[';
    for (size_t i = 0; i < shape.size(); ++i)
        out << (i ? ", " : "") << shape[i];
    out << ']';
    return out.str();
}

bool expectParamCount(const ReferenceInvocation& invocation, size_t count, std::string_view what,
                      std::string& error) {
    if (invocation.params.size() == count)
        return true;
    error = "expected " + std::to_string(count) + " parameters (" + std::string(what) + "), got " +
            std::to_string(invocation.params.size());
    return false;
}

bool expectShape(const ReferenceInvocation& invocation, int index, const std::vector<int64_t>& shape,
                 std::string& error) {
    const HostTensor& t = invocation.params[index];
    if (t.shape == shape)
        return true;
    error = "parameter '" + t.name + "' (" + std::to_string(index) + ") has shape " + shapeText(t.shape) +
            ", expected " + shapeText(shape);
    return false;
}

bool expectRank(const ReferenceInvocation& invocation, int index, size_t rank, std::string& error) {
    const HostTensor& t = invocation.params[index];
    if (t.shape.size() == rank)
        return true;
    error = "parameter '" + t.name + "' (" + std::to_string(index) + ") has rank " +
            std::to_string(t.shape.size()) + ", expected " + std::to_string(rank);
    return false;
}

bool expectOutputMarked(const ReferenceInvocation& invocation, int primaryOutput, std::string& error) {
    const ir::PrimFunc* func = invokedFunc(invocation);
    if (!func)
        return true;
    bool anyMarked = false;
    for (const ir::Buffer* b : func->params) {
        if (!b || !b->isOutput)
            continue;
        anyMarked = true;
        if (b->paramIndex == primaryOutput)
            return true;
    }
    if (!anyMarked)
        return true;
    error = "the program marks other outputs than parameter " + std::to_string(primaryOutput) +
            ", which this reference computes";
    return false;
}

HostTensor likeParam(const ReferenceInvocation& invocation, int index) {
    const HostTensor& p = invocation.params[index];
    return HostTensor(p.name, p.dtype, p.shape);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TILEBENCH_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TILEBENCH_VECTOR_CLONES
#endif

TILEBENCH_VECTOR_CLONES
void expRow(const double* __restrict x, double* __restrict out, int64_t n) {
    // exp(x) = 2^k exp(t): k = round(x / ln2) (adding 1.5 * 2^52 rounds to an integer and leaves it in the
    // low mantissa bits), t = x - k ln2 with ln2 split in two (k * ln2_hi is exact), exp(t) for
    // |t| <= 0.347 by Taylor's series to t^12. Branch-free, so that it vectorizes; the arguments outside
    // [-700, 700] (and NaN), whose results the first loop gets wrong, are redone with libm below.
    constexpr double kShift = 6755399441055744.0; // 1.5 * 2^52
    constexpr double kCoefficients[13] = {
        1.0,        1.0,         1.0 / 2,      1.0 / 6,       1.0 / 24,       1.0 / 120,      1.0 / 720,
        1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600};
    for (int64_t j = 0; j < n; ++j) { // no clamp: a branch would stop the vectorizer; see below
        const double shifted = x[j] * 1.4426950408889634 + kShift;
        const double k = shifted - kShift;
        const double t = (x[j] - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
        double p = kCoefficients[12];
        for (int i = 11; i >= 0; --i)
            p = p * t + kCoefficients[i];
        const int64_t exponent = std::bit_cast<int64_t>(shifted) - std::bit_cast<int64_t>(kShift);
        out[j] = p * std::bit_cast<double>((exponent + 1023) << 52);
    }
    for (int64_t j = 0; j < n; ++j)
        if (!(std::fabs(x[j]) <= 700.0))
            out[j] = std::exp(x[j]);
}

TILEBENCH_VECTOR_CLONES
void addScaledRows(double* const* rows, const double* coefficients, int64_t rowCount, const double* x,
                   int64_t n) {
    if (rowCount == 4) {
        double* __restrict r0 = rows[0];
        double* __restrict r1 = rows[1];
        double* __restrict r2 = rows[2];
        double* __restrict r3 = rows[3];
        const double c0 = coefficients[0], c1 = coefficients[1], c2 = coefficients[2], c3 = coefficients[3];
        for (int64_t j = 0; j < n; ++j) {
            const double v = x[j];
            r0[j] += c0 * v;
            r1[j] += c1 * v;
            r2[j] += c2 * v;
            r3[j] += c3 * v;
        }
        return;
    }
    for (int64_t r = 0; r < rowCount; ++r) {
        double* __restrict row = rows[r];
        const double c = coefficients[r];
        for (int64_t j = 0; j < n; ++j)
            row[j] += c * x[j];
    }
}

void parallelRanges(int64_t count, const std::function<void(int64_t, int64_t)>& fn) {
    int64_t threads = std::max<int64_t>(1, std::thread::hardware_concurrency());
    threads = std::min(threads, count);
    if (threads <= 1) {
        if (count > 0)
            fn(0, count);
        return;
    }
    std::vector<std::thread> workers;
    for (int64_t t = 0; t < threads; ++t)
        workers.emplace_back([&, t] { fn(count * t / threads, count * (t + 1) / threads); });
    for (std::thread& w : workers)
        w.join();
}

} // namespace tb::reference
