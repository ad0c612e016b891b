// How many blocks of a kernel one SM holds at once, and which resource limits it: registers (ptxas's
// count per thread, allocated per warp in units of 256), shared memory (the block's bytes rounded up to the
// 128-byte allocation unit, plus the 1 KB the CUDA runtime reserves for every block on sm_80 and later,
// against the SM's capacity, not the per-block opt-in maximum), threads, and the architecture's block limit.
// These are the CUDA occupancy calculator's rules for sm_80 and sm_90. `tilec plan`, the shared-memory
// planning pass and the app's budget view all compute occupancy here, so they agree.
//
// Example: flash attention on sm_90a, 128 threads, 32768 B of shared memory, 96 registers per thread:
// registers 65536 / (4 warps x 3072) = 5, shared memory 233472 / (32768 + 1024) = 6, threads 2048 / 128 = 16,
// block limit 32: 5 blocks per SM, limited by registers.
#pragma once

#include "engine/target/Target.h"

#include <cstdint>
#include <string>

namespace tb {

// Per-architecture allocation facts (the same on sm_80 and sm_90).
constexpr int64_t kReservedSharedMemoryPerBlock = 1024; // bytes the runtime keeps per resident block
constexpr int64_t kSharedMemoryAllocationUnit = 128;    // bytes
constexpr int64_t kRegisterAllocationUnit = 256;        // registers, allocated per warp

enum class OccupancyLimiter { Registers, SharedMemory, Threads, BlockLimit, DoesNotFit };
// "registers", "shared memory", "threads", "the block limit", "does not fit".
const char* occupancyLimiterName(OccupancyLimiter limiter);

struct Occupancy {
    int64_t byRegisters = -1; // -1: the register count is not known (no ptxas report yet)
    int64_t bySharedMemory = 0;
    int64_t byThreads = 0;
    int64_t byBlockLimit = 0;
    int64_t blocks = 0; // the smallest of the known limits
    OccupancyLimiter limiter = OccupancyLimiter::BlockLimit;
    int registersPerThread = -1;     // the input, when known
    int64_t sharedBytesPerBlock = 0; // allocated: rounded up, with the reservation
    bool registersKnown() const { return byRegisters >= 0; }
    // "5 blocks/SM (limited by registers: 96 per thread)"; with `detail` every limit in brackets.
    std::string summary(bool detail = false) const;
    // What `tilec plan` prints after "blocks per SM: ": "6, limited by shared memory (registers not known
    // before ptxas, shared memory 6 at 33792 B per block with the 1 KB reservation, threads 16, block
    // limit 32)".
    std::string limitsText() const;
};

// `sharedBytes`: the block's dynamic + static shared memory; `registersPerThread` < 0 when unknown.
// A block over the per-block shared-memory, thread or register limit fits 0 times (DoesNotFit).
Occupancy computeOccupancy(const Target& target, int64_t threads, int64_t sharedBytes,
                           int registersPerThread = -1);

} // namespace tb
