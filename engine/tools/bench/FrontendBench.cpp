// Times the engine's front half (parse, elaborate, verify, check) on every sample, as `tilec ir` runs it.
// Prints the median over many runs per pass and the ratio to the budget the product promises (5 ms for
// `tilec ir` of MLA decode). A benchmark, not a test: it never fails on timing.
#include "engine/catalog/SampleCatalog.h"
#include "engine/ir/Printer.h"
#include "engine/pipeline/Pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
    constexpr double budgetMs = 5.0;
    std::printf("%-20s %10s %10s %10s %10s %10s %12s\n", "sample", "parse", "elaborate", "check", "print",
                "total(ms)", "vs 5ms budget");
    for (const tb::SampleInfo& sample : tb::listSamples()) {
        std::string text;
        if (!tb::readTextFile(sample.path, text))
            continue;
        std::map<std::string, std::vector<double>> perPass;
        std::vector<double> totals;
        bool ok = true;
        for (int i = 0; i < runs; ++i) {
            auto start = std::chrono::steady_clock::now();
            tb::CompileOptions options;
            options.stopAfter = "check"; // what `tilec ir` runs
            auto result = tb::compileTileProgram(sample.path, text, options);
            std::string printed = result->ok() ? tb::ir::printModule(*result->module) : std::string();
            auto end = std::chrono::steady_clock::now();
            ok = ok && result->ok();
            for (const tb::PassTiming& t : result->timings)
                perPass[t.pass].push_back(t.milliseconds);
            double total = std::chrono::duration<double, std::milli>(end - start).count();
            totals.push_back(total);
            double passSum = 0;
            for (const tb::PassTiming& t : result->timings)
                passSum += t.milliseconds;
            perPass["print"].push_back(total - passSum);
        }
        auto median = [](std::vector<double> v) {
            if (v.empty())
                return 0.0;
            std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
            return v[v.size() / 2];
        };
        double check = median(perPass["verify"]) + median(perPass["check"]);
        double total = median(totals);
        std::printf("%-20s %10.3f %10.3f %10.3f %10.3f %10.3f %11.1fx%s\n", sample.name.c_str(),
                    median(perPass["parse"]), median(perPass["elaborate"]), check, median(perPass["print"]),
                    total, budgetMs / total, ok ? "" : "  (compile errors)");
    }
    std::printf("(median of %d runs; 'vs budget' = 5 ms / measured, higher is better)\n", runs);
    return 0;
}
