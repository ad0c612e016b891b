// Fragment <-> shared exchanges, T.Parallel loops, element stores and reductions through shared memory,
// with hand-built plans and hand-computed bank costs.
#include "BankTestSupport.h"

#include <memory>

namespace tb::test {
namespace {

using layout::SharedLayoutKind;

// MLA decode's exchange on sm_80: acc_s [64, 64] fp32 split by a FullCol gemm over 8 warps (1x8 grid, each
// warp owns 8 columns) goes through S_shared [64, 64] fp16 so that every warp can read whole rows.
const char* kExchange = R"(import tilelang
import tilelang.language as T

@T.prim_func
def exchange(Out: T.Tensor((64, 64), "float16"), M: T.Tensor((64,), "float")):
    with T.Kernel(1, threads=256) as bx:
        S_shared = T.alloc_shared((64, 64), "float16")
        acc_s = T.alloc_fragment((64, 64), "float")
        m = T.alloc_fragment((64,), "float")
        T.fill(acc_s, 1.0)
        T.reduce_max(acc_s, m, dim=1)
        T.copy(acc_s, S_shared)
        T.copy(S_shared, Out)
        T.copy(m, M)
)";

struct ExchangeFixture {
    std::unique_ptr<Program> program = elaborateProgram(kExchange);
    layout::KernelPlan plan;
    DiagnosticEngine diagnostics;

    void build(bool swizzled) {
        ASSERT_TRUE(program->module) << formatDiagnostics(program->sources,
                                                          program->diagnostics.diagnostics());
        plan = kernelPlan(*program);
        ASSERT_EQ(plan.threads, 256);
        const ir::Buffer* s = program->buffer("S_shared");
        if (swizzled)
            addShared(plan, s, SharedLayoutKind::Full128B,
                      *layout::makeSwizzledLayout(layout::SwizzleKind::Full128B, 64, 64, 16));
        else
            addShared(plan, s, SharedLayoutKind::Linear, layout::Layout::linear({64, 64}));
        auto instruction = layout::selectGemmInstruction(targetSm80(), 64, 64, 64, 8, {});
        auto grid = layout::computeWarpGrid(64, 64, 8, layout::GemmWarpPolicy::FullCol, *instruction);
        ASSERT_TRUE(grid.ok());
        ASSERT_EQ(grid->mWarp, 1);
        ASSERT_EQ(grid->nWarp, 8);
        layout::FragmentPlan acc;
        acc.buffer = program->buffer("acc_s");
        acc.fragment = *layout::makeGemmFragmentC(*grid);
        plan.fragments.push_back(acc);
        layout::ReducePlan reduce;
        reduce.reduce = findStmt(*program, ir::StmtKind::Reduce);
        reduce.threadsPerOutput = 32; // 4 lanes of a row group in each of the 8 warps
        reduce.shuffleOffsets = {2, 1};
        reduce.throughSharedMemory = true;
        plan.reduces.push_back(reduce);
        passes::analyzeKernelSharedAccesses(plan, targetSm80(), diagnostics);
    }
};

TEST(ExchangeBanks, AccumulatorToSharedIsEightWayRowMajorAndConflictFreeSwizzled) {
    // Lane (g, q) = (lane/4, lane%4) of warp w holds columns 8w + 2q, 8w + 2q + 1 of rows g + 8h + 16a: two
    // consecutive fp16 after the cast = one 4-byte STS. Row-major, rows are 128 B apart: lane (g, q) writes
    // word 32*row + 4w + q -> bank 4w + q for every g: 8 rows in the same 4 banks, 8-way, 8 wavefronts.
    // 128B swizzle: chunk w of row r moves to chunk w ^ (r % 8) = w ^ g -> banks 4(w ^ g) + q, all distinct.
    // Count: 16 registers per thread (64*64/256) in pairs = 8 STS per warp, 8 warps = 64 per block.
    for (bool swizzled : {false, true}) {
        ExchangeFixture f;
        f.build(swizzled);
        const layout::SharedAccessPlan* st = findAccess(f.plan, "acc_s -> S_shared");
        ASSERT_NE(st, nullptr);
        EXPECT_EQ(st->instruction, "STS");
        EXPECT_EQ(st->access.widthBytes, 4);
        EXPECT_TRUE(st->isStore);
        EXPECT_EQ(st->instructionsPerBlock, 64);
        EXPECT_EQ(st->wavefrontsPerBlockUnswizzled, 64 * 8);
        EXPECT_EQ(st->hardwareUnswizzled.conflictWays, 8);
        EXPECT_EQ(st->wavefrontsPerBlock, swizzled ? 64 : 64 * 8);
        EXPECT_EQ(st->hardware.conflictWays, swizzled ? 1 : 8);
        // Lane 4 is (g=1, q=0) of warp 0: row 1, column 0 -> byte 128 (row-major) or 128 + 16*(0^1).
        EXPECT_EQ(st->access.address[4], swizzled ? 144 : 128);
        EXPECT_EQ(st->accessUnswizzled.address[4], 128);
    }
}

TEST(ExchangeBanks, SharedToGlobalReadsWholeRowsPerQuarterWarp) {
    // PlanLoopPartition with 16-byte vectors: a quarter-warp reads one 128-byte row (8 chunks); the swizzle
    // permutes chunks inside the row: LDS.128, 4 wavefronts either way. 64*64/(256*8) = 2 per thread.
    ExchangeFixture f;
    f.build(true);
    const layout::SharedAccessPlan* ld = findAccess(f.plan, "shared->global");
    ASSERT_NE(ld, nullptr);
    EXPECT_EQ(ld->instruction, "LDS.128");
    EXPECT_EQ(ld->instructionsPerBlock, 16);
    EXPECT_EQ(ld->wavefrontsPerBlock, 64);
    EXPECT_EQ(ld->wavefrontsPerBlockUnswizzled, 64);
    EXPECT_EQ(ld->sassWavefrontsPerBlock, 64);
}

TEST(ExchangeBanks, CrossWarpReductionGoesThroughRedBuf) {
    // 32 threads per output = 4 lanes (shuffles 2, 1) x 8 warps: log2(8) = 3 levels through shared memory
    // (AllReduce offsets 128, 64, 32). Thread 0 holds parts of rows 0, 8, ..., 56: 8 outputs. Each level is
    // one STS.32 of red_buf[tx] and one LDS.32 of red_buf[tx ^ offset] per warp: consecutive words, 1
    // wavefront. 8 outputs x 3 levels x 8 warps = 192 of each.
    ExchangeFixture f;
    f.build(true);
    const layout::SharedAccessPlan* st = findAccess(f.plan, "st.shared red_buf");
    const layout::SharedAccessPlan* ld = findAccess(f.plan, "ld.shared red_buf");
    ASSERT_NE(st, nullptr);
    ASSERT_NE(ld, nullptr);
    EXPECT_EQ(st->buffer, nullptr);
    EXPECT_EQ(st->instructionsPerBlock, 192);
    EXPECT_EQ(st->wavefrontsPerBlock, 192);
    EXPECT_EQ(ld->instructionsPerBlock, 192);
    EXPECT_EQ(ld->wavefrontsPerBlock, 192);
    EXPECT_EQ(ld->access.address[0], 4 * (0 ^ 128)); // level 0 of warp 0 reads its partner 128 threads away
    layout::KernelBankTotals k = layout::bankTotalsPerKernel(f.plan);
    EXPECT_EQ(k.opSt, 192 + 64 * 1); // red_buf stores + the swizzled exchange
    EXPECT_EQ(k.opLd, 192 + 64);     // red_buf loads + the shared->global copy
}

// The classic transpose through shared memory (gpu-machine.md's transpose_conflict / transpose_padded).
const char* kTranspose = R"(import tilelang
import tilelang.language as T

@T.prim_func
def transpose(A: T.Tensor((32, 32), "float32"), B: T.Tensor((32, 32), "float32")):
    with T.Kernel(1, threads=128) as bx:
        tile = T.alloc_shared((32, 32), "float32")
        padded = T.alloc_shared((32, 33), "float32")
        flat = T.alloc_shared((128,), "float32")
        tx = T.get_thread_binding()
        for i, j in T.Parallel(32, 32):
            tile[j, i] = A[i, j]
        for i, j in T.Parallel(32, 32):
            padded[j, i] = A[i, j]
        for i, j in T.Parallel(32, 32):
            B[i, j] = tile[i, j]
        flat[tx] = 0.0
        tile[tx % 32, 0] = 0.0
)";

TEST(ParallelBanks, TransposedStoreIsThirtyTwoWayAndPaddingFixesIt) {
    auto program = elaborateProgram(kTranspose);
    ASSERT_TRUE(program->module) << formatDiagnostics(program->sources, program->diagnostics.diagnostics());
    layout::KernelPlan plan = kernelPlan(*program);
    DiagnosticEngine diagnostics;
    passes::analyzeKernelSharedAccesses(plan, targetSm80(), diagnostics);
    // No loop plan: PlanLoopPartition. tile[j, i] is not contiguous along j, so no vectorization: lane l of
    // warp w in round g has (i, j) = (4g + w, l) and writes word 32l + i: all 32 lanes in bank i, 32-way.
    // 1024 iterations / 128 threads = 8 rounds x 4 warps = 32 STS.
    const layout::SharedAccessPlan* conflict = findAccess(plan, "st.shared tile T.Parallel");
    ASSERT_NE(conflict, nullptr);
    EXPECT_EQ(conflict->instruction, "STS");
    EXPECT_EQ(conflict->hardware.conflictWays, 32);
    EXPECT_EQ(conflict->instructionsPerBlock, 32);
    EXPECT_EQ(conflict->wavefrontsPerBlock, 32 * 32);
    // Pitch 33: word 33l + i -> bank (l + i) % 32, all distinct.
    const layout::SharedAccessPlan* padded = findAccess(plan, "st.shared padded T.Parallel");
    ASSERT_NE(padded, nullptr);
    EXPECT_EQ(padded->hardware.conflictWays, 1);
    EXPECT_EQ(padded->wavefrontsPerBlock, 32);
    // The row-wise read vectorizes to float4: 2 rounds x 4 warps of LDS.128 over contiguous 512 bytes, 4
    // each.
    const layout::SharedAccessPlan* read = findAccess(plan, "ld.shared tile T.Parallel");
    ASSERT_NE(read, nullptr);
    EXPECT_EQ(read->instruction, "LDS.128");
    EXPECT_EQ(read->instructionsPerBlock, 8);
    EXPECT_EQ(read->wavefrontsPerBlock, 32);
    // Element stores: flat[tx] is one STS per warp, consecutive words; tile[tx % 32, 0] puts lane l at word
    // 32l: 32-way.
    const layout::SharedAccessPlan* flat = findAccess(plan, "st.shared flat element");
    ASSERT_NE(flat, nullptr);
    EXPECT_EQ(flat->instructionsPerBlock, 4);
    EXPECT_EQ(flat->wavefrontsPerBlock, 4);
    const layout::SharedAccessPlan* column = findAccess(plan, "st.shared tile element");
    ASSERT_NE(column, nullptr);
    EXPECT_EQ(column->hardware.conflictWays, 32);
    EXPECT_EQ(column->wavefrontsPerBlock, 4 * 32);
}

TEST(ParallelBanks, SymbolicIndicesAreReportedNotGuessed) {
    // A shared index that depends on a runtime value cannot be enumerated: a note, no access, no crash.
    auto program = elaborateProgram(R"(import tilelang
import tilelang.language as T

@T.prim_func
def gather(A: T.Tensor((64,), "int32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=64) as bx:
        s = T.alloc_shared((64,), "float32")
        for i in T.Parallel(64):
            B[i] = s[A[i]]
)");
    ASSERT_TRUE(program->module) << formatDiagnostics(program->sources, program->diagnostics.diagnostics());
    layout::KernelPlan plan = kernelPlan(*program);
    DiagnosticEngine diagnostics;
    passes::analyzeKernelSharedAccesses(plan, targetSm80(), diagnostics);
    EXPECT_TRUE(plan.sharedAccesses.empty() || plan.sharedAccesses[0].instructionsPerBlock == 0);
    bool noted = false;
    for (const Diagnostic& d : diagnostics.diagnostics())
        noted = noted || d.code == "bank-analysis-skipped";
    EXPECT_TRUE(noted);
    EXPECT_FALSE(diagnostics.hasErrors());
}

} // namespace
} // namespace tb::test
