// tilec bench / profile / sweep (see ProfileCommands.h).
#include "engine/tools/tilec/ProfileCommands.h"

#include "engine/catalog/SampleCatalog.h"
#include "engine/exec/InputFill.h"
#include "engine/gpu/CubinLineTable.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/gpu/RunnerClient.h"
#include "engine/gpu/RunnerProtocol.h"
#include "engine/profile/BenchHistory.h"
#include "engine/profile/CudaBenchSpec.h"
#include "engine/profile/ProfileReport.h"
#include "engine/profile/ProgramProfiler.h"
#include "engine/profile/ProgramSweep.h"
#include "engine/profile/SweepSpec.h"
#include "engine/run/GpuRun.h"
#include "engine/support/Json.h"
#include "engine/target/Backend.h"
#include "engine/tools/tilec/CommandLine.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

namespace tb::tilec {

namespace {

using namespace tb::profile;

struct Options {
    std::string command, file;
    std::vector<std::pair<std::string, std::string>> params;
    std::vector<std::string> sweepArgs;
    std::string vs;
    bool json = false, flushL2 = false, events = false, fake = false, noCeilings = false;
    std::string fastCompile;
    std::vector<std::string> nvrtcOptions; // --nvrtc-option, passed to NVRTC verbatim
    std::string fakeCupti, runner, history;
    std::string cudaFile;                // --cuda FILE: an edited copy of the generated CUDA (tile programs)
    InputFills fills;                    // --fill NAME=SPEC: inputs made on the host (tile programs)
    std::optional<Backend> backend;      // --backend portable|hopper (tile programs)
    std::map<std::string, int64_t> dims; // --dim NAME=VALUE: a T.dynamic dim's size (default 256)
    int repeat = 20, warmup = 5, rounds = 3;
};

std::string usage() {
    return profileUsageText();
}

bool parseOptions(int argc, char** argv, Options& o, std::string& error) {
    o.command = argc > 1 ? argv[1] : "";
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](std::string& out) {
            if (i + 1 >= argc) {
                error = "option " + a + " needs a value";
                return false;
            }
            out = argv[++i];
            return true;
        };
        std::string v;
        if (a == "-p" || a == "--param") {
            if (!value(v))
                return false;
            if (o.command == "sweep") {
                o.sweepArgs.push_back(v);
            } else {
                size_t eq = v.find('=');
                if (eq == std::string::npos || eq == 0) {
                    error = "expected NAME=VALUE after -p, got '" + v + "'";
                    return false;
                }
                o.params.emplace_back(v.substr(0, eq), v.substr(eq + 1));
            }
        } else if (a == "--vs") {
            if (!value(o.vs))
                return false;
            if (o.vs != "cublas" && o.vs != "previous") {
                error = "--vs takes cublas or previous, not '" + o.vs + "'";
                return false;
            }
        } else if (a == "--repeat" || a == "--warmup") {
            if (!value(v))
                return false;
            int n = std::atoi(v.c_str());
            if (n < (a == "--repeat" ? 1 : 0) || n > 10000) {
                error = a + " must be " + (a == "--repeat" ? "1" : "0") + "..10000";
                return false;
            }
            (a == "--repeat" ? o.repeat : o.warmup) = n;
        } else if (a == "--rounds") {
            if (!value(v))
                return false;
            o.rounds = std::atoi(v.c_str());
            if (o.rounds < 1 || o.rounds > 20) {
                error = "--rounds must be 1..20";
                return false;
            }
        } else if (a == "--dim") {
            if (!value(v))
                return false;
            size_t eq = v.find('=');
            char* end = nullptr;
            long long size = eq == std::string::npos ? -1 : std::strtoll(v.c_str() + eq + 1, &end, 10);
            if (eq == std::string::npos || eq == 0 || size < 0 || !end || *end != '\0') {
                error = "expected NAME=VALUE (a size, 0 or more) after --dim, got '" + v + "'";
                return false;
            }
            o.dims[v.substr(0, eq)] = size;
        } else if (a == "--json") {
            o.json = true;
        } else if (a == "--flush-l2") {
            o.flushL2 = true;
        } else if (a == "--events") {
            o.events = true;
        } else if (a.rfind("--fast-compile=", 0) == 0 && gpu::isFastCompileLevel(a.substr(15))) {
            o.fastCompile = a.substr(15);
        } else if (a.rfind("--nvrtc-option=", 0) == 0 && a.size() > 15) {
            o.nvrtcOptions.push_back(a.substr(15));
        } else if (a == "--no-ceilings") {
            o.noCeilings = true;
        } else if (a == "--cuda") {
            if (!value(o.cudaFile))
                return false;
        } else if (a == "--fill") {
            if (!value(v))
                return false;
            size_t eq = v.find('=');
            std::string why;
            std::optional<InputFill> fill =
                eq == std::string::npos || eq == 0 ? std::nullopt : parseInputFill(v.substr(eq + 1), why);
            if (!fill) {
                error = why.empty() ? "expected NAME=SPEC after --fill (e.g. --fill cu_seqlens=sorted:0..UQ)"
                                    : "--fill " + v.substr(0, eq) + ": " + why;
                return false;
            }
            o.fills[v.substr(0, eq)] = *fill;
        } else if (a == "--backend") {
            if (!value(v))
                return false;
            o.backend = parseBackend(v);
            if (!o.backend) {
                error = "unknown backend '" + v + "' (known: portable, hopper)";
                return false;
            }
        } else if (a == "--fake") {
            o.fake = true;
        } else if (a.rfind("--fake-cupti=", 0) == 0) {
            o.fake = true;
            o.fakeCupti = a.substr(13);
        } else if (a == "--runner") {
            if (!value(o.runner))
                return false;
        } else if (a == "--history") {
            if (!value(o.history))
                return false;
        } else if (!a.empty() && a[0] == '-') {
            error = "unknown option " + a;
            return false;
        } else if (o.file.empty()) {
            o.file = a;
        } else {
            error = "unexpected argument '" + a + "'";
            return false;
        }
    }
    if (o.file.empty()) {
        error = "'" + o.command + "' needs a FILE";
        return false;
    }
    if (o.command != "bench" && !o.vs.empty()) {
        error = "--vs is an option of bench";
        return false;
    }
    return true;
}

std::string envOr(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

// The runner with the options' mode; nullptr after printing why it cannot run kernels.
std::unique_ptr<gpu::RunnerClient> startRunner(const Options& o, std::string& device) {
    gpu::RunnerOptions ro;
    ro.executable = !o.runner.empty() ? o.runner : envOr("TILEBENCH_RUNNER", gpu::defaultRunnerPath());
    if (o.fake) {
        ro.arguments.push_back("--fake");
        if (!o.fakeCupti.empty())
            ro.arguments.push_back("--fake-cupti=" + o.fakeCupti);
    }
    ro.watchdog = std::chrono::milliseconds(60000);
    auto client = std::make_unique<gpu::RunnerClient>(ro);
    std::string error;
    if (!client->start(&error)) {
        std::fprintf(stderr, "tilec: error: cannot start the runner %s: %s\n", ro.executable.c_str(),
                     error.c_str());
        return nullptr;
    }
    if (client->helloReply().field("gpus", "0") == "0") {
        std::fprintf(stderr, "tilec: error: no GPU: %s\n",
                     client->helloReply().field("reason", "unknown").c_str());
        return nullptr;
    }
    gpu::RunnerReply devices = client->request("devices");
    std::string arch = "sm_90a";
    for (const std::string& line : devices.dataLines) {
        gpu::ProtocolLine d = gpu::parseProtocolLine(line);
        if (d.words.size() >= 1 && d.words[0] == "0") {
            device = d.field("name");
            arch = d.field("arch", arch);
        }
    }
    device += " (" + arch + ")";
    return client;
}

std::string deviceArch(const std::string& device) {
    size_t open = device.rfind('('), close = device.rfind(')');
    return open != std::string::npos && close > open ? device.substr(open + 1, close - open - 1) : "sm_90a";
}

struct Prepared {
    CudaBenchSpec spec;
    gpu::CudaCompileResult compiled;
    std::string error;
};

// Reads, parses and compiles one configuration; prints diagnostics.
bool prepare(const Options& o, const std::vector<std::pair<std::string, std::string>>& params,
             const std::string& arch, Prepared& p) {
    std::string text;
    if (!readTextFile(o.file, text)) {
        p.error = "cannot read '" + o.file + "'";
        return false;
    }
    if (o.file.size() < 3 || o.file.substr(o.file.size() - 3) != ".cu") {
        p.error =
            "'" + o.file + "' is neither a .cu file with // tilebench-* directives nor a .py tile program";
        return false;
    }
    DiagnosticEngine diags;
    if (!parseCudaBenchSpec(text, params, p.spec, diags)) {
        for (const Diagnostic& d : diags.diagnostics())
            p.error += d.message + (d.hint.empty() ? "" : " (hint: " + d.hint + ")") + " [" + d.code + "]";
        return false;
    }
    gpu::CudaCompileOptions co;
    co.arch = arch;
    co.lineInfo = true;
    co.fastCompile = o.fastCompile;
    co.extraOptions = o.nvrtcOptions;
    p.compiled = gpu::compileCuda(p.spec.source, p.spec.kernel, co);
    if (!p.compiled.ok) {
        p.error = "compilation failed:\n" + p.compiled.log;
        return false;
    }
    return true;
}

// Loads the module and the buffers and runs the kernel once. Error text on failure.
std::string setUp(gpu::RunnerClient& client, const Prepared& p, const std::string& arch) {
    gpu::RunnerReply r = client.loadCubin("k", arch, p.spec.kernel, p.compiled.cubin);
    if (!r.ok())
        return "load: " + r.message;
    for (const BenchBuffer& b : p.spec.buffers) {
        client.request("free " + b.name);
        r = client.request("alloc " + b.name + " " +
                           std::to_string(b.count * uint64_t(benchDtypeBytes(b.dtype))));
        if (!r.ok())
            return "alloc " + b.name + ": " + r.message;
        if (b.init != "zero") {
            r = client.request("fill " + b.name + " " + b.dtype + " " + b.init);
            if (!r.ok())
                return "fill " + b.name + ": " + r.message;
        }
    }
    for (const auto& [name, map] : p.spec.tensorMaps) {
        r = client.createTensorMap(name, map);
        if (!r.ok())
            return "tensormap " + name + ": " + r.message;
    }
    r = client.request("launch k " + p.spec.launchFields, std::chrono::milliseconds(60000));
    if (!r.ok())
        return "launch: " + r.message;
    return {};
}

std::string subjectText(const Options& o, const CudaBenchSpec& spec) {
    std::string params = paramsText(spec.params);
    return o.file + (params.empty() ? "" : " " + params);
}

ProgramProfileOptions profileOptions(const Options& o) {
    ProgramProfileOptions p;
    p.command = o.command == "profile" ? ProfileCommand::Profile : ProfileCommand::Bench;
    p.vs = o.vs == "cublas" ? PeerKind::Cublas : o.vs == "previous" ? PeerKind::Previous : PeerKind::None;
    p.flushL2 = o.flushL2;
    p.events = o.events;
    p.fastCompile = o.fastCompile;
    p.nvrtcOptions = o.nvrtcOptions;
    p.warmup = o.warmup;
    p.repeat = o.repeat;
    p.peerRounds = o.rounds;
    p.ceilings = !o.noCeilings;
    p.dims = o.dims;
    p.fills = o.fills;
    p.historyPath = !o.history.empty() ? o.history : defaultHistoryPath();
    return p;
}

void printWarnings(const std::vector<std::string>& warnings) {
    for (const std::string& w : warnings)
        std::fprintf(stderr, "tilec: warning: %s\n", w.c_str());
}

bool isTileProgram(const std::string& file) {
    return file.size() >= 3 && file.substr(file.size() - 3) == ".py";
}

int benchOrProfile(const Options& o) {
    std::string device;
    auto client = startRunner(o, device);
    if (!client)
        return ExitRuntimeError;
    std::string arch = deviceArch(device);
    Prepared p;
    if (!prepare(o, o.params, arch, p)) {
        std::fprintf(stderr, "tilec: error: %s\n", p.error.c_str());
        return p.error.rfind("compilation", 0) == 0 ? ExitCompileError : ExitRuntimeError;
    }
    if (std::string e = setUp(*client, p, arch); !e.empty()) {
        std::fprintf(stderr, "tilec: error: %s\n", e.c_str());
        return ExitRuntimeError;
    }
    KernelTarget t;
    t.subject = subjectText(o, p.spec);
    t.kernel = p.spec.kernel;
    t.registers = p.compiled.registers;
    t.sharedBytes = p.compiled.sharedBytes;
    t.work = {p.spec.flops, p.spec.bytes};
    t.gemmM = p.spec.gemmM;
    t.gemmN = p.spec.gemmN;
    t.gemmK = p.spec.gemmK;
    t.noGemmNote = "the file has no '// tilebench-gemm: m= n= k=' directive";
    t.historyFile = o.file;
    t.params = p.spec.params;
    t.cubin = &p.compiled.cubin;
    ProgramProfileOptions po = profileOptions(o);
    std::vector<std::string> warnings;
    Ceilings ceilings = sessionCeilings(*client, po, warnings);
    ProfileReport report;
    bool ok = profileKernel(*client, t, po, device, arch, ceilings, report, warnings);
    printWarnings(warnings);
    std::printf("%s", o.json ? (formatReportJson(report) + "\n").c_str() : formatReportText(report).c_str());
    return ok ? ExitOk : ExitRuntimeError;
}

// tilec bench/profile on a tile program: compile with the -p overrides, then profileProgram (the CUDA of
// its plan compiled and loaded with device-filled inputs, each kernel timed).
int benchTileProgram(const Options& o) {
    std::string text;
    if (!readTextFile(o.file, text)) {
        std::fprintf(stderr, "tilec: error: cannot read '%s'\n", o.file.c_str());
        return ExitRuntimeError;
    }
    CompileOptions co;
    co.elaborate.overrides = o.params;
    co.backend = o.backend;
    std::unique_ptr<CompileResult> result = compileTileProgram(o.file, text, co);
    if (!result->ok() || !result->plan || result->module->funcs.empty()) {
        std::fprintf(stderr, "%s", result->formattedDiagnostics().c_str());
        std::fprintf(stderr, "tilec: error: %s did not compile\n", o.file.c_str());
        return ExitCompileError;
    }
    std::string device;
    auto client = startRunner(o, device);
    if (!client)
        return ExitRuntimeError;
    ProgramProfileOptions po = profileOptions(o);
    if (!o.cudaFile.empty()) {
        if (!readTextFile(o.cudaFile, po.cudaSourceOverride) || po.cudaSourceOverride.empty()) {
            std::fprintf(stderr, "tilec: error: cannot read the CUDA file '%s'\n", o.cudaFile.c_str());
            return ExitRuntimeError;
        }
        // An edited kernel is not the file's: its times stay out of the bench history.
        po.historyPath.clear();
        std::fprintf(stderr, "tilec: note: timing the CUDA of '%s' in place of the generated code\n",
                     o.cudaFile.c_str());
    }
    ProgramProfileReport report = profileProgram(*result, *client, po, o.file);
    std::string diags = formatDiagnostics(result->sources, report.diagnostics);
    if (!diags.empty())
        std::fprintf(stderr, "%s", diags.c_str());
    printWarnings(report.warnings);
    if (report.kernels.empty() && !report.ok) {
        std::fprintf(stderr, "tilec: error: %s\n", report.error.c_str());
        return report.compileError ? ExitCompileError : ExitRuntimeError;
    }
    std::printf("%s", o.json ? (formatProgramReportJson(report) + "\n").c_str()
                             : formatProgramReportText(report).c_str());
    return !report.ok || report.checkFailed ? ExitRuntimeError
           : report.wrongResults            ? ExitWrongResult
                                            : ExitOk;
}

// tilec sweep on a tile program: each combination compiled as its own variant and timed.
int sweepTileProgram(const Options& o, const std::vector<SweepAxis>& axes) {
    std::string text;
    if (!readTextFile(o.file, text)) {
        std::fprintf(stderr, "tilec: error: cannot read '%s'\n", o.file.c_str());
        return ExitRuntimeError;
    }
    std::string device;
    auto client = startRunner(o, device);
    if (!client)
        return ExitRuntimeError;
    ProgramSweepOptions so;
    so.timing = profileOptions(o);
    so.baseOverrides = o.params;
    so.backend = o.backend;
    ProgramSweepReport report = sweepProgram(
        o.file, text, axes, *client, so, [](size_t index, size_t total, const std::string& params) {
            std::fprintf(stderr, "\r[%zu/%zu] %-60s", index + 1, total, params.c_str());
            std::fflush(stderr);
            return true;
        });
    std::fprintf(stderr, "\r%-80s\r", "");
    if (!report.ok) {
        std::fprintf(stderr, "tilec: error: %s\n", report.error.c_str());
        return ExitRuntimeError;
    }
    for (const SweepVariant& v : report.variants)
        if (!v.ran() && !v.formattedDiagnostics.empty())
            std::fprintf(stderr, "%s:\n%s", v.paramsText.c_str(), v.formattedDiagnostics.c_str());
    std::printf("%s",
                o.json ? (formatSweepJson(report) + "\n").c_str() : formatSweepText(report, so).c_str());
    return report.ranCount() > 0 ? ExitOk : ExitRuntimeError;
}

int sweep(const Options& o) {
    DiagnosticEngine diags;
    std::vector<SweepAxis> axes;
    for (const std::string& a : o.sweepArgs) {
        SweepAxis axis;
        if (!parseSweepAxis(a, axis, diags))
            break;
        axes.push_back(axis);
    }
    auto configs =
        diags.hasErrors() ? decltype(sweepConfigurations(axes, diags)){} : sweepConfigurations(axes, diags);
    if (diags.hasErrors() || axes.empty()) {
        for (const Diagnostic& d : diags.diagnostics())
            std::fprintf(stderr, "tilec: error: %s [%s]%s%s\n", d.message.c_str(), d.code.c_str(),
                         d.hint.empty() ? "" : "\n  hint: ", d.hint.c_str());
        if (axes.empty() && !diags.hasErrors())
            std::fprintf(stderr, "tilec: error: sweep needs at least one -p NAME=VALUES\n");
        return ExitUsage;
    }
    if (isTileProgram(o.file))
        return sweepTileProgram(o, axes);
    std::string device;
    auto client = startRunner(o, device);
    if (!client)
        return ExitRuntimeError;
    std::string arch = deviceArch(device);
    Ceilings ceilings;
    std::string error;
    if (!o.noCeilings)
        measureCeilings(*client, ceilings, error);
    struct Row {
        std::string params, status;
        TimingOutcome timing;
        DerivedRates rates;
        int smem = -1, regs = -1;
    };
    std::vector<Row> rows;
    for (size_t i = 0; i < configs.size(); ++i) {
        Row row;
        row.params = paramsText(configs[i]);
        std::fprintf(stderr, "\r[%zu/%zu] %-60s", i + 1, configs.size(), row.params.c_str());
        std::fflush(stderr);
        Prepared p;
        if (!prepare(o, configs[i], arch, p)) {
            row.status = p.error.rfind("compilation", 0) == 0 ? "compile error" : p.error;
        } else if (std::string e = setUp(*client, p, arch); !e.empty()) {
            row.status = "run failed: " + e;
        } else {
            row.timing = timeKernel(*client, "k", "", timingRequest(profileOptions(o)));
            row.status = row.timing.ok ? "ran" : "timing failed: " + row.timing.error;
            row.rates = deriveRates({p.spec.flops, p.spec.bytes}, row.timing.summary.medianMs, ceilings);
        }
        row.smem = p.compiled.sharedBytes;
        row.regs = p.compiled.registers;
        rows.push_back(row);
    }
    std::fprintf(stderr, "\r%-80s\r", "");
    if (o.json) {
        JsonWriter w;
        w.beginObject().field("file", o.file).field("device", device).key("rows").beginArray();
        for (const Row& r : rows) {
            w.beginObject().field("params", r.params).field("status", r.status);
            w.field("medianMs", r.timing.summary.medianMs).field("spreadPct", r.timing.summary.spreadPct);
            w.field("tflops", r.rates.tflops).field("gbps", r.rates.gbps).field("sharedBytes", r.smem);
            w.field("registers", r.regs).field("clock", r.timing.clock).endObject();
        }
        w.endArray().endObject();
        std::printf("%s\n", w.str().c_str());
    } else {
        std::string clock = "no configuration ran";
        for (const Row& r : rows)
            if (r.status == "ran") {
                clock = r.timing.clock;
                break;
            }
        std::printf("%s on %s (%s, %d repeats%s)\n", o.file.c_str(), device.c_str(), clock.c_str(), o.repeat,
                    o.flushL2 ? ", L2 flushed" : "");
        std::printf("%-36s %12s %8s %10s %9s %10s %5s  %s\n", "parameters", "median", "spread", "TFLOP/s",
                    "GB/s", "smem B", "regs", "correctness");
        for (const Row& r : rows) {
            bool ran = r.status == "ran";
            std::printf("%-36s %12s %7.1f%% %10.1f %9.0f %10d %5d  %s\n", r.params.c_str(),
                        ran ? formatDuration(r.timing.summary.medianMs).c_str() : "-",
                        ran ? r.timing.summary.spreadPct : 0, r.rates.tflops, r.rates.gbps, r.smem, r.regs,
                        ran ? "not checked (no reference for .cu files)" : r.status.c_str());
        }
    }
    for (const Row& r : rows)
        if (r.status == "ran")
            return ExitOk;
    return ExitRuntimeError;
}

} // namespace

std::string profileUsageText() {
    return R"(usage: tilec bench FILE [-p NAME=VALUE]... [--vs cublas|previous] [options]
       tilec profile FILE [-p NAME=VALUE]... [options]
       tilec sweep FILE -p NAME=VALUES... [options]

Runs a kernel on the GPU through tilebench-runner. FILE is a .cu file with // tilebench-* directives
(docs/profiling.md) or a .py tile program: compiled with the -p jit parameter
overrides for the portable CUDA path, inputs filled on the device, each kernel timed, and checked once
against the CPU executor when the problem is small. bench times it (CUPTI kernel records) and derives TFLOP/s and GB/s against the
measured ceilings; profile adds Range Profiler counters and per-line SASS shared-memory wavefronts;
sweep times every combination of -p NAME=1..4 / NAME=64,128 values (a tile program: each combination
compiled as its own variant; one that does not compile, e.g. over the shared-memory budget, is a row
with its diagnostic).

options:
  --vs cublas      also time cuBLAS fp16 GEMM on the file's tilebench-gemm shape (tile programs: the jit
                   parameters M, N, K) and print the ratio
  --rounds N       with --vs cublas: time ours and cuBLAS alternately N times (default 3); the ratio is of
                   the medians over all rounds, and the report lists each round's ratio
  --vs previous    compare with the last bench of the same file and parameters (bench history)
  --repeat N       timed launches (default 20)        --warmup N   untimed launches first (default 5)
  --flush-l2       clear L2 before every timed launch --events     time with CUDA events, not CUPTI
  --fast-compile=L compile with NVRTC --Ofast-compile=L (min, mid, max) to measure what the quick compile costs
  --nvrtc-option=O pass O to NVRTC as well (repeatable), e.g. --nvrtc-option=--ptxas-options=-O2
  --json           machine-readable output            --history P  bench history file
  --no-ceilings     skip measuring copy bandwidth and cuBLAS (quick runs, sanitizers)
  --dim NAME=VALUE  tile programs: the size of a T.dynamic dimension (default 256)
  --backend NAME    tile programs: portable (mma.sync, cp.async) or hopper (wgmma, TMA, warp specialization)
  --cuda FILE       tile programs, bench/profile: time an edited copy of `tilec emit cuda` (the same kernels
                   and parameters) with the same launch, tensor maps and inputs; kept out of the history
  --fill NAME=SPEC  tile programs: make input NAME on the host as `tilec run --fill` does (randint:LO..HI,
                   sorted:LO..HI, arange, const:V, zeros, ones), for index inputs that must stay in bounds
  --runner PATH    tilebench-runner to use            --fake[-cupti=MODE]  simulated runner (tests)
)";
}

int runProfileCommand(int argc, char** argv) {
    Options o;
    std::string error;
    if (!parseOptions(argc, argv, o, error)) {
        std::fprintf(stderr, "tilec: error: %s\n%s", error.c_str(), usage().c_str());
        return ExitUsage;
    }
    if (!o.fills.empty() && !isTileProgram(o.file)) {
        std::fprintf(stderr, "tilec: error: --fill makes a tile program's inputs; a .cu file's buffers are "
                             "filled by its // tilebench-buffer directives\n");
        return ExitUsage;
    }
    if (!o.cudaFile.empty() && (o.command == "sweep" || !isTileProgram(o.file))) {
        std::fprintf(stderr, "tilec: error: --cuda replaces a tile program's generated CUDA in bench and "
                             "profile; a sweep generates each variant, and a .cu file is already CUDA\n");
        return ExitUsage;
    }
    if (o.command == "sweep")
        return sweep(o);
    if ((o.command == "bench" || o.command == "profile") && isTileProgram(o.file))
        return benchTileProgram(o);
    if (o.command == "bench" || o.command == "profile")
        return benchOrProfile(o);
    std::fprintf(stderr, "tilec: error: unknown command '%s'\n", o.command.c_str());
    return ExitUsage;
}

} // namespace tb::tilec
