// Occupancy by registers, shared memory, threads and the block limit (see Occupancy.h).
#include "engine/target/Occupancy.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace tb {

namespace {

int64_t roundUp(int64_t value, int64_t unit) {
    return (value + unit - 1) / unit * unit;
}

} // namespace

const char* occupancyLimiterName(OccupancyLimiter limiter) {
    switch (limiter) {
    case OccupancyLimiter::Registers:
        return "registers";
    case OccupancyLimiter::SharedMemory:
        return "shared memory";
    case OccupancyLimiter::Threads:
        return "threads";
    case OccupancyLimiter::BlockLimit:
        return "the block limit";
    case OccupancyLimiter::DoesNotFit:
        return "does not fit";
    }
    return "the block limit";
}

Occupancy computeOccupancy(const Target& target, int64_t threads, int64_t sharedBytes,
                           int registersPerThread) {
    Occupancy o;
    threads = std::max<int64_t>(threads, 1);
    o.registersPerThread = registersPerThread;
    o.byBlockLimit = target.maxBlocksPerSm;
    o.byThreads = threads > target.maxThreadsPerBlock ? 0 : target.maxThreadsPerSm / threads;

    o.sharedBytesPerBlock =
        sharedBytes <= 0 ? kReservedSharedMemoryPerBlock
                         : roundUp(sharedBytes, kSharedMemoryAllocationUnit) + kReservedSharedMemoryPerBlock;
    o.bySharedMemory = sharedBytes > target.maxSharedMemoryPerBlock
                           ? 0
                           : int64_t(target.sharedMemoryPerSm) / o.sharedBytesPerBlock;

    if (registersPerThread >= 0) {
        const int64_t warps = (threads + target.warpSize - 1) / target.warpSize;
        const int64_t perWarp =
            roundUp(std::max(registersPerThread, 1) * int64_t(target.warpSize), kRegisterAllocationUnit);
        o.byRegisters = registersPerThread > target.maxRegistersPerThread
                            ? 0
                            : int64_t(target.registersPerSm) / (perWarp * warps);
    }

    // The first limit (in this order) that reaches the minimum is named: registers, shared memory,
    // threads, then the block limit.
    o.blocks = std::min({o.bySharedMemory, o.byThreads, o.byBlockLimit});
    if (o.registersKnown())
        o.blocks = std::min(o.blocks, o.byRegisters);
    if (o.blocks == 0)
        o.limiter = OccupancyLimiter::DoesNotFit;
    else if (o.registersKnown() && o.byRegisters == o.blocks)
        o.limiter = OccupancyLimiter::Registers;
    else if (o.bySharedMemory == o.blocks)
        o.limiter = OccupancyLimiter::SharedMemory;
    else if (o.byThreads == o.blocks)
        o.limiter = OccupancyLimiter::Threads;
    else
        o.limiter = OccupancyLimiter::BlockLimit;
    return o;
}

std::string Occupancy::limitsText() const {
    std::string s = std::to_string(blocks) + ", " +
                    (limiter == OccupancyLimiter::DoesNotFit
                         ? std::string("the block does not fit")
                         : "limited by " + std::string(occupancyLimiterName(limiter)));
    s += " (registers " +
         (registersKnown() ? std::to_string(byRegisters) : std::string("not known before ptxas")) +
         ", shared memory " + std::to_string(bySharedMemory) + " at " + std::to_string(sharedBytesPerBlock) +
         " B per block with the 1 KB reservation, threads " + std::to_string(byThreads) + ", block limit " +
         std::to_string(byBlockLimit) + ")";
    return s;
}

std::string Occupancy::summary(bool detail) const {
    std::string s = std::to_string(blocks) + " blocks/SM";
    if (limiter == OccupancyLimiter::DoesNotFit) {
        s += " (the block does not fit: ";
        if (bySharedMemory == 0)
            s += "shared memory";
        else if (byThreads == 0)
            s += "threads";
        else
            s += "registers";
        s += ")";
    } else {
        s += std::string(" (limited by ") + occupancyLimiterName(limiter);
        if (limiter == OccupancyLimiter::Registers)
            s += ": " + std::to_string(registersPerThread) + " per thread";
        s += ")";
    }
    if (detail) {
        s += " [registers " +
             (registersKnown() ? std::to_string(byRegisters) : std::string("not known before ptxas")) +
             ", shared memory " + std::to_string(bySharedMemory) + " (" +
             std::to_string(sharedBytesPerBlock) + " B per block with the 1 KB reservation), threads " +
             std::to_string(byThreads) + ", block limit " + std::to_string(byBlockLimit) + "]";
    }
    return s;
}

} // namespace tb
