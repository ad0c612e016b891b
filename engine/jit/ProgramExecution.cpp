// Backend choice for CPU execution: the JIT when this build has it and it lowers the program, else the
// interpreter, with the reason kept in the report (tilec run prints it, its JSON carries it).
#include "engine/jit/ProgramExecution.h"

#include "engine/jit/ThreadPool.h"

#ifdef TILEBENCH_HAVE_LLVM_JIT
#include "engine/jit/JitProgram.h"
#endif

#include <chrono>
#include <memory>

namespace tb {

const char* cpuBackendName(CpuBackend backend) {
    switch (backend) {
    case CpuBackend::Auto:
        return "auto";
    case CpuBackend::Jit:
        return "jit";
    case CpuBackend::Interpreter:
        return "interpreter";
    }
    return "auto";
}

bool cpuJitAvailable() {
#ifdef TILEBENCH_HAVE_LLVM_JIT
    return true;
#else
    return false;
#endif
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool interpret(const ir::Module& module, const ir::PrimFunc& func, std::vector<HostTensor>& params,
               const std::map<std::string, int64_t>& dims, DiagnosticEngine& diags,
               const ProgramExecutionOptions& options, ExecutionLog* log, ProgramExecutionReport& report) {
    auto start = std::chrono::steady_clock::now();
    report.used = CpuBackend::Interpreter;
    report.threads = 1;
    bool ok = executePrimFunc(module, func, params, dims, diags, options.limits, log);
    report.runSeconds = secondsSince(start);
    return ok;
}

} // namespace

bool executeProgram(const ir::Module& module, const ir::PrimFunc& func, std::vector<HostTensor>& params,
                    const std::map<std::string, int64_t>& dynamicDims, DiagnosticEngine& diags,
                    const ProgramExecutionOptions& options, ExecutionLog* log,
                    ProgramExecutionReport* report) {
    ProgramExecutionReport local;
    ProgramExecutionReport& out = report ? *report : local;
    out = ProgramExecutionReport{};
    if (options.backend == CpuBackend::Interpreter)
        return interpret(module, func, params, dynamicDims, diags, options, log, out);
#ifdef TILEBENCH_HAVE_LLVM_JIT
    std::string whyNot;
    jit::JitCompileStats stats;
    auto program = jit::compileJitProgram(module, func, dynamicDims, options.limits, whyNot, &stats);
    if (!program) {
        if (options.backend == CpuBackend::Jit) {
            diags.error("jit-unsupported", func.range,
                        "the CPU JIT cannot run '" + func.name + "': " + whyNot,
                        "run it on the interpreter (tilec run --cpu --interpret)");
            return false;
        }
        out.fallbackNote = "the JIT does not lower this program (" + whyNot + "); it ran on the interpreter";
        return interpret(module, func, params, dynamicDims, diags, options, log, out);
    }
    out.used = CpuBackend::Jit;
    out.compileSeconds = stats.seconds;
    out.sequentialKernels = stats.sequentialKernels > 0;
    std::unique_ptr<jit::ThreadPool> ownPool;
    jit::ThreadPool* pool = &jit::ThreadPool::shared();
    if (options.threads > 0 && options.threads != pool->threadCount()) {
        ownPool = std::make_unique<jit::ThreadPool>(options.threads);
        pool = ownPool.get();
    }
    out.threads = pool->threadCount();
    auto start = std::chrono::steady_clock::now();
    bool ok = program->run(params, diags, *pool);
    out.runSeconds = secondsSince(start);
    if (log)
        log->steps = 0; // the JIT does not count steps
    return ok;
#else
    if (options.backend == CpuBackend::Jit) {
        diags.error("jit-unavailable", func.range, "this build has no CPU JIT (LLVM 16 was not found)",
                    "install llvm-16-dev (scripts/install-deps.sh) and reconfigure");
        return false;
    }
    out.fallbackNote = "this build has no CPU JIT (LLVM 16 was not found); it ran on the interpreter";
    return interpret(module, func, params, dynamicDims, diags, options, log, out);
#endif
}

} // namespace tb
