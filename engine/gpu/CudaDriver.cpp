// dlopen-based loading of the CUDA driver and the device probe (see CudaDriver.h).
#include "engine/gpu/CudaDriver.h"

#include <dlfcn.h>
#include <initializer_list>
#include <mutex>
#include <utility>

namespace tb::gpu {

std::string GpuDeviceInfo::nativeArch() const {
    // The a-variants (sm_90a, sm_100a) carry the architecture-specific instructions (wgmma, tcgen05);
    // they run only on exactly that CC, which is what a native cubin for this device wants.
    std::string arch = "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor);
    if (ccMajor == 9 && ccMinor == 0)
        arch += "a";
    return arch;
}

bool isStickyCudaError(int code) {
    switch (code) {
    case 214: // CUDA_ERROR_ECC_UNCORRECTABLE
    case 700: // CUDA_ERROR_ILLEGAL_ADDRESS
    case 702: // CUDA_ERROR_LAUNCH_TIMEOUT
    case 709: // CUDA_ERROR_CONTEXT_IS_DESTROYED
    case 710: // CUDA_ERROR_ASSERT (device-side assert / trap)
    case 714: // CUDA_ERROR_HARDWARE_STACK_ERROR
    case 715: // CUDA_ERROR_ILLEGAL_INSTRUCTION
    case 716: // CUDA_ERROR_MISALIGNED_ADDRESS
    case 717: // CUDA_ERROR_INVALID_ADDRESS_SPACE
    case 718: // CUDA_ERROR_INVALID_PC
    case 719: // CUDA_ERROR_LAUNCH_FAILED (includes __trap())
    case 721: // CUDA_ERROR_TENSOR_MEMORY_LEAK
        return true;
    }
    return false;
}

#if !TILEBENCH_HAS_CUDA_HEADERS

GpuAvailability probeGpus() {
    GpuAvailability out;
    out.reason =
        "this build has no CUDA driver support (the CUDA toolkit headers were not found at configure time)";
    return out;
}

#else

namespace {

struct LoadedDriver {
    CudaDriverApi api;
    bool ok = false;
    std::string reason;
};

template <typename Fn>
bool resolve(void* handle, Fn& slot, std::initializer_list<const char*> names, std::string& missing) {
    for (const char* name : names) {
        if (void* symbol = ::dlsym(handle, name)) {
            slot = reinterpret_cast<Fn>(symbol);
            return true;
        }
    }
    missing += std::string(missing.empty() ? "" : ", ") + *names.begin();
    return false;
}

LoadedDriver loadOnce() {
    LoadedDriver out;
    // RTLD_LOCAL keeps the driver's symbols out of the global namespace; the handle is never closed,
    // because the driver does not support being unloaded while contexts may exist.
    void* handle = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        out.reason = "libcuda.so.1 not found: no NVIDIA driver on this machine";
        if (const char* err = ::dlerror())
            out.reason += std::string(" (") + err + ")";
        return out;
    }
    CudaDriverApi& a = out.api;
    std::string missing;
    resolve(handle, a.init, {"cuInit"}, missing);
    resolve(handle, a.driverGetVersion, {"cuDriverGetVersion"}, missing);
    resolve(handle, a.getErrorName, {"cuGetErrorName"}, missing);
    resolve(handle, a.getErrorString, {"cuGetErrorString"}, missing);
    resolve(handle, a.deviceGetCount, {"cuDeviceGetCount"}, missing);
    resolve(handle, a.deviceGet, {"cuDeviceGet"}, missing);
    resolve(handle, a.deviceGetName, {"cuDeviceGetName"}, missing);
    resolve(handle, a.deviceGetAttribute, {"cuDeviceGetAttribute"}, missing);
    resolve(handle, a.deviceTotalMem, {"cuDeviceTotalMem_v2"}, missing);
    resolve(handle, a.primaryCtxRetain, {"cuDevicePrimaryCtxRetain"}, missing);
    resolve(handle, a.primaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2"}, missing);
    resolve(handle, a.ctxSetCurrent, {"cuCtxSetCurrent"}, missing);
    resolve(handle, a.ctxSynchronize, {"cuCtxSynchronize"}, missing);
    resolve(handle, a.moduleLoadData, {"cuModuleLoadData"}, missing);
    resolve(handle, a.moduleUnload, {"cuModuleUnload"}, missing);
    resolve(handle, a.moduleGetFunction, {"cuModuleGetFunction"}, missing);
    resolve(handle, a.funcSetAttribute, {"cuFuncSetAttribute"}, missing);
    resolve(handle, a.funcGetAttribute, {"cuFuncGetAttribute"}, missing);
    resolve(handle, a.launchKernel, {"cuLaunchKernel"}, missing);
    resolve(handle, a.memAlloc, {"cuMemAlloc_v2"}, missing);
    resolve(handle, a.memFree, {"cuMemFree_v2"}, missing);
    resolve(handle, a.memcpyHtoD, {"cuMemcpyHtoD_v2"}, missing);
    resolve(handle, a.memcpyDtoH, {"cuMemcpyDtoH_v2"}, missing);
    resolve(handle, a.memsetD8, {"cuMemsetD8_v2"}, missing);
    resolve(handle, a.eventCreate, {"cuEventCreate"}, missing);
    resolve(handle, a.eventDestroy, {"cuEventDestroy_v2"}, missing);
    resolve(handle, a.eventRecord, {"cuEventRecord"}, missing);
    resolve(handle, a.eventSynchronize, {"cuEventSynchronize"}, missing);
    // cuEventElapsedTime_v2 arrived with CUDA 12.8 drivers; the older symbol has the same signature.
    resolve(handle, a.eventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, missing);
    a.tensorMapEncodeTiled =
        reinterpret_cast<decltype(a.tensorMapEncodeTiled)>(::dlsym(handle, "cuTensorMapEncodeTiled"));
    a.launchCooperativeKernel =
        reinterpret_cast<decltype(a.launchCooperativeKernel)>(::dlsym(handle, "cuLaunchCooperativeKernel"));
    a.occupancyMaxActiveBlocksPerMultiprocessor =
        reinterpret_cast<decltype(a.occupancyMaxActiveBlocksPerMultiprocessor)>(
            ::dlsym(handle, "cuOccupancyMaxActiveBlocksPerMultiprocessor"));
    if (!missing.empty()) {
        out.reason = "libcuda.so.1 is too old: missing " + missing;
        return out;
    }
    out.ok = true;
    return out;
}

const LoadedDriver& loaded() {
    static const LoadedDriver driver = loadOnce();
    return driver;
}

} // namespace

const CudaDriverApi* loadCudaDriver(std::string* reason) {
    const LoadedDriver& d = loaded();
    if (!d.ok) {
        if (reason)
            *reason = d.reason;
        return nullptr;
    }
    return &d.api;
}

std::string cudaErrorName(const CudaDriverApi& api, CUresult result) {
    const char* name = nullptr;
    if (api.getErrorName && api.getErrorName(result, &name) == CUDA_SUCCESS && name)
        return name;
    return "CUDA_ERROR_" + std::to_string(static_cast<int>(result));
}

std::string cudaErrorMessage(const CudaDriverApi& api, CUresult result) {
    const char* text = nullptr;
    if (api.getErrorString && api.getErrorString(result, &text) == CUDA_SUCCESS && text)
        return text;
    return "unknown CUDA error " + std::to_string(static_cast<int>(result));
}

GpuAvailability probeGpus() {
    GpuAvailability out;
    std::string reason;
    const CudaDriverApi* api = loadCudaDriver(&reason);
    if (!api) {
        out.reason = reason;
        return out;
    }
    CUresult r = api->init(0);
    if (r != CUDA_SUCCESS) {
        out.reason = "cuInit failed: " + cudaErrorName(*api, r) + " (" + cudaErrorMessage(*api, r) + ")";
        return out;
    }
    api->driverGetVersion(&out.driverVersion);
    int count = 0;
    r = api->deviceGetCount(&count);
    if (r != CUDA_SUCCESS || count <= 0) {
        out.reason = r != CUDA_SUCCESS ? "cuDeviceGetCount failed: " + cudaErrorName(*api, r)
                                       : std::string("the NVIDIA driver reports no CUDA devices");
        return out;
    }
    for (int i = 0; i < count; ++i) {
        CUdevice device = 0;
        if (api->deviceGet(&device, i) != CUDA_SUCCESS)
            continue;
        GpuDeviceInfo info;
        info.index = i;
        char name[256] = {0};
        if (api->deviceGetName(name, sizeof name - 1, device) == CUDA_SUCCESS)
            info.name = name;
        auto attr = [&](CUdevice_attribute a) {
            int v = 0;
            return api->deviceGetAttribute(&v, a, device) == CUDA_SUCCESS ? v : 0;
        };
        info.ccMajor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
        info.ccMinor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
        info.smCount = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
        info.sharedPerBlockBytes = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
        info.sharedPerBlockOptinBytes = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
        info.sharedPerSmBytes = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
        info.l2Bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
        info.clockKhz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
        info.memoryClockKhz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
        info.memoryBusWidthBits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
        info.registersPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
        info.warpSize = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
        info.maxThreadsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
        info.maxThreadsPerSm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
        size_t bytes = 0;
        if (api->deviceTotalMem(&bytes, device) == CUDA_SUCCESS)
            info.totalMemoryBytes = bytes;
        out.devices.push_back(std::move(info));
    }
    out.available = !out.devices.empty();
    if (!out.available)
        out.reason = "no CUDA device could be queried";
    return out;
}

#endif

} // namespace tb::gpu
