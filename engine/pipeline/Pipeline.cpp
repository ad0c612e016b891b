#include "engine/pipeline/Pipeline.h"

#include "engine/check/Checks.h"
#include "engine/frontend/Parser.h"
#include "engine/ir/Verifier.h"

namespace tb {

const std::vector<PassInfo>& pipelinePasses() {
    static const std::vector<PassInfo> passes = {
        {"parse", "lex and parse the Python subset of tile programs into a syntax tree"},
        {"elaborate", "run the compile-time Python and build the Tile IR of the specialized kernel"},
        {"verify", "check the Tile IR's internal invariants (a failure is a TileBench bug)"},
        {"check", "check shapes, dtypes, scopes, indices, thread counts and the shared-memory budget"},
    };
    return passes;
}

namespace {

// Times one pass and records it; returns false when the pipeline should stop here.
class PassRunner {
public:
    PassRunner(CompileResult& result, const CompileOptions& options) : m_result(result), m_options(options) {}

    template <typename Fn>
    bool run(const char* name, Fn&& fn) {
        if (m_stopped)
            return false;
        auto start = std::chrono::steady_clock::now();
        fn();
        auto end = std::chrono::steady_clock::now();
        m_result.timings.push_back({name, std::chrono::duration<double, std::milli>(end - start).count()});
        if (m_result.diagnostics.hasErrors() || m_options.stopAfter == name)
            m_stopped = true;
        return !m_stopped;
    }

private:
    CompileResult& m_result;
    const CompileOptions& m_options;
    bool m_stopped = false;
};

} // namespace

std::unique_ptr<CompileResult> compileTileProgram(std::string fileName, std::string text,
                                                  const CompileOptions& options) {
    auto result = std::make_unique<CompileResult>();
    CompileResult& r = *result;
    r.file = r.sources.addFile(std::move(fileName), std::move(text));
    PassRunner passes(r, options);

    passes.run("parse", [&] { r.ast = parseModule(r.sources, r.file, r.diagnostics); });
    passes.run("elaborate", [&] { r.module = elaborate(r.sources, r.ast, options.elaborate, r.diagnostics); });
    passes.run("verify", [&] {
        if (r.module)
            verifyModule(*r.module, r.diagnostics);
    });
    passes.run("check", [&] {
        if (r.module)
            check::checkModule(*r.module, options.target, r.diagnostics);
    });
    return result;
}

} // namespace tb
