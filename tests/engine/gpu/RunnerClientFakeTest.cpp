// RunnerClient against `tilebench-runner --fake` (no GPU needed): the protocol round trips, recoverable
// errors that keep the runner, and the failures that replace it: a simulated CUDA fault, a hang caught by
// the watchdog, garbage output and a crash. The test process itself must survive all of them.
#include "RunnerTestSupport.h"
#include "TestKernels.h"
#include "engine/gpu/Base64.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/gpu/RunnerProtocol.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::gpu {
namespace {

using namespace std::chrono_literals;
using test::fakeCubin;
using test::fakeRunner;
using test::processExists;

TEST(RunnerFake, HelloAndDevices) {
    RunnerClient client(fakeRunner());
    std::string error;
    ASSERT_TRUE(client.start(&error)) << error;
    EXPECT_TRUE(client.isRunning());
    EXPECT_EQ(client.helloReply().field("gpus"), "1");
    EXPECT_EQ(client.helloReply().field("mode"), "fake");

    RunnerReply devices = client.request("devices");
    ASSERT_TRUE(devices.ok()) << devices.message;
    EXPECT_EQ(devices.field("count"), "1");
    ASSERT_EQ(devices.dataLines.size(), 1u);
    ProtocolLine d = parseProtocolLine(devices.dataLines[0]);
    EXPECT_EQ(d.verb, "device");
    EXPECT_EQ(d.words.at(0), "0");
    EXPECT_EQ(d.field("cc"), "9.0");
    EXPECT_EQ(d.field("arch"), "sm_90a");
    EXPECT_EQ(d.field("smem_optin"), "232448");
    EXPECT_EQ(d.field("name"), "TileBench Fake H200");

    RunnerOptions two = fakeRunner();
    two.arguments = {"--fake-devices=2"};
    RunnerClient client2(two);
    RunnerReply devices2 = client2.request("devices"); // started lazily
    ASSERT_TRUE(devices2.ok()) << devices2.message;
    EXPECT_EQ(devices2.dataLines.size(), 2u);
}

TEST(RunnerFake, BuffersRoundTrip) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.request("alloc a 4096").ok());
    std::vector<char> data(4096);
    for (size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<char>(i * 7 + 3);
    RunnerReply w = client.writeBuffer("a", data.data(), data.size());
    ASSERT_TRUE(w.ok()) << w.message;
    EXPECT_EQ(w.field("bytes"), "4096");
    std::vector<char> back;
    ASSERT_TRUE(client.readBuffer("a", back).ok());
    EXPECT_EQ(back, data);

    ASSERT_TRUE(client.request("alloc f 40").ok());
    ASSERT_TRUE(client.request("fill f f32 iota").ok());
    ASSERT_TRUE(client.readBuffer("f", back).ok());
    ASSERT_EQ(back.size(), 40u);
    for (int i = 0; i < 10; ++i) {
        float v;
        std::memcpy(&v, back.data() + 4 * i, 4);
        EXPECT_EQ(v, static_cast<float>(i));
    }

    // Seeded fills are deterministic, differ between seeds and stay in [lo, hi).
    std::vector<char> s1, s2, s3;
    ASSERT_TRUE(client.request("fill f f32 seed=7 lo=2 hi=3").ok());
    ASSERT_TRUE(client.readBuffer("f", s1).ok());
    ASSERT_TRUE(client.request("fill f f32 seed=7 lo=2 hi=3").ok());
    ASSERT_TRUE(client.readBuffer("f", s2).ok());
    ASSERT_TRUE(client.request("fill f f32 seed=8 lo=2 hi=3").ok());
    ASSERT_TRUE(client.readBuffer("f", s3).ok());
    EXPECT_EQ(s1, s2);
    EXPECT_NE(s1, s3);
    for (int i = 0; i < 10; ++i) {
        float v;
        std::memcpy(&v, s1.data() + 4 * i, 4);
        EXPECT_GE(v, 2.0f);
        EXPECT_LT(v, 3.0f);
    }

    // f16: 1.0 is 0x3c00, and 0.1 rounds to 0x2e66.
    ASSERT_TRUE(client.request("alloc h 4").ok());
    ASSERT_TRUE(client.request("fill h f16 value=1").ok());
    ASSERT_TRUE(client.readBuffer("h", back).ok());
    EXPECT_EQ(static_cast<unsigned char>(back[0]), 0x00);
    EXPECT_EQ(static_cast<unsigned char>(back[1]), 0x3c);
    ASSERT_TRUE(client.request("fill h f16 value=0.1").ok());
    ASSERT_TRUE(client.readBuffer("h", back).ok());
    EXPECT_EQ(static_cast<unsigned char>(back[0]), 0x66);
    EXPECT_EQ(static_cast<unsigned char>(back[1]), 0x2e);

    ASSERT_TRUE(client.request("free a").ok());
    EXPECT_EQ(client.readBuffer("a", back).code, "unknown-buffer");
}

// The bytes of seeded fills are a contract (a client may reproduce them; the GPU run's inputs depend on
// them): these hashes were taken before the fill loop was rewritten for speed and must never change. The
// buffer is large enough for the runner to split the fill across threads.
TEST(RunnerFake, SeededFillsKeepTheirBytes) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.start());
    struct Case {
        const char* fill;
        uint64_t fnv1a;
    };
    for (const Case& c :
         {Case{"f16 seed=1", 0x206b560a1df19c27ull}, Case{"bf16 seed=2 lo=-3 hi=5", 0x90953d1eb9629714ull},
          Case{"f32 seed=3", 0x22ece6d9a7879e0bull}, Case{"f64 seed=4 lo=0 hi=1e-3", 0x25be89cdcda2a0e8ull},
          Case{"i32 seed=5", 0xa5d732c22455c05dull}, Case{"u8 seed=6 lo=0 hi=256", 0xc5ffaada7a4de745ull},
          Case{"f16 iota", 0x04e8cb23fc0c1bbbull}, Case{"bf16 value=0.3", 0x3536c22a2f4c2929ull}}) {
        client.request("free g");
        ASSERT_TRUE(client.request("alloc g 1200002").ok());
        ASSERT_TRUE(client.request(std::string("fill g ") + c.fill).ok()) << c.fill;
        std::vector<char> bytes;
        ASSERT_TRUE(client.readBuffer("g", bytes).ok()) << c.fill;
        uint64_t hash = 0xcbf29ce484222325ull;
        for (char b : bytes)
            hash = (hash ^ static_cast<unsigned char>(b)) * 0x100000001b3ull;
        EXPECT_EQ(hash, c.fnv1a) << c.fill;
    }
}

// Multi-MB payloads arrive in many reads and leave the client's line buffers large; the lines after them
// (data lines included) must still split correctly.
TEST(RunnerFake, LargePayloadsRoundTrip) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.start());
    const size_t size = (size_t(3) << 20) + 1; // not a multiple of 3: the base64 ends in padding
    ASSERT_TRUE(client.request("alloc big " + std::to_string(size)).ok());
    std::vector<char> data(size);
    for (size_t i = 0; i < size; ++i)
        data[i] = static_cast<char>((i * 2654435761u) >> 11);
    for (int round = 0; round < 2; ++round) {
        data[round] ^= 0x5a;
        RunnerReply w = client.writeBuffer("big", data.data(), data.size());
        ASSERT_TRUE(w.ok()) << w.message;
        std::vector<char> back;
        RunnerReply r = client.readBuffer("big", back);
        ASSERT_TRUE(r.ok()) << r.message;
        EXPECT_EQ(r.field("bytes"), std::to_string(size));
        EXPECT_EQ(back, data);
        RunnerReply devices = client.request("devices");
        ASSERT_TRUE(devices.ok()) << devices.message;
        EXPECT_EQ(devices.dataLines.size(), 1u);
    }
    // The generic request keeps the payload in the reply's fields.
    RunnerReply raw = client.request("read big");
    ASSERT_TRUE(raw.ok());
    EXPECT_EQ(raw.field("base64"), encodeBase64(data));
}

TEST(RunnerFake, RecoverableErrorsKeepTheRunner) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.start());
    pid_t pid = client.pid();
    struct Case {
        const char* request;
        const char* code;
    };
    for (const Case& c :
         {Case{"frobnicate", "unknown-command"}, Case{"hello 99", "version-mismatch"},
          Case{"read nothing", "unknown-buffer"}, Case{"alloc x zero", "bad-request"},
          Case{"alloc x 0", "bad-request"}, Case{"launch nomodule grid=1 block=1", "unknown-module"},
          Case{"fill nothing f32 iota", "unknown-buffer"}}) {
        RunnerReply r = client.request(c.request);
        EXPECT_EQ(r.status, RunnerStatus::Error) << c.request;
        EXPECT_EQ(r.code, c.code) << c.request << ": " << r.message;
        EXPECT_FALSE(r.message.empty());
        EXPECT_FALSE(r.runnerRestarted);
    }
    ASSERT_TRUE(client.request("alloc small 8").ok());
    EXPECT_EQ(client.request("alloc small 8").code, "buffer-exists");
    EXPECT_EQ(client.request("fill small f99 iota").code, "bad-dtype");
    std::vector<char> big(16);
    EXPECT_EQ(client.writeBuffer("small", big.data(), big.size()).code, "out-of-range");
    // A payload whose length disagrees with what the line announced.
    EXPECT_EQ(client.request("write small base64=8", "AAAA").code, "bad-payload");
    EXPECT_EQ(client.request("write small base64=3", "@@@@").code, "bad-payload");
    EXPECT_EQ(client.request("load m sm_90a k base64=4", "AAAAAA==").code, "bad-cubin");
    EXPECT_EQ(client.loadCubin("m", "sm_90a", "k", std::vector<char>{'n', 'o', 'p', 'e'}).code, "bad-cubin");
    EXPECT_EQ(client.loadCubin("m", "sm_100a", "k", fakeCubin("k")).code, "arch-mismatch");
    EXPECT_EQ(client.loadCubin("m", "sm_86", "k", fakeCubin("k")).code, "arch-mismatch");
    EXPECT_EQ(client.loadCubin("m", "compute_90", "k", fakeCubin("k")).code, "bad-request");
    EXPECT_EQ(client.loadCubin("m", "sm_90a", "other", fakeCubin("k")).code, "kernel-not-found");
    RunnerReply bad = client.request("launch m grid=1 block=1 simulate=fault", "x\ny");
    EXPECT_EQ(bad.code, "bad-request"); // the client refuses multi-line requests itself
    EXPECT_EQ(client.pid(), pid);
    EXPECT_EQ(client.restartCount(), 0);
    EXPECT_TRUE(client.request("hello 1").ok());
}

TEST(RunnerFake, LoadLaunchAndTime) {
    RunnerClient client(fakeRunner());
    RunnerReply load = client.loadCubin("m0", "sm_90a", "vector_add", fakeCubin("vector_add"));
    ASSERT_TRUE(load.ok()) << load.message;
    EXPECT_EQ(load.words.at(1), "m0");
    EXPECT_EQ(load.field("kernel"), "vector_add");
    // A cubin never runs on a different major version (sm_80 on CC 9.0).
    EXPECT_EQ(client.loadCubin("m1", "sm_80", "vector_add", fakeCubin("vector_add")).code, "arch-mismatch");
    ASSERT_TRUE(client.request("alloc a 64").ok());
    EXPECT_EQ(client.request("time m0 warmup=1 repeat=3").code, "bad-request"); // nothing to repeat yet
    RunnerReply launch = client.request("launch m0 grid=1 block=16 args=buf:a,buf:a,buf:a,i32:16");
    ASSERT_TRUE(launch.ok()) << launch.message;
    EXPECT_FALSE(launch.field("wall_ms").empty());
    EXPECT_EQ(client.request("launch m0 grid=1 block=16 args=buf:zz").code, "unknown-buffer");
    EXPECT_EQ(client.request("launch m0 grid=1 block=16 args=q:1").code, "bad-argument");
    EXPECT_EQ(client.request("launch m0 grid=0 block=16").code, "bad-request");
    EXPECT_EQ(client.request("launch m0 grid=1,1,1,1 block=16").code, "bad-request");
    RunnerReply time = client.request("time m0 warmup=2 repeat=5");
    ASSERT_TRUE(time.ok()) << time.message;
    EXPECT_EQ(time.field("repeat"), "5");
    EXPECT_EQ(time.field("median_ms"), "0.001");
    EXPECT_EQ(time.field("simulated"), "1");
    EXPECT_EQ(client.request("time m0 warmup=2 repeat=0").code, "bad-request");
}

// cooperative=1 (a kernel with a grid barrier): the grid must be resident at once, else the launch is refused
// with how many blocks fit; the fake H200 answers as the occupancy calculator does (132 SMs, 2048 threads and
// 233472 bytes of shared memory per SM, 32 registers per thread).
TEST(RunnerFake, CooperativeLaunchesMustFitOnTheDevice) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.loadCubin("m0", "sm_90a", "vector_add", fakeCubin("vector_add")).ok());
    // 256 threads: 8 blocks per SM by threads, 1056 on the device.
    RunnerReply fits = client.request("launch m0 grid=1056 block=256 cooperative=1");
    EXPECT_TRUE(fits.ok()) << fits.message;
    RunnerReply tooMany = client.request("launch m0 grid=1057 block=256 cooperative=1");
    EXPECT_EQ(tooMany.code, "launch-failed");
    EXPECT_NE(tooMany.message.find("all 1057 blocks resident at once, but the device holds at most 1056 of "
                                   "them (8 per SM at 256 threads and 0 bytes of shared memory x 132 SMs)"),
              std::string::npos)
        << tooMany.message;
    // Shared memory limits it too: 100000 bytes leave 2 blocks per SM.
    EXPECT_TRUE(client.request("launch m0 grid=264 block=256 smem=100000 cooperative=1").ok());
    EXPECT_EQ(client.request("launch m0 grid=265 block=256 smem=100000 cooperative=1").code, "launch-failed");
    // An ordinary launch of the same grid is not limited; `time` repeats the cooperative configuration.
    EXPECT_TRUE(client.request("launch m0 grid=1057 block=256").ok());
    EXPECT_TRUE(client.request("launch m0 grid=1057 block=256 cooperative=0").ok());
    EXPECT_TRUE(client.request("launch m0 grid=1057 block=256 cooperative=1").code == "launch-failed");
    EXPECT_EQ(client.request("time m0 warmup=1 repeat=2").code, "launch-failed");
    EXPECT_EQ(client.request("launch m0 grid=1 block=256 cooperative=yes").code, "bad-request");
}

#if TILEBENCH_HAS_NVRTC
TEST(RunnerFake, AcceptsARealNvrtcCubin) {
    CudaCompileOptions options;
    options.arch = "sm_90a";
    CudaCompileResult compiled = compileCuda(test::kVectorAddSource, "vector_add", options);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    RunnerClient client(fakeRunner());
    RunnerReply load = client.loadCubin("va", "sm_90a", "vector_add", compiled.cubin);
    ASSERT_TRUE(load.ok()) << load.message;
    EXPECT_EQ(load.field("bytes"), std::to_string(compiled.cubin.size()));
    EXPECT_EQ(client.loadCubin("va", "sm_90a", "mma_tile", compiled.cubin).code, "kernel-not-found");
}
#endif

TEST(RunnerFake, FaultIsReportedAndTheRunnerReplaced) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.start());
    pid_t first = client.pid();
    ASSERT_TRUE(client.request("alloc keep 16").ok());
    RunnerReply r = client.request("launch m grid=1 block=1 simulate=fault");
    EXPECT_EQ(r.status, RunnerStatus::Fault);
    EXPECT_EQ(r.code, "CUDA_ERROR_ILLEGAL_ADDRESS");
    EXPECT_NE(r.message.find("an illegal memory access was encountered"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("the runner was restarted"), std::string::npos) << r.message;
    EXPECT_TRUE(r.runnerRestarted);
    EXPECT_EQ(client.restartCount(), 1);
    EXPECT_TRUE(client.isRunning());
    EXPECT_NE(client.pid(), first);
    EXPECT_FALSE(processExists(first));
    // The fresh runner works, and the old runner's buffers are gone with it.
    EXPECT_TRUE(client.request("hello 1").ok());
    std::vector<char> out;
    EXPECT_EQ(client.readBuffer("keep", out).code, "unknown-buffer");
}

TEST(RunnerFake, HangIsKilledByTheWatchdog) {
    RunnerClient client(fakeRunner(500ms));
    ASSERT_TRUE(client.start());
    pid_t first = client.pid();
    auto t0 = std::chrono::steady_clock::now();
    RunnerReply r = client.request("launch m grid=1 block=1 simulate=hang");
    auto elapsed = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(r.status, RunnerStatus::Timeout);
    EXPECT_EQ(r.code, "watchdog");
    EXPECT_EQ(r.message, "kernel exceeded the 0.5 s watchdog; the runner was restarted");
    EXPECT_GE(elapsed, 500ms);
    EXPECT_LT(elapsed, 5s);
    EXPECT_FALSE(processExists(first));
    EXPECT_NE(client.pid(), first);
    EXPECT_EQ(client.restartCount(), 1);
    EXPECT_TRUE(client.request("devices").ok());

    // A per-request limit overrides the default watchdog.
    t0 = std::chrono::steady_clock::now();
    RunnerReply again = client.request("time m grid=1 block=1 simulate=hang", 200ms);
    EXPECT_EQ(again.status, RunnerStatus::Timeout);
    EXPECT_EQ(again.message, "kernel exceeded the 0.2 s watchdog; the runner was restarted");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    EXPECT_EQ(client.restartCount(), 2);
}

TEST(RunnerFake, GarbageIsAProtocolError) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.start());
    pid_t first = client.pid();
    RunnerReply r = client.request("launch m grid=1 block=1 simulate=garbage");
    EXPECT_EQ(r.status, RunnerStatus::ProtocolError);
    EXPECT_NE(r.message.find("not part of protocol 1"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("\\x01"), std::string::npos) << r.message; // control bytes shown escaped
    EXPECT_TRUE(r.runnerRestarted);
    EXPECT_NE(client.pid(), first);
    EXPECT_TRUE(client.request("hello 1").ok());
}

TEST(RunnerFake, CrashIsReported) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.start());
    RunnerReply r = client.request("launch m grid=1 block=1 simulate=crash");
    EXPECT_EQ(r.status, RunnerStatus::Crashed);
    EXPECT_NE(r.message.find("signal 6"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("'launch'"), std::string::npos) << r.message;
    EXPECT_TRUE(r.runnerRestarted);
    EXPECT_TRUE(client.request("hello 1").ok());
}

TEST(RunnerFake, RepeatedFailuresNeverTakeTheClientDown) {
    RunnerClient client(fakeRunner(300ms));
    const char* modes[] = {"fault", "garbage", "crash", "hang"};
    for (int i = 0; i < 8; ++i) {
        RunnerReply r = client.request(std::string("launch m grid=1 block=1 simulate=") + modes[i % 4]);
        EXPECT_FALSE(r.ok());
        EXPECT_TRUE(r.runnerRestarted) << r.message;
    }
    EXPECT_EQ(client.restartCount(), 8);
    EXPECT_TRUE(client.request("hello 1").ok());
}

TEST(RunnerFake, StopEndsTheProcess) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.start());
    pid_t pid = client.pid();
    client.stop();
    EXPECT_FALSE(client.isRunning());
    EXPECT_FALSE(processExists(pid));
    EXPECT_TRUE(client.request("hello 1").ok()); // starts a new one on demand
}

TEST(RunnerClient, MissingExecutableIsUnavailable) {
    RunnerOptions options;
    options.executable = "/nonexistent/tilebench-runner";
    RunnerClient client(options);
    std::string error;
    EXPECT_FALSE(client.start(&error));
    EXPECT_NE(error.find("/nonexistent/tilebench-runner"), std::string::npos);
    RunnerReply r = client.request("hello 1");
    EXPECT_EQ(r.status, RunnerStatus::Unavailable);
    EXPECT_FALSE(client.isRunning());
}

TEST(RunnerClient, ProgramThatIsNotARunnerFailsTheHandshake) {
    RunnerOptions options;
    options.executable = "/bin/cat"; // echoes "hello 1" back: not an ok line
    options.startupTimeout = 2000ms;
    RunnerClient client(options);
    std::string error;
    EXPECT_FALSE(client.start(&error));
    EXPECT_NE(error.find("handshake"), std::string::npos) << error;
    EXPECT_FALSE(client.isRunning());
}

} // namespace
} // namespace tb::gpu
