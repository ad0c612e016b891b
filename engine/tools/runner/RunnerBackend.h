// What the runner needs from a GPU, as an interface with two implementations: CudaBackend (the real
// driver, loaded with dlopen) and FakeBackend (simulated devices in host memory, for CI). The protocol
// session (RunnerSession) owns the names of modules and buffers; backends deal in device addresses.
#pragma once

#include "engine/gpu/CudaDriver.h"
#include "engine/gpu/TensorMapSpec.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tb::runner {

struct BackendStatus {
    enum class Kind { Ok, Error, Fault };
    Kind kind = Kind::Ok;
    std::string code; // error code, or the CUDA error name of a fault
    std::string message;

    bool ok() const { return kind == Kind::Ok; }
    static BackendStatus success() { return {}; }
    static BackendStatus error(std::string code, std::string message) {
        return {Kind::Error, std::move(code), std::move(message)};
    }
    static BackendStatus fault(std::string name, std::string message) {
        return {Kind::Fault, std::move(name), std::move(message)};
    }
};

struct KernelAttributes {
    int registers = -1;
    int staticSharedBytes = -1;
    int localBytes = -1;
    int maxThreadsPerBlock = -1;
};

// A CUtensorMap: 128 opaque bytes, 64-byte aligned, passed to a kernel by value.
struct alignas(64) TensorMapBytes {
    unsigned char bytes[128] = {};
};

struct LaunchConfig {
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned sharedBytes = 0; // dynamic shared memory
    // cooperative=1: cuLaunchCooperativeKernel, every block resident at once (a kernel with a grid barrier).
    bool cooperative = false;

    uint64_t blocks() const { return uint64_t(grid[0]) * grid[1] * grid[2]; }
    unsigned threads() const { return block[0] * block[1] * block[2]; }
};

// The refusal of a cooperative launch whose grid cannot be resident at once (both backends word it so).
inline BackendStatus cooperativeLaunchTooLarge(const LaunchConfig& c, int blocksPerSm, int smCount) {
    return BackendStatus::error(
        "launch-failed", "a cooperative launch needs all " + std::to_string(c.blocks()) +
                             " blocks resident at once, but the device holds at most " +
                             std::to_string(int64_t(blocksPerSm) * smCount) + " of them (" +
                             std::to_string(blocksPerSm) + " per SM at " + std::to_string(c.threads()) +
                             " threads and " + std::to_string(c.sharedBytes) + " bytes of shared memory x " +
                             std::to_string(smCount) + " SMs)");
}

class RunnerBackend {
public:
    virtual ~RunnerBackend() = default;

    virtual std::string mode() const = 0; // "gpu" or "fake"
    // Devices, and why there are none (the probe's reason) when the list is empty.
    virtual const std::vector<gpu::GpuDeviceInfo>& devices() const = 0;
    virtual std::string unavailableReason() const = 0;
    // The device requests run on (--device=N).
    virtual int selectedDevice() const = 0;

    virtual BackendStatus loadModule(const std::string& id, const std::string& kernelName,
                                     const std::vector<char>& cubin, KernelAttributes& attributes) = 0;
    virtual BackendStatus unloadModule(const std::string& id) = 0;
    virtual BackendStatus allocate(size_t bytes, uint64_t& address) = 0;
    virtual BackendStatus release(uint64_t address) = 0;
    virtual BackendStatus copyToDevice(uint64_t address, const void* data, size_t bytes) = 0;
    virtual BackendStatus copyFromDevice(void* data, uint64_t address, size_t bytes) = 0;
    // Launches and waits for completion; `params` are pointers to each argument's value.
    virtual BackendStatus launch(const std::string& id, const LaunchConfig& config,
                                 std::vector<void*>& params) = 0;
    // Launches without waiting for completion (profiling brackets launches itself). Defaults to launch().
    virtual BackendStatus launchAsync(const std::string& id, const LaunchConfig& config,
                                      std::vector<void*>& params) {
        return launch(id, config, params);
    }
    // Encodes a tensor map whose rules tensorMapProblem already checked (the real backend calls
    // cuTensorMapEncodeTiled; the fake one writes a recognizable stand-in).
    virtual BackendStatus encodeTensorMap(const gpu::TensorMapSpec& spec, uint64_t globalAddress,
                                          TensorMapBytes& out) = 0;
    // `warmup` launches, then `repeat` launches each timed with a pair of events; milliseconds per launch.
    virtual BackendStatus time(const std::string& id, const LaunchConfig& config, std::vector<void*>& params,
                               int warmup, int repeat, std::vector<double>& milliseconds) = 0;
};

} // namespace tb::runner
