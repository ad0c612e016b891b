// Shared memory budgets of hand-built kernels: bytes per buffer, stage multiplication of pipelined
// global -> shared copies, and totals.
#include "engine/check/SharedMemoryBudget.h"

#include "tests/engine/ir/TestIr.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace tb::check {
namespace {

using namespace tb::testir;

const SharedBufferBudget* find(const KernelSharedMemory& budget, const Buffer* b) {
    for (const SharedBufferBudget& entry : budget.buffers)
        if (entry.buffer == b)
            return &entry;
    return nullptr;
}

TEST(SharedMemoryBudget, GemmThreeStages) {
    GemmProgram p(1024, 1024, 1024, 128, 128, 32, /*stages=*/3);
    KernelSharedMemory budget = kernelSharedMemory(*p.kernel);
    // (128*32 + 32*128) * 2 bytes * 3 stages
    EXPECT_EQ(budget.totalBytes, 49152);
    EXPECT_EQ(budget.maxStages, 3);
    ASSERT_EQ(budget.buffers.size(), 2u); // the fragment does not count
    const SharedBufferBudget* a = find(budget, p.aShared);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->bytes, 8192);
    EXPECT_EQ(a->stages, 3);
    EXPECT_EQ(a->pipelinedLoop, p.loop.get());
    EXPECT_EQ(sharedMemoryBytes(p.module->funcs[0]), 49152);
}

TEST(SharedMemoryBudget, StagesFollowNumStages) {
    for (int stages : {0, 1, 2, 4}) {
        GemmProgram p(1024, 1024, 1024, 128, 256, 64, stages);
        int64_t oneCopy = (128 * 64 + 64 * 256) * 2;
        EXPECT_EQ(kernelSharedMemory(*p.kernel).totalBytes, oneCopy * std::max(stages, 1)) << stages;
    }
}

TEST(SharedMemoryBudget, OnlyGlobalToSharedCopiesInPipelinedLoopsMultiply) {
    MlaProgram p(2);
    KernelSharedMemory budget = kernelSharedMemory(*p.kernel);
    EXPECT_EQ(find(budget, p.kvShared)->stages, 2);
    EXPECT_EQ(find(budget, p.kPeShared)->stages, 2);
    EXPECT_EQ(find(budget, p.qShared)->stages, 1); // copied before the loop
    EXPECT_EQ(find(budget, p.sShared)->stages, 1); // written from a fragment inside the loop
    EXPECT_EQ(budget.totalBytes, 65536 + 8192 + 8192 + 2 * (65536 + 8192));
    MlaProgram three(3);
    EXPECT_EQ(kernelSharedMemory(*three.kernel).totalBytes, 65536 + 8192 + 8192 + 3 * (65536 + 8192));
}

TEST(SharedMemoryBudget, SymbolicSizesAreListedNotCounted) {
    MlaProgram p;
    Buffer* dyn = p.module->newBuffer("dyn", MemoryScope::Shared, DType::Float32, {v(p.seqlen)});
    p.kernel->allocations.push_back(dyn);
    KernelSharedMemory budget = kernelSharedMemory(*p.kernel);
    ASSERT_EQ(budget.symbolicSize.size(), 1u);
    EXPECT_EQ(budget.symbolicSize[0], dyn);
    EXPECT_EQ(budget.totalBytes, 229376);
}

TEST(SharedMemoryBudget, EveryKernelOfAFunc) {
    GemmProgram p(1024, 1024, 1024, 128, 128, 32, 3);
    GemmProgram q(1024, 1024, 1024, 64, 64, 32, 2);
    // Move q's kernel into p's func (buffers stay owned by q's module, which outlives the call).
    p.module->funcs[0].body = makeSeq({p.kernel, q.kernel});
    std::vector<KernelSharedMemory> budgets = sharedMemoryBudgets(p.module->funcs[0]);
    ASSERT_EQ(budgets.size(), 2u);
    EXPECT_EQ(budgets[0].totalBytes, 49152);
    EXPECT_EQ(budgets[1].totalBytes, (64 * 32 + 32 * 64) * 2 * 2);
    EXPECT_EQ(sharedMemoryBytes(p.module->funcs[0]), 49152);
}

} // namespace
} // namespace tb::check
