// Shared helpers of the layout-pass tests: compile a sample or a test program through the pipeline
// (compileTileProgram) and run the layout passes on it, keeping the compile result alive with the plan.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/LayoutPipeline.h"
#include "engine/pipeline/Pipeline.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tb::passtest {

inline std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Planned {
    std::unique_ptr<CompileResult> compiled;
    DiagnosticEngine diagnostics; // the layout passes' own
    layout::LayoutPlan plan;

    const layout::KernelPlan& kernel(size_t i = 0) const { return plan.kernels.at(i); }
    std::string diagnosticsText() const {
        return compiled->formattedDiagnostics() +
               formatDiagnostics(compiled->sources, diagnostics.diagnostics());
    }
};

inline std::unique_ptr<Planned> planText(const std::string& name, const std::string& text,
                                         const Target& target,
                                         std::vector<std::pair<std::string, std::string>> overrides = {}) {
    auto out = std::make_unique<Planned>();
    CompileOptions options;
    options.target = target;
    options.elaborate.overrides = std::move(overrides);
    // The front half only: these tests run the layout passes themselves and inspect their diagnostics.
    options.stopAfter = "check";
    out->compiled = compileTileProgram(name, text, options);
    if (!out->compiled->module)
        return out;
    passes::PassContext context;
    context.target = target;
    context.sources = &out->compiled->sources;
    out->plan = passes::planLayouts(*out->compiled->module, context, out->diagnostics);
    return out;
}

inline std::unique_ptr<Planned> planSample(const std::string& file, const Target& target,
                                           std::vector<std::pair<std::string, std::string>> overrides = {}) {
    return planText(file, readFile(std::string(TILEBENCH_SAMPLES_DIR) + "/" + file), target,
                    std::move(overrides));
}

inline const ir::Buffer* bufferNamed(const layout::KernelPlan& kernel, const std::string& name) {
    for (const ir::Buffer* b : kernel.kernel->allocations)
        if (b->name == name)
            return b;
    return nullptr;
}

inline const layout::FragmentPlan* fragmentNamed(const layout::KernelPlan& kernel, const std::string& name) {
    return kernel.fragmentOf(bufferNamed(kernel, name));
}

inline const layout::SharedBufferPlan* sharedNamed(const layout::KernelPlan& kernel,
                                                   const std::string& name) {
    return kernel.sharedOf(bufferNamed(kernel, name));
}

} // namespace tb::passtest
