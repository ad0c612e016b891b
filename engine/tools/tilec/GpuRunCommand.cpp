#include "engine/tools/tilec/GpuRunCommand.h"

#include "engine/run/GpuRun.h"
#include "engine/run/RunReport.h"
#include "engine/support/Json.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace tb::tilec {

int runOnGpu(const CommandLine& cl, const CompileResult& result) {
    run::GpuRunOptions options;
    options.seed = cl.seed;
    options.fastCompile = cl.fastCompile;
    if (!cl.cudaFile.empty()) {
        std::ifstream in(cl.cudaFile, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        if (!in || text.str().empty()) {
            std::fprintf(stderr, "tilec: error: cannot read the CUDA file '%s'\n", cl.cudaFile.c_str());
            return ExitRuntimeError;
        }
        options.cudaSourceOverride = text.str();
        std::fprintf(stderr, "tilec: note: running the CUDA of '%s' in place of the generated code\n",
                     cl.cudaFile.c_str());
    }
    for (const auto& [name, value] : cl.dims)
        options.dims[name] = std::strtoll(value.c_str(), nullptr, 0);
    run::GpuRunResult r = run::runOnGpu(result, options);
    std::string diags = formatDiagnostics(result.sources, r.diagnostics);
    if (!diags.empty())
        std::fprintf(stderr, "%s", diags.c_str());
    const std::string& name = result.module->sourceName;
    if (cl.json) {
        JsonWriter json;
        json.beginObject().field("ok", r.ok()).field("stage", run::gpuRunStageName(r.stage));
        json.field("message", r.message).field("arch", r.arch).field("device", r.device);
        json.field("fault", r.fault).field("timeout", r.timeout);
        json.field("oracleBackend", r.oracleBackend)
            .field("oracleNote", r.oracleNote)
            .key("kernels")
            .beginArray();
        for (const auto& k : r.kernels)
            json.beginObject()
                .field("name", k.name)
                .field("registers", int64_t(k.registers))
                .field("spillStoreBytes", int64_t(k.spillStoreBytes))
                .field("sharedBytes", k.dynamicSharedBytes)
                .field("wallMs", k.wallMs)
                .endObject();
        json.endArray().key("outputs").beginArray();
        for (const auto& o : r.outputs)
            json.beginObject()
                .field("name", o.name)
                .field("ok", o.comparison.ok())
                .field("maxAbsError", o.comparison.maxAbsError)
                .field("maxRelError", o.comparison.maxRelError)
                .field("mismatches", o.comparison.mismatches)
                .field("atol", o.atol)
                .field("rtol", o.rtol)
                .field("toleranceSetBy", o.toleranceSetBy)
                .endObject();
        json.endArray().endObject();
        std::printf("%s\n", json.str().c_str());
    } else if (r.ran) {
        std::printf("%s: ran %zu kernel%s on %s (%s), seed %llu\n", name.c_str(), r.kernels.size(),
                    r.kernels.size() == 1 ? "" : "s", r.device.c_str(), r.arch.c_str(),
                    static_cast<unsigned long long>(cl.seed));
        for (const auto& k : r.kernels)
            std::printf(
                "  %-28s grid %lldx%lldx%lld block %lld smem %lld B, %d registers, %d B spilled, %.3f ms\n",
                k.name.c_str(), (long long)k.grid[0], (long long)k.grid[1], (long long)k.grid[2],
                (long long)k.block[0], (long long)k.dynamicSharedBytes, k.registers, k.spillStoreBytes,
                k.wallMs);
        for (const auto& o : r.outputs)
            for (const std::string& line :
                 run::outputCheckLines(o.name, o.comparison, o.atol, o.rtol, o.toleranceSetBy))
                std::printf("%s\n", line.c_str());
        if (!r.oracleNote.empty())
            std::printf("note: %s\n", r.oracleNote.c_str());
        std::printf("%s against the CPU reference executor (%s, %.3f s)\n",
                    r.matches ? "correct" : "WRONG RESULTS", r.oracleBackend.c_str(), r.oracleSeconds);
    }
    if (!r.ran && !cl.json)
        std::fprintf(stderr, "tilec: error: GPU run failed at %s: %s%s\n", run::gpuRunStageName(r.stage),
                     r.message.c_str(), r.runnerRestarted ? " (the runner was restarted)" : "");
    if (r.ok())
        return ExitOk;
    if (r.ran)
        return ExitWrongResult;
    if (r.stage == run::GpuRunStage::Codegen || r.stage == run::GpuRunStage::Plan)
        return ExitCompileError;
    return ExitRuntimeError;
}

} // namespace tb::tilec
