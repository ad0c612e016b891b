// Times the layout analysis of every sample, parse -> plan (compileTileProgram, then every layout pass)
// on sm_90a, and prints the median per run, the layout passes' share, and the ratio to the 20 ms budget
// the product promises for MLA decode. A benchmark, not a test: it never fails on timing.
#include "engine/catalog/SampleCatalog.h"
#include "engine/passes/LayoutPipeline.h"
#include "engine/pipeline/Pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
    constexpr double budgetMs = 20.0;
    std::printf("%-24s %12s %12s %12s %14s\n", "sample", "compile(ms)", "layouts(ms)", "total(ms)",
                "vs 20ms budget");
    for (const tb::SampleInfo& sample : tb::listSamples()) {
        std::string text;
        if (!tb::readTextFile(sample.path, text))
            continue;
        std::vector<double> compile, layouts, totals;
        bool ok = true;
        for (int i = 0; i < runs && ok; ++i) {
            auto start = std::chrono::steady_clock::now();
            tb::CompileOptions options;
            options.target = tb::targetSm90a();
            auto result = tb::compileTileProgram(sample.path, text, options);
            auto mid = std::chrono::steady_clock::now();
            if (!result->ok()) {
                ok = false;
                break;
            }
            tb::passes::PassContext context;
            context.target = options.target;
            context.sources = &result->sources;
            tb::DiagnosticEngine diagnostics;
            tb::layout::LayoutPlan plan = tb::passes::planLayouts(*result->module, context, diagnostics);
            auto end = std::chrono::steady_clock::now();
            compile.push_back(std::chrono::duration<double, std::milli>(mid - start).count());
            layouts.push_back(std::chrono::duration<double, std::milli>(end - mid).count());
            totals.push_back(std::chrono::duration<double, std::milli>(end - start).count());
            ok = !diagnostics.hasErrors() && !plan.kernels.empty();
        }
        if (!ok) {
            std::printf("%-24s %12s\n", sample.name.c_str(), "failed");
            continue;
        }
        const double total = median(totals);
        std::printf("%-24s %12.3f %12.3f %12.3f %13.2fx\n", sample.name.c_str(), median(compile),
                    median(layouts), total, total / budgetMs);
    }
    return 0;
}
