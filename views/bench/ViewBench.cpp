// The edit-to-view-model path the app runs on every keystroke, timed per sample: compile the edited text
// (the whole pipeline, layout passes and bank analysis included), then build every canvas's view model
// (the first buffer's layout, bank conflicts, warp partition, budget, stage sweep) and the code views' text
// (the generated CUDA with its line links, and every pass's snapshot). Prints the median and
// the ratio to the budgets the product promises (16 ms for GEMM and the smaller samples, 50 ms for MLA
// decode). A benchmark, not a test: it never fails on timing.
#include "engine/catalog/SampleCatalog.h"
#include "engine/pipeline/GeneratedArtifacts.h"
#include "engine/pipeline/PassSnapshots.h"
#include "views/model/BankConflictViewModel.h"
#include "views/model/BudgetViewModel.h"
#include "views/model/LayoutViewModel.h"
#include "views/model/ProgramAnalysis.h"
#include "views/model/SweepPlotModel.h"
#include "views/model/WarpPartitionViewModel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Builds what CanvasPanels shows after a compile; returns false when there is nothing to show.
bool buildAllViews(const tb::views::ProgramAnalysis& analysis) {
    if (!analysis.plan || analysis.plan->kernels.empty())
        return false;
    const tb::layout::KernelPlan& kernel = analysis.plan->kernels.front();
    size_t cells = 0;
    if (!kernel.fragments.empty()) {
        const auto& f = kernel.fragments.front();
        cells += tb::views::buildFragmentView(f.buffer->name, f.fragment, tb::views::LayoutColoring::Thread)
                     .cells.size();
    }
    auto bank = tb::views::buildBankConflictView(kernel, analysis.sources(), -1);
    auto warp = tb::views::buildWarpPartitionView(kernel, analysis.sources());
    auto budget = tb::views::buildBudgetView(kernel, analysis.plan->target);
    // The stage-sweep plot: every num_stages variant compiled (the app does this on a worker thread).
    tb::profile::SweepPlanOptions so;
    so.compile.target = analysis.plan->target;
    const tb::SourceFile& file = analysis.sources().file(analysis.compile->file);
    auto sweep = tb::views::buildStageSweep(tb::profile::planSweep(file.name(), file.text(),
                                                                   {tb::views::stageSweepAxis()}, so,
                                                                   analysis.compile.get()),
                                            analysis.numStages());
    // The CUDA and Passes docks (PTX and SASS compile later, only while visible, so they are not here).
    tb::GeneratedCuda cuda = tb::generateCudaText(*analysis.compile);
    auto passes = tb::passSnapshots(*analysis.compile);
    return cells + bank.rows.size() + warp.gemms.size() + budget.bars.size() + sweep.points.size() > 0 &&
           !cuda.text.empty() && !passes.empty();
}

} // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 30;
    std::printf("%-20s %12s %12s %12s %10s %10s %14s\n", "sample", "compile(ms)", "views(ms)", "total(ms)",
                "first(ms)", "budget", "vs budget");
    for (const tb::SampleInfo& sample : tb::listSamples()) {
        std::string text;
        if (!tb::readTextFile(sample.path, text))
            continue;
        double budgetMs = sample.name == "mla_decode" ? 50.0 : 16.0;
        std::vector<double> compile, views, totals;
        bool ok = true;
        for (int i = 0; i < runs && ok; ++i) {
            // A keystroke: the text differs from the last run's, so nothing can be reused by accident.
            std::string edited = text + "\n# edit " + std::to_string(i) + "\n";
            auto start = std::chrono::steady_clock::now();
            auto analysis = tb::views::analyzeProgram(sample.fileName, edited);
            auto mid = std::chrono::steady_clock::now();
            ok = buildAllViews(*analysis);
            auto end = std::chrono::steady_clock::now();
            compile.push_back(std::chrono::duration<double, std::milli>(mid - start).count());
            views.push_back(std::chrono::duration<double, std::milli>(end - mid).count());
            totals.push_back(std::chrono::duration<double, std::milli>(end - start).count());
        }
        if (!ok) {
            std::printf("%-20s %12s\n", sample.name.c_str(), "no views");
            continue;
        }
        double total = median(totals);
        std::printf("%-20s %12.3f %12.3f %12.3f %10.3f %8.0fms %13.1fx\n", sample.name.c_str(),
                    median(compile), median(views), total, totals.front(), budgetMs, budgetMs / total);
    }
    std::printf(
        "(median of %d simulated keystrokes; 'vs budget' = budget / measured, higher is better;\n"
        " 'first' = the sample's first keystroke, before the layout-table memo holds its layouts, as after\n"
        " an edit that changes a tile shape)\n",
        runs);
    return 0;
}
