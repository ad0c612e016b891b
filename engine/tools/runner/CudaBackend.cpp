// The real GPU backend of tilebench-runner (see CudaBackend.h).
#include "CudaBackend.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tb::runner {

#if !TILEBENCH_HAS_CUDA_HEADERS

CudaBackend::CudaBackend(int device) : m_availability(gpu::probeGpus()), m_device(device) {}
CudaBackend::~CudaBackend() = default;

namespace {
BackendStatus noDriver() {
    return BackendStatus::error("no-device", "this runner was built without the CUDA driver headers");
}
} // namespace

BackendStatus CudaBackend::loadModule(const std::string&, const std::string&, const std::vector<char>&,
                                      KernelAttributes&) {
    return noDriver();
}
BackendStatus CudaBackend::unloadModule(const std::string&) {
    return noDriver();
}
BackendStatus CudaBackend::allocate(size_t, uint64_t&) {
    return noDriver();
}
BackendStatus CudaBackend::release(uint64_t) {
    return noDriver();
}
BackendStatus CudaBackend::copyToDevice(uint64_t, const void*, size_t) {
    return noDriver();
}
BackendStatus CudaBackend::copyFromDevice(void*, uint64_t, size_t) {
    return noDriver();
}
BackendStatus CudaBackend::launch(const std::string&, const LaunchConfig&, std::vector<void*>&) {
    return noDriver();
}
BackendStatus CudaBackend::time(const std::string&, const LaunchConfig&, std::vector<void*>&, int, int,
                                std::vector<double>&) {
    return noDriver();
}
BackendStatus CudaBackend::launchAsync(const std::string&, const LaunchConfig&, std::vector<void*>&) {
    return noDriver();
}
BackendStatus CudaBackend::encodeTensorMap(const gpu::TensorMapSpec&, uint64_t, TensorMapBytes&) {
    return noDriver();
}
BackendStatus CudaBackend::ensureContext() {
    return noDriver();
}
BackendStatus CudaBackend::check(int, const char*, const char*) {
    return noDriver();
}

#else

CudaBackend::CudaBackend(int device) : m_availability(gpu::probeGpus()), m_device(device) {
    m_api = gpu::loadCudaDriver();
}

CudaBackend::~CudaBackend() {
    if (!m_context || !m_api)
        return;
    for (auto& [id, module] : m_modules)
        m_api->moduleUnload(module.module);
    m_api->primaryCtxRelease(m_cuDevice);
}

BackendStatus CudaBackend::check(int result, const char* what, const char* errorCode) {
    if (result == CUDA_SUCCESS)
        return BackendStatus::success();
    auto r = static_cast<CUresult>(result);
    std::string name = gpu::cudaErrorName(*m_api, r);
    std::string message = std::string(what) + ": " + gpu::cudaErrorMessage(*m_api, r);
    if (gpu::isStickyCudaError(result))
        return BackendStatus::fault(name, message);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        return BackendStatus::error("out-of-memory", message + " (" + name + ")");
    return BackendStatus::error(errorCode, message + " (" + name + ")");
}

BackendStatus CudaBackend::ensureContext() {
    if (m_context)
        return BackendStatus::success();
    if (!m_availability.available || !m_api)
        return BackendStatus::error("no-device", m_availability.reason);
    if (m_device < 0 || m_device >= static_cast<int>(m_availability.devices.size()))
        return BackendStatus::error("no-device", "device " + std::to_string(m_device) + " does not exist (" +
                                                     std::to_string(m_availability.devices.size()) +
                                                     " found)");
    BackendStatus s = check(m_api->deviceGet(&m_cuDevice, m_device), "cuDeviceGet", "no-device");
    if (!s.ok())
        return s;
    s = check(m_api->primaryCtxRetain(&m_context, m_cuDevice), "cuDevicePrimaryCtxRetain", "no-device");
    if (!s.ok()) {
        m_context = nullptr;
        return s;
    }
    return check(m_api->ctxSetCurrent(m_context), "cuCtxSetCurrent", "no-device");
}

BackendStatus CudaBackend::loadModule(const std::string& id, const std::string& kernelName,
                                      const std::vector<char>& cubin, KernelAttributes& attributes) {
    BackendStatus s = ensureContext();
    if (!s.ok())
        return s;
    unloadModule(id);
    Module m;
    s = check(m_api->moduleLoadData(&m.module, cubin.data()), "cuModuleLoadData", "load-failed");
    if (!s.ok())
        return s;
    s = check(m_api->moduleGetFunction(&m.function, m.module, kernelName.c_str()), "cuModuleGetFunction",
              "kernel-not-found");
    if (!s.ok()) {
        m_api->moduleUnload(m.module);
        return s;
    }
    auto attr = [&](CUfunction_attribute a) {
        int v = -1;
        m_api->funcGetAttribute(&v, a, m.function);
        return v;
    };
    attributes.registers = attr(CU_FUNC_ATTRIBUTE_NUM_REGS);
    attributes.staticSharedBytes = attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    attributes.localBytes = attr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    attributes.maxThreadsPerBlock = attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    m_modules[id] = m;
    return BackendStatus::success();
}

BackendStatus CudaBackend::unloadModule(const std::string& id) {
    auto it = m_modules.find(id);
    if (it == m_modules.end())
        return BackendStatus::success();
    BackendStatus s = check(m_api->moduleUnload(it->second.module), "cuModuleUnload", "unload-failed");
    m_modules.erase(it);
    return s;
}

BackendStatus CudaBackend::allocate(size_t bytes, uint64_t& address) {
    BackendStatus s = ensureContext();
    if (!s.ok())
        return s;
    CUdeviceptr p = 0;
    s = check(m_api->memAlloc(&p, bytes), "cuMemAlloc", "alloc-failed");
    if (!s.ok())
        return s;
    // Fresh buffers read as zero, as in fake mode, so that results never depend on stale device memory.
    s = check(m_api->memsetD8(p, 0, bytes), "cuMemsetD8", "alloc-failed");
    address = p;
    return s;
}

BackendStatus CudaBackend::release(uint64_t address) {
    return check(m_api->memFree(static_cast<CUdeviceptr>(address)), "cuMemFree", "free-failed");
}

BackendStatus CudaBackend::copyToDevice(uint64_t address, const void* data, size_t bytes) {
    return check(m_api->memcpyHtoD(static_cast<CUdeviceptr>(address), data, bytes), "cuMemcpyHtoD",
                 "copy-failed");
}

BackendStatus CudaBackend::copyFromDevice(void* data, uint64_t address, size_t bytes) {
    return check(m_api->memcpyDtoH(data, static_cast<CUdeviceptr>(address), bytes), "cuMemcpyDtoH",
                 "copy-failed");
}

BackendStatus CudaBackend::launchOnce(const std::string& id, const LaunchConfig& c,
                                      std::vector<void*>& params) {
    auto it = m_modules.find(id);
    if (it == m_modules.end())
        return BackendStatus::error("unknown-module", "no module " + id);
    Module& m = it->second;
    // Dynamic shared memory beyond the 48 KiB default needs an explicit opt-in per function.
    if (c.sharedBytes > 49152 && c.sharedBytes > m.sharedLimitSet) {
        BackendStatus s =
            check(m_api->funcSetAttribute(m.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          static_cast<int>(c.sharedBytes)),
                  "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", "launch-failed");
        if (!s.ok())
            return s;
        m.sharedLimitSet = c.sharedBytes;
    }
    if (c.cooperative)
        return launchCooperative(m, c, params);
    return check(m_api->launchKernel(m.function, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1],
                                     c.block[2], c.sharedBytes, /*hStream=*/nullptr, params.data(),
                                     /*extra=*/nullptr),
                 "cuLaunchKernel", "launch-failed");
}

// A kernel with a grid barrier: every block resident at once, which the driver's occupancy query (registers
// included) checks first, so that a grid too large gets a message that says why (the driver's own answer is
// CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
BackendStatus CudaBackend::launchCooperative(Module& m, const LaunchConfig& c, std::vector<void*>& params) {
    if (!m_api->launchCooperativeKernel)
        return BackendStatus::error(
            "launch-failed", "the driver has no cuLaunchCooperativeKernel: cannot launch a kernel with "
                             "a grid barrier");
    const int smCount = m_availability.devices.at(static_cast<size_t>(m_device)).smCount;
    if (m_api->occupancyMaxActiveBlocksPerMultiprocessor) {
        int perSm = 0;
        BackendStatus s = check(m_api->occupancyMaxActiveBlocksPerMultiprocessor(
                                    &perSm, m.function, static_cast<int>(c.threads()), c.sharedBytes),
                                "cuOccupancyMaxActiveBlocksPerMultiprocessor", "launch-failed");
        if (!s.ok())
            return s;
        if (c.blocks() > uint64_t(perSm) * uint64_t(smCount))
            return cooperativeLaunchTooLarge(c, perSm, smCount);
    }
    return check(m_api->launchCooperativeKernel(m.function, c.grid[0], c.grid[1], c.grid[2], c.block[0],
                                                c.block[1], c.block[2], c.sharedBytes, /*hStream=*/nullptr,
                                                params.data()),
                 "cuLaunchCooperativeKernel", "launch-failed");
}

BackendStatus CudaBackend::launchAsync(const std::string& id, const LaunchConfig& config,
                                       std::vector<void*>& params) {
    return launchOnce(id, config, params);
}

BackendStatus CudaBackend::launch(const std::string& id, const LaunchConfig& config,
                                  std::vector<void*>& params) {
    BackendStatus s = launchOnce(id, config, params);
    if (!s.ok())
        return s;
    // Execution errors (illegal address, trap) surface here, at the synchronization.
    return check(m_api->ctxSynchronize(), "kernel execution (cuCtxSynchronize)", "launch-failed");
}

BackendStatus CudaBackend::time(const std::string& id, const LaunchConfig& config, std::vector<void*>& params,
                                int warmup, int repeat, std::vector<double>& milliseconds) {
    for (int i = 0; i < warmup; ++i) {
        BackendStatus s = launchOnce(id, config, params);
        if (!s.ok())
            return s;
    }
    BackendStatus s = check(m_api->ctxSynchronize(), "warmup (cuCtxSynchronize)", "launch-failed");
    if (!s.ok())
        return s;
    CUevent start = nullptr, stop = nullptr;
    s = check(m_api->eventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate", "time-failed");
    if (s.ok())
        s = check(m_api->eventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate", "time-failed");
    // One event pair per launch, each waited for: every sample is one kernel, not a batch average.
    for (int i = 0; s.ok() && i < repeat; ++i) {
        s = check(m_api->eventRecord(start, nullptr), "cuEventRecord", "time-failed");
        if (s.ok())
            s = launchOnce(id, config, params);
        if (s.ok())
            s = check(m_api->eventRecord(stop, nullptr), "cuEventRecord", "time-failed");
        if (s.ok())
            s = check(m_api->eventSynchronize(stop), "kernel execution (cuEventSynchronize)",
                      "launch-failed");
        float ms = 0;
        if (s.ok())
            s = check(m_api->eventElapsedTime(&ms, start, stop), "cuEventElapsedTime", "time-failed");
        if (s.ok())
            milliseconds.push_back(ms);
    }
    if (start)
        m_api->eventDestroy(start);
    if (stop)
        m_api->eventDestroy(stop);
    return s;
}

namespace {

CUtensorMapDataType driverDtype(gpu::TensorMapDtype d) {
    using D = gpu::TensorMapDtype;
    switch (d) {
    case D::U8:
        return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case D::U16:
        return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case D::U32:
        return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case D::I32:
        return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case D::U64:
        return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    case D::I64:
        return CU_TENSOR_MAP_DATA_TYPE_INT64;
    case D::F16:
        return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case D::F32:
        return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case D::F64:
        return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    case D::BF16:
        return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case D::F32Ftz:
        return CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ;
    case D::TF32:
        return CU_TENSOR_MAP_DATA_TYPE_TFLOAT32;
    case D::TF32Ftz:
        return CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ;
    }
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

} // namespace

BackendStatus CudaBackend::encodeTensorMap(const gpu::TensorMapSpec& spec, uint64_t globalAddress,
                                           TensorMapBytes& out) {
    BackendStatus s = ensureContext();
    if (!s.ok())
        return s;
    if (!m_api->tensorMapEncodeTiled)
        return BackendStatus::error(
            "bad-tensormap",
            "this driver has no cuTensorMapEncodeTiled (a CUDA 12.0 or newer driver is needed)");
    static_assert(sizeof(CUtensorMap) == sizeof(TensorMapBytes), "a CUtensorMap is 128 bytes");
    CUtensorMap map;
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], elementStrides[5];
    for (int i = 0; i < 5; ++i) {
        dims[i] = spec.dims[static_cast<size_t>(i)];
        box[i] = spec.box[static_cast<size_t>(i)];
        elementStrides[i] = spec.elementStrides[static_cast<size_t>(i)];
        if (i < 4)
            strides[i] = spec.strides[static_cast<size_t>(i)];
    }
    // The protocol's enums are declared in the driver's order.
    CUresult r = m_api->tensorMapEncodeTiled(
        &map, driverDtype(spec.dtype), static_cast<cuuint32_t>(spec.rank),
        reinterpret_cast<void*>(static_cast<uintptr_t>(globalAddress)), dims, strides, box, elementStrides,
        static_cast<CUtensorMapInterleave>(static_cast<int>(spec.interleave)),
        static_cast<CUtensorMapSwizzle>(static_cast<int>(spec.swizzle)),
        static_cast<CUtensorMapL2promotion>(static_cast<int>(spec.l2Promotion)),
        static_cast<CUtensorMapFloatOOBfill>(static_cast<int>(spec.oobFill)));
    s = check(r, "cuTensorMapEncodeTiled", "bad-tensormap");
    if (s.ok())
        std::memcpy(out.bytes, &map, sizeof map);
    return s;
}

#endif

} // namespace tb::runner
