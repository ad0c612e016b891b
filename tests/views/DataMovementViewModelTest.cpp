// The data-movement view on the GEMM sample, on both backends: every tile op's arrow with the bytes of its
// regions, the trip count of the pipelined loop around it, and the instruction the emitted plan chose.
#include "views/model/DataMovementViewModel.h"

#include "ViewTestSupport.h"
#include "views/model/SvgWriter.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::views {

namespace {

int64_t bytesOf(const MovedBuffer* b) {
    return b ? b->bytes : -2;
}

// The GEMM sample's shapes, read from its own buffers: K from A's shape, the tiles from the shared buffers.
struct GemmShapes {
    int64_t K = 0, blockM = 0, blockK = 0, blockN = 0;
};

GemmShapes shapesOf(const layout::KernelPlan& k) {
    GemmShapes g;
    for (const ir::Buffer* b : k.func->params)
        if (b->name == "A")
            g.K = *b->constantExtent(1);
    for (const ir::Buffer* b : k.kernel->allocations) {
        if (b->name == "A_shared") {
            g.blockM = *b->constantExtent(0);
            g.blockK = *b->constantExtent(1);
        }
        if (b->name == "B_shared")
            g.blockN = *b->constantExtent(1);
    }
    return g;
}

void expectGemmMovement(Backend backend, const std::string& copyInstructionPrefix) {
    auto a = test::analyzeSample("gemm_relu", backend);
    ASSERT_TRUE(a && a->ok());
    const layout::KernelPlan& k = *a->kernel(0);
    DataMovementViewModel m = buildDataMovementView(k, a->sources());
    const GemmShapes g = shapesOf(k);
    const int64_t iterations = (g.K + g.blockK - 1) / g.blockK;
    ASSERT_GT(iterations, 1);

    // The buffers, by level, with their tiles' bytes and the stages the schedule keeps.
    EXPECT_EQ(m.buffer("A")->level, MemoryLevel::Global);
    EXPECT_EQ(m.buffer("A_shared")->level, MemoryLevel::Shared);
    EXPECT_EQ(m.buffer("C_local")->level, MemoryLevel::Registers);
    EXPECT_EQ(bytesOf(m.buffer("A_shared")), g.blockM * g.blockK * 2);
    EXPECT_EQ(m.buffer("A_shared")->stages, 3); // T.Pipelined(num_stages=3)
    EXPECT_EQ(bytesOf(m.buffer("C_local")), g.blockM * g.blockN * 4);

    // Copies A, B in the pipelined loop; the gemm; the write-back (the ReLU loop moves no tile).
    ASSERT_EQ(m.moves.size(), 4u);
    const DataMove &copyA = m.moves[0], &copyB = m.moves[1], &gemm = m.moves[2], &store = m.moves[3];
    EXPECT_EQ(copyA.op, "copy");
    EXPECT_EQ(copyA.from, std::vector<std::string>{"A"});
    EXPECT_EQ(copyA.to, "A_shared");
    EXPECT_EQ(copyA.fromLevel, MemoryLevel::Global);
    EXPECT_EQ(copyA.toLevel, MemoryLevel::Shared);
    EXPECT_EQ(copyA.bytesPerExecution, g.blockM * g.blockK * 2);
    EXPECT_EQ(copyA.executionsPerBlock, iterations);
    EXPECT_EQ(copyA.pipeline, 0);
    EXPECT_EQ(copyA.instruction.rfind(copyInstructionPrefix, 0), 0u) << copyA.instruction;
    EXPECT_EQ(copyB.bytesPerExecution, g.blockK * g.blockN * 2);

    EXPECT_EQ(gemm.op, "gemm");
    EXPECT_EQ(gemm.from, (std::vector<std::string>{"A_shared", "B_shared"}));
    EXPECT_EQ(gemm.toLevel, MemoryLevel::Registers);
    EXPECT_EQ(gemm.bytesPerExecution, (g.blockM * g.blockK + g.blockK * g.blockN) * 2);
    EXPECT_EQ(gemm.instruction, k.gemms.at(0).instruction.name); // the instruction that was emitted

    EXPECT_EQ(store.from, std::vector<std::string>{"C_local"});
    EXPECT_EQ(store.toLevel, MemoryLevel::Global);
    EXPECT_EQ(store.executionsPerBlock, 1);
    EXPECT_EQ(store.bytesPerExecution, g.blockM * g.blockN * 2); // float16 in global memory
    EXPECT_EQ(store.pipeline, -1);

    ASSERT_EQ(m.pipelines.size(), 1u);
    EXPECT_EQ(m.pipelines[0].stages, 3);
    EXPECT_EQ(m.pipelines[0].iterations, iterations);
    EXPECT_EQ(m.globalBytesReadPerBlock, (g.blockM + g.blockN) * g.blockK * 2 * iterations);
    EXPECT_EQ(m.globalBytesWrittenPerBlock, g.blockM * g.blockN * 2);

    const std::string svg = dataMovementViewToSvg(m);
    for (const char* text :
         {"global memory", "shared memory", "registers", "A_shared", "C_local", "T.Pipelined"})
        EXPECT_NE(svg.find(text), std::string::npos) << text;
    EXPECT_NE(svg.find(SvgWriter::escape(copyA.summary())), std::string::npos);
}

} // namespace

TEST(DataMovementViewModel, GemmOnThePortableBackend) {
    expectGemmMovement(Backend::Portable, "cp.async");
}

TEST(DataMovementViewModel, GemmOnTheHopperBackendMovesTilesByTma) {
    expectGemmMovement(Backend::Hopper, "TMA");
}

TEST(DataMovementViewModel, ReductionsAndUnitsInTheSummary) {
    auto a = test::analyzeSample("softmax");
    ASSERT_TRUE(a && a->ok());
    DataMovementViewModel m = buildDataMovementView(*a->kernel(0), a->sources());
    bool reduce = false;
    for (const DataMove& move : m.moves)
        if (move.op.rfind("reduce_", 0) == 0) {
            reduce = true;
            EXPECT_EQ(move.fromLevel, MemoryLevel::Registers);
            EXPECT_FALSE(move.instruction.empty());
        }
    EXPECT_TRUE(reduce);
    EXPECT_EQ(formatBytes(512), "512 B");
    EXPECT_EQ(formatBytes(16384), "16 KiB");
    EXPECT_EQ(formatBytes(1536), "1.5 KiB");
    EXPECT_EQ(formatBytes(int64_t(3) << 20), "3 MiB");
    EXPECT_EQ(formatBytes(-1), "?");
}

} // namespace tb::views
