// A backend with simulated devices and host memory, for `tilebench-runner --fake`: the protocol, the
// buffer bookkeeping and the client's fault handling can be tested on machines without a GPU. Launches do
// nothing (the session handles simulate=fault|hang|garbage|crash before reaching the backend) and timings
// are a fixed simulated 0.001 ms.
#pragma once

#include "RunnerBackend.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tb::runner {

class FakeBackend : public RunnerBackend {
public:
    explicit FakeBackend(int deviceCount);

    std::string mode() const override { return "fake"; }
    const std::vector<gpu::GpuDeviceInfo>& devices() const override { return m_devices; }
    std::string unavailableReason() const override { return "--fake-devices=0"; }
    int selectedDevice() const override { return 0; }

    BackendStatus loadModule(const std::string& id, const std::string& kernelName,
                             const std::vector<char>& cubin, KernelAttributes& attributes) override;
    BackendStatus unloadModule(const std::string& id) override;
    BackendStatus allocate(size_t bytes, uint64_t& address) override;
    BackendStatus release(uint64_t address) override;
    BackendStatus copyToDevice(uint64_t address, const void* data, size_t bytes) override;
    BackendStatus copyFromDevice(void* data, uint64_t address, size_t bytes) override;
    BackendStatus launch(const std::string& id, const LaunchConfig& config,
                         std::vector<void*>& params) override;
    BackendStatus time(const std::string& id, const LaunchConfig& config, std::vector<void*>& params,
                       int warmup, int repeat, std::vector<double>& milliseconds) override;
    BackendStatus encodeTensorMap(const gpu::TensorMapSpec& spec, uint64_t globalAddress,
                                  TensorMapBytes& out) override;

private:
    std::vector<gpu::GpuDeviceInfo> m_devices;
    std::set<std::string> m_modules;
    std::map<uint64_t, std::vector<char>> m_memory; // keyed by the simulated device address
    uint64_t m_nextAddress = 0x7f0000000000ull;
    size_t m_allocatedBytes = 0;
};

} // namespace tb::runner
