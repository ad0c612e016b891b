// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"). TileBench never links libcuda (nor
// its stub): an executable that does will not even start on a machine without the NVIDIA driver. Here a
// missing driver is a value: probeGpus() says available=false and why.
//
// The function table uses the versioned symbols that <cuda.h> (CUDA 13) maps the plain names to
// (cuMemAlloc -> cuMemAlloc_v2, ...), resolved with dlsym. Contexts are the device's primary context
// (cuDevicePrimaryCtxRetain + cuCtxSetCurrent) rather than cuCtxCreate, whose CUDA 13 form (_v4) takes a
// parameter struct; the primary context is also the one the CUDA runtime and tools share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#if TILEBENCH_HAS_CUDA_HEADERS
#include <cuda.h>
#endif

namespace tb::gpu {

struct GpuDeviceInfo {
    int index = 0;
    std::string name;
    int ccMajor = 0, ccMinor = 0;
    int smCount = 0;
    uint64_t totalMemoryBytes = 0;
    int sharedPerBlockBytes = 0;      // default limit (48 KiB)
    int sharedPerBlockOptinBytes = 0; // with cudaFuncAttributeMaxDynamicSharedMemorySize (H200: 232448)
    int sharedPerSmBytes = 0;
    int l2Bytes = 0;
    int clockKhz = 0;
    int memoryClockKhz = 0;
    int memoryBusWidthBits = 0;
    int registersPerBlock = 0;
    int warpSize = 0;
    int maxThreadsPerBlock = 0;
    int maxThreadsPerSm = 0;

    // The cubin architecture that runs natively here: "sm_90a" for CC 9.0 (wgmma needs the a-variant),
    // "sm_80" for 8.0, "sm_<major><minor>" otherwise.
    std::string nativeArch() const;
};

struct GpuAvailability {
    bool available = false;
    std::string reason;    // e.g. "libcuda.so.1 not found: no NVIDIA driver on this machine"
    int driverVersion = 0; // 13000 for CUDA 13.0
    std::vector<GpuDeviceInfo> devices;
};

// Loads the driver (once per process), initializes it and lists the devices. Never crashes, never prints.
GpuAvailability probeGpus();

// Driver errors that leave the context unusable ("sticky"): illegal address, trap, misaligned address,
// launch failure, ... After one of them every later call fails, so the process must exit.
bool isStickyCudaError(int code);

#if TILEBENCH_HAS_CUDA_HEADERS
struct CudaDriverApi {
    decltype(&::cuInit) init = nullptr;
    decltype(&::cuDriverGetVersion) driverGetVersion = nullptr;
    decltype(&::cuGetErrorName) getErrorName = nullptr;
    decltype(&::cuGetErrorString) getErrorString = nullptr;
    decltype(&::cuDeviceGetCount) deviceGetCount = nullptr;
    decltype(&::cuDeviceGet) deviceGet = nullptr;
    decltype(&::cuDeviceGetName) deviceGetName = nullptr;
    decltype(&::cuDeviceGetAttribute) deviceGetAttribute = nullptr;
    decltype(&::cuDeviceTotalMem_v2) deviceTotalMem = nullptr;
    decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain = nullptr;
    decltype(&::cuDevicePrimaryCtxRelease_v2) primaryCtxRelease = nullptr;
    decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
    decltype(&::cuCtxSynchronize) ctxSynchronize = nullptr;
    decltype(&::cuModuleLoadData) moduleLoadData = nullptr;
    decltype(&::cuModuleUnload) moduleUnload = nullptr;
    decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
    decltype(&::cuFuncSetAttribute) funcSetAttribute = nullptr;
    decltype(&::cuFuncGetAttribute) funcGetAttribute = nullptr;
    decltype(&::cuLaunchKernel) launchKernel = nullptr;
    decltype(&::cuMemAlloc_v2) memAlloc = nullptr;
    decltype(&::cuMemFree_v2) memFree = nullptr;
    decltype(&::cuMemcpyHtoD_v2) memcpyHtoD = nullptr;
    decltype(&::cuMemcpyDtoH_v2) memcpyDtoH = nullptr;
    decltype(&::cuMemsetD8_v2) memsetD8 = nullptr;
    decltype(&::cuEventCreate) eventCreate = nullptr;
    decltype(&::cuEventDestroy_v2) eventDestroy = nullptr;
    decltype(&::cuEventRecord) eventRecord = nullptr;
    decltype(&::cuEventSynchronize) eventSynchronize = nullptr;
    decltype(&::cuEventElapsedTime_v2) eventElapsedTime = nullptr;
    // Optional (CUDA 12.0+ drivers): nullptr on older ones, where a `tensormap` request says so.
    decltype(&::cuTensorMapEncodeTiled) tensorMapEncodeTiled = nullptr;
    // Optional: a kernel with a grid barrier (T.sync_grid) is launched cooperatively, all blocks resident at
    // once; the occupancy query says beforehand how many can be. nullptr where the driver lacks them, where a
    // cooperative `launch` says so.
    decltype(&::cuLaunchCooperativeKernel) launchCooperativeKernel = nullptr;
    decltype(&::cuOccupancyMaxActiveBlocksPerMultiprocessor) occupancyMaxActiveBlocksPerMultiprocessor =
        nullptr;
};

// The loaded table, or nullptr with `reason` set (library missing, symbol missing). cuInit is not called.
const CudaDriverApi* loadCudaDriver(std::string* reason = nullptr);

// "CUDA_ERROR_ILLEGAL_ADDRESS" and "an illegal memory access was encountered" for a result code.
std::string cudaErrorName(const CudaDriverApi& api, CUresult result);
std::string cudaErrorMessage(const CudaDriverApi& api, CUresult result);
#endif

} // namespace tb::gpu
