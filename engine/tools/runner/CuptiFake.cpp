// The simulated CUPTI of `tilebench-runner --fake [--fake-cupti=MODE]` (see CuptiEngine.h). Numbers are
// fixed and marked simulated by the protocol layer; launches still go through the fake backend, so an
// unknown module or a bad argument fails exactly as it would on a GPU.
#include "CuptiEngine.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tb::runner {

namespace {

using profile::CounterAvailability;

class FakeCuptiEngine : public CuptiEngine {
public:
    explicit FakeCuptiEngine(const std::string& mode) : m_mode(mode) {}

    bool simulated() const override { return true; }

    CuptiCapabilities capabilities() override {
        CuptiCapabilities c;
        c.cupti = m_mode != "no-cupti";
        c.activity = c.cupti;
        c.version = c.cupti ? 130001 : 0;
        c.chip = c.cupti ? "GH100" : "";
        CounterAvailability a = availability();
        c.counters = a;
        c.sass = a;
        c.countersReason = c.sassReason = reason(a);
        if (!c.cupti)
            c.cuptiReason = reason(a);
        return c;
    }

    BackendStatus timeKernel(const std::string&, const Launch& launch, int warmup, int repeat, bool,
                             bool useCupti, KernelTiming& out) override {
        for (int i = 0; i < warmup + repeat; ++i)
            if (BackendStatus s = launch(); !s.ok())
                return s;
        out.clock = "simulated";
        if (useCupti && m_mode == "no-cupti")
            out.clockNote = "CUPTI kernel records unavailable (" + reason(CounterAvailability::NoCupti) +
                            "); timed with CUDA events";
        // A small deterministic spread so statistics are exercised: 10.0, 10.1, ... microseconds.
        for (int i = 0; i < repeat; ++i)
            out.milliseconds.push_back(0.010 + 0.0001 * (i % 5));
        return BackendStatus::success();
    }

    BackendStatus rangeMetrics(const Launch& launch, const std::vector<std::string>& names,
                               RangeOutcome& out) override {
        if (BackendStatus s = launch(); !s.ok())
            return s;
        out.availability = availability();
        out.reason = reason(out.availability);
        if (out.availability != CounterAvailability::Available)
            return BackendStatus::success();
        out.passes = 1;
        std::vector<std::string> list = names;
        if (list.empty())
            for (const profile::MetricInfo& m : profile::defaultRangeMetrics())
                list.push_back(m.name);
        for (const std::string& name : list) {
            RangeMetric m;
            m.name = name;
            // A name the fake GH100 does not know behaves like CUPTI's rejection of an unknown metric.
            if (!profile::findMetric(name)) {
                m.note = "CUPTI_ERROR_INVALID_METRIC_NAME: not a metric of chip GH100";
            } else {
                m.available = true;
                m.value = name == "gpu__time_duration.sum"        ? 10000
                          : name.find("pct") != std::string::npos ? 50
                                                                  : 2048;
            }
            out.metrics.push_back(m);
        }
        return BackendStatus::success();
    }

    BackendStatus sassMetrics(const std::string& kernelName, const Launch& launch,
                              SassOutcome& out) override {
        if (BackendStatus s = launch(); !s.ok())
            return s;
        out.availability = availability();
        out.reason = reason(out.availability);
        if (out.availability != CounterAvailability::Available)
            return BackendStatus::success();
        // An STS without conflicts and a 32-way conflicted LDS, like the transpose of gpu-machine.md.
        out.instructions = {{kernelName, 0x1d0, 1024, 1024, 1024},
                            {kernelName, 0x1f0, 1024, 32768, 1024},
                            {kernelName, 0x200, 1024, 0, 0}};
        return BackendStatus::success();
    }

    BackendStatus ceilings(bool, MeasuredCeilings& out) override {
        out.copyGBps = 4241;
        out.copyBytes = uint64_t(1) << 30;
        out.gemmTflops = 660;
        out.gemmM = out.gemmN = out.gemmK = 8192;
        out.cached = m_measured;
        m_measured = true;
        return BackendStatus::success();
    }

    BackendStatus cublasGemm(int m, int n, int k, int, int repeat, bool, bool, KernelTiming& out,
                             std::string& library) override {
        library = "simulated";
        out.clock = "simulated";
        double ms = 2.0 * m * n * k / 660e12 * 1e3;
        for (int i = 0; i < repeat; ++i)
            out.milliseconds.push_back(ms);
        return BackendStatus::success();
    }

private:
    CounterAvailability availability() const { return profile::parseAvailabilityCode(m_mode); }

    std::string reason(CounterAvailability a) const {
        switch (a) {
        case CounterAvailability::Available:
            return {};
        case CounterAvailability::NoCupti:
            return "simulated: libcupti.so.13 not found";
        case CounterAvailability::NoNvperf:
            return "simulated: libnvperf_host.so not found";
        case CounterAvailability::Permission:
            return "simulated: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (ERR_NVGPUCTRPERM)";
        case CounterAvailability::AnotherProfiler:
            return "simulated: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
        case CounterAvailability::Unsupported:
        case CounterAvailability::NoDevice:
        case CounterAvailability::Failed:
            return std::string("simulated: ") + profile::availabilityCode(a);
        }
        return {};
    }

    std::string m_mode;
    bool m_measured = false;
};

} // namespace

std::unique_ptr<CuptiEngine> makeFakeCuptiEngine(const std::string& mode) {
    return std::make_unique<FakeCuptiEngine>(mode);
}

} // namespace tb::runner
