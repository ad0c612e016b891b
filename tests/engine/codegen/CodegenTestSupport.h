// Helpers for the CUDA backend tests: compile a sample (with parameter overrides) and plan it for the
// portable mma.sync path with H200 limits (portableTarget(sm_90a)), as `tilec run --gpu` does on the H200.
#pragma once

#include "engine/codegen/CudaCodegen.h"
#include "engine/passes/LayoutPipeline.h"
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
    layout::LayoutPlan plan;
    std::string planErrors;
    bool ok() const { return result && result->ok() && planErrors.empty(); }
};

inline std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline PlannedProgram planProgram(const std::string& name, const std::string& text,
                                  std::vector<std::pair<std::string, std::string>> overrides = {}) {
    PlannedProgram p;
    CompileOptions options;
    options.target = portableTarget(targetSm90a());
    options.elaborate.overrides = std::move(overrides);
    p.result = compileTileProgram(name, text, options);
    if (!p.result->ok())
        return p;
    passes::PassContext context;
    context.target = portableTarget(targetSm90a());
    context.sources = &p.result->sources;
    DiagnosticEngine diags;
    p.plan = passes::planLayouts(*p.result->module, context, diags);
    if (diags.hasErrors())
        p.planErrors = formatDiagnostics(p.result->sources, diags.diagnostics());
    return p;
}

inline PlannedProgram planSample(const std::string& file,
                                 std::vector<std::pair<std::string, std::string>> overrides = {}) {
    return planProgram(file, readFile(std::string(TILEBENCH_SAMPLES_DIR) + "/" + file), std::move(overrides));
}

// A test program under tests/engine/codegen/programs ("gemm_k_slices.py").
inline PlannedProgram planTestProgram(const std::string& file,
                                      std::vector<std::pair<std::string, std::string>> overrides = {}) {
    return planProgram(file, readFile(std::string(TILEBENCH_TESTS_DIR) + "/engine/codegen/programs/" + file),
                       std::move(overrides));
}

// The generated CUDA of a planned program; `errors` gets the code generator's diagnostics, formatted.
inline CudaKernelSource generateFor(const PlannedProgram& p, std::string& errors) {
    DiagnosticEngine diags;
    CudaKernelSource code = generateCuda(*p.result->module, p.plan, p.plan.target, diags, &p.result->sources);
    errors = formatDiagnostics(p.result->sources, diags.diagnostics());
    return code;
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
