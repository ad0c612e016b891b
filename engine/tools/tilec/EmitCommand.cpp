#include "engine/tools/tilec/EmitCommand.h"

#include "engine/codegen/CudaCodegen.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/run/GpuRun.h"

#include <cstdio>

namespace tb::tilec {

int emitCode(const CommandLine& cl, const CompileResult& result, const layout::LayoutPlan& inputPlan,
             std::string_view kind) {
    if (kind != "cuda" && kind != "ptx" && kind != "sass") {
        std::fprintf(stderr, "tilec: error: emit needs cuda, ptx or sass, got '%.*s'\n", int(kind.size()),
                     kind.data());
        return ExitUsage;
    }
    DiagnosticEngine diags;
    layout::LayoutPlan plan = run::portablePlan(result, inputPlan, diags);
    codegen::CudaKernelSource code;
    if (!diags.hasErrors())
        code = codegen::generateCuda(*result.module, plan, plan.target, diags, &result.sources);
    std::string text = formatDiagnostics(result.sources, diags.diagnostics());
    if (!text.empty())
        std::fprintf(stderr, "%s", text.c_str());
    if (diags.hasErrors() || !code.ok)
        return ExitCompileError;
    if (kind == "cuda") {
        for (const auto& unit : code.units)
            std::printf("%s", unit.source.c_str());
        return ExitOk;
    }
    for (const auto& unit : code.units)
        for (const auto& k : unit.kernels) {
            gpu::CudaCompileOptions options;
            options.arch = cl.arch;
            gpu::CudaCompileResult r = gpu::compileCuda(unit.source, k.name, options);
            if (!r.ok) {
                std::fprintf(stderr, "tilec: error: NVRTC could not compile %s for %s:\n%s\n", k.name.c_str(),
                             cl.arch.c_str(), r.log.c_str());
                return ExitRuntimeError;
            }
            if (kind == "ptx") {
                std::printf("// %s: %d registers, %d bytes spilled (stores), %d (loads)\n%s", k.name.c_str(),
                            r.registers, r.spillStoreBytes, r.spillLoadBytes, r.ptx.c_str());
                continue;
            }
            std::string reason;
            auto sass = gpu::disassembleSass(r.cubin, &reason);
            if (!sass) {
                std::fprintf(stderr,
                             "tilec: error: no SASS disassembler: %s (install the CUDA toolkit's nvdisasm or "
                             "cuobjdump; `tilec emit ptx` works without them)\n",
                             reason.c_str());
                return ExitRuntimeError;
            }
            std::printf("%s", sass->c_str());
        }
    return ExitOk;
}

int emitCode(const CommandLine& cl, const CompileResult& result, const layout::LayoutPlan& plan) {
    return emitCode(cl, result, plan, "cuda");
}

} // namespace tb::tilec
