// The GPU a tile program is compiled for. Every analysis takes a Target, so a user can compare
// architectures without owning the GPU. The numbers are the CUDA programming guide's per-architecture
// limits.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

struct Target {
    std::string name;                // "sm_80", "sm_90a"
    int smVersion = 80;              // 80, 90
    bool hasWgmma = false;           // sm_90a: wgmma.mma_async
    bool hasTma = false;             // sm_90: cp.async.bulk.tensor
    bool hasCpAsync = true;          // sm_80+
    int maxSharedMemoryPerBlock = 0; // bytes of dynamic shared memory one block may opt in to
    int sharedMemoryPerSm = 0;       // bytes
    int maxThreadsPerBlock = 1024;
    int maxThreadsPerSm = 2048;
    int maxBlocksPerSm = 32;
    int registersPerSm = 65536;
    int maxRegistersPerThread = 255;
    int warpSize = 32;
    int sharedMemoryBanks = 32;
    int bankWidthBytes = 4;
    int smCount = 0; // of the reference part (A100: 108, H100/H200 SXM: 132)
};

const Target& targetSm80();
const Target& targetSm90a();
// "sm_80", "sm80", "80", "sm_90a", "sm_90", "hopper", "ampere" -> target.
std::optional<Target> parseTarget(std::string_view name);
std::vector<std::string> knownTargetNames();

} // namespace tb
