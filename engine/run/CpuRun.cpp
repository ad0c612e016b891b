// CPU runs checked against the naive reference; see CpuRun.h.
#include "engine/run/CpuRun.h"

#include "engine/exec/Executor.h"
#include "engine/ir/IrQueries.h"
#include "engine/reference/Reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

namespace tb::run {

namespace {

OutputStatistics statisticsOf(const HostTensor& t) {
    OutputStatistics s;
    s.name = t.name;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    for (double v : t.data) {
        if (std::isnan(v)) {
            ++s.nans;
            continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
    }
    const int64_t n = int64_t(t.data.size()) - s.nans;
    if (n > 0) {
        s.min = lo;
        s.max = hi;
        s.mean = sum / double(n);
    }
    return s;
}

} // namespace

CpuRunResult runOnCpu(const CompileResult& result, const CpuRunOptions& options) {
    CpuRunResult out;
    if (!result.module || result.module->funcs.empty() || result.diagnostics.hasErrors()) {
        out.error = result.module && result.module->funcs.empty() ? "the program defines no prim_func to run"
                                                                  : "the program does not compile";
        return out;
    }
    const ir::Module& module = *result.module;
    const ir::PrimFunc& func = module.funcs.front();
    out.funcName = func.name;
    std::map<std::string, int64_t> dims = options.dims;
    for (const ir::Var* v : func.dynamicDims)
        dims.emplace(v->name, 256);
    DiagnosticEngine diags;
    std::vector<HostTensor> params = allocateParams(func, dims, options.seed, diags, {}, true, options.fills);
    ProgramExecutionOptions execution;
    execution.backend = options.backend;
    ExecutionLog log;
    auto start = std::chrono::steady_clock::now();
    bool ran = !diags.hasErrors() &&
               executeProgram(module, func, params, dims, diags, execution, &log, &out.execution);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!ran) {
        out.error = formatDiagnostics(result.sources, diags.diagnostics());
        return out;
    }
    out.executed = true;
    out.prints = std::move(log.prints);
    auto directive = referenceDirective(result.sources.file(result.file).text());
    const Reference* reference = directive ? findReference(*directive) : nullptr;
    if (!reference) {
        out.error = directive ? "unknown reference '" + *directive + "'"
                              : "no naive reference for this program (add '# tilebench-reference: NAME')";
        const std::vector<bool> produced = ir::producedParams(func);
        for (size_t k = 0; k < func.params.size(); ++k)
            if (produced[k])
                out.statistics.push_back(statisticsOf(params[size_t(func.params[k]->paramIndex)]));
        return out;
    }
    out.reference = reference->name;
    std::map<int, HostTensor> expected;
    std::string error;
    if (!reference->compute(ReferenceInvocation{params, module, &func}, expected, error)) {
        out.error = "reference '" + reference->name + "' cannot check this program: " + error;
        return out;
    }
    out.checked = true;
    out.ok = true;
    for (const auto& [index, want] : expected) {
        const HostTensor& got = params.at(size_t(index));
        CpuOutputCheck check;
        check.name = got.name;
        check.atol = reference->atol;
        check.rtol = reference->rtol;
        check.comparison = compareTensors(got, want, reference->atol, reference->rtol);
        out.ok = out.ok && check.comparison.ok();
        out.outputs.push_back(std::move(check));
    }
    return out;
}

} // namespace tb::run
