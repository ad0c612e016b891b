// bench_cpu_corpus: the CPU JIT against the interpreter on the TileLang example corpus, each program at its
// own shape, both backends running the same sample of each kernel's blocks (ExecutionLimits::blockSample,
// `--blocks N`, default 8) from the same inputs: the interpreter's time, the JIT's compile and run times,
// interpreter / (compile + run), interpreter / run, and whether the two outputs agree bit for bit. The
// interpreter stops at its usual step limit (`--max-steps`, 2^32): then the ratios are lower bounds. The
// programs come on standard input, one per line with their `tilec run` arguments after a tab (`--dim`,
// `--fill`; others are ignored), as scripts/corpus_programs.py prints them:
//
//   python3 scripts/corpus_programs.py --compiling --run-args | bench_cpu_corpus [--blocks N] [--max-steps N]
//
// A benchmark, not a test: it never fails on timing.
#include "engine/exec/Executor.h"
#include "engine/exec/InputFill.h"
#include "engine/jit/ProgramExecution.h"
#include "engine/tools/bench/CpuBenchSupport.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace tb;

struct CorpusProgram {
    std::string path; // relative to the corpus
    std::map<std::string, int64_t> dims;
    InputFills fills;
};

// "--dim NAME=V --fill NAME=SPEC ..." after the tab; false with `error` for a malformed argument.
bool parseRunArguments(const std::string& text, CorpusProgram& program, std::string& error) {
    std::istringstream words(text);
    for (std::string word; words >> word;) {
        if (word != "--dim" && word != "--fill")
            continue; // --check-blocks and the like: this bench samples blocks itself
        std::string assignment;
        size_t eq = std::string::npos;
        if (!(words >> assignment) || (eq = assignment.find('=')) == std::string::npos) {
            error = "expected NAME=VALUE after " + word;
            return false;
        }
        const std::string name = assignment.substr(0, eq), value = assignment.substr(eq + 1);
        if (word == "--dim") {
            program.dims[name] = std::strtoll(value.c_str(), nullptr, 0);
        } else {
            std::optional<InputFill> fill = parseInputFill(value, error);
            if (!fill)
                return false;
            program.fills[name] = *fill;
        }
    }
    return true;
}

std::string firstLine(const std::string& text) {
    return text.substr(0, text.find('\n')).substr(0, 90);
}

struct Totals {
    int measured = 0, agreeing = 0, limited = 0;
    double logRatio = 0, logRunRatio = 0;
};

struct BenchOptions {
    int64_t blocks = 8;
    int64_t maxSteps = int64_t(1) << 32;
};

bool hitStepLimit(const DiagnosticEngine& diags) {
    for (const Diagnostic& d : diags.diagnostics())
        if (d.code == "execution-limit")
            return true;
    return false;
}

void benchProgram(const std::string& corpus, const CorpusProgram& program, const BenchOptions& options,
                  Totals& totals) {
    std::unique_ptr<bench::CompiledFile> compiled =
        bench::compileFile(corpus + "/" + program.path, program.path);
    const SourceManager& sources = compiled->sources;
    DiagnosticEngine& diags = compiled->diags;
    const std::unique_ptr<ir::Module>& module = compiled->module;
    if (!compiled->readError.empty()) {
        std::printf("%-62s %s\n", program.path.c_str(), compiled->readError.c_str());
        return;
    }
    if (!module || module->funcs.empty()) {
        std::printf("%-62s does not compile: %s\n", program.path.c_str(),
                    firstLine(formatDiagnostics(sources, diags.diagnostics())).c_str());
        return;
    }
    const ir::PrimFunc& func = module->funcs.front();
    std::map<std::string, int64_t> dims = program.dims;
    for (const ir::Var* dim : func.dynamicDims)
        dims.try_emplace(dim->name, 256); // tilec run's default
    ExecutionLimits limits;
    limits.blockSample = options.blocks;
    limits.maxSteps = options.maxSteps;
    limits.maxBufferElements = int64_t(1) << 30; // the MLA decodes' KV caches (0.6 G elements)
    std::vector<HostTensor> interpreted =
        allocateParams(func, dims, 0x7113BE7C, diags, limits, true, program.fills);
    if (interpreted.empty() && !func.params.empty()) {
        std::printf("%-62s not run: %s\n", program.path.c_str(),
                    firstLine(formatDiagnostics(sources, diags.diagnostics())).c_str());
        return;
    }
    std::vector<HostTensor> jitted = interpreted;
    ProgramExecutionOptions jit, interpreter;
    jit.backend = CpuBackend::Jit;
    jit.limits = limits;
    interpreter.backend = CpuBackend::Interpreter;
    interpreter.limits = limits;
    ProgramExecutionReport jitReport;
    DiagnosticEngine jitDiags, interpreterDiags;
    const bool jitOk = executeProgram(*module, func, jitted, dims, jitDiags, jit, nullptr, &jitReport);
    // Timed here: a run stopped at the step limit reports no time of its own.
    const auto interpreterStart = std::chrono::steady_clock::now();
    const bool interpreterOk =
        executeProgram(*module, func, interpreted, dims, interpreterDiags, interpreter);
    const double interpreterSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - interpreterStart).count();
    const bool limited = !interpreterOk && hitStepLimit(interpreterDiags);
    if (!jitOk || (!interpreterOk && !limited)) {
        const DiagnosticEngine& failed = jitOk ? interpreterDiags : jitDiags;
        std::printf("%-62s %s failed: %s\n", program.path.c_str(), jitOk ? "interpreter" : "JIT",
                    firstLine(formatDiagnostics(sources, failed.diagnostics())).c_str());
        return;
    }
    const double jitTotal = jitReport.compileSeconds + jitReport.runSeconds;
    const double ratio = interpreterSeconds / jitTotal;
    const double runRatio = interpreterSeconds / std::max(jitReport.runSeconds, 1e-6);
    if (limited) { // the interpreter's time so far: the ratios are at least these
        std::printf("%-62s %9.3f+ %9.3f %9.3f %7.1fx+ %7.1fx+ %5s  (the interpreter stopped at %lld steps)\n",
                    program.path.c_str(), interpreterSeconds, jitReport.compileSeconds, jitReport.runSeconds,
                    ratio, runRatio, "-", static_cast<long long>(options.maxSteps));
        std::fflush(stdout);
        totals.limited += 1;
        return;
    }
    const bool same = bench::sameBits(interpreted, jitted);
    std::printf("%-62s %10.3f %9.3f %9.3f %8.1fx %8.1fx %5s\n", program.path.c_str(), interpreterSeconds,
                jitReport.compileSeconds, jitReport.runSeconds, ratio, runRatio, same ? "yes" : "NO");
    std::fflush(stdout);
    totals.measured += 1;
    totals.agreeing += same ? 1 : 0;
    totals.logRatio += std::log(ratio);
    totals.logRunRatio += std::log(runRatio);
}

} // namespace

int main(int argc, char** argv) {
    BenchOptions options;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--blocks") == 0 && i + 1 < argc) {
            options.blocks = std::max<int64_t>(1, std::atoll(argv[++i]));
        } else if (std::strcmp(argv[i], "--max-steps") == 0 && i + 1 < argc) {
            options.maxSteps = std::max<int64_t>(1, std::atoll(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: python3 scripts/corpus_programs.py --compiling --run-args | "
                                 "bench_cpu_corpus [--blocks N] [--max-steps N]\n");
            return 2;
        }
    }
    const std::string corpus = TILEBENCH_CORPUS_DIR;
    std::printf(
        "CPU execution of the TileLang example corpus at each program's own shape: interpreter vs JIT "
        "(compile + run), %lld blocks of each kernel, same inputs, same process\n",
        static_cast<long long>(options.blocks));
    std::printf("%-62s %10s %9s %9s %9s %9s %5s\n", "program", "interp(s)", "jit-cc(s)", "jit-run(s)",
                "ratio", "run-ratio", "same");
    Totals totals;
    for (std::string line; std::getline(std::cin, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        CorpusProgram program;
        const size_t tab = line.find('\t');
        program.path = line.substr(0, tab);
        std::string error;
        if (tab != std::string::npos && !parseRunArguments(line.substr(tab + 1), program, error)) {
            std::printf("%-62s bad run arguments: %s\n", program.path.c_str(), error.c_str());
            continue;
        }
        benchProgram(corpus, program, options, totals);
    }
    if (totals.measured > 0)
        std::printf(
            "%d programs measured, %d bit-identical; geometric means: %.1fx with compile, %.1fx run only\n",
            totals.measured, totals.agreeing, std::exp(totals.logRatio / totals.measured),
            std::exp(totals.logRunRatio / totals.measured));
    return 0;
}
