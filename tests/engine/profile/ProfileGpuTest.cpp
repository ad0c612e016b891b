// The real CUPTI paths on a GPU (skipped elsewhere with "no GPU: <reason>"): the transpose with and without
// a 32-way bank conflict (gpu-machine.md's kernels). CUPTI kernel records time both, the conflicted one is
// slower; the Range Profiler counts ~31 conflicts per warp load; SASS metrics give exactly 31 excess
// wavefronts per LDS, on the source line of the shared-memory read; ceilings and cuBLAS answer.
#include "ProfileTestSupport.h"
#include "engine/catalog/SampleCatalog.h"
#include "engine/gpu/CubinLineTable.h"
#include "engine/gpu/CudaDriver.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/profile/CudaBenchSpec.h"
#include "engine/profile/ProfileClient.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>
#include <string>

namespace tb::profile {
namespace {

#define REQUIRE_GPU()                                                                                        \
    gpu::GpuAvailability availability_ = gpu::probeGpus();                                                   \
    if (!availability_.available)                                                                            \
        GTEST_SKIP() << "no GPU: " << availability_.reason;                                                  \
    if (!TILEBENCH_HAS_NVRTC) {                                                                              \
        GTEST_SKIP() << "no NVRTC in this build";                                                            \
    }                                                                                                        \
    static_assert(true)

struct Transpose {
    CudaBenchSpec spec;
    gpu::CudaCompileResult compiled;
};

Transpose build(int pad, const std::string& arch) {
    Transpose t;
    std::string text;
    // $TILEBENCH_PROFILE_KERNELS wins, so the binary can run from a copied build tree on the GPU machine.
    const char* env = std::getenv("TILEBENCH_PROFILE_KERNELS");
    std::string dir = env && *env ? env : TILEBENCH_PROFILE_KERNELS;
    EXPECT_TRUE(readTextFile(dir + "/transpose.cu", text));
    DiagnosticEngine diags;
    EXPECT_TRUE(parseCudaBenchSpec(text, {{"PAD", std::to_string(pad)}}, t.spec, diags));
    gpu::CudaCompileOptions o;
    o.arch = arch;
    t.compiled = gpu::compileCuda(t.spec.source, "transpose", o);
    EXPECT_TRUE(t.compiled.ok) << t.compiled.log;
    return t;
}

TEST(ProfileGpu, TransposeConflictEndToEnd) {
    REQUIRE_GPU();
    const std::string arch = availability_.devices.front().nativeArch();
    gpu::RunnerOptions o;
    o.executable = test::runnerPath();
    o.watchdog = std::chrono::milliseconds(60000);
    gpu::RunnerClient client(o);
    std::string error;
    ASSERT_TRUE(client.start(&error)) << error;
    ProfilerStatus status = queryProfiler(client);
    ASSERT_TRUE(status.ok) << status.error;
    std::printf("profiler: cupti=%d activity=%d counters=%s (%s) sass=%s (%s) chip=%s version=%d\n",
                status.cupti, status.activity, availabilityCode(status.counters),
                status.countersReason.c_str(), availabilityCode(status.sass), status.sassReason.c_str(),
                status.chip.c_str(), status.cuptiVersion);
    const uint64_t warpLoads = 8192ull * 8192ull / 32;
    double medians[2] = {0, 0};
    for (int pad = 0; pad < 2; ++pad) {
        Transpose t = build(pad, arch);
        ASSERT_TRUE(client.loadCubin("k", arch, "transpose", t.compiled.cubin).ok());
        client.request("free in");
        client.request("free out");
        ASSERT_TRUE(client.request("alloc in " + std::to_string(8192ull * 8192 * 4)).ok());
        ASSERT_TRUE(client.request("alloc out " + std::to_string(8192ull * 8192 * 4)).ok());
        ASSERT_TRUE(client.request("fill in f32 seed=1").ok());
        ASSERT_TRUE(client.request("launch k " + t.spec.launchFields).ok());

        TimingRequest req;
        req.repeat = 10;
        req.flushL2 = true;
        TimingOutcome timing = timeKernel(client, "k", "", req);
        ASSERT_TRUE(timing.ok) << timing.error;
        std::printf("PAD=%d time: clock=%s median %.4f ms min %.4f max %.4f spread %.1f%% %s\n", pad,
                    timing.clock.c_str(), timing.summary.medianMs, timing.summary.minMs, timing.summary.maxMs,
                    timing.summary.spreadPct, timing.clockNote.c_str());
        EXPECT_EQ(timing.clock, "cupti-activity") << timing.clockNote;
        EXPECT_EQ(timing.summary.count, 10);
        medians[pad] = timing.summary.medianMs;

        MetricsOutcome m = collectMetrics(client, "k", "");
        ASSERT_TRUE(m.ok) << m.error;
        std::printf("PAD=%d counters: %s %s passes=%d\n", pad, availabilityCode(m.availability),
                    m.reason.c_str(), m.passes);
        for (const MetricValue& v : m.values)
            std::printf("  %-72s %s %.1f %s\n", v.name.c_str(), v.available ? "" : "UNAVAILABLE", v.value,
                        v.note.c_str());
        if (m.availability == CounterAvailability::Available) {
            double conflicts = -1, wavefronts = -1;
            for (const MetricValue& v : m.values) {
                if (v.name == "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
                    conflicts = v.value;
                if (v.name == "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
                    wavefronts = v.value;
            }
            if (pad == 0) {
                EXPECT_NEAR(conflicts / double(warpLoads), 31.0, 0.5);
            } else {
                EXPECT_LT(conflicts / double(warpLoads), 0.5);
            }
            EXPECT_NEAR(wavefronts - conflicts, double(warpLoads), double(warpLoads) * 0.01);
        }

        SassOutcome s = collectSass(client, "k", "");
        ASSERT_TRUE(s.ok) << s.error;
        std::printf("PAD=%d sass: %s %s records=%zu dropped=%d\n", pad, availabilityCode(s.availability),
                    s.reason.c_str(), s.records.size(), s.dropped);
        if (s.availability == CounterAvailability::Available) {
            gpu::CubinLineTable lines;
            ASSERT_TRUE(gpu::readCubinLineTable(t.compiled.cubin, lines, error)) << error;
            attributeSassRecords(s.records, lines, {});
            uint64_t maxExcess = 0;
            int line = -1;
            for (const SassRecord& r : s.records) {
                if (r.sharedWavefronts)
                    std::printf("  pc 0x%04x line %d inst %llu wf %llu ideal %llu\n", r.pc, r.cudaLine,
                                (unsigned long long)r.instExecuted, (unsigned long long)r.sharedWavefronts,
                                (unsigned long long)r.sharedWavefrontsIdeal);
                if (r.excessWavefronts() >= maxExcess) {
                    maxExcess = r.excessWavefronts();
                    line = r.cudaLine;
                }
            }
            EXPECT_EQ(maxExcess, pad == 0 ? 31 * warpLoads : 0u);
            if (pad == 0) {
                EXPECT_EQ(line, 17); // `out[y * n + x] = tile[threadIdx.x][threadIdx.y];` in transpose.cu
            }
        }
    }
    EXPECT_GT(medians[0], medians[1] * 1.2) << "the conflicted transpose should be clearly slower";

    Ceilings c;
    ASSERT_TRUE(measureCeilings(client, c, error)) << error;
    std::printf("ceilings: copy %.0f GB/s, cuBLAS fp16 8192^3 %.1f TFLOP/s %s\n", c.copyGBps, c.gemmTflops,
                c.gemmNote.c_str());
    EXPECT_GT(c.copyGBps, 1000);
    TimingRequest req;
    req.repeat = 10;
    TimingOutcome g = timeCublasGemm(client, 4096, 4096, 4096, req);
    ASSERT_TRUE(g.ok) << g.error;
    std::printf("cublas 4096^3: %s median %.4f ms = %.1f TFLOP/s (%s)\n", g.clock.c_str(), g.summary.medianMs,
                2.0 * 4096 * 4096 * 4096 / (g.summary.medianMs * 1e-3) / 1e12, g.library.c_str());
}

} // namespace
} // namespace tb::profile
