// The Run panel's history records and the diff of two: changed parameters, the median ratio and its
// noise-aware verdict, metric deltas, notes for runs that are not comparable, ids and the size cap.
#include "views/model/RunHistoryModel.h"

#include <gtest/gtest.h>
#include <map>
#include <string>
#include <utility>

namespace tb::views {
namespace {

RunRecord bench(std::map<std::string, std::string> params, double medianMs, double spreadPct) {
    RunRecord r;
    r.time = "12:00:00";
    r.kind = RunKind::Bench;
    r.file = "gemm.py";
    r.device = "NVIDIA H200 (sm_90a)";
    r.params = std::move(params);
    r.ok = true;
    r.medianMs = medianMs;
    r.spreadPct = spreadPct;
    r.tflops = 100;
    return r;
}

TEST(RunHistoryModel, IdsIncreaseAndFindWorks) {
    RunHistoryModel h;
    int a = h.add(bench({{"num_stages", "2"}}, 1.0, 1));
    int b = h.add(bench({{"num_stages", "3"}}, 0.8, 1));
    EXPECT_LT(a, b);
    ASSERT_NE(h.find(a), nullptr);
    EXPECT_EQ(h.find(a)->params.at("num_stages"), "2");
    EXPECT_EQ(h.find(12345), nullptr);
    EXPECT_EQ(h.size(), 2u);
}

TEST(RunHistoryModel, DiffOfParametersMedianAndMetrics) {
    RunHistoryModel h;
    RunRecord before = bench({{"block_K", "32"}, {"num_stages", "2"}, {"M", "512"}}, 1.0, 1);
    before.kind = RunKind::Profile;
    before.metrics = {{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 40},
                      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 2048},
                      {"sm__warps_active.avg.pct_of_peak_sustained_active", 50}};
    RunRecord after =
        bench({{"block_K", "32"}, {"num_stages", "3"}, {"threads", "256"}, {"M", "512"}}, 0.5, 1);
    after.kind = RunKind::Profile;
    after.metrics = {{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 70},
                     {"sm__warps_active.avg.pct_of_peak_sustained_active", 50},
                     {"smsp__inst_executed.sum", 10}};
    int a = h.add(before);
    int b = h.add(after);
    // Either selection order diffs older -> newer.
    auto d = h.diff(b, a);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->beforeId, a);
    EXPECT_EQ(d->afterId, b);
    ASSERT_EQ(d->params.size(), 2u); // num_stages changed, threads added; block_K and M unchanged
    EXPECT_EQ(d->params[0].name, "num_stages");
    EXPECT_EQ(d->params[0].before, "2");
    EXPECT_EQ(d->params[0].after, "3");
    EXPECT_EQ(d->params[1].name, "threads");
    EXPECT_EQ(d->params[1].before, "");
    EXPECT_EQ(d->params[1].after, "256");
    ASSERT_TRUE(d->medianRatio.has_value());
    EXPECT_DOUBLE_EQ(*d->medianRatio, 2.0);
    EXPECT_EQ(d->verdict, "faster");
    // Metrics: the equal one is left out; one only before, one only after.
    ASSERT_EQ(d->metrics.size(), 3u);
    EXPECT_EQ(d->metrics[0].name, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
    EXPECT_DOUBLE_EQ(d->metrics[0].delta(), 30);
    EXPECT_EQ(d->metrics[1].name, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
    EXPECT_FALSE(d->metrics[1].after.has_value());
    EXPECT_EQ(d->metrics[2].name, "smsp__inst_executed.sum");
    EXPECT_FALSE(d->metrics[2].before.has_value());
    EXPECT_TRUE(d->notes.empty());

    std::string text = formatRunDiff(*d, *h.find(a), *h.find(b));
    EXPECT_NE(text.find("num_stages: 2 -> 3"), std::string::npos) << text;
    EXPECT_NE(text.find("threads: (unset) -> 256"), std::string::npos) << text;
    EXPECT_NE(text.find("ratio 2.000 (faster)"), std::string::npos) << text;
    EXPECT_NE(text.find("dram__throughput.avg.pct_of_peak_sustained_elapsed: 40 -> 70, +30"),
              std::string::npos)
        << text;
}

TEST(RunHistoryModel, VerdictRespectsTheNoise) {
    // 3% slower with 5% spread: within the noise.
    RunDiff same = diffRuns(bench({}, 1.0, 5), bench({}, 1.03, 1));
    EXPECT_EQ(same.verdict, "same");
    // 3% slower with tight runs: slower.
    RunDiff slower = diffRuns(bench({}, 1.0, 0.5), bench({}, 1.03, 0.5));
    EXPECT_EQ(slower.verdict, "slower");
    EXPECT_LT(*slower.medianRatio, 1);
    // Identical fake timings.
    RunDiff fake = diffRuns(bench({}, 0.001, 0), bench({}, 0.001, 0));
    EXPECT_EQ(fake.verdict, "same");
    EXPECT_DOUBLE_EQ(*fake.medianRatio, 1);
}

TEST(RunHistoryModel, RunsWithoutTimesAndDifferentSubjects) {
    RunRecord run;
    run.kind = RunKind::GpuRun;
    run.file = "a.py";
    run.device = "NVIDIA H200 (sm_90a)";
    run.maxAbsError = 0.5;
    RunRecord cpu = run;
    cpu.kind = RunKind::CpuRun;
    cpu.file = "b.py";
    cpu.device = "CPU reference executor";
    RunDiff d = diffRuns(run, cpu);
    EXPECT_FALSE(d.medianRatio.has_value());
    EXPECT_TRUE(d.verdict.empty());
    ASSERT_EQ(d.notes.size(), 3u);
    EXPECT_NE(d.notes[0].find("run vs cpu run"), std::string::npos) << d.notes[0];
    std::string text = formatRunDiff(d, run, cpu);
    EXPECT_NE(text.find("median: not compared"), std::string::npos) << text;
    EXPECT_NE(text.find("parameters: unchanged"), std::string::npos) << text;
}

TEST(RunHistoryModel, RecordLineAndCap) {
    RunRecord r = bench({{"num_stages", "3"}}, 0.0102, 4);
    std::string line = formatRunRecord(r);
    EXPECT_NE(line.find("bench  gemm.py  num_stages=3  median 10.2 us (spread 4.0%)"), std::string::npos)
        << line;
    RunRecord failed = r;
    failed.ok = false;
    failed.summary = "WRONG RESULTS";
    EXPECT_NE(formatRunRecord(failed).find("[WRONG RESULTS]"), std::string::npos);

    RunHistoryModel h;
    int first = h.add(r);
    for (size_t i = 0; i < RunHistoryModel::kMaxRecords + 5; ++i)
        h.add(r);
    EXPECT_EQ(h.size(), RunHistoryModel::kMaxRecords);
    EXPECT_EQ(h.find(first), nullptr); // the oldest went first
    EXPECT_FALSE(h.diff(first, h.records().back().id).has_value());
}

} // namespace
} // namespace tb::views
