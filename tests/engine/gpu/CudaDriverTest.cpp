// probeGpus() on whatever machine runs the tests: on a machine without the NVIDIA driver it says so
// (and nothing crashes); with the driver it lists real devices.
#include "engine/gpu/CudaDriver.h"

#include <cstdint>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <string>

namespace tb::gpu {
namespace {

bool driverLibraryPresent() {
    void* handle = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    return handle != nullptr; // left open: the driver is not meant to be unloaded
}

TEST(CudaDriver, ProbeMatchesWhetherTheDriverIsInstalled) {
    GpuAvailability a = probeGpus();
    if (!driverLibraryPresent()) {
        EXPECT_FALSE(a.available);
        EXPECT_TRUE(a.devices.empty());
        EXPECT_NE(a.reason.find("libcuda.so.1 not found: no NVIDIA driver on this machine"),
                  std::string::npos)
            << a.reason;
        return;
    }
#if TILEBENCH_HAS_CUDA_HEADERS
    if (!a.available) {
        EXPECT_FALSE(a.reason.empty());
        GTEST_SKIP() << "driver present but no usable GPU: " << a.reason;
    }
    EXPECT_GE(a.driverVersion, 12000);
    ASSERT_FALSE(a.devices.empty());
    for (const GpuDeviceInfo& d : a.devices) {
        EXPECT_FALSE(d.name.empty());
        EXPECT_GE(d.ccMajor, 7);
        EXPECT_GT(d.smCount, 0);
        EXPECT_GT(d.totalMemoryBytes, uint64_t(1) << 30);
        EXPECT_GE(d.sharedPerBlockOptinBytes, d.sharedPerBlockBytes);
        EXPECT_EQ(d.warpSize, 32);
    }
#endif
}

TEST(CudaDriver, ProbeIsRepeatable) {
    GpuAvailability a = probeGpus(), b = probeGpus();
    EXPECT_EQ(a.available, b.available);
    EXPECT_EQ(a.reason, b.reason);
    EXPECT_EQ(a.devices.size(), b.devices.size());
}

TEST(CudaDriver, NativeArchitecture) {
    GpuDeviceInfo d;
    d.ccMajor = 9;
    d.ccMinor = 0;
    EXPECT_EQ(d.nativeArch(), "sm_90a");
    d.ccMajor = 8;
    EXPECT_EQ(d.nativeArch(), "sm_80");
    d.ccMinor = 6;
    EXPECT_EQ(d.nativeArch(), "sm_86");
    d.ccMajor = 12;
    d.ccMinor = 0;
    EXPECT_EQ(d.nativeArch(), "sm_120");
}

TEST(CudaDriver, StickyErrors) {
    EXPECT_TRUE(isStickyCudaError(700));  // illegal address
    EXPECT_TRUE(isStickyCudaError(719));  // launch failed / trap
    EXPECT_TRUE(isStickyCudaError(716));  // misaligned address
    EXPECT_FALSE(isStickyCudaError(1));   // invalid value
    EXPECT_FALSE(isStickyCudaError(2));   // out of memory
    EXPECT_FALSE(isStickyCudaError(701)); // too many resources requested for launch
    EXPECT_FALSE(isStickyCudaError(209)); // no binary for GPU
}

} // namespace
} // namespace tb::gpu
