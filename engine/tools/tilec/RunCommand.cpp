#include "engine/tools/tilec/RunCommand.h"

#include "engine/run/CpuRun.h"
#include "engine/run/RunReport.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace tb::tilec {

int runOnCpu(const CommandLine& cl, const CompileResult& result) {
    if (!result.module || result.module->funcs.empty()) {
        std::fprintf(stderr, "tilec: error: the program defines no prim_func to run\n");
        return ExitRuntimeError;
    }
    run::CpuRunOptions options;
    options.seed = cl.seed;
    options.fills = cl.fills;
    for (const auto& [name, value] : cl.dims)
        options.dims[name] = std::strtoll(value.c_str(), nullptr, 0);
    options.backend = cl.cpuBackend == "interpreter" ? CpuBackend::Interpreter
                      : cl.cpuBackend == "jit"       ? CpuBackend::Jit
                                                     : CpuBackend::Auto;
    // The same engine run and report as the app's Run without a GPU (engine/run/CpuRun.h, RunReport.h).
    run::CpuRunResult r = run::runOnCpu(result, options);
    if (!r.execution.fallbackNote.empty())
        std::fprintf(stderr, "tilec: note: %s\n", r.execution.fallbackNote.c_str());
    if (!r.executed) {
        std::fprintf(stderr, "%s", r.error.c_str());
        return ExitRuntimeError;
    }
    if (cl.json) {
        std::printf("%s\n", run::cpuRunJson(r).c_str());
    } else {
        if (r.execution.used == CpuBackend::Jit)
            std::printf("%s: ran %s on the CPU JIT in %.3f s (compile %.3f s, %d threads; seed %llu)\n",
                        result.module->sourceName.c_str(), r.funcName.c_str(), r.seconds,
                        r.execution.compileSeconds, r.execution.threads,
                        static_cast<unsigned long long>(cl.seed));
        else
            std::printf("%s: ran %s on the CPU interpreter in %.3f s (seed %llu)\n",
                        result.module->sourceName.c_str(), r.funcName.c_str(), r.seconds,
                        static_cast<unsigned long long>(cl.seed));
        run::RunReport report = run::describeCpuRun(r);
        for (const std::string& line : report.lines)
            if (line.rfind("note: ", 0) != 0) // the note went to stderr above
                std::printf("%s\n", line.c_str());
        if (r.checked)
            std::printf("%s\n", report.headline.c_str());
    }
    if (!r.checked && !r.reference.empty()) {
        std::fprintf(stderr, "tilec: error: %s\n", r.error.c_str());
        return ExitRuntimeError;
    }
    return !r.checked || r.ok ? ExitOk : ExitWrongResult;
}

} // namespace tb::tilec
