// Same steps as `tilec run` on the CPU: allocate seeded inputs, execute, compute the reference, compare.
#include "app/CpuRun.h"

#include "engine/exec/Executor.h"
#include "engine/jit/ProgramExecution.h"
#include "engine/reference/Reference.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <utility>

namespace tb::app {

std::string CpuRunReport::summary() const {
    if (!executed)
        return "did not run: " + error;
    char buf[64];
    std::snprintf(buf, sizeof buf, " in %.2f s", seconds);
    if (!checked)
        return "ran on the CPU" + std::string(buf) + "; not checked: " + error;
    std::string s = std::string(ok ? "correct" : "WRONG RESULTS") + " against '" + reference + "'" + buf;
    for (const OutputCheck& o : outputs) {
        std::snprintf(buf, sizeof buf, "; %s max abs err %.3g", o.name.c_str(), o.maxAbsError);
        s += buf;
    }
    return s;
}

CpuRunReport runOnCpuReference(const views::ProgramAnalysis& analysis, uint64_t seed) {
    CpuRunReport report;
    if (!analysis.ok() || analysis.compile->module->funcs.empty()) {
        report.error = "the program does not compile";
        return report;
    }
    const ir::Module& module = *analysis.compile->module;
    const ir::PrimFunc& func = module.funcs.front();
    std::map<std::string, int64_t> dims;
    for (const ir::Var* v : func.dynamicDims)
        dims[v->name] = 256;
    DiagnosticEngine diags;
    std::vector<HostTensor> params = allocateParams(func, dims, seed, diags);
    auto start = std::chrono::steady_clock::now();
    bool ran = !diags.hasErrors() && executeProgram(module, func, params, dims, diags);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!ran) {
        report.error = formatDiagnostics(analysis.sources(), diags.diagnostics());
        return report;
    }
    report.executed = true;
    auto directive = referenceDirective(analysis.sources().file(analysis.compile->file).text());
    const Reference* reference = directive ? findReference(*directive) : nullptr;
    if (!reference) {
        report.error = directive ? "unknown reference '" + *directive + "'"
                                 : "no naive reference (add '# tilebench-reference: NAME')";
        return report;
    }
    report.reference = reference->name;
    std::map<int, HostTensor> expected;
    std::string error;
    if (!reference->compute(ReferenceInvocation{params, module, &func}, expected, error)) {
        report.error = "reference '" + reference->name + "' cannot check this program: " + error;
        return report;
    }
    report.checked = true;
    report.ok = true;
    for (const auto& [index, want] : expected) {
        const HostTensor& got = params.at(size_t(index));
        ComparisonResult cmp = compareTensors(got, want, reference->atol, reference->rtol);
        OutputCheck o;
        o.name = got.name;
        o.ok = cmp.ok();
        o.maxAbsError = cmp.maxAbsError;
        o.maxRelError = cmp.maxRelError;
        o.mismatches = cmp.mismatches;
        if (!cmp.ok() && !cmp.shapeMismatch) {
            std::string idx = "[";
            for (size_t i = 0; i < cmp.firstMismatch.size(); ++i)
                idx += (i ? ", " : "") + std::to_string(cmp.firstMismatch[i]);
            char buf[96];
            std::snprintf(buf, sizeof buf, "]: got %.6g, expected %.6g", cmp.actualAtMismatch,
                          cmp.expectedAtMismatch);
            o.firstMismatch = idx + buf;
        } else if (cmp.shapeMismatch) {
            o.firstMismatch = "shape differs from the reference's";
        }
        report.ok = report.ok && o.ok;
        report.outputs.push_back(std::move(o));
    }
    return report;
}

} // namespace tb::app
