// Simulated devices for the runner's --fake mode (see FakeBackend.h).
#include "FakeBackend.h"

#include "engine/target/Occupancy.h"
#include "engine/target/Target.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tb::runner {

namespace {
constexpr size_t kFakeMemoryBytes = size_t(1) << 30; // host memory the fake device may use
}

FakeBackend::FakeBackend(int deviceCount) {
    for (int i = 0; i < deviceCount; ++i) {
        gpu::GpuDeviceInfo d;
        d.index = i;
        d.name = "TileBench Fake H200";
        d.ccMajor = 9;
        d.ccMinor = 0;
        d.smCount = 132;
        d.totalMemoryBytes = kFakeMemoryBytes;
        d.sharedPerBlockBytes = 49152;
        d.sharedPerBlockOptinBytes = 232448;
        d.sharedPerSmBytes = 233472;
        d.l2Bytes = 62914560;
        d.clockKhz = 1980000;
        d.memoryClockKhz = 3201000;
        d.memoryBusWidthBits = 6016;
        d.registersPerBlock = 65536;
        d.warpSize = 32;
        d.maxThreadsPerBlock = 1024;
        d.maxThreadsPerSm = 2048;
        m_devices.push_back(d);
    }
}

BackendStatus FakeBackend::loadModule(const std::string& id, const std::string& kernelName,
                                      const std::vector<char>& cubin, KernelAttributes& attributes) {
    std::string needle = ".text." + kernelName;
    needle.push_back('\0');
    if (std::search(cubin.begin(), cubin.end(), needle.begin(), needle.end()) == cubin.end())
        return BackendStatus::error("kernel-not-found", "kernel " + kernelName + " is not in the cubin");
    m_modules.insert(id);
    attributes = KernelAttributes{32, 0, 0, 1024};
    return BackendStatus::success();
}

BackendStatus FakeBackend::unloadModule(const std::string& id) {
    m_modules.erase(id);
    return BackendStatus::success();
}

BackendStatus FakeBackend::allocate(size_t bytes, uint64_t& address) {
    if (bytes > kFakeMemoryBytes - m_allocatedBytes)
        return BackendStatus::error(
            "out-of-memory", "the fake device has " + std::to_string(kFakeMemoryBytes - m_allocatedBytes) +
                                 " bytes left, " + std::to_string(bytes) + " requested");
    address = m_nextAddress;
    m_nextAddress += (bytes + 255) / 256 * 256 + 256;
    m_memory[address].assign(bytes, 0);
    m_allocatedBytes += bytes;
    return BackendStatus::success();
}

BackendStatus FakeBackend::release(uint64_t address) {
    auto it = m_memory.find(address);
    if (it != m_memory.end()) {
        m_allocatedBytes -= it->second.size();
        m_memory.erase(it);
    }
    return BackendStatus::success();
}

BackendStatus FakeBackend::copyToDevice(uint64_t address, const void* data, size_t bytes) {
    auto it = m_memory.find(address);
    if (it == m_memory.end() || bytes > it->second.size())
        return BackendStatus::error("out-of-range",
                                    "copy of " + std::to_string(bytes) + " bytes does not fit");
    std::memcpy(it->second.data(), data, bytes);
    return BackendStatus::success();
}

BackendStatus FakeBackend::copyFromDevice(void* data, uint64_t address, size_t bytes) {
    auto it = m_memory.find(address);
    if (it == m_memory.end() || bytes > it->second.size())
        return BackendStatus::error("out-of-range",
                                    "copy of " + std::to_string(bytes) + " bytes does not fit");
    std::memcpy(data, it->second.data(), bytes);
    return BackendStatus::success();
}

BackendStatus FakeBackend::launch(const std::string& id, const LaunchConfig& config, std::vector<void*>&) {
    if (!m_modules.count(id))
        return BackendStatus::error("unknown-module", "no module " + id);
    if (config.cooperative) {
        // The occupancy calculator's answer for the fake H200 at the 32 registers its modules report.
        const gpu::GpuDeviceInfo& d = m_devices.front();
        Target h200 = targetSm90a();
        h200.sharedMemoryPerSm = d.sharedPerSmBytes;
        h200.maxSharedMemoryPerBlock = d.sharedPerBlockOptinBytes;
        const int perSm =
            static_cast<int>(computeOccupancy(h200, config.threads(), config.sharedBytes, 32).blocks);
        if (config.blocks() > uint64_t(perSm) * uint64_t(d.smCount))
            return cooperativeLaunchTooLarge(config, perSm, d.smCount);
    }
    return BackendStatus::success();
}

BackendStatus FakeBackend::encodeTensorMap(const gpu::TensorMapSpec& spec, uint64_t globalAddress,
                                           TensorMapBytes& out) {
    // A recognizable stand-in for the driver's opaque bytes: a tag, the address, rank and dims.
    out = TensorMapBytes{};
    std::memcpy(out.bytes, "TBFAKEMAP", 9);
    std::memcpy(out.bytes + 16, &globalAddress, 8);
    out.bytes[24] = static_cast<unsigned char>(spec.rank);
    for (int i = 0; i < spec.rank; ++i)
        std::memcpy(out.bytes + 32 + 8 * i, &spec.dims[static_cast<size_t>(i)], 8);
    return BackendStatus::success();
}

BackendStatus FakeBackend::time(const std::string& id, const LaunchConfig& config, std::vector<void*>& params,
                                int, int repeat, std::vector<double>& milliseconds) {
    BackendStatus status = launch(id, config, params);
    if (status.ok())
        milliseconds.assign(static_cast<size_t>(repeat), 0.001);
    return status;
}

} // namespace tb::runner
