// tilec: the headless command line over TileBench's engine. The GPU machine, CI and scripts use it; every
// subcommand compiles through the same pipeline as the app.
#include "engine/catalog/SampleCatalog.h"
#include "engine/frontend/Ast.h"
#include "engine/ir/IrJson.h"
#include "engine/ir/Printer.h"
#include "engine/pipeline/Pipeline.h"
#include "engine/support/Json.h"
#include "engine/tools/tilec/BankCommand.h"
#include "engine/tools/tilec/CommandLine.h"
#include "engine/tools/tilec/EmitCommand.h"
#include "engine/tools/tilec/GpuRunCommand.h"
#include "engine/tools/tilec/LayoutCommands.h"
#include "engine/tools/tilec/ProfileCommands.h"
#include "engine/tools/tilec/RunCommand.h"

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

namespace tb::tilec {

namespace {

struct Input {
    std::string name;
    std::string text;
};

// FILE may be a path, '-' for stdin, or the name of a bundled sample.
bool loadInput(const std::string& file, Input& input) {
    if (file == "-") {
        input.name = "<stdin>";
        input.text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        return true;
    }
    if (readTextFile(file, input.text)) {
        input.name = file;
        return true;
    }
    if (auto sample = findSample(file)) {
        input.name = sample->path;
        return readTextFile(sample->path, input.text);
    }
    std::fprintf(stderr, "tilec: error: cannot read '%s' (no such file or sample)\n", file.c_str());
    return false;
}

void printTimings(const CompileResult& result) {
    double total = 0;
    for (const PassTiming& t : result.timings) {
        std::fprintf(stderr, "  %-24s %8.3f ms\n", t.pass.c_str(), t.milliseconds);
        total += t.milliseconds;
    }
    std::fprintf(stderr, "  %-24s %8.3f ms\n", "total", total);
}

void printDiagnostics(const CompileResult& result, bool json) {
    if (json) {
        JsonWriter w;
        w.beginObject();
        w.key("diagnostics");
        writeDiagnosticsJson(w, result.sources, result.diagnostics.diagnostics());
        w.field("errors", static_cast<int64_t>(result.diagnostics.errorCount()));
        w.endObject();
        std::printf("%s\n", w.str().c_str());
        return;
    }
    std::string text = result.formattedDiagnostics();
    if (!text.empty())
        std::fprintf(stderr, "%s", text.c_str());
    if (result.diagnostics.hasErrors())
        std::fprintf(stderr, "%zu error%s generated\n", result.diagnostics.errorCount(),
                     result.diagnostics.errorCount() == 1 ? "" : "s");
}

int runCompileCommand(const CommandLine& cl) {
    Input input;
    if (!loadInput(cl.file, input))
        return ExitRuntimeError;
    CompileOptions options;
    options.elaborate.overrides = cl.params;
    options.elaborate.entry = cl.entry;
    auto target = parseTarget(cl.arch);
    if (!target) {
        std::fprintf(stderr, "tilec: error: unknown architecture '%s' (known: sm_80, sm_90a)\n",
                     cl.arch.c_str());
        return ExitUsage;
    }
    options.target = *target;
    options.disableWgmma = cl.noWgmma;
    if (!cl.backend.empty())
        options.backend = parseBackend(cl.backend);
    if (cl.command == "ast")
        options.stopAfter = "parse";
    // These need only the checked Tile IR; check, layouts, plan, banks, emit and run --gpu run every pass.
    if (cl.command == "ir" || cl.command == "params" || (cl.command == "run" && !cl.gpu))
        options.stopAfter = "check";
    auto result = compileTileProgram(input.name, input.text, options);
    if (cl.showTimings)
        printTimings(*result);

    if (cl.command == "passes") {
        printDiagnostics(*result, false);
        return printPassSnapshots(*result);
    }
    if (cl.command == "ast") {
        printDiagnostics(*result, false);
        std::printf("%s", ast::dumpModule(result->ast).c_str());
        return result->diagnostics.hasErrors() ? ExitCompileError : ExitOk;
    }
    // The plan printers show a complete plan even when codegen failed after it (and say why below).
    const bool printsPlan = cl.command == "layouts" || cl.command == "plan" || cl.command == "banks";
    if ((!result->ok() && !(printsPlan && result->planComplete())) || cl.command == "check") {
        printDiagnostics(*result, cl.json && cl.command == "check");
        if (result->ok() && !cl.json)
            std::printf("%s: ok\n", input.name.c_str());
        return result->ok() ? ExitOk : ExitCompileError;
    }
    printDiagnostics(*result, false); // warnings
    const ir::Module& module = *result->module;
    if (cl.command == "ir") {
        std::printf("%s", cl.json ? (ir::moduleToJson(module, &result->sources) + "\n").c_str()
                                  : ir::printModule(module, &result->sources).c_str());
        return ExitOk;
    }
    if (cl.command == "params") {
        if (cl.json) {
            JsonWriter w;
            w.beginArray();
            for (const auto& p : module.specialization) {
                w.beginObject();
                w.field("name", p.name).field("value", p.text).field("origin", ir::paramOriginName(p.origin));
                w.endObject();
            }
            w.endArray();
            std::printf("%s\n", w.str().c_str());
        } else {
            for (const auto& p : module.specialization)
                std::printf("%-16s = %-24s (%s)\n", p.name.c_str(), p.text.c_str(),
                            ir::paramOriginName(p.origin));
        }
        return ExitOk;
    }
    if (cl.command == "run" && !cl.gpu)
        return runOnCpu(cl, *result);
    if (!result->plan) {
        std::fprintf(stderr, "tilec: error: the layout engine produced no plan\n");
        return ExitCompileError;
    }
    int status = ExitUsage;
    if (cl.command == "layouts")
        status = printLayouts(*result, *result->plan, cl.json, cl.tables);
    else if (cl.command == "plan")
        status = printPlan(*result, *result->plan, cl.json, cl.tables);
    else if (cl.command == "banks")
        status = printBanks(*result, *result->plan, cl.json);
    else if (cl.command == "emit" && !cl.against.empty())
        return emitCudaDiff(cl, *result, input.name, input.text, options);
    else if (cl.command == "emit")
        return emitCode(cl, *result, cl.emitKind);
    else if (cl.command == "run" && cl.gpu)
        return runOnGpu(cl, *result);
    // A plan printed from a program whose code generation failed is not a success.
    return status == ExitOk && !result->ok() ? ExitCompileError : status;
}

int listPasses() {
    for (const PassInfo& p : pipelinePasses())
        std::printf("%-24s %s\n", p.name, p.summary);
    return ExitOk;
}

int listSampleFiles() {
    for (const SampleInfo& s : listSamples()) {
        std::string firstLine = s.description.substr(0, s.description.find('\n'));
        std::printf("%-18s %-26s %s\n", s.name.c_str(), s.fileName.c_str(), firstLine.c_str());
    }
    return ExitOk;
}

} // namespace

int main(int argc, char** argv) {
    // bench, profile and sweep have their own options (repeat counts, peers, sweep axes).
    if (argc > 1 && (std::string_view(argv[1]) == "bench" || std::string_view(argv[1]) == "profile" ||
                     std::string_view(argv[1]) == "sweep"))
        return runProfileCommand(argc, argv);
    std::string error;
    auto cl = parseCommandLine(argc, argv, error);
    if (!cl) {
        std::fprintf(stderr, "tilec: error: %s\n%s", error.c_str(), usageText().c_str());
        return ExitUsage;
    }
    if (cl->command == "help") {
        std::printf("%s", usageText().c_str());
        return ExitOk;
    }
    if (cl->command == "version") {
        std::printf("tilec (TileBench) 0.1.0\n");
        return ExitOk;
    }
    if (cl->command == "passes" && cl->file.empty())
        return listPasses();
    if (cl->command == "samples")
        return listSampleFiles();
    if (cl->command == "check" || cl->command == "ir" || cl->command == "params" || cl->command == "ast" ||
        cl->command == "run" || cl->command == "layouts" || cl->command == "plan" || cl->command == "banks" ||
        cl->command == "emit" || cl->command == "passes") {
        if (cl->file.empty()) {
            std::fprintf(stderr, "tilec: error: '%s' needs a FILE\n", cl->command.c_str());
            return ExitUsage;
        }
        return runCompileCommand(*cl);
    }
    std::fprintf(stderr, "tilec: error: unknown command '%s'\n%s", cl->command.c_str(), usageText().c_str());
    return ExitUsage;
}

} // namespace tb::tilec

int main(int argc, char** argv) {
    return tb::tilec::main(argc, argv);
}
