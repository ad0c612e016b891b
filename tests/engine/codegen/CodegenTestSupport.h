// Helpers for the CUDA backend tests: compile a sample (with parameter overrides) through the compile line
// for one backend (the portable one unless asked) with H200 limits, as `tilec run --gpu` does on the H200.
#pragma once

#include "engine/codegen/CudaCodegen.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/pipeline/Pipeline.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tb::codegen::test {

struct PlannedProgram {
    std::unique_ptr<CompileResult> result;
    std::string planErrors;
    bool ok() const { return result && result->ok() && planErrors.empty(); }
    const layout::LayoutPlan& plan() const { return *result->plan; }
};

inline std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Compiled through the whole compile line for the portable backend on sm_90a (H200 limits), as
// `tilec run --gpu` does on the H200. planErrors holds the errors of the passes after `check`.
inline PlannedProgram planProgram(const std::string& name, const std::string& text,
                                  std::vector<std::pair<std::string, std::string>> overrides = {},
                                  Backend backend = Backend::Portable) {
    PlannedProgram p;
    CompileOptions options;
    options.target = targetSm90a();
    options.backend = backend;
    options.elaborate.overrides = std::move(overrides);
    p.result = compileTileProgram(name, text, options);
    if (!p.result->ok() && p.result->module && p.result->failedPass != "check" &&
        p.result->failedPass != "elaborate" && p.result->failedPass != "verify")
        p.planErrors = p.result->formattedDiagnostics();
    return p;
}

inline PlannedProgram planSample(const std::string& file,
                                 std::vector<std::pair<std::string, std::string>> overrides = {},
                                 Backend backend = Backend::Portable) {
    return planProgram(file, readFile(std::string(TILEBENCH_SAMPLES_DIR) + "/" + file), std::move(overrides),
                       backend);
}

// A test program under tests/engine/codegen/programs ("gemm_k_slices.py").
inline PlannedProgram planTestProgram(const std::string& file,
                                      std::vector<std::pair<std::string, std::string>> overrides = {},
                                      Backend backend = Backend::Portable) {
    return planProgram(file, readFile(std::string(TILEBENCH_TESTS_DIR) + "/engine/codegen/programs/" + file),
                       std::move(overrides), backend);
}

// A test program under tests/engine/run/programs: programs the JIT does not lower (thread-indexed code,
// per-thread emitter fragments), kept apart from the folders whose every program the JIT must match the
// interpreter on.
inline PlannedProgram planInterpreterProgram(const std::string& file,
                                             std::vector<std::pair<std::string, std::string>> overrides = {},
                                             Backend backend = Backend::Portable) {
    return planProgram(file, readFile(std::string(TILEBENCH_TESTS_DIR) + "/engine/run/programs/" + file),
                       std::move(overrides), backend);
}

// A TileLang example of the corpus under tests/corpus/tilelang-examples ("warp_specialize/x.py").
inline PlannedProgram planCorpusProgram(const std::string& file,
                                        std::vector<std::pair<std::string, std::string>> overrides = {},
                                        Backend backend = Backend::Portable) {
    return planProgram(file, readFile(std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples/" + file),
                       std::move(overrides), backend);
}

// NVRTC's logs of the kernels of `code` that do not compile for `arch` (no compile cache); empty when every
// kernel compiles.
inline std::string nvrtcFailures(const CudaKernelSource& code, const std::string& arch) {
    std::string failures;
    for (const GeneratedUnit& unit : code.units)
        for (const GeneratedKernel& k : unit.kernels) {
            gpu::CudaCompileOptions o;
            o.arch = arch;
            o.useCache = false;
            gpu::CudaCompileResult r = gpu::compileCuda(unit.source, k.name, o);
            if (!r.ok)
                failures += k.name + " for " + arch + ":\n" + r.log + "\n";
        }
    return failures;
}

// The generated CUDA of a planned program (the codegen pass's); `errors` gets the diagnostics, formatted.
inline CudaKernelSource generateFor(const PlannedProgram& p, std::string& errors) {
    std::vector<Diagnostic> errorsOnly;
    for (const Diagnostic& d : p.result->diagnostics.diagnostics())
        if (d.severity == Severity::Error)
            errorsOnly.push_back(d);
    errors = formatDiagnostics(p.result->sources, errorsOnly);
    return p.result->cuda ? *p.result->cuda : CudaKernelSource{};
}

inline const std::vector<std::string>& sampleFiles() {
    static const std::vector<std::string> files = {
        "01_elementwise_add.py", "02_gemm_relu.py",       "03_gemm_transpose.py", "04_softmax.py",
        "05_rmsnorm_silu.py",    "06_flash_attention.py", "07_mla_decode.py"};
    return files;
}

inline size_t countOf(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size()))
        ++n;
    return n;
}

} // namespace tb::codegen::test
