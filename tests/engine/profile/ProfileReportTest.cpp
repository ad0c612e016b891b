// Report rendering: timing context always present, rates against ceilings, unavailable counters with the
// exact reason and what to do, peers, per-line SASS tables, JSON fields.
#include "engine/profile/ProfileReport.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::profile {
namespace {

ProfileReport baseReport() {
    ProfileReport r;
    r.subject = "gemm.cu M=4096";
    r.kernel = "gemm";
    r.device = "NVIDIA H200 (sm_90a)";
    r.warmup = 5;
    r.timing.ok = true;
    r.timing.clock = "cupti-activity";
    r.timing.samplesMs = {0.25, 0.25, 0.26, 0.25, 0.24};
    r.timing.summary = summarizeTimings(r.timing.samplesMs);
    r.timing.flushL2 = true;
    r.work = {2.0 * 4096 * 4096 * 4096, 0};
    r.ceilings.gemmTflops = 700;
    r.ceilings.copyGBps = 4200;
    finishReport(r);
    return r;
}

TEST(ProfileReport, TextHasTimingContextAndRates) {
    std::string text = formatReportText(baseReport());
    EXPECT_NE(text.find("median 250.00 us"), std::string::npos) << text;
    EXPECT_NE(text.find("cupti-activity, 5 warm-up + 5 timed launches, L2 flushed"), std::string::npos)
        << text;
    EXPECT_NE(text.find("549.8 TFLOP/s = 78.5% of the measured cuBLAS fp16 GEMM rate (700 TFLOP/s)"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("memory:"), std::string::npos); // bytes were not counted
    EXPECT_EQ(text.find("SIMULATED"), std::string::npos);
}

TEST(ProfileReport, ResourcesSayWhenStaticSharedMemoryWasNotReported) {
    ProfileReport r = baseReport();
    r.registers = 244;
    r.sharedBytes = 0;
    EXPECT_NE(formatReportText(r).find("resources: 244 registers/thread, 0 B static shared memory"),
              std::string::npos);
    r.dynamicShared = true; // a generated kernel: the launch's figure
    r.sharedBytes = 98304;
    EXPECT_NE(formatReportText(r).find("244 registers/thread, 98304 B dynamic shared memory"),
              std::string::npos);
    r.dynamicShared = false;
    r.sharedBytes = -1; // NVRTC's ptxas cache answered without a report
    std::string text = formatReportText(r);
    EXPECT_NE(text.find("244 registers/thread, static shared memory not reported"), std::string::npos)
        << text;
    EXPECT_EQ(text.find("-1 B"), std::string::npos) << text;
}

TEST(ProfileReport, UnavailableCountersSayWhyAndWhatToDo) {
    ProfileReport r = baseReport();
    r.countersRequested = true;
    r.counters.ok = true;
    r.counters.availability = CounterAvailability::Permission;
    r.counters.reason = "cuptiProfilerGetCounterAvailability: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)";
    r.sassRequested = true;
    r.sass.ok = true;
    r.sass.availability = CounterAvailability::NoNvperf;
    r.sass.reason = "libnvperf_host.so could not be loaded";
    std::string text = formatReportText(r);
    EXPECT_NE(
        text.find("counters (Range Profiler): unavailable (permission): cuptiProfilerGetCounterAvailability: "
                  "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("hint: GPU performance counters are restricted"), std::string::npos);
    EXPECT_NE(text.find("SASS metrics: unavailable (no-nvperf): libnvperf_host.so could not be loaded"),
              std::string::npos);
    EXPECT_NE(text.find("median 250.00 us"), std::string::npos); // timings are still reported
    std::string json = formatReportJson(r);
    EXPECT_NE(json.find("\"availability\": \"permission\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"availability\": \"no-nvperf\""), std::string::npos);
}

TEST(ProfileReport, MetricsPeersAndLines) {
    ProfileReport r = baseReport();
    r.countersRequested = true;
    r.counters.ok = true;
    r.counters.availability = CounterAvailability::Available;
    r.counters.passes = 1;
    r.counters.values = {{"gpu__time_duration.sum", 250000, true, ""},
                         {"sm__warps_active.avg.pct_of_peak_sustained_active", 61.234, true, ""},
                         {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 65011712, true, ""},
                         {"bogus__metric.sum", 0, false, "not a metric of chip GH100"}};
    r.peers.push_back({"cuBLAS fp16 GEMM 4096x4096x4096", 0.2, 0.8, "", "", {}});
    r.peers.push_back({"previous run", 0, 0, "", "no earlier result", {}});
    r.sassRequested = true;
    r.sass.ok = true;
    r.sass.availability = CounterAvailability::Available;
    r.sass.records = {{"gemm", 0x1f0, 100, 3200, 100, 7, 3}};
    r.cudaLines = totalsByCudaLine(r.sass.records);
    r.tileLines = totalsByTileLine(r.sass.records);
    std::string text = formatReportText(r);
    EXPECT_NE(text.find("counters (Range Profiler, 1 pass):"), std::string::npos) << text;
    EXPECT_NE(text.find("250.00 us"), std::string::npos);
    EXPECT_NE(text.find("61.2 %"), std::string::npos);
    EXPECT_NE(text.find("65,011,712"), std::string::npos);
    EXPECT_NE(text.find("unavailable: not a metric of chip GH100"), std::string::npos);
    EXPECT_NE(text.find("vs cuBLAS fp16 GEMM 4096x4096x4096: 200.00 us, ratio 0.800 (ours is slower)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("vs previous run: unavailable: no earlier result"), std::string::npos);
    EXPECT_NE(text.find("shared memory by tile-program line"), std::string::npos);
    EXPECT_NE(text.find("line 3"), std::string::npos);
    EXPECT_NE(text.find("3,100"), std::string::npos); // excess wavefronts
    std::string json = formatReportJson(r);
    EXPECT_NE(json.find("\"excessWavefronts\": 3100"), std::string::npos) << json;
    EXPECT_NE(json.find("\"tileLine\": 3"), std::string::npos);
}

TEST(ProfileReport, Formatting) {
    EXPECT_EQ(formatCount(1234567), "1,234,567");
    EXPECT_EQ(formatCount(-1000), "-1,000");
    EXPECT_EQ(formatCount(12), "12");
    EXPECT_EQ(formatCount(1.5), "1.500");
    EXPECT_EQ(formatDuration(2.5), "2.500 ms");
    EXPECT_EQ(formatDuration(0.0125), "12.50 us");
    EXPECT_EQ(formatDuration(0.000002), "2 ns");
    ProfileReport failed;
    failed.timing.error = "Error no-device: no GPU";
    EXPECT_NE(formatReportText(failed).find("timing: failed: Error no-device: no GPU"), std::string::npos);
}

} // namespace
} // namespace tb::profile
