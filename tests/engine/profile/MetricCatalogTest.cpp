// The metric tables carry Nsight Compute's exact names (the ones measured on the H200), the name check
// guards the protocol, and availability codes round-trip with a hint for every unavailable case.
#include "engine/profile/MetricCatalog.h"

#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

namespace tb::profile {
namespace {

TEST(MetricCatalog, DefaultRangeMetricsUseNsightComputeNames) {
    std::vector<std::string> names;
    for (const MetricInfo& m : defaultRangeMetrics())
        names.push_back(m.name);
    std::vector<std::string> expected = {
        "gpu__time_duration.sum",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    };
    EXPECT_EQ(names, expected);
    for (const MetricInfo& m : defaultRangeMetrics())
        EXPECT_TRUE(isWellFormedMetricName(m.name)) << m.name;
}

TEST(MetricCatalog, SassMetricsAreTheOnesThatExistOnGH100) {
    std::set<std::string> names;
    for (const MetricInfo& m : defaultSassMetrics())
        names.insert(m.name);
    EXPECT_EQ(names, (std::set<std::string>{"smsp__sass_inst_executed",
                                            "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
                                            "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"}));
    // gpu-machine.md: the l1tex_data_ variants do not exist on GH100.
    for (const std::string& n : names)
        EXPECT_EQ(n.find("l1tex_data"), std::string::npos);
}

TEST(MetricCatalog, FindsMetricsAndUnits) {
    const MetricInfo* t = findMetric("gpu__time_duration.sum");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->unit, MetricUnit::Nanoseconds);
    ASSERT_NE(findMetric("sm__warps_active.avg.pct_of_peak_sustained_active"), nullptr);
    EXPECT_EQ(findMetric("sm__warps_active.avg.pct_of_peak_sustained_active")->unit, MetricUnit::Percent);
    EXPECT_EQ(findMetric("dram__bytes_read"), nullptr);
}

TEST(MetricCatalog, MetricNameSyntax) {
    EXPECT_TRUE(isWellFormedMetricName("dram__bytes_read.sum"));
    EXPECT_TRUE(isWellFormedMetricName("smsp__sass_inst_executed"));
    EXPECT_FALSE(isWellFormedMetricName(""));
    EXPECT_FALSE(isWellFormedMetricName("dram_bytes_read.sum"));  // no unit__ separator
    EXPECT_FALSE(isWellFormedMetricName("dram__bytes read"));     // space
    EXPECT_FALSE(isWellFormedMetricName("dram__bytes..sum"));     // empty rollup
    EXPECT_FALSE(isWellFormedMetricName("dram__bytes.sum."));     // trailing dot
    EXPECT_FALSE(isWellFormedMetricName("DRAM__bytes.sum"));      // upper case
    EXPECT_FALSE(isWellFormedMetricName("dram__bytes,x__y.sum")); // a list is not a name
}

TEST(MetricCatalog, AvailabilityCodesRoundTripWithHints) {
    for (CounterAvailability a :
         {CounterAvailability::Available, CounterAvailability::NoCupti, CounterAvailability::NoNvperf,
          CounterAvailability::Permission, CounterAvailability::AnotherProfiler,
          CounterAvailability::Unsupported, CounterAvailability::NoDevice, CounterAvailability::Failed}) {
        EXPECT_EQ(parseAvailabilityCode(availabilityCode(a)), a);
        EXPECT_EQ(availabilityHint(a).empty(), a == CounterAvailability::Available);
    }
    EXPECT_EQ(parseAvailabilityCode("something-new"), CounterAvailability::Failed);
    EXPECT_NE(availabilityHint(CounterAvailability::Permission).find("ERR_NVGPUCTRPERM"), std::string::npos);
    EXPECT_NE(availabilityHint(CounterAvailability::NoNvperf).find("libnvperf_host.so"), std::string::npos);
}

} // namespace
} // namespace tb::profile
