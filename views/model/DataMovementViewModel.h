// The data-movement view's model, for learners: the kernel as three memory levels (global memory, shared
// memory, registers) with each buffer's tile, and one arrow per T.copy / T.gemm / reduction / atomic add with
// the bytes it moves per execution and per block, the instruction that moves them, and the T.Pipelined loop
// it runs in with that loop's stages. Built from the very plan codegen emitted (KernelPlan): the same
// instructions the CUDA view shows.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/SourceManager.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb::views {

enum class MemoryLevel { Global, Shared, Registers };
const char* memoryLevelName(MemoryLevel level); // "global memory", "shared memory", "registers"

struct MovedBuffer {
    std::string name;
    MemoryLevel level = MemoryLevel::Global;
    std::string shape;  // "[128, 64]"
    std::string dtype;  // "float16"
    int64_t bytes = -1; // the whole buffer (one stage); -1 when a dimension is symbolic
    int stages = 1;     // copies the kernel schedule keeps (shared buffers of a pipelined loop)
};

struct DataMove {
    uint32_t line = 0;
    std::string op;                // "copy", "gemm", "reduce_max", "atomic_add"
    std::vector<std::string> from; // source buffers (a gemm's A and B)
    std::string to;
    MemoryLevel fromLevel = MemoryLevel::Global, toLevel = MemoryLevel::Global;
    std::string instruction;         // "cp.async 16 B", "TMA", "wgmma.m64nNk16", "warp shuffles"
    int64_t bytesPerExecution = -1;  // the regions read; -1 when symbolic
    int64_t executionsPerBlock = -1; // product of the enclosing loops' trip counts; -1 when symbolic
    int64_t bytesPerBlock() const;   // -1 when either is unknown
    int pipeline = -1;               // index into pipelines, -1 outside any T.Pipelined loop
    std::string summary() const;     // "line 34 copy A[...] -> A_shared: 16 KiB x 64 = 1 MiB per block (TMA)"
};

struct PipelineStages {
    uint32_t line = 0;
    int stages = 1;
    int64_t iterations = -1;
    std::string shape;       // "multi-stage", "warp-specialized", ...
    std::string description; // the kernel schedule's own words
};

struct DataMovementViewModel {
    std::string title;
    std::vector<MovedBuffer> buffers; // global parameters, then shared, then register tiles
    std::vector<DataMove> moves;      // program order
    std::vector<PipelineStages> pipelines;
    int64_t globalBytesReadPerBlock = 0, globalBytesWrittenPerBlock = 0; // -1 when symbolic
    const MovedBuffer* buffer(const std::string& name) const;
};

DataMovementViewModel buildDataMovementView(const layout::KernelPlan& kernel, const SourceManager& sources);
std::string dataMovementViewToSvg(const DataMovementViewModel& model);
// "1.5 KiB", "16 KiB", "2 MiB", "512 B"
std::string formatBytes(int64_t bytes);

} // namespace tb::views
