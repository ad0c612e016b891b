// The runner's real backend: the CUDA driver API through engine/gpu/CudaDriver (dlopen'ed libcuda.so.1),
// one device, its primary context created on first use. Every driver error is turned into a
// BackendStatus; a sticky error (illegal address, trap, ...) becomes a Fault, after which the session
// reports `fault` and the runner exits, because the context can no longer be used.
#pragma once

#include "RunnerBackend.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tb::runner {

class CudaBackend : public RunnerBackend {
public:
    explicit CudaBackend(int device);
    ~CudaBackend() override;

    std::string mode() const override { return "gpu"; }
    const std::vector<gpu::GpuDeviceInfo>& devices() const override { return m_availability.devices; }
    std::string unavailableReason() const override { return m_availability.reason; }
    int selectedDevice() const override { return m_device; }

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
    BackendStatus launchAsync(const std::string& id, const LaunchConfig& config,
                              std::vector<void*>& params) override;

    // For the CUPTI engine (CuptiProfiler.cpp): the device's primary context, made current on first use.
    BackendStatus ensureContext();
    // The driver error as a BackendStatus (a Fault when sticky).
    BackendStatus check(int result, const char* what, const char* errorCode);
#if TILEBENCH_HAS_CUDA_HEADERS
    const gpu::CudaDriverApi* api() const {
        return m_api;
    }
    CUcontext context() const {
        return m_context;
    }
    CUdevice cuDevice() const {
        return m_cuDevice;
    }
#endif

private:
    BackendStatus launchOnce(const std::string& id, const LaunchConfig& config, std::vector<void*>& params);

    gpu::GpuAvailability m_availability;
    int m_device = 0;
#if TILEBENCH_HAS_CUDA_HEADERS
    const gpu::CudaDriverApi* m_api = nullptr;
    CUdevice m_cuDevice = 0;
    CUcontext m_context = nullptr;
    struct Module {
        CUmodule module = nullptr;
        CUfunction function = nullptr;
        unsigned sharedLimitSet = 0; // the MAX_DYNAMIC_SHARED_SIZE_BYTES already applied
    };
    std::map<std::string, Module> m_modules;
    BackendStatus launchCooperative(Module& m, const LaunchConfig& config, std::vector<void*>& params);
#endif
};

} // namespace tb::runner
