// The runner's profiling requests on the fake runner: capability query, CUPTI-style timing with samples,
// Range Profiler metrics (default set, rejected names), SASS records, cached ceilings, the cuBLAS peer,
// and every simulated "unavailable and why" mode; old requests keep working unchanged.
#include "ProfileTestSupport.h"
#include "engine/profile/ProfileClient.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::profile {
namespace {

// A client with module "k" loaded and launched once (so requests without grid= can repeat it).
struct Loaded {
    gpu::RunnerClient client;
    explicit Loaded(const std::string& mode) : client(test::fakeRunner(mode)) {
        std::string error;
        EXPECT_TRUE(client.start(&error)) << error;
        EXPECT_TRUE(client.loadCubin("k", "sm_90a", "fake_kernel", test::fakeCubin("fake_kernel")).ok());
        EXPECT_TRUE(client.request("alloc buf 1024").ok());
        EXPECT_TRUE(client.request("launch k grid=1 block=32 args=buf:buf").ok());
    }
};

TEST(ProfileRunnerFake, CapabilitiesWhenAvailable) {
    Loaded l("available");
    ProfilerStatus s = queryProfiler(l.client);
    ASSERT_TRUE(s.ok) << s.error;
    EXPECT_TRUE(s.cupti);
    EXPECT_TRUE(s.activity);
    EXPECT_TRUE(s.simulated);
    EXPECT_EQ(s.counters, CounterAvailability::Available);
    EXPECT_EQ(s.sass, CounterAvailability::Available);
    EXPECT_EQ(s.chip, "GH100");
    EXPECT_EQ(s.cuptiVersion, 130001);
}

TEST(ProfileRunnerFake, TimingWithSamples) {
    Loaded l("available");
    TimingRequest req;
    req.repeat = 7;
    req.flushL2 = true;
    TimingOutcome t = timeKernel(l.client, "k", "", req);
    ASSERT_TRUE(t.ok) << t.error;
    EXPECT_EQ(t.clock, "simulated");
    EXPECT_TRUE(t.flushL2);
    ASSERT_EQ(t.samplesMs.size(), 7u);
    EXPECT_EQ(t.summary.count, 7);
    EXPECT_NEAR(t.summary.minMs, 0.010, 1e-12);
    EXPECT_NEAR(t.summary.maxMs, 0.0104, 1e-12);
    // An explicit launch configuration works too, and a bad clock is a usage error.
    EXPECT_TRUE(timeKernel(l.client, "k", "grid=2 block=64 args=buf:buf", req).ok);
    gpu::RunnerReply bad = l.client.request("time k clock=sundial");
    EXPECT_EQ(bad.code, "bad-request");
    // The v1 form of time is unchanged.
    gpu::RunnerReply v1 = l.client.request("time k repeat=3");
    ASSERT_TRUE(v1.ok());
    EXPECT_EQ(v1.field("repeat"), "3");
    EXPECT_EQ(v1.field("clock"), "");
}

TEST(ProfileRunnerFake, RangeMetricsDefaultSetAndRejectedNames) {
    Loaded l("available");
    MetricsOutcome m = collectMetrics(l.client, "k", "");
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(m.availability, CounterAvailability::Available);
    EXPECT_EQ(m.passes, 1);
    ASSERT_EQ(m.values.size(), defaultRangeMetrics().size());
    for (size_t i = 0; i < m.values.size(); ++i) {
        EXPECT_EQ(m.values[i].name, defaultRangeMetrics()[i].name);
        EXPECT_TRUE(m.values[i].available);
    }
    m = collectMetrics(l.client, "k", "", {"gpu__time_duration.sum", "made__up_metric.sum"});
    ASSERT_EQ(m.values.size(), 2u);
    EXPECT_TRUE(m.values[0].available);
    EXPECT_DOUBLE_EQ(m.values[0].value, 10000);
    EXPECT_FALSE(m.values[1].available);
    EXPECT_NE(m.values[1].note.find("not a metric"), std::string::npos);
    gpu::RunnerReply bad = l.client.request("metrics k names=not%20a%20metric");
    EXPECT_EQ(bad.code, "bad-request");
    EXPECT_EQ(l.client.request("metrics nope").code, "unknown-module");
}

TEST(ProfileRunnerFake, SassRecords) {
    Loaded l("available");
    SassOutcome s = collectSass(l.client, "k", "");
    ASSERT_TRUE(s.ok) << s.error;
    EXPECT_EQ(s.availability, CounterAvailability::Available);
    ASSERT_EQ(s.records.size(), 3u);
    EXPECT_EQ(s.records[1].pc, 0x1f0u);
    EXPECT_EQ(s.records[1].excessWavefronts(), 31u * 1024u);
}

TEST(ProfileRunnerFake, CeilingsAreCachedPerSession) {
    Loaded l("available");
    Ceilings c;
    std::string error;
    ASSERT_TRUE(measureCeilings(l.client, c, error)) << error;
    EXPECT_DOUBLE_EQ(c.copyGBps, 4241);
    EXPECT_DOUBLE_EQ(c.gemmTflops, 660);
    EXPECT_TRUE(c.simulated);
    EXPECT_EQ(l.client.request("ceilings").field("cached"), "1");
}

TEST(ProfileRunnerFake, CublasPeer) {
    Loaded l("available");
    TimingRequest req;
    req.repeat = 4;
    TimingOutcome t = timeCublasGemm(l.client, 4096, 4096, 4096, req);
    ASSERT_TRUE(t.ok) << t.error;
    EXPECT_EQ(t.summary.count, 4);
    EXPECT_NEAR(2.0 * 4096 * 4096 * 4096 / (t.summary.medianMs * 1e-3) / 1e12, 660,
                1e-3); // replies carry 9 digits
    EXPECT_EQ(l.client.request("cublas m=0 n=1 k=1").code, "bad-request");
    EXPECT_EQ(l.client.request("cublas m=65536 n=65536 k=65536").code, "bad-request");
}

struct Mode {
    const char* name;
    CounterAvailability availability;
    const char* reasonPart;
};

class ProfileRunnerFakeUnavailable : public ::testing::TestWithParam<Mode> {};

TEST_P(ProfileRunnerFakeUnavailable, TimingsStillWorkAndReportsSayWhy) {
    const Mode& mode = GetParam();
    Loaded l(mode.name);
    ProfilerStatus s = queryProfiler(l.client);
    ASSERT_TRUE(s.ok);
    EXPECT_EQ(s.counters, mode.availability);
    EXPECT_NE(s.countersReason.find(mode.reasonPart), std::string::npos) << s.countersReason;
    MetricsOutcome m = collectMetrics(l.client, "k", "");
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(m.availability, mode.availability);
    EXPECT_NE(m.reason.find(mode.reasonPart), std::string::npos) << m.reason;
    EXPECT_TRUE(m.values.empty());
    SassOutcome q = collectSass(l.client, "k", "");
    ASSERT_TRUE(q.ok);
    EXPECT_EQ(q.availability, mode.availability);
    EXPECT_TRUE(q.records.empty());
    TimingOutcome t = timeKernel(l.client, "k", "", TimingRequest{});
    ASSERT_TRUE(t.ok) << t.error;
    EXPECT_EQ(t.summary.count, 20);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, ProfileRunnerFakeUnavailable,
    ::testing::Values(Mode{"permission", CounterAvailability::Permission,
                           "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"},
                      Mode{"no-nvperf", CounterAvailability::NoNvperf, "libnvperf_host.so"},
                      Mode{"another-profiler", CounterAvailability::AnotherProfiler, "MULTIPLE_SUBSCRIBERS"},
                      Mode{"no-cupti", CounterAvailability::NoCupti, "libcupti"}),
    [](const auto& info) {
        std::string n = info.param.name;
        for (char& c : n)
            if (c == '-')
                c = '_';
        return n;
    });

TEST(ProfileRunnerFake, NoCuptiTimingSaysItFellBackToEvents) {
    Loaded l("no-cupti");
    TimingOutcome t = timeKernel(l.client, "k", "", TimingRequest{});
    ASSERT_TRUE(t.ok);
    EXPECT_NE(t.clockNote.find("timed with CUDA events"), std::string::npos) << t.clockNote;
    ProfilerStatus s = queryProfiler(l.client);
    EXPECT_FALSE(s.cupti);
    EXPECT_FALSE(s.activity);
}

TEST(ProfileRunnerFake, BadFakeCuptiModeIsAUsageError) {
    test::CommandResult r = test::runCommand(test::runnerPath() + " --fake-cupti=maybe </dev/null");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("--fake-cupti must be"), std::string::npos);
}

} // namespace
} // namespace tb::profile
