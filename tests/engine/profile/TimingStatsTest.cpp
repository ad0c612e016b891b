// Median/min/max/spread of timing samples, rates from counted work, fractions of measured ceilings.
#include "engine/profile/TimingStats.h"

#include <cmath>
#include <gtest/gtest.h>
#include <string>

namespace tb::profile {
namespace {

TEST(TimingStats, OddAndEvenMedians) {
    TimingSummary odd = summarizeTimings({3.0, 1.0, 2.0});
    EXPECT_EQ(odd.count, 3);
    EXPECT_DOUBLE_EQ(odd.medianMs, 2.0);
    EXPECT_DOUBLE_EQ(odd.minMs, 1.0);
    EXPECT_DOUBLE_EQ(odd.maxMs, 3.0);
    EXPECT_DOUBLE_EQ(odd.meanMs, 2.0);
    EXPECT_DOUBLE_EQ(odd.spreadPct, 100.0);
    TimingSummary even = summarizeTimings({4.0, 1.0, 2.0, 3.0});
    EXPECT_DOUBLE_EQ(even.medianMs, 2.5);
    EXPECT_DOUBLE_EQ(even.spreadPct, 120.0);
}

TEST(TimingStats, DropsInvalidSamples) {
    TimingSummary t = summarizeTimings({1.0, NAN, -1.0, INFINITY, 1.0});
    EXPECT_EQ(t.count, 2);
    EXPECT_DOUBLE_EQ(t.medianMs, 1.0);
    EXPECT_EQ(summarizeTimings({}).count, 0);
}

TEST(TimingStats, DerivedRatesAndCeilingFractions) {
    Ceilings c;
    c.copyGBps = 4000;
    c.gemmTflops = 700;
    // 2*4096^3 flops in 0.25 ms = 549.76 TFLOP/s; 1 GB in 0.25 ms = 4000 GB/s.
    DerivedRates r = deriveRates({2.0 * 4096 * 4096 * 4096, 1e9}, 0.25, c);
    EXPECT_NEAR(r.tflops, 549.7558, 1e-3);
    EXPECT_NEAR(r.gbps, 4000, 1e-9);
    EXPECT_NEAR(r.fractionOfGemm, 549.7558 / 700, 1e-6);
    EXPECT_NEAR(r.fractionOfCopy, 1.0, 1e-12);
    DerivedRates none = deriveRates({0, 0}, 0.25, c);
    EXPECT_EQ(none.tflops, 0);
    EXPECT_LT(none.fractionOfGemm, 0);
    EXPECT_LT(deriveRates({1e12, 0}, 1, Ceilings{}).fractionOfGemm, 0); // no ceiling measured
}

TEST(TimingStats, CautionsAboutUnrankableTimings) {
    EXPECT_NE(timingCaution(summarizeTimings({1.0, 1.0})).find("only 2 samples"), std::string::npos);
    EXPECT_NE(timingCaution(summarizeTimings({0.001, 0.001, 0.001, 0.001, 0.001})).find("too short"),
              std::string::npos);
    EXPECT_NE(timingCaution(summarizeTimings({1.0, 1.0, 1.0, 1.0, 2.0})).find("spread"), std::string::npos);
    EXPECT_EQ(timingCaution(summarizeTimings({1.0, 1.01, 1.0, 0.99, 1.0})), "");
}

} // namespace
} // namespace tb::profile
