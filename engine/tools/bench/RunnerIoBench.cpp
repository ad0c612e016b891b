// How long the runner's buffer requests take end to end through RunnerClient, for the 2 MiB operands of
// the M = N = K = 1024 fp16 GEMM that bench_edit runs: alloc + free, `fill f16 seed=` of 1M elements (and
// f32/bf16 for comparison), `write` and `read` of 2 MiB with the payload inline as base64, and a read
// plus the conversion to a new host tensor, as GpuRun's download step does per operand. Medians of N runs
// against the fake runner (host memory, so the numbers are the protocol's and the host code's cost, not
// PCIe's); --gpu uses the real runner. Then writes and reads of 64 KiB to 64 MiB inline and out of
// band (through a file, RunnerOptions::outOfBandBytes), which is what the default threshold was chosen from.
// A benchmark, not a test: it never fails on timing.
//
// Usage: bench_runner_io [runs] [--gpu]
#include "engine/exec/HostTensor.h"
#include "engine/gpu/RunnerClient.h"
#include "engine/gpu/RunnerProtocol.h"
#include "engine/profile/TimingStats.h"
#include "engine/run/GpuRun.h"
#include "engine/support/Stopwatch.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr size_t kBytes = size_t(2) << 20; // one 1024 x 1024 fp16 operand

// Runs `body` `runs` times (after one untimed warm-up) and prints the median and range; false when a
// request failed.
bool timeIt(const char* what, int runs, const std::function<bool()>& body) {
    if (!body())
        return false;
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        auto start = std::chrono::steady_clock::now();
        if (!body())
            return false;
        ms.push_back(tb::millisecondsSince(start));
    }
    tb::profile::TimingSummary t = tb::profile::summarizeTimings(ms);
    std::printf("  %-34s median %8.2f ms (min %.2f, max %.2f)\n", what, t.medianMs, t.minMs, t.maxMs);
    return true;
}

bool expectOk(const tb::gpu::RunnerReply& reply, const std::string& what) {
    if (!reply.ok())
        std::fprintf(stderr, "bench_runner_io: %s: %s %s\n", what.c_str(), reply.code.c_str(),
                     reply.message.c_str());
    return reply.ok();
}

// Write and read of 64 KiB to 64 MiB, inline (base64 on the line) and out of band (a file beside the runner).
bool transports(tb::gpu::RunnerOptions options, int runs) {
    for (size_t bytes : {size_t(64) << 10, size_t(512) << 10, kBytes, size_t(64) << 20}) {
        std::vector<char> payload(bytes), back;
        for (size_t i = 0; i < bytes; ++i)
            payload[i] = static_cast<char>((i * 2654435761u) >> 13);
        for (bool outOfBand : {false, true}) {
            options.outOfBandBytes = outOfBand ? 0 : SIZE_MAX;
            tb::gpu::RunnerClient client(options);
            if (!expectOk(client.request("alloc T " + std::to_string(bytes)), "alloc T"))
                return false;
            std::string size = (bytes < (1u << 20) ? std::to_string(bytes >> 10) + " KiB"
                                                   : std::to_string(bytes >> 20) + " MiB") +
                               (outOfBand ? " (file)" : " (base64)");
            bool good =
                timeIt(("write " + size).c_str(), runs,
                       [&] { return expectOk(client.writeBuffer("T", payload.data(), bytes), "write"); }) &&
                timeIt(("read " + size).c_str(), runs,
                       [&] { return expectOk(client.readBuffer("T", back), "read") && back == payload; });
            if (!good)
                return false;
        }
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    int runs = 20;
    bool gpu = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--gpu") == 0)
            gpu = true;
        else
            runs = std::max(1, std::atoi(argv[i]));
    }
    tb::gpu::RunnerOptions options;
    options.executable = tb::gpu::defaultRunnerPath();
    if (!gpu)
        options.arguments = {"--fake"};
    tb::gpu::RunnerClient client(options);
    std::string error;
    if (!client.start(&error)) {
        std::fprintf(stderr, "bench_runner_io: cannot start %s: %s\n", options.executable.c_str(),
                     error.c_str());
        return 1;
    }
    tb::gpu::RunnerReply devices = client.request("devices");
    std::string device =
        devices.dataLines.empty()
            ? "no device"
            : tb::gpu::parseProtocolLine(devices.dataLines.front()).field("name", "unnamed device");
    std::printf("runner %s (%s: %s), 2 MiB buffers, %d runs\n", options.executable.c_str(),
                gpu ? "gpu" : "fake", device.c_str(), runs);
    const std::string bytes = std::to_string(kBytes);
    client.request("free A"); // an earlier run's leftovers, if any
    if (!expectOk(client.request("alloc A " + bytes), "alloc A"))
        return 1;

    std::vector<char> payload(kBytes);
    for (size_t i = 0; i < kBytes; ++i)
        payload[i] = static_cast<char>((i * 2654435761u) >> 13);
    std::vector<char> readBack;

    bool good =
        timeIt("alloc + free", runs,
               [&] {
                   return expectOk(client.request("alloc B " + bytes), "alloc B") &&
                          expectOk(client.request("free B"), "free B");
               }) &&
        timeIt("fill f16 seed= (1M elements)", runs,
               [&] { return expectOk(client.request("fill A f16 seed=1"), "fill f16"); }) &&
        timeIt("fill bf16 seed= (1M elements)", runs,
               [&] { return expectOk(client.request("fill A bf16 seed=1"), "fill bf16"); }) &&
        timeIt("fill f32 seed= (512K elements)", runs,
               [&] { return expectOk(client.request("fill A f32 seed=1"), "fill f32"); }) &&
        timeIt("write (base64 inline)", runs,
               [&] { return expectOk(client.writeBuffer("A", payload.data(), payload.size()), "write"); }) &&
        timeIt("read (base64 inline)", runs,
               [&] {
                   return expectOk(client.readBuffer("A", readBack), "read") && readBack.size() == kBytes;
               }) &&
        timeIt("read + new f16 host tensor", runs, [&] {
            // GpuRun's download of one operand: the tensor's 8 MB of doubles are fresh memory every time.
            tb::HostTensor c;
            c.dtype = tb::ir::DType::Float16;
            c.shape = {1024, 1024};
            return expectOk(client.readBuffer("A", readBack), "read") &&
                   tb::run::tensorFromBytes(c, readBack);
        });
    client.request("free A");
    if (!good)
        return 1;
    if (!transports(options, runs))
        return 1;
    // Sanity: what was written is what comes back.
    if (!std::equal(payload.begin(), payload.end(), readBack.begin())) {
        std::fprintf(stderr, "bench_runner_io: read returned other bytes than were written\n");
        return 1;
    }
    return 0;
}
