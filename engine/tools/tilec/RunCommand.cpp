#include "engine/tools/tilec/RunCommand.h"

#include "engine/exec/Executor.h"
#include "engine/jit/ProgramExecution.h"
#include "engine/reference/Reference.h"
#include "engine/support/Json.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace tb::tilec {

namespace {

std::string indexText(const std::vector<int64_t>& index) {
    std::string s = "[";
    for (size_t i = 0; i < index.size(); ++i)
        s += (i ? ", " : "") + std::to_string(index[i]);
    return s + "]";
}

// When a program has no naive reference, the best we can show is what came out.
void printOutputSummary(const HostTensor& t) {
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int64_t nans = 0;
    for (double v : t.data) {
        if (std::isnan(v)) {
            ++nans;
            continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
    }
    int64_t n = static_cast<int64_t>(t.data.size()) - nans;
    std::printf("  %-16s min %-12.6g max %-12.6g mean %-12.6g nan %lld\n", t.name.c_str(), n ? lo : 0.0,
                n ? hi : 0.0, n ? sum / n : 0.0, static_cast<long long>(nans));
}

} // namespace

int runOnCpu(const CommandLine& cl, const CompileResult& result) {
    const ir::Module& module = *result.module;
    if (module.funcs.empty()) {
        std::fprintf(stderr, "tilec: error: the program defines no prim_func to run\n");
        return ExitRuntimeError;
    }
    const ir::PrimFunc& func = module.funcs.front();

    std::map<std::string, int64_t> dims;
    for (const ir::Var* v : func.dynamicDims)
        dims[v->name] = 256;
    for (const auto& [name, value] : cl.dims)
        dims[name] = std::strtoll(value.c_str(), nullptr, 0);

    DiagnosticEngine diags;
    std::vector<HostTensor> params = allocateParams(func, dims, cl.seed, diags);
    auto start = std::chrono::steady_clock::now();
    ExecutionLog log;
    ProgramExecutionOptions options;
    options.backend = cl.cpuBackend == "interpreter" ? CpuBackend::Interpreter
                      : cl.cpuBackend == "jit"       ? CpuBackend::Jit
                                                     : CpuBackend::Auto;
    ProgramExecutionReport report;
    bool executed =
        !diags.hasErrors() && executeProgram(module, func, params, dims, diags, options, &log, &report);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!report.fallbackNote.empty())
        std::fprintf(stderr, "tilec: note: %s\n", report.fallbackNote.c_str());
    if (!executed) {
        std::fprintf(stderr, "%s", formatDiagnostics(result.sources, diags.diagnostics()).c_str());
        return ExitRuntimeError;
    }
    for (const std::string& line : log.prints)
        std::printf("%s\n", line.c_str());

    auto directive = referenceDirective(result.sources.file(result.file).text());
    const Reference* reference = directive ? findReference(*directive) : nullptr;
    if (report.used == CpuBackend::Jit)
        std::printf("%s: ran %s on the CPU JIT in %.3f s (compile %.3f s, %d threads; seed %llu)\n",
                    module.sourceName.c_str(), func.name.c_str(), seconds, report.compileSeconds,
                    report.threads, static_cast<unsigned long long>(cl.seed));
    else
        std::printf("%s: ran %s on the CPU interpreter in %.3f s (seed %llu)\n", module.sourceName.c_str(),
                    func.name.c_str(), seconds, static_cast<unsigned long long>(cl.seed));
    if (!reference) {
        if (directive)
            std::printf("unknown reference '%s'; outputs:\n", directive->c_str());
        else
            std::printf(
                "no naive reference for this program (add '# tilebench-reference: NAME'); outputs:\n");
        for (const ir::Buffer* b : func.params)
            if (b->isOutput)
                printOutputSummary(params[b->paramIndex]);
        return ExitOk;
    }

    std::map<int, HostTensor> expected;
    std::string error;
    if (!reference->compute(ReferenceInvocation{params, module}, expected, error)) {
        std::fprintf(stderr, "tilec: error: reference '%s' cannot check this program: %s\n",
                     reference->name.c_str(), error.c_str());
        return ExitRuntimeError;
    }
    bool allOk = true;
    JsonWriter json;
    json.beginObject()
        .field("reference", reference->name)
        .field("seconds", seconds)
        .field("backend", cpuBackendName(report.used))
        .field("compileSeconds", report.compileSeconds)
        .field("fallback", report.fallbackNote)
        .key("outputs")
        .beginArray();
    for (const auto& [index, want] : expected) {
        const HostTensor& got = params.at(index);
        ComparisonResult cmp = compareTensors(got, want, reference->atol, reference->rtol);
        allOk = allOk && cmp.ok();
        json.beginObject().field("name", got.name).field("ok", cmp.ok());
        json.field("maxAbsError", cmp.maxAbsError).field("maxRelError", cmp.maxRelError);
        json.field("mismatches", cmp.mismatches).endObject();
        if (cl.json)
            continue;
        std::printf("  %-16s %s  max abs err %.3g  max rel err %.3g  (atol %.3g, rtol %.3g)\n",
                    got.name.c_str(), cmp.ok() ? "ok      " : "MISMATCH", cmp.maxAbsError, cmp.maxRelError,
                    reference->atol, reference->rtol);
        if (cmp.shapeMismatch)
            std::printf("    shape differs from the reference's\n");
        else if (!cmp.ok())
            std::printf("    %lld elements differ; first at %s: got %.6g, expected %.6g\n",
                        static_cast<long long>(cmp.mismatches), indexText(cmp.firstMismatch).c_str(),
                        cmp.actualAtMismatch, cmp.expectedAtMismatch);
    }
    json.endArray().field("ok", allOk).endObject();
    if (cl.json)
        std::printf("%s\n", json.str().c_str());
    else
        std::printf("%s against reference '%s'\n", allOk ? "correct" : "WRONG RESULTS",
                    reference->name.c_str());
    return allOk ? ExitOk : ExitWrongResult;
}

} // namespace tb::tilec
