// The two differential checks. CPU: parse, elaborate, check for sm_90a, allocate seeded inputs, run the
// interpreter and the JIT on copies, compare every parameter bit for bit (NaN matches NaN). GPU: the whole
// pipeline for sm_90a (wgmma off for the portable backend), then runOnGpu, which compares with the CPU
// oracle within the per-dtype tolerance.
#include "engine/tools/fuzz/DifferentialCheck.h"

#include "engine/check/Checks.h"
#include "engine/elaborate/Elaborator.h"
#include "engine/exec/Executor.h"
#include "engine/frontend/Parser.h"
#include "engine/gpu/CudaDriver.h"
#include "engine/gpu/RunnerClient.h"
#ifdef TILEBENCH_HAVE_LLVM_JIT
#include "engine/jit/JitProgram.h"
#endif
#include "engine/jit/ProgramExecution.h"
#include "engine/pipeline/Pipeline.h"
#include "engine/run/GpuRun.h"
#include "engine/target/Target.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace tb::fuzz {

const char* outcomeName(OutcomeKind kind) {
    switch (kind) {
    case OutcomeKind::Agree:
        return "agree";
    case OutcomeKind::BothFailed:
        return "both-failed";
    case OutcomeKind::Rejected:
        return "rejected";
    case OutcomeKind::JitUnsupported:
        return "jit-unsupported";
    case OutcomeKind::Mismatch:
        return "mismatch";
    }
    return "?";
}

namespace {

bool sameBits(double a, double b) {
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return std::memcmp(&a, &b, sizeof a) == 0;
}

std::string firstCode(const DiagnosticEngine& diags) {
    for (const Diagnostic& d : diags.diagnostics())
        if (d.severity == Severity::Error)
            return d.code;
    return "";
}

} // namespace

namespace {

// One program of a CPU check: compiled, inputs allocated, the interpreter run; the JIT side comes later.
struct CpuCase {
    SourceManager sources;
    DiagnosticEngine diags;
    std::unique_ptr<ir::Module> module;
    const ir::PrimFunc* func = nullptr;
    std::map<std::string, int64_t> dims;
    std::vector<HostTensor> interpreted, jitted;
    DiagnosticEngine interpreterDiags;
    bool interpreterOk = false;
    std::optional<Outcome> decided; // rejected before any execution
};

void prepare(CpuCase& c, const std::string& text, uint64_t inputSeed) {
    FileId file = c.sources.addFile("fuzz.py", text);
    ast::Module ast = parseModule(c.sources, file, c.diags);
    if (!c.diags.hasErrors())
        c.module = elaborate(c.sources, ast, {}, c.diags);
    if (c.module && !c.diags.hasErrors())
        check::checkModule(*c.module, targetSm90a(), c.diags);
    if (!c.module || c.diags.hasErrors() || c.module->funcs.empty()) {
        c.decided = Outcome{OutcomeKind::Rejected, formatDiagnostics(c.sources, c.diags.diagnostics())};
        return;
    }
    c.func = &c.module->funcs.front();
    for (const ir::Var* v : c.func->dynamicDims)
        c.dims[v->name] = 200;
    c.interpreted = allocateParams(*c.func, c.dims, inputSeed, c.diags);
    if (c.diags.hasErrors()) {
        c.decided = Outcome{OutcomeKind::Rejected, formatDiagnostics(c.sources, c.diags.diagnostics())};
        return;
    }
    c.jitted = c.interpreted;
    ProgramExecutionOptions interpreter;
    interpreter.backend = CpuBackend::Interpreter;
    c.interpreterOk =
        executeProgram(*c.module, *c.func, c.interpreted, c.dims, c.interpreterDiags, interpreter);
}

Outcome compare(CpuCase& c, bool jitOk, const DiagnosticEngine& jitDiags) {
    if (!jitOk && firstCode(jitDiags) == "jit-unsupported")
        return {OutcomeKind::JitUnsupported, formatDiagnostics(c.sources, jitDiags.diagnostics())};
    if (c.interpreterOk != jitOk ||
        (!c.interpreterOk && firstCode(c.interpreterDiags) != firstCode(jitDiags)))
        return {OutcomeKind::Mismatch,
                "interpreter: " + std::string(c.interpreterOk ? "ok" : "failed") + "\n" +
                    formatDiagnostics(c.sources, c.interpreterDiags.diagnostics()) + "jit: " +
                    (jitOk ? "ok" : "failed") + "\n" + formatDiagnostics(c.sources, jitDiags.diagnostics())};
    if (!c.interpreterOk)
        return {OutcomeKind::BothFailed, firstCode(jitDiags)};
    for (size_t t = 0; t < c.interpreted.size(); ++t)
        for (size_t i = 0; i < c.interpreted[t].data.size(); ++i)
            if (!sameBits(c.interpreted[t].data[i], c.jitted[t].data[i])) {
                char buf[200];
                std::snprintf(buf, sizeof buf, "%s[%zu]: interpreter %.17g, jit %.17g",
                              c.interpreted[t].name.c_str(), i, c.interpreted[t].data.get(i),
                              c.jitted[t].data.get(i));
                return {OutcomeKind::Mismatch, buf};
            }
    return {OutcomeKind::Agree, ""};
}

} // namespace

Outcome checkOnCpu(const std::string& text, uint64_t inputSeed) {
    CpuCase c;
    prepare(c, text, inputSeed);
    if (c.decided)
        return *c.decided;
    DiagnosticEngine jitDiags;
    ProgramExecutionOptions jit;
    jit.backend = CpuBackend::Jit;
    bool jitOk = executeProgram(*c.module, *c.func, c.jitted, c.dims, jitDiags, jit);
    return compare(c, jitOk, jitDiags);
}

std::vector<Outcome> checkBatchOnCpu(const std::vector<std::string>& texts,
                                     const std::vector<uint64_t>& inputSeeds) {
#ifndef TILEBENCH_HAVE_LLVM_JIT
    // No JIT in this build: every check reports it (jit-unavailable), one program at a time.
    std::vector<Outcome> each;
    for (size_t i = 0; i < texts.size(); ++i)
        each.push_back(checkOnCpu(texts[i], inputSeeds[i]));
    return each;
#else
    std::vector<std::unique_ptr<CpuCase>> cases;
    std::vector<jit::JitBatchItem> items;
    std::vector<size_t> itemCase;
    for (size_t i = 0; i < texts.size(); ++i) {
        cases.push_back(std::make_unique<CpuCase>());
        prepare(*cases.back(), texts[i], inputSeeds[i]);
        if (cases.back()->decided)
            continue;
        items.push_back({cases.back()->module.get(), cases.back()->func, cases.back()->dims});
        itemCase.push_back(i);
    }
    std::vector<std::string> whyNot;
    auto programs = jit::compileJitBatch(items, ExecutionLimits{}, whyNot);
    std::vector<Outcome> outcomes(texts.size());
    for (size_t i = 0; i < cases.size(); ++i)
        if (cases[i]->decided)
            outcomes[i] = *cases[i]->decided;
    for (size_t k = 0; k < items.size(); ++k) {
        CpuCase& c = *cases[itemCase[k]];
        DiagnosticEngine jitDiags;
        bool jitOk = false;
        if (programs[k])
            jitOk = programs[k]->run(c.jitted, jitDiags, jit::ThreadPool::shared());
        else
            jitDiags.error("jit-unsupported", c.func->range, "the CPU JIT cannot run it: " + whyNot[k]);
        outcomes[itemCase[k]] = compare(c, jitOk, jitDiags);
    }
    return outcomes;
#endif
}

bool gpuUsable(std::string& why) {
    static gpu::GpuAvailability availability = gpu::probeGpus();
    why = availability.reason;
    return availability.available && !availability.devices.empty();
}

namespace {

// One runner for the fuzzer's whole run, as the app keeps one: a fresh runner per check (a process and a CUDA
// context, twice per program) cost more than the program's own launch. The client starts it again after a
// crash or a watchdog kill, and each run frees the buffers it allocated.
gpu::RunnerClient& sharedRunner() {
    static gpu::RunnerClient client([] {
        gpu::RunnerOptions o;
        o.executable = gpu::defaultRunnerPath();
        o.watchdog = std::chrono::milliseconds(20000);
        return o;
    }());
    return client;
}

} // namespace

Outcome checkOnGpu(const std::string& text, GpuBackend backend, uint64_t inputSeed) {
    std::string why;
    if (!gpuUsable(why))
        return {OutcomeKind::Rejected, "no GPU: " + why};
    CompileOptions options;
    options.target = targetSm90a();
    options.backend = backend == GpuBackend::Portable ? Backend::Portable : Backend::Hopper;
    std::unique_ptr<CompileResult> result = compileTileProgram("fuzz.py", text, options);
    if (!result->ok())
        return {OutcomeKind::Rejected, result->formattedDiagnostics()};
    run::GpuRunOptions runOptions;
    runOptions.oracleBlockSample = 0; // a fuzz program is small: every block is checked
    runOptions.seed = inputSeed;
    runOptions.client = &sharedRunner();
    run::GpuRunResult r = run::runOnGpu(*result, runOptions);
    if (r.ok())
        return {OutcomeKind::Agree, ""};
    std::string detail = std::string("stage ") + run::gpuRunStageName(r.stage) + ": " + r.message;
    for (const auto& d : r.diagnostics)
        detail += "\n  " + d.code + ": " + d.message;
    for (const auto& o : r.outputs)
        if (!o.comparison.ok())
            detail += "\n  " + o.name + ": " + std::to_string(o.comparison.mismatches) +
                      " elements differ, max abs " + std::to_string(o.comparison.maxAbsError);
    // A plan the target cannot hold is a rejection; anything after planning is a bug somewhere.
    if (r.stage == run::GpuRunStage::Plan)
        return {OutcomeKind::Rejected, detail};
    return {OutcomeKind::Mismatch, detail};
}

} // namespace tb::fuzz
