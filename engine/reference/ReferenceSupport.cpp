// Shared helpers of the naive references: specialization lookup, parameter checks, output tensors.
#include "engine/reference/ReferenceSupport.h"

#include <algorithm>
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
