// How much shared memory a kernel needs, buffer by buffer. TileLang multi-buffers every shared buffer
// that a global -> shared T.copy writes as a statement of a T.Pipelined loop with num_stages > 1 (such
// copies are the pipeline's copy stages; InjectSoftwarePipeline gives their buffers a leading dimension of
// num_stages versions), so such a buffer costs bytes x num_stages. pipelineCopyStages is that rule, in the
// one place every consumer reads it from (this budget, the kernel schedule the code follows, the views).
// Buffers are
// counted without liveness-based reuse or alignment padding, i.e. the budget is the sum TileLang starts
// from before MergeSharedMemoryAllocations, which is what users reason about ("128x32 fp16 x 3 stages").
//
// Example: GEMM with A_shared [128, 32] and B_shared [32, 128] float16 copied in T.Pipelined(num_stages=3):
// (128*32 + 32*128) * 2 bytes * 3 stages = 49152 bytes.
#pragma once

#include "engine/ir/Module.h"

#include <cstdint>
#include <map>
#include <vector>

namespace tb::check {

struct PipelineStages {
    int stages = 1;
    const ir::Stmt* loop = nullptr; // the T.Pipelined loop whose copies multi-buffer the buffer
};

// Shared buffers that a global -> shared T.copy writes as a direct statement of a T.Pipelined loop with
// num_stages >= 2, with the largest such num_stages (the first loop that asks for it). Copies nested deeper
// (under an `if` or an inner loop) run in program order and keep one version.
std::map<const ir::Buffer*, PipelineStages> pipelineCopyStages(const ir::Stmt& kernel);

struct SharedBufferBudget {
    const ir::Buffer* buffer = nullptr;
    int64_t bytes = 0;                       // one version: elements x dtype bytes
    int stages = 1;                          // versions the pipeline keeps
    const ir::Stmt* pipelinedLoop = nullptr; // the T.Pipelined loop that multi-buffers it (stages > 1)
    int64_t totalBytes() const { return bytes * stages; }
};

struct KernelSharedMemory {
    const ir::Stmt* kernel = nullptr;
    std::vector<SharedBufferBudget> buffers;     // shared buffers of constant size, in allocation order
    std::vector<const ir::Buffer*> symbolicSize; // shared buffers whose size is not a compile-time constant
    int64_t totalBytes = 0;
    int maxStages = 1; // the largest stage count of any buffer
};

// The budget of one Kernel statement (any other statement kind gives an empty budget).
KernelSharedMemory kernelSharedMemory(const ir::Stmt& kernel);
// Every kernel of the prim_func, in program order.
std::vector<KernelSharedMemory> sharedMemoryBudgets(const ir::PrimFunc& func);
// The largest kernel budget of the prim_func in bytes (0 when it has no kernel).
int64_t sharedMemoryBytes(const ir::PrimFunc& func);

} // namespace tb::check
