#include "engine/tools/tilec/EmitCommand.h"

#include "engine/pipeline/GeneratedArtifacts.h"
#include "engine/pipeline/PassSnapshots.h"
#include "engine/profile/CodeDiff.h"
#include "engine/support/Json.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace tb::tilec {

int emitCode(const CommandLine& cl, const CompileResult& result, std::string_view kind) {
    if (kind != "cuda" && kind != "ptx" && kind != "sass") {
        std::fprintf(stderr, "tilec: error: emit needs cuda, ptx or sass, got '%.*s'\n", int(kind.size()),
                     kind.data());
        return ExitUsage;
    }
    // The same engine path as the app's code views (engine/codegen/GeneratedArtifacts.h).
    GeneratedCuda cuda = generateCudaText(result);
    std::string text = formatDiagnostics(result.sources, cuda.diagnostics);
    if (!text.empty())
        std::fprintf(stderr, "%s", text.c_str());
    if (!cuda.ok)
        return ExitCompileError;
    if (kind == "cuda") {
        std::printf("%s", cuda.text.c_str());
        return ExitOk;
    }
    GeneratedMachineCode code = compileGeneratedCuda(cuda, cl.arch, kind == "sass");
    if (!code.ptxOk) {
        std::fprintf(stderr, "tilec: error: %s\n", code.ptxMessage.c_str());
        return ExitRuntimeError;
    }
    if (kind == "ptx") {
        std::printf("%s", code.ptx.c_str());
        return ExitOk;
    }
    if (!code.sassOk) {
        std::fprintf(stderr, "tilec: error: %s\n", code.sassMessage.c_str());
        return ExitRuntimeError;
    }
    std::printf("%s", code.sass.c_str());
    return ExitOk;
}

int emitCudaDiff(const CommandLine& cl, const CompileResult& result, const std::string& fileName,
                 const std::string& text, const CompileOptions& options) {
    profile::GeneratedCodeDiff diff = profile::diffGeneratedCuda(fileName, text, result, options, cl.against);
    if (cl.json) {
        JsonWriter json;
        json.beginObject()
            .field("ok", diff.ok)
            .field("a", diff.nameA)
            .field("b", diff.nameB)
            .field("removed", int64_t(diff.removed))
            .field("added", int64_t(diff.added))
            .field("diff", diff.ok ? diff.unified() : "")
            .field("error", diff.error)
            .endObject();
        std::printf("%s\n", json.str().c_str());
    } else if (diff.ok) {
        std::printf("%s", diff.unified().c_str());
        if (diff.removed + diff.added == 0)
            std::fprintf(stderr, "tilec: the CUDA of %s is the same\n", diff.nameB.c_str());
    }
    if (!diff.ok) {
        std::fprintf(stderr, "tilec: error: %s\n", diff.error.c_str());
        return ExitCompileError;
    }
    return ExitOk;
}

int printPassSnapshots(const CompileResult& result) {
    for (const PassSnapshot& s : passSnapshots(result)) {
        std::printf("==== %s: %s%s\n", s.pass.c_str(), s.summary.c_str(), s.ran ? "" : " (did not run)");
        std::printf("%s\n", s.text.c_str());
    }
    return result.ok() ? ExitOk : ExitCompileError;
}

} // namespace tb::tilec
