// The real thing, on a machine with an NVIDIA GPU (skipped elsewhere with "no GPU: <reason>"): NVRTC
// compiles for the device's native architecture, the runner loads the cubin, a vector add runs and is
// checked element by element, CUDA events time it, and a kernel that faults or never ends replaces the
// runner without harming this process.
#include "RunnerTestSupport.h"
#include "TestKernels.h"
#include "engine/codegen/DeviceHeader.h"
#include "engine/gpu/CudaDriver.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/gpu/RunnerProtocol.h"

#include <chrono>
#include <cstring>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::gpu {
namespace {

using namespace std::chrono_literals;

// Skips the calling test when there is no GPU (or no NVRTC); else the first device.
#define REQUIRE_GPU(device)                                                                                  \
    GpuAvailability availability_ = probeGpus();                                                             \
    if (!availability_.available)                                                                            \
        GTEST_SKIP() << "no GPU: " << availability_.reason;                                                  \
    if (!TILEBENCH_HAS_NVRTC)                                                                                \
        GTEST_SKIP() << "no NVRTC in this build";                                                            \
    const GpuDeviceInfo device = availability_.devices.front()

RunnerOptions gpuRunner(std::chrono::milliseconds watchdog = 10000ms) {
    RunnerOptions options;
    options.executable = test::runnerPath();
    options.watchdog = watchdog;
    return options;
}

CudaCompileResult compileFor(const GpuDeviceInfo& device) {
    CudaCompileOptions options;
    options.arch = device.nativeArch();
    return compileCuda(test::kVectorAddSource, "vector_add", options);
}

// Loads, fills, launches and checks a vector add of n floats on the client's current runner.
void runVectorAdd(RunnerClient& client, const std::string& arch, const std::vector<char>& cubin, int n) {
    RunnerReply load = client.loadCubin("va", arch, "vector_add", cubin);
    ASSERT_TRUE(load.ok()) << load.code << " " << load.message;
    std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        a[static_cast<size_t>(i)] = static_cast<float>(i) * 0.5f;
        b[static_cast<size_t>(i)] = 1000.0f - static_cast<float>(i % 977);
    }
    size_t bytes = static_cast<size_t>(n) * sizeof(float);
    for (const char* name : {"a", "b", "c"})
        ASSERT_TRUE(client.request(std::string("alloc ") + name + " " + std::to_string(bytes)).ok());
    ASSERT_TRUE(client.writeBuffer("a", a.data(), bytes).ok());
    ASSERT_TRUE(client.writeBuffer("b", b.data(), bytes).ok());
    RunnerReply launch =
        client.request("launch va grid=" + std::to_string((n + 255) / 256) +
                       ",1,1 block=256,1,1 smem=0 args=buf:a,buf:b,buf:c,i32:" + std::to_string(n));
    ASSERT_TRUE(launch.ok()) << launch.code << " " << launch.message;
    std::vector<char> raw;
    ASSERT_TRUE(client.readBuffer("c", raw).ok());
    ASSERT_EQ(raw.size(), bytes);
    int mismatches = 0;
    for (int i = 0; i < n; ++i) {
        float c;
        std::memcpy(&c, raw.data() + static_cast<size_t>(i) * 4, 4);
        float expected = a[static_cast<size_t>(i)] + b[static_cast<size_t>(i)];
        if (c != expected && ++mismatches <= 5)
            ADD_FAILURE() << "c[" << i << "] = " << c << ", expected " << expected;
    }
    EXPECT_EQ(mismatches, 0);
}

TEST(RunnerGpu, VectorAddRunsAndIsTimed) {
    REQUIRE_GPU(device);
    CudaCompileResult compiled = compileFor(device);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    RunnerClient client(gpuRunner());
    std::string error;
    ASSERT_TRUE(client.start(&error)) << error;
    EXPECT_EQ(client.helloReply().field("mode"), "gpu");
    EXPECT_EQ(client.helloReply().field("gpus"), std::to_string(availability_.devices.size()));
    RunnerReply devices = client.request("devices");
    ASSERT_TRUE(devices.ok());
    ASSERT_EQ(devices.dataLines.size(), availability_.devices.size());
    EXPECT_NE(devices.dataLines[0].find("arch=" + device.nativeArch()), std::string::npos)
        << devices.dataLines[0];

    RunnerReply load = client.loadCubin("va", device.nativeArch(), "vector_add", compiled.cubin);
    ASSERT_TRUE(load.ok()) << load.message;
    // The driver's register count for the loaded kernel is what ptxas reported at compile time.
    EXPECT_EQ(load.field("regs"), std::to_string(compiled.registers));
    EXPECT_EQ(load.field("smem"), "0");

    runVectorAdd(client, device.nativeArch(), compiled.cubin, (1 << 20) + 3);

    RunnerReply time = client.request("time va warmup=3 repeat=20");
    ASSERT_TRUE(time.ok()) << time.message;
    double median = std::stod(time.field("median_ms", "-1"));
    double minimum = std::stod(time.field("min_ms", "-1"));
    double maximum = std::stod(time.field("max_ms", "-1"));
    EXPECT_GT(median, 0.0);
    EXPECT_LT(median, 100.0); // a 1M-element add takes microseconds
    EXPECT_LE(minimum, median);
    EXPECT_LE(median, maximum);
    EXPECT_EQ(time.field("repeat"), "20");
    EXPECT_EQ(time.fields.count("simulated"), 0u);
    EXPECT_EQ(client.request("launch va grid=1 block=1 simulate=fault").code, "bad-request");
    EXPECT_EQ(client.restartCount(), 0);
}

// Issue 15 item 6: the 268 MB output of a b8 h32 s4096 d128 fp16 attention, larger than a protocol line can
// carry as base64, goes to the device and back out of band (RunnerOptions::outOfBandBytes), intact.
TEST(RunnerGpu, A268MegabyteBufferRoundTripsOutOfBand) {
    REQUIRE_GPU(device);
    (void)device;
    const size_t bytes = size_t(8) * 32 * 4096 * 128 * 2;
    ASSERT_GT((bytes + 2) / 3 * 4, kRunnerMaxLineBytes) << "the point: inline base64 would not fit one line";
    std::vector<char> data(bytes);
    for (size_t i = 0; i < bytes; i += 4096)
        data[i] = static_cast<char>(i / 4096 * 31 + 7);
    data.back() = 0x5a;
    RunnerClient client(gpuRunner(60000ms));
    ASSERT_TRUE(client.request("alloc big " + std::to_string(bytes)).ok());
    RunnerReply w = client.writeBuffer("big", data.data(), data.size());
    ASSERT_TRUE(w.ok()) << w.code << " " << w.message;
    std::vector<char> back;
    RunnerReply r = client.readBuffer("big", back);
    ASSERT_TRUE(r.ok()) << r.code << " " << r.message;
    ASSERT_EQ(back.size(), bytes);
    EXPECT_TRUE(back == data);
    EXPECT_EQ(client.restartCount(), 0);
}

TEST(RunnerGpu, IllegalAddressFaultsAndTheNextRunnerWorks) {
    REQUIRE_GPU(device);
    CudaCompileResult compiled = compileFor(device);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    CudaCompileOptions options;
    options.arch = device.nativeArch();
    CudaCompileResult wild = compileCuda(test::kVectorAddSource, "write_wild", options);
    ASSERT_TRUE(wild.ok) << wild.log;

    RunnerClient client(gpuRunner());
    ASSERT_TRUE(client.loadCubin("w", device.nativeArch(), "write_wild", wild.cubin).ok());
    ASSERT_TRUE(client.request("alloc p 4").ok());
    pid_t first = client.pid();
    RunnerReply r = client.request("launch w grid=1 block=32 args=buf:p");
    EXPECT_EQ(r.status, RunnerStatus::Fault) << r.message;
    EXPECT_EQ(r.code, "CUDA_ERROR_ILLEGAL_ADDRESS") << r.message;
    EXPECT_TRUE(r.runnerRestarted);
    EXPECT_NE(client.pid(), first);
    EXPECT_FALSE(test::processExists(first));
    runVectorAdd(client, device.nativeArch(), compiled.cubin, 4096);
}

TEST(RunnerGpu, EndlessKernelIsKilledByTheWatchdog) {
    REQUIRE_GPU(device);
    CudaCompileOptions options;
    options.arch = device.nativeArch();
    CudaCompileResult spin = compileCuda(test::kVectorAddSource, "spin_forever", options);
    ASSERT_TRUE(spin.ok) << spin.log;
    CudaCompileResult compiled = compileFor(device);
    ASSERT_TRUE(compiled.ok) << compiled.log;

    RunnerClient client(gpuRunner(2000ms));
    ASSERT_TRUE(client.loadCubin("s", device.nativeArch(), "spin_forever", spin.cubin).ok());
    ASSERT_TRUE(client.request("alloc flag 4").ok()); // zeroed at allocation
    pid_t first = client.pid();
    auto t0 = std::chrono::steady_clock::now();
    RunnerReply r = client.request("launch s grid=1 block=32 args=buf:flag");
    EXPECT_EQ(r.status, RunnerStatus::Timeout) << r.message;
    EXPECT_EQ(r.message, "kernel exceeded the 2 s watchdog; the runner was restarted");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 30s);
    EXPECT_FALSE(test::processExists(first));
    runVectorAdd(client, device.nativeArch(), compiled.cubin, 4096);
}

// The generated code's grid barrier (codegen::cudaGridSyncHeader) under a cooperative launch of one block per
// SM, three times in a row: every block stores its index, waits, and reads its right neighbour's; each
// round must see the round's values (a barrier that let a block through early would read the last round's).
TEST(RunnerGpu, CooperativeLaunchWithTheGridBarrier) {
    REQUIRE_GPU(device);
    const std::string source = std::string(codegen::cudaGridSyncHeader()) + R"CUDA(
extern "C" __global__ void ring(int* slots, int* seen, int rounds) {
    const unsigned n = gridDim.x;
    for (int r = 0; r < rounds; ++r) {
        if (threadIdx.x == 0)
            slots[blockIdx.x] = r * 100000 + (int)blockIdx.x;
        tb_grid_sync();
        if (threadIdx.x == 0)
            seen[r * n + blockIdx.x] = slots[(blockIdx.x + 1) % n];
        tb_grid_sync();
    }
}
)CUDA";
    CudaCompileOptions options;
    options.arch = device.nativeArch();
    CudaCompileResult compiled = compileCuda(source, "ring", options);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    RunnerClient client(gpuRunner());
    ASSERT_TRUE(client.loadCubin("ring", device.nativeArch(), "ring", compiled.cubin).ok());
    const int blocks = device.smCount, rounds = 3;
    ASSERT_TRUE(client.request("alloc slots " + std::to_string(4 * blocks)).ok());
    ASSERT_TRUE(client.request("alloc seen " + std::to_string(4 * blocks * rounds)).ok());
    for (int launch = 0; launch < 2; ++launch) { // the arrival word is right for the next launch too
        RunnerReply r =
            client.request("launch ring grid=" + std::to_string(blocks) +
                           " block=256 cooperative=1 args=buf:slots,buf:seen,i32:" + std::to_string(rounds));
        ASSERT_TRUE(r.ok()) << r.code << " " << r.message;
        std::vector<char> raw;
        ASSERT_TRUE(client.readBuffer("seen", raw).ok());
        ASSERT_EQ(raw.size(), size_t(4 * blocks * rounds));
        int wrong = 0;
        for (int round = 0; round < rounds; ++round)
            for (int b = 0; b < blocks; ++b) {
                int value;
                std::memcpy(&value, raw.data() + 4 * (round * blocks + b), 4);
                const int expected = round * 100000 + (b + 1) % blocks;
                if (value != expected && ++wrong <= 5)
                    ADD_FAILURE() << "launch " << launch << " round " << round << " block " << b << ": "
                                  << value << ", expected " << expected;
            }
        EXPECT_EQ(wrong, 0);
    }
    // A grid that cannot be resident at once is refused before it could hang, saying how many blocks fit.
    RunnerReply tooLarge = client.request("launch ring grid=" + std::to_string(blocks * 1000) +
                                          " block=1024 cooperative=1 args=buf:slots,buf:seen,i32:0");
    EXPECT_EQ(tooLarge.code, "launch-failed") << tooLarge.message;
    EXPECT_NE(tooLarge.message.find("blocks resident at once"), std::string::npos) << tooLarge.message;
    EXPECT_EQ(client.restartCount(), 0);
}

} // namespace
} // namespace tb::gpu
