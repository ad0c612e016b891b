// The document: every sample compiles and plans; broken programs keep their diagnostics; IR lines link
// back to source lines; the edit-to-view-model path is fast enough to run on every keystroke.
#include "views/model/ProgramAnalysis.h"

#include "ViewTestSupport.h"
#include "views/model/BankConflictViewModel.h"
#include "views/model/BudgetViewModel.h"
#include "views/model/LayoutViewModel.h"
#include "views/model/WarpPartitionViewModel.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>

namespace tb::views {

TEST(ProgramAnalysis, EverySampleHasAPlanWithRealData) {
    auto samples = listSamples();
    ASSERT_GE(samples.size(), 7u);
    for (const SampleInfo& s : samples) {
        auto a = test::analyzeSample(s.name);
        ASSERT_TRUE(a) << s.name;
        ASSERT_TRUE(a->ok()) << s.name << "\n" << a->compile->formattedDiagnostics();
        ASSERT_TRUE(a->plan) << s.name;
        ASSERT_FALSE(a->plan->kernels.empty()) << s.name;
        EXPECT_FALSE(a->irLines.empty()) << s.name;
        const layout::KernelPlan& k = a->plan->kernels[0];
        for (const layout::FragmentPlan& f : k.fragments) {
            LayoutViewModel m = buildFragmentView(f.buffer->name, f.fragment);
            EXPECT_TRUE(!m.empty() || !m.error.empty()) << s.name << " " << f.buffer->name;
        }
        for (const layout::SharedBufferPlan& b : k.sharedBuffers) {
            LayoutViewModel m =
                buildSharedView(b.buffer->name, b.choice.layout, ir::dtypeBits(b.buffer->dtype), true);
            EXPECT_FALSE(m.empty()) << s.name << " " << b.buffer->name << ": " << m.error;
        }
    }
}

TEST(ProgramAnalysis, BrokenProgramKeepsItsDiagnosticsAndNoPlan) {
    auto a =
        analyzeProgram("broken.py", "import tilelang.language as T\n\n@T.prim_func\ndef f(:\n    pass\n");
    EXPECT_FALSE(a->ok());
    EXPECT_EQ(a->plan, nullptr);
    auto diags = a->diagnostics();
    ASSERT_FALSE(diags.empty());
    EXPECT_EQ(diags[0].severity, Severity::Error);
    EXPECT_EQ(a->lineOf(diags[0].range), 4u);
}

TEST(ProgramAnalysis, IrLinesLinkToSourceLines) {
    auto a = test::analyzeSample("gemm_relu");
    ASSERT_TRUE(a && a->ok());
    const std::string& text = a->sources().file(a->compile->file).text();
    // The line of the T.gemm call in the sample.
    uint32_t gemmLine = 0, line = 1;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 7, "T.gemm(") == 0) {
            gemmLine = line;
            break;
        }
        if (text[i] == '\n')
            ++line;
    }
    ASSERT_GT(gemmLine, 0u);
    auto ir = a->irLinesOfSourceLine(gemmLine);
    ASSERT_FALSE(ir.empty());
    EXPECT_NE(a->irLines[size_t(ir[0])].text.find("gemm"), std::string::npos);
    EXPECT_EQ(a->sourceLineOfIrLine(ir[0]), gemmLine);
    EXPECT_EQ(a->numStages(), 3);
}

// Every view model builds from a fresh analysis after each edit. The time is printed for reference only:
// bench_views is where the keystroke-to-view figure is measured, never a timed test.
TEST(ProgramAnalysis, EveryViewModelBuildsAfterEachEdit) {
    for (const char* name : {"gemm_relu", "mla_decode"}) {
        auto sample = findSample(name);
        ASSERT_TRUE(sample);
        std::string text;
        ASSERT_TRUE(readTextFile(sample->path, text));
        double best = 1e9;
        for (int i = 0; i < 3; ++i) {
            auto t0 = std::chrono::steady_clock::now();
            auto a = analyzeProgram(sample->fileName, text + "\n# edit " + std::to_string(i) + "\n");
            ASSERT_TRUE(a->ok());
            const layout::KernelPlan& k = *a->kernel(0);
            auto bank = buildBankConflictView(k, a->sources());
            auto warp = buildWarpPartitionView(k, a->sources());
            auto budget = buildBudgetView(k, a->plan->target);
            if (!k.fragments.empty())
                buildFragmentView(k.fragments[0].buffer->name, k.fragments[0].fragment);
            best = std::min(
                best,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        std::printf("[ timing ] %s: edit -> view models %.1f ms\n", name, best);
    }
}

} // namespace tb::views
