// Occupancy (engine/target/Occupancy.h) against the CUDA occupancy calculator's rules for sm_80/sm_90, on
// worked examples: the register allocation per warp in units of 256, the 1 KB per-block shared-memory
// reservation against the SM's capacity, threads, the block limit, and blocks that do not fit at all.
#include "engine/target/Occupancy.h"

#include <gtest/gtest.h>
#include <string>

namespace tb {

TEST(Occupancy, FlashAttentionIsLimitedByRegisters) {
    Occupancy o = computeOccupancy(targetSm90a(), 128, 32768, 96);
    EXPECT_EQ(o.byRegisters, 5);    // 65536 / (4 warps x 96 x 32)
    EXPECT_EQ(o.bySharedMemory, 6); // 233472 / 33792
    EXPECT_EQ(o.byThreads, 16);     // 2048 / 128
    EXPECT_EQ(o.byBlockLimit, 32);
    EXPECT_EQ(o.blocks, 5);
    EXPECT_EQ(o.limiter, OccupancyLimiter::Registers);
    EXPECT_EQ(o.sharedBytesPerBlock, 33792);
    EXPECT_EQ(o.summary(), "5 blocks/SM (limited by registers: 96 per thread)");
}

TEST(Occupancy, RegistersAreAllocatedPerWarpInUnitsOf256) {
    // 90 registers x 32 lanes = 2880, rounded up to 3072 per warp: the same 5 blocks as 96.
    EXPECT_EQ(computeOccupancy(targetSm90a(), 128, 0, 90).byRegisters, 5);
    // 64 registers: 2048 per warp, 8192 per block of 4 warps: 8 blocks.
    EXPECT_EQ(computeOccupancy(targetSm90a(), 128, 0, 64).byRegisters, 8);
    // A 96-thread block is 3 warps.
    EXPECT_EQ(computeOccupancy(targetSm90a(), 96, 0, 64).byRegisters, 10);
}

TEST(Occupancy, SharedMemoryCountsTheReservationAndTheAllocationUnit) {
    // 49152 B: 233472 / 50176 = 4.65 -> 4 (without the reservation it would also be 4);
    // 32768 B: 6, not 7 (the old rule divided by the bytes alone).
    EXPECT_EQ(computeOccupancy(targetSm90a(), 128, 49152).bySharedMemory, 4);
    EXPECT_EQ(computeOccupancy(targetSm90a(), 128, 32768).bySharedMemory, 6);
    // 100 B round up to 128 B, plus 1024: 1152 per block.
    EXPECT_EQ(computeOccupancy(targetSm90a(), 128, 100).sharedBytesPerBlock, 1152);
    // sm_80: 167936 B per SM.
    EXPECT_EQ(computeOccupancy(targetSm80(), 128, 49152).bySharedMemory, 3);
}

TEST(Occupancy, ThreadsAndTheBlockLimit) {
    Occupancy threads = computeOccupancy(targetSm90a(), 1024, 0);
    EXPECT_EQ(threads.blocks, 2);
    EXPECT_EQ(threads.limiter, OccupancyLimiter::Threads);
    Occupancy small = computeOccupancy(targetSm90a(), 32, 0, 16);
    EXPECT_EQ(small.blocks, 32);
    EXPECT_EQ(small.limiter, OccupancyLimiter::BlockLimit);
    EXPECT_EQ(small.summary(), "32 blocks/SM (limited by the block limit)");
}

TEST(Occupancy, ABlockThatDoesNotFit) {
    Occupancy over = computeOccupancy(targetSm90a(), 128, 300000);
    EXPECT_EQ(over.blocks, 0);
    EXPECT_EQ(over.limiter, OccupancyLimiter::DoesNotFit);
    EXPECT_EQ(over.summary(), "0 blocks/SM (the block does not fit: shared memory)");
    EXPECT_EQ(computeOccupancy(targetSm90a(), 2048, 0).limiter, OccupancyLimiter::DoesNotFit);
    EXPECT_EQ(computeOccupancy(targetSm90a(), 128, 0, 300).limiter, OccupancyLimiter::DoesNotFit);
}

TEST(Occupancy, DetailListsEveryLimit) {
    std::string d = computeOccupancy(targetSm90a(), 128, 32768).summary(true);
    EXPECT_EQ(d, "6 blocks/SM (limited by shared memory) [registers not known before ptxas, shared memory 6 "
                 "(33792 B per block with the 1 KB reservation), threads 16, block limit 32]");
}

TEST(Occupancy, WhatTilecPlanPrints) {
    EXPECT_EQ(
        computeOccupancy(targetSm90a(), 128, 32768).limitsText(),
        "6, limited by shared memory (registers not known before ptxas, shared memory 6 at 33792 B per block "
        "with the 1 KB reservation, threads 16, block limit 32)");
}

} // namespace tb
