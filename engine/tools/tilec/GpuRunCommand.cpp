#include "engine/tools/tilec/GpuRunCommand.h"

#include "engine/run/GpuRun.h"
#include "engine/run/RunReport.h"

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
    options.fills = cl.fills;
    options.fastCompile = cl.fastCompile;
    options.oracleBlockSample = cl.checkBlocks;
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
    // The engine's description of the run, as the app's Run panel shows it (engine/run/RunReport.h).
    if (cl.json) {
        std::printf("%s\n", run::gpuRunJson(r).c_str());
    } else if (r.ran) {
        std::printf("%s: ran %zu kernel%s on %s (%s), seed %llu\n", name.c_str(), r.kernels.size(),
                    r.kernels.size() == 1 ? "" : "s", r.device.c_str(), r.arch.c_str(),
                    static_cast<unsigned long long>(cl.seed));
        std::printf("%s", run::describeGpuRun(r).text().c_str());
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
