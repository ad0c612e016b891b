// The GEMM sample's shared accesses, with hand-built plans: 128x128x32 fp16, 4 warps (2x2 grid of 64x64
// warp tiles) on sm_80, K = 512 (16 pipelined iterations). Every expected number is derived by hand in the
// comments from the byte addresses; the bank rules are docs/bank-model.md's.
#include "BankTestSupport.h"
#include "engine/layout/plan/BankPrinter.h"
#include "engine/target/Backend.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::test {
namespace {

using layout::SharedLayoutKind;

const char* kGemm = R"(import tilelang
import tilelang.language as T

@T.prim_func
def gemm(A: T.Tensor((512, 512), "float16"), B: T.Tensor((512, 512), "float16"), C: T.Tensor((512, 512), "float16")):
    with T.Kernel(4, 4, threads=128) as (bx, by):
        A_shared = T.alloc_shared((128, 32), "float16")
        B_shared = T.alloc_shared((32, 128), "float16")
        C_local = T.alloc_fragment((128, 128), "float")
        T.clear(C_local)
        for ko in T.Pipelined(16, num_stages=3):
            T.copy(A[by * 128, ko * 32], A_shared)
            T.copy(B[ko * 32, bx * 128], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[by * 128, bx * 128])
)";

struct GemmFixture {
    std::unique_ptr<Program> program = elaborateProgram(kGemm);
    layout::KernelPlan plan;
    DiagnosticEngine diagnostics;

    // The A and B layouts; nullopt = no SharedBufferPlan (the analysis then uses row-major).
    void build(std::optional<std::pair<SharedLayoutKind, layout::Layout>> a,
               std::optional<std::pair<SharedLayoutKind, layout::Layout>> b,
               const Target& target = targetSm80()) {
        ASSERT_TRUE(program->module) << formatDiagnostics(program->sources,
                                                          program->diagnostics.diagnostics());
        plan = kernelPlan(*program);
        if (a)
            addShared(plan, program->buffer("A_shared"), a->first, a->second);
        if (b)
            addShared(plan, program->buffer("B_shared"), b->first, b->second);
        layout::GemmOperandTypes types;
        auto instruction = layout::selectGemmInstruction(target, 128, 128, 32, 4, types);
        ASSERT_TRUE(instruction.ok());
        auto grid = layout::computeWarpGrid(128, 128, 4, layout::GemmWarpPolicy::Square, *instruction);
        ASSERT_TRUE(grid.ok());
        layout::GemmPlan gemm;
        gemm.gemm = findStmt(*program, ir::StmtKind::Gemm);
        gemm.instruction = *instruction;
        gemm.grid = *grid;
        plan.gemms.push_back(gemm);
        passes::analyzeKernelSharedAccesses(plan, target, diagnostics);
    }
};

TEST(GemmBanks, RowMajorATileReadByLdmatrixIsFourWay) {
    // A_shared [128, 32] fp16 row-major: rows are 64 B apart. One 8x8 matrix of ldmatrix is 8 rows x 16 B at
    // bytes 64r .. 64r+15 (r = 0..7), i.e. words 16r .. 16r+3: even rows hit banks 0-3, odd rows banks 16-19.
    // Each of those banks holds 4 distinct words (rows 0, 2, 4, 6) -> 4-way, 4 wavefronts per matrix,
    // 16 per ldmatrix.x4 (ideal 4).
    GemmFixture f;
    f.build(std::nullopt, std::nullopt);
    const layout::SharedAccessPlan* a = findAccess(f.plan, "A operand");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->instruction, "LDSM.16.M88.4");
    EXPECT_EQ(a->hardware.conflictWays, 4);
    EXPECT_EQ(a->hardware.wavefronts, 16);
    EXPECT_EQ(a->hardware.idealWavefronts, 4);
    // Representative lanes: warp 0, k-step 0, rows 0-15: lane t addresses row t%16, column 8*(t/16).
    EXPECT_EQ(a->access.address[1], 64);
    EXPECT_EQ(a->access.address[15], 15 * 64);
    EXPECT_EQ(a->access.address[16], 16);
    // Count: 4 warps x 2 k-steps (32/16) x 4 row blocks (64/16) = 32 ldmatrix per gemm, 16 executions.
    EXPECT_EQ(a->executionsPerBlock, 16);
    EXPECT_TRUE(a->executionsExact);
    EXPECT_EQ(a->instructionsPerBlock, 32 * 16);
    EXPECT_EQ(a->wavefrontsPerBlock, 32 * 16 * 16);
    EXPECT_EQ(a->idealWavefrontsPerBlock, 32 * 4 * 16);
    EXPECT_EQ(a->sassWavefrontsPerBlock, a->wavefrontsPerBlock); // ldmatrix: both models agree
}

TEST(GemmBanks, RowMajorBTileReadByLdmatrixTransIsEightWay) {
    // B_shared [32, 128] fp16 (K x N, MN-major) is read with ldmatrix.trans: a matrix is 8 consecutive k rows
    // of one 16-byte column chunk. Rows are 256 B apart, so all 8 rows hit the same 4 banks: 8-way, 32
    // wavefronts per x4.
    GemmFixture f;
    f.build(std::nullopt, std::nullopt);
    const layout::SharedAccessPlan* b = findAccess(f.plan, "B operand");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->instruction, "LDSM.16.MT88.4");
    EXPECT_TRUE(b->access.transposed);
    EXPECT_EQ(b->hardware.conflictWays, 8);
    EXPECT_EQ(b->hardware.wavefronts, 32);
    // 4 warps x 2 k-steps x 4 column blocks of 16 = 32 per gemm.
    EXPECT_EQ(b->instructionsPerBlock, 32 * 16);
    EXPECT_EQ(b->wavefrontsPerBlock, 32 * 32 * 16);
}

TEST(GemmBanks, TileLangSwizzlesAreConflictFreeForCopyInAndLdmatrixOut) {
    // The layouts TileLang picks (reference §4.4): A 128x32 -> 64B swizzle, B 32x128 -> 128B swizzle.
    auto choiceA = layout::chooseSharedLayout(128, 32, 16, /*kMajor=*/true, /*allowPad=*/true);
    auto choiceB = layout::chooseSharedLayout(32, 128, 16, /*kMajor=*/false, /*allowPad=*/true);
    ASSERT_TRUE(choiceA.ok() && choiceB.ok());
    ASSERT_EQ(choiceA->kind, SharedLayoutKind::Half64B);
    ASSERT_EQ(choiceB->kind, SharedLayoutKind::Full128B);
    GemmFixture f;
    f.build(std::make_pair(choiceA->kind, choiceA->layout), std::make_pair(choiceB->kind, choiceB->layout));
    ASSERT_EQ(f.plan.sharedAccesses.size(), 4u); // cp.async A, cp.async B, ldmatrix A, ldmatrix B

    // ldmatrix A under the 64B swizzle: row i's chunk c sits at 64i + 16(c ^ (i%8)/2) bytes, so the 8 rows
    // of a matrix land in banks 16(i%2) + 4(c ^ i/2) + 0..3: all distinct -> conflict-free.
    const layout::SharedAccessPlan* a = findAccess(f.plan, "A operand");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->hardware.conflictWays, 1);
    EXPECT_EQ(a->wavefrontsPerBlock, a->idealWavefrontsPerBlock);
    EXPECT_EQ(a->wavefrontsPerBlock, 32 * 4 * 16);
    EXPECT_EQ(a->wavefrontsPerBlockUnswizzled, 32 * 16 * 16); // the 4-way case above
    EXPECT_EQ(a->hardwareUnswizzled.conflictWays, 4);

    // ldmatrix.trans B under the 128B swizzle: chunk c of row k sits at 16(c ^ k%8) in its 128-byte panel
    // row: the 8 rows of a matrix use 8 different chunks -> conflict-free.
    const layout::SharedAccessPlan* b = findAccess(f.plan, "B operand");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->hardware.conflictWays, 1);
    EXPECT_EQ(b->wavefrontsPerBlock, 32 * 4 * 16);
    EXPECT_EQ(b->wavefrontsPerBlockUnswizzled, 32 * 32 * 16);

    // cp.async.cg 16 B per thread, PlanLoopPartition: thread t's g-th vector starts at element 8(128g + t).
    // For A (32 columns = 4 chunks per row) a quarter-warp writes two consecutive rows = 128 contiguous bytes
    // before the swizzle, and the 64B swizzle only permutes chunks inside each row: one 128-byte row per
    // quarter-warp, 4 wavefronts per instruction, no row spread. 4 warps x 4 vectors = 16 per copy.
    for (const char* name : {"cp.async.cg A_shared", "cp.async.cg B_shared"}) {
        const layout::SharedAccessPlan* c = findAccess(f.plan, name);
        ASSERT_NE(c, nullptr) << name;
        EXPECT_EQ(c->instruction, "LDGSTS.E.BYPASS.128");
        EXPECT_FALSE(c->visibleToCounters);
        EXPECT_TRUE(c->isStore);
        EXPECT_EQ(c->hardware.conflictWays, 1) << name;
        EXPECT_EQ(c->hardware.wavefronts, 4) << name;
        EXPECT_FALSE(c->hardware.cpAsyncCgRowSpread) << name;
        EXPECT_EQ(c->rowSpreadInstructionsPerBlock, 0) << name;
        EXPECT_EQ(c->instructionsPerBlock, 16 * 16) << name;
        EXPECT_EQ(c->wavefrontsPerBlock, 16 * 4 * 16) << name;
        EXPECT_EQ(c->wavefrontsPerBlockUnswizzled, 16 * 4 * 16) << name;
    }
}

TEST(GemmBanks, PaddedLayoutRemovesTheLdmatrixConflict) {
    // makePaddedLayout(128, 32, fp16): 32 columns = 64 B (a multiple of 32 B) -> pitch 40 elements = 80 B.
    // Row r starts at word 20r: banks 0, 20, 8, 28, 16, 4, 24, 12 (+0..3) for r = 0..7: all distinct.
    GemmFixture f;
    f.build(std::make_pair(SharedLayoutKind::Padded, layout::makePaddedLayout(128, 32, 16)), std::nullopt);
    const layout::SharedAccessPlan* a = findAccess(f.plan, "A operand");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->access.address[1], 80);
    EXPECT_EQ(a->hardware.conflictWays, 1);
    EXPECT_EQ(a->wavefrontsPerBlock, a->idealWavefrontsPerBlock);
    EXPECT_EQ(a->hardwareUnswizzled.conflictWays, 4);
    // The price: padded rows are 80 B apart, so a quarter-warp of cp.async (two 64-byte rows, bytes
    // 80r .. 80r+63 and 80r+80 .. 80r+143) crosses a 128-byte row boundary: rule 6's row spread is flagged
    // (for r = 0 lanes 4-7 start at 80, 96, 112, 128).
    const layout::SharedAccessPlan* c = findAccess(f.plan, "cp.async.cg A_shared");
    ASSERT_NE(c, nullptr);
    EXPECT_GT(c->rowSpreadInstructionsPerBlock, 0);
}

TEST(GemmBanks, AggregatesPerLineAndPerKernel) {
    GemmFixture f;
    auto choiceA = layout::chooseSharedLayout(128, 32, 16, true, true);
    f.build(std::make_pair(choiceA->kind, choiceA->layout), std::nullopt);
    std::vector<layout::LineBankTotals> lines = layout::bankTotalsPerLine(f.plan, f.program->sources);
    // Per-line totals are the sums of the accesses on that line.
    int64_t sumLines = 0;
    for (const layout::LineBankTotals& line : lines) {
        int64_t expected = 0, expectedInstructions = 0;
        for (const layout::SharedAccessPlan& a : f.plan.sharedAccesses)
            if (f.program->sources.file(a.range.file).lineCol(a.range.begin).line == line.line) {
                expected += a.wavefrontsPerBlock;
                expectedInstructions += a.instructionsPerBlock;
            }
        EXPECT_EQ(line.lsu.wavefronts, expected) << "line " << line.line;
        EXPECT_EQ(line.lsu.instructions, expectedInstructions) << "line " << line.line;
        sumLines += line.lsu.wavefronts;
    }
    // The copies are on lines 12 and 13, the gemm operands on line 14 (A_shared and B_shared columns).
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].line, 12u);
    EXPECT_EQ(lines[1].line, 13u);
    EXPECT_EQ(lines[2].line, 14u);
    // Line 14: ldmatrix A conflict-free (32*4*16 = 2048) + ldmatrix B row-major 8-way (32*32*16 = 16384).
    EXPECT_EQ(lines[2].lsu.wavefronts, 2048 + 16384);
    EXPECT_EQ(lines[2].sassComparable, 2048 + 16384);
    // cp.async.cg lines: counted in the LSU totals but not comparable with the SASS metric.
    EXPECT_EQ(lines[0].sassComparable, 0);

    layout::KernelBankTotals k = layout::bankTotalsPerKernel(f.plan);
    EXPECT_EQ(k.lsu.wavefronts, sumLines);
    EXPECT_EQ(k.opLd, 2048 + 16384);     // LDSM only
    EXPECT_EQ(k.opLdIdeal, 2048 + 2048); // 4 per x4
    EXPECT_EQ(k.opSt, 0);                // cp.async.cg is excluded
    EXPECT_EQ(k.cpAsyncCg, 2 * 16 * 4 * 16);
    EXPECT_EQ(k.blocks, 16);
    EXPECT_TRUE(k.exact);
}

TEST(GemmBanks, WgmmaReadsSwizzleAtomsOutsideTheLsuCounters) {
    // sm_90a: the same gemm uses wgmma.m64nNk16 with one warpgroup (4 warps: 4x1 grid, 128x128 tile,
    // 2 M-atoms of 64 rows, N atom 128). Its operands are read through descriptors, modelled by 8-row x 16-B
    // core matrices. A 128x32 under the 64B swizzle: conflict-free. B 32x128 row-major: 8 k rows of one
    // 256-byte-pitch column chunk -> 8-way.
    auto choiceA = layout::chooseSharedLayout(128, 32, 16, true, false);
    ASSERT_TRUE(choiceA.ok());
    GemmFixture f;
    f.build(std::make_pair(choiceA->kind, choiceA->layout), std::nullopt, targetSm90a());
    const layout::SharedAccessPlan* a = findAccess(f.plan, "wgmma A operand");
    const layout::SharedAccessPlan* b = findAccess(f.plan, "wgmma B operand");
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(a->wgmmaOperand);
    EXPECT_FALSE(a->visibleToCounters);
    EXPECT_EQ(a->instruction, "wgmma descriptor");
    EXPECT_EQ(a->hardware.conflictWays, 1);
    EXPECT_EQ(b->hardware.conflictWays, 8);
    // Per wgmma instruction: A 64x16 = 8 row groups x 2 chunks = 16 core matrices = 4 units; B 16x128 (k x n,
    // stored [K][N]) = 2 row groups x 16 chunks = 32 core matrices = 8 units. Instructions per gemm:
    // 2 M-atoms x 1 N-atom x 2 k-steps = 4.
    EXPECT_EQ(a->instructionsPerBlock, 4 * 4 * 16);
    EXPECT_EQ(b->instructionsPerBlock, 4 * 8 * 16);
    layout::KernelBankTotals k = layout::bankTotalsPerKernel(f.plan);
    EXPECT_EQ(k.opLd, 0);
    EXPECT_EQ(k.wgmma.wavefronts, a->wavefrontsPerBlock + b->wavefrontsPerBlock);
}

const char* kFloat8Gemm = R"(import tilelang
import tilelang.language as T

@T.prim_func
def gemm(A: T.Tensor((512, 512), "float8_e4m3fn"), B: T.Tensor((512, 512), "float8_e4m3fn"), C: T.Tensor((512, 512), "float32")):
    with T.Kernel(4, 4, threads=128) as (bx, by):
        A_shared = T.alloc_shared((128, 64), "float8_e4m3fn")
        B_shared = T.alloc_shared((128, 64), "float8_e4m3fn")
        C_local = T.alloc_fragment((128, 128), "float")
        T.clear(C_local)
        for ko in T.Pipelined(8, num_stages=3):
            T.copy(A[by * 128, ko * 64], A_shared)
            T.copy(B[bx * 128, ko * 64], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_B=True)
        T.copy(C_local, C[by * 128, bx * 128])
)";

TEST(GemmBanks, Float8OperandsStoredKMajorAreLdmatrixOfByteRows) {
    // mma.sync m16n8k32 on sm_90a's portable instruction set, operands A [128][64] and B [128][64] (K-major),
    // 64 bytes a row like the fp16 128x32 tile above. ldmatrix reads them as 16-bit pairs: a matrix row is 16
    // k values, a k step is 32. So the lane addresses and the bank arithmetic are the fp16 tile's: lane t of
    // an A load addresses row t%16, byte 16*(t/16); row-major 4-way, the 64B swizzle TileLang picks
    // conflict-free.
    std::unique_ptr<Program> program = elaborateProgram(kFloat8Gemm);
    ASSERT_TRUE(program->module) << formatDiagnostics(program->sources, program->diagnostics.diagnostics());
    auto choice = layout::chooseSharedLayout(128, 64, 8, /*kMajor=*/true, /*allowPad=*/true);
    ASSERT_TRUE(choice.ok());
    ASSERT_EQ(choice->kind, SharedLayoutKind::Half64B);
    Target portable = instructionTarget(targetSm90a(), Backend::Portable);
    layout::GemmOperandTypes types{ir::DType::Float8E4M3, ir::DType::Float8E4M3, ir::DType::Float32};
    types.bTransposed = true;
    auto instruction = layout::selectGemmInstruction(portable, 128, 128, 64, 4, types);
    ASSERT_TRUE(instruction.ok()) << instruction.error().message;
    ASSERT_EQ(instruction->name, "mma.sync.m16n8k32");
    for (bool swizzled : {false, true}) {
        SCOPED_TRACE(swizzled ? "64B swizzle" : "row-major");
        layout::KernelPlan plan = kernelPlan(*program);
        if (swizzled) {
            addShared(plan, program->buffer("A_shared"), choice->kind, choice->layout);
            addShared(plan, program->buffer("B_shared"), choice->kind, choice->layout);
        }
        layout::GemmPlan gemm;
        gemm.gemm = findStmt(*program, ir::StmtKind::Gemm);
        gemm.instruction = *instruction;
        gemm.grid = *layout::computeWarpGrid(128, 128, 4, layout::GemmWarpPolicy::Square, *instruction);
        plan.gemms.push_back(gemm);
        DiagnosticEngine diagnostics;
        passes::analyzeKernelSharedAccesses(plan, portable, diagnostics);
        const std::string notes = formatDiagnostics(program->sources, diagnostics.diagnostics());
        EXPECT_EQ(notes.find("bank-analysis-skipped"), std::string::npos) << notes;
        for (const char* operand : {"A operand", "B operand"}) {
            const layout::SharedAccessPlan* a = findAccess(plan, operand);
            ASSERT_NE(a, nullptr) << operand;
            EXPECT_EQ(a->instruction, "LDSM.16.M88.4") << operand;
            EXPECT_EQ(a->hardware.conflictWays, swizzled ? 1 : 4) << operand;
            // 4 warps x 2 k steps (64/32) x 4 blocks of 16 rows (columns) = 32 per gemm, 8 executions.
            EXPECT_EQ(a->instructionsPerBlock, 32 * 8) << operand;
            EXPECT_EQ(a->wavefrontsPerBlock, 32 * 8 * (swizzled ? 4 : 16)) << operand;
        }
        const layout::SharedAccessPlan* a = findAccess(plan, "A operand");
        EXPECT_EQ(a->access.address[1], 64);  // row 1
        EXPECT_EQ(a->access.address[16], 16); // row 0, k 16..31 (the chunk is the same under this swizzle)
    }
}

TEST(GemmBanks, PrintersShowEveryAccess) {
    GemmFixture f;
    f.build(std::nullopt, std::nullopt);
    layout::LayoutPlan plan;
    plan.target = targetSm80();
    plan.kernels.push_back(f.plan);
    std::string text = layout::printBankTable(plan, f.program->sources);
    EXPECT_NE(text.find("LDSM.16.M88.4"), std::string::npos) << text;
    EXPECT_NE(text.find("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld"), std::string::npos);
    EXPECT_NE(text.find("8192"), std::string::npos) << text; // ldmatrix A: 32*16*16
    std::string json = layout::printBankJson(plan, f.program->sources);
    EXPECT_NE(json.find("\"addresses\""), std::string::npos);
    EXPECT_NE(json.find("\"wavefrontsPerBlock\": 8192"), std::string::npos) << json.substr(0, 2000);
    EXPECT_EQ(text, layout::printBankTable(plan, f.program->sources)); // deterministic
}

} // namespace
} // namespace tb::test
