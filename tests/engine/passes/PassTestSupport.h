// Shared helpers of the layout-pass tests: compile a sample or a test program through the compile line's
// layout passes (compileTileProgram), keeping the compile result alive with its plan.
#pragma once

#include "engine/ir/IrQueries.h"
#include "engine/layout/algebra/LayoutEquality.h"
#include "engine/layout/plan/LayoutPlan.h"
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

// The plan a target gets when its own instruction set is used: wgmma targets through the hopper backend, so
// that these tests see the layout engine's sm_90a choices (warpgroups, wgmma operand swizzles).
inline Backend nativeBackend(const Target& target) {
    return target.hasWgmma ? Backend::Hopper : Backend::Portable;
}

struct Planned {
    explicit Planned(std::unique_ptr<CompileResult> result)
        : compiled(std::move(result)), diagnostics(compiled->diagnostics),
          plan(compiled->plan ? *compiled->plan : emptyPlan()) {}
    std::unique_ptr<CompileResult> compiled;
    const DiagnosticEngine& diagnostics; // the compile's, the layout passes' included
    const layout::LayoutPlan& plan;

    const layout::KernelPlan& kernel(size_t i = 0) const { return plan.kernels.at(i); }
    std::string diagnosticsText() const { return compiled->formattedDiagnostics(); }
    // Parsing, elaboration and the checks succeeded (errors, if any, come from the layout passes).
    bool frontEndOk() const {
        return compiled->module && compiled->ran("check") && compiled->failedPass != "check";
    }

private:
    static const layout::LayoutPlan& emptyPlan() {
        static const layout::LayoutPlan empty;
        return empty;
    }
};

// Compiles through the layout passes and the kernel schedule (not codegen: these tests inspect the plan),
// for the given backend.
inline std::unique_ptr<Planned> planTextOn(const std::string& name, const std::string& text,
                                           const Target& target, Backend backend,
                                           std::vector<std::pair<std::string, std::string>> overrides = {}) {
    CompileOptions options;
    options.target = target;
    options.backend = backend;
    options.elaborate.overrides = std::move(overrides);
    options.stopAfter = "shared-memory-planning";
    return std::make_unique<Planned>(compileTileProgram(name, text, options));
}

// The same with the target's native backend.
inline std::unique_ptr<Planned> planText(const std::string& name, const std::string& text,
                                         const Target& target,
                                         std::vector<std::pair<std::string, std::string>> overrides = {}) {
    return planTextOn(name, text, target, nativeBackend(target), std::move(overrides));
}

// The compile failed or a pass reported an error.
inline bool hasErrors(const Planned& p) {
    return !p.compiled->ok() || p.diagnostics.hasErrors();
}

inline bool equalFragments(const layout::Fragment& a, const layout::Fragment& b) {
    auto r = layout::fragmentsEqual(a, b);
    return r.ok() && *r;
}

// The WarpGroups statements of a kernel, in program order.
inline std::vector<const ir::Stmt*> warpGroupScopesOf(const layout::KernelPlan& kernel) {
    std::vector<const ir::Stmt*> scopes;
    ir::walkStmts(*kernel.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
        if (s.kind == ir::StmtKind::WarpGroups)
            scopes.push_back(&s);
    });
    return scopes;
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
