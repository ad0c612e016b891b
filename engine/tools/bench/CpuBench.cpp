// bench_cpu: the CPU execution path, JIT against the interpreter, measured in the same run. For each
// sample at a benchmark shape: the interpreter's execution time, the JIT's compile and run times, their
// ratio (interpreter / (JIT compile + run)), whether the two agree bit for bit, and the time to execute and
// check against the naive reference as `tilec run --cpu` does (inputs, JIT, reference, comparison). Shapes
// too large for the interpreter (minutes) run on the JIT only; `--full` runs the interpreter there too,
// `--jit-only` nowhere (scripts/bench-cpu-vs-torch.py compares the JIT with eager PyTorch on the CPU);
// further arguments pick the cases whose label contains one of them (`bench_cpu gemm flash`).
// A benchmark, not a test: it never fails on timing.
#include "engine/exec/Executor.h"
#include "engine/jit/ProgramExecution.h"
#include "engine/reference/Reference.h"
#include "engine/tools/bench/CpuBenchSupport.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tb;
using Overrides = std::vector<std::pair<std::string, std::string>>;

struct Case {
    std::string label;
    std::string file;
    Overrides overrides;
    bool interpreter = true; // false: minutes on the interpreter; JIT only unless --full
};

double seconds(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string fixed(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", value);
    return text;
}

void runCase(const Case& c, bool full, bool jitOnly) {
    std::unique_ptr<bench::CompiledFile> compiled =
        bench::compileFile(std::string(TILEBENCH_SAMPLES_DIR) + "/" + c.file, c.file, c.overrides);
    const SourceManager& sources = compiled->sources;
    DiagnosticEngine& diags = compiled->diags;
    const std::unique_ptr<ir::Module>& module = compiled->module;
    if (!compiled->readError.empty()) {
        std::printf("%-28s %s\n", c.label.c_str(), compiled->readError.c_str());
        return;
    }
    if (!module || module->funcs.empty()) {
        std::printf("%-28s does not compile\n%s", c.label.c_str(),
                    formatDiagnostics(sources, diags.diagnostics()).c_str());
        return;
    }
    const ir::PrimFunc& func = module->funcs.front();
    const std::map<std::string, int64_t> dims;
    // Executed and checked, as tilec run --cpu: inputs, the JIT, the reference, the comparison.
    auto checkedStart = std::chrono::steady_clock::now();
    std::vector<HostTensor> params = allocateParams(func, dims, 0x7113BE7C, diags);
    const double inputsSeconds = seconds(checkedStart);
    const bool interpret = !jitOnly && (c.interpreter || full);
    std::vector<HostTensor> inputs = interpret ? params : std::vector<HostTensor>{};
    ProgramExecutionOptions jitOptions;
    jitOptions.backend = CpuBackend::Jit;
    ProgramExecutionReport jit;
    bool jitOk = executeProgram(*module, func, params, dims, diags, jitOptions, nullptr, &jit);
    auto directive = referenceDirective(compiled->text);
    const Reference* reference = directive ? findReference(*directive) : nullptr;
    bool correct = jitOk;
    double referenceSeconds = 0, compareSeconds = 0;
    if (reference && jitOk) {
        std::map<int, HostTensor> expected;
        std::string error;
        auto referenceStart = std::chrono::steady_clock::now();
        correct = reference->compute(ReferenceInvocation{params, *module, &func}, expected, error);
        referenceSeconds = seconds(referenceStart);
        auto compareStart = std::chrono::steady_clock::now();
        for (const auto& [index, want] : expected)
            correct =
                correct && compareTensors(params[size_t(index)], want, reference->atol, reference->rtol).ok();
        compareSeconds = seconds(compareStart);
    }
    double checked = seconds(checkedStart);
    // Where the checked time goes: inputs (allocation and fill), the JIT (compile and run), the naive
    // reference, the comparison.
    const std::string split = "(inputs " + fixed(inputsSeconds) + ", ref " + fixed(referenceSeconds) +
                              ", compare " + fixed(compareSeconds) + ")";
    if (!jitOk) {
        std::printf("%-28s JIT failed\n%s", c.label.c_str(),
                    formatDiagnostics(sources, diags.diagnostics()).c_str());
        return;
    }
    double jitTotal = jit.compileSeconds + jit.runSeconds;
    if (!interpret) {
        std::printf("%-28s %12s %9.3f %9.3f %9s %6s %9.3f %s %s\n", c.label.c_str(), "(skipped)",
                    jit.compileSeconds, jit.runSeconds, "-", "-", checked, correct ? "correct" : "WRONG",
                    split.c_str());
        return;
    }
    ProgramExecutionOptions interpreterOptions;
    interpreterOptions.backend = CpuBackend::Interpreter;
    ProgramExecutionReport interpreted;
    interpreterOptions.limits.maxSteps = int64_t(1) << 40;
    bool interpreterOk =
        executeProgram(*module, func, inputs, dims, diags, interpreterOptions, nullptr, &interpreted);
    std::printf("%-28s %12.3f %9.3f %9.3f %8.1fx %6s %9.3f %s %s\n", c.label.c_str(), interpreted.runSeconds,
                jit.compileSeconds, jit.runSeconds, interpreted.runSeconds / jitTotal,
                interpreterOk && bench::sameBits(inputs, params) ? "yes" : "NO", checked,
                correct ? "correct" : "WRONG", split.c_str());
}

} // namespace

int main(int argc, char** argv) {
    // bench_cpu [--full | --jit-only] [LABEL...]: the cases whose label contains one of the LABELs (all
    // without any).
    bool full = false, jitOnly = false;
    std::vector<std::string> filters;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--full")
            full = true;
        else if (arg == "--jit-only")
            jitOnly = true;
        else
            filters.push_back(arg);
    }
    std::vector<Case> cases = {
        {"gemm_relu 1024^3", "02_gemm_relu.py", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}}},
        {"gemm_transpose 512^3 NT", "03_gemm_transpose.py", {{"M", "512"}, {"N", "512"}, {"K", "512"}}},
        {"rmsnorm_silu 8192x1024", "05_rmsnorm_silu.py", {{"M", "8192"}, {"C", "1024"}}},
        {"rmsnorm_silu 262144x1024", "05_rmsnorm_silu.py", {{"M", "262144"}, {"C", "1024"}}, false},
        {"flash_attn b1h8s1024d64",
         "06_flash_attention.py",
         {{"batch", "1"}, {"heads", "8"}, {"seq_len", "1024"}, {"dim", "64"}}},
        {"elementwise_add 512x1024", "01_elementwise_add.py", {}},
        {"softmax 1024x2000", "04_softmax.py", {}},
        {"mla_decode (default)", "07_mla_decode.py", {{"seqlen_kv", "1024"}}},
    };
    std::printf("CPU execution: interpreter vs JIT (compile + run), same inputs, same process; checked = "
                "inputs + JIT "
                "+ reference + comparison\n");
    std::printf("%-28s %12s %9s %9s %9s %6s %9s\n", "sample", "interp(s)", "jit-cc(s)", "jit-run(s)", "ratio",
                "same", "checked(s)");
    for (const Case& c : cases) {
        bool wanted = filters.empty();
        for (const std::string& f : filters)
            wanted = wanted || c.label.find(f) != std::string::npos;
        if (wanted)
            runCase(c, full, jitOnly);
    }
    return 0;
}
