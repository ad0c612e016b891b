// Times the whole compile line of every sample (parse -> checks -> layout passes -> bank analysis ->
// codegen) on sm_90a, and prints the median per part and the ratio to the 20 ms budget the product
// promises for MLA decode. A benchmark, not a test: it never fails on timing.
#include "engine/catalog/SampleCatalog.h"
#include "engine/pipeline/Pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
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
    const std::set<std::string> frontHalf = {"parse", "elaborate", "verify", "check"};
    std::printf("%-20s %11s %11s %11s %11s %11s %15s\n", "sample", "front(ms)", "layouts(ms)", "banks(ms)",
                "codegen(ms)", "total(ms)", "vs 20ms budget");
    for (const tb::SampleInfo& sample : tb::listSamples()) {
        std::string text;
        if (!tb::readTextFile(sample.path, text))
            continue;
        std::vector<double> front, layouts, banks, codegen, totals;
        bool ok = true;
        for (int i = 0; i < runs && ok; ++i) {
            tb::CompileOptions options;
            options.target = tb::targetSm90a();
            auto start = std::chrono::steady_clock::now();
            auto result = tb::compileTileProgram(sample.path, text, options);
            auto end = std::chrono::steady_clock::now();
            ok = result->ok() && result->plan && !result->plan->kernels.empty();
            double f = 0, l = 0, b = 0, c = 0;
            for (const tb::PassTiming& t : result->timings)
                (frontHalf.count(t.pass)     ? f
                 : t.pass == "bank-analysis" ? b
                 : t.pass == "codegen"       ? c
                                             : l) += t.milliseconds;
            front.push_back(f);
            layouts.push_back(l);
            banks.push_back(b);
            codegen.push_back(c);
            totals.push_back(std::chrono::duration<double, std::milli>(end - start).count());
        }
        if (!ok) {
            std::printf("%-20s %11s\n", sample.name.c_str(), "failed");
            continue;
        }
        const double total = median(totals);
        std::printf("%-20s %11.3f %11.3f %11.3f %11.3f %11.3f %14.1fx\n", sample.name.c_str(), median(front),
                    median(layouts), median(banks), median(codegen), total, budgetMs / total);
    }
    std::printf("(median of %d runs of parse -> plan -> bank analysis -> codegen on sm_90a; 'vs budget' = 20 "
                "ms / measured,\n"
                " higher is better)\n",
                runs);
    return 0;
}
