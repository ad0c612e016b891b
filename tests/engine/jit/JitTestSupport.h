// Shared helpers of the JIT tests: compile tile-program text to a module, run one PrimFunc on the
// interpreter and on the JIT from the same seeded inputs, and compare the outputs bit for bit (any NaN
// matches any NaN: both backends make NaN from the same operations, but its payload is not part of the
// Tile IR's meaning).
#pragma once

#include "engine/elaborate/Elaborator.h"
#include "engine/exec/Executor.h"
#include "engine/frontend/Parser.h"
#include "engine/jit/ProgramExecution.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tb::testing {

struct CompiledText {
    SourceManager sources;
    DiagnosticEngine diags;
    std::unique_ptr<ir::Module> module;
};

inline std::unique_ptr<CompiledText>
compileText(const std::string& name, const std::string& text,
            const std::vector<std::pair<std::string, std::string>>& overrides = {}) {
    auto out = std::make_unique<CompiledText>();
    FileId id = out->sources.addFile(name, text);
    ast::Module ast = parseModule(out->sources, id, out->diags);
    if (out->diags.hasErrors())
        return out;
    ElaborateOptions options;
    options.overrides = overrides;
    out->module = elaborate(out->sources, ast, options, out->diags);
    return out;
}

inline bool sameBits(double a, double b) {
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Empty when every tensor is bit-identical, else where the first difference is.
inline std::string firstDifference(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
    if (a.size() != b.size())
        return "different parameter counts";
    for (size_t t = 0; t < a.size(); ++t) {
        if (a[t].data.size() != b[t].data.size())
            return a[t].name + ": different sizes";
        for (size_t i = 0; i < a[t].data.size(); ++i)
            if (!sameBits(a[t].data[i], b[t].data[i]))
                return a[t].name + "[" + std::to_string(i) + "]: interpreter " +
                       std::to_string(a[t].data[i]) + ", jit " + std::to_string(b[t].data[i]);
    }
    return "";
}

struct BothRuns {
    bool interpreterOk = false;
    bool jitOk = false;
    ProgramExecutionReport jitReport;
    std::vector<HostTensor> interpreted;
    std::vector<HostTensor> jitted;
    std::string interpreterDiags;
    std::string jitDiags;
};

// Runs func on both backends from the same inputs (seed); outputs start zeroed like allocateParams.
inline BothRuns runBoth(const CompiledText& compiled, const ir::PrimFunc& func,
                        const std::map<std::string, int64_t>& dims = {}, uint64_t seed = 2024,
                        CpuBackend jitBackend = CpuBackend::Jit) {
    BothRuns out;
    DiagnosticEngine allocDiags;
    out.interpreted = allocateParams(func, dims, seed, allocDiags);
    out.jitted = out.interpreted;
    DiagnosticEngine a, b;
    ProgramExecutionOptions interpreter;
    interpreter.backend = CpuBackend::Interpreter;
    out.interpreterOk = executeProgram(*compiled.module, func, out.interpreted, dims, a, interpreter);
    ProgramExecutionOptions jit;
    jit.backend = jitBackend;
    out.jitOk = executeProgram(*compiled.module, func, out.jitted, dims, b, jit, nullptr, &out.jitReport);
    out.interpreterDiags = formatDiagnostics(compiled.sources, a.diagnostics());
    out.jitDiags = formatDiagnostics(compiled.sources, b.diagnostics());
    return out;
}

} // namespace tb::testing
