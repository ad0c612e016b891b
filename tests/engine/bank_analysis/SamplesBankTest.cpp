// End to end: compile the samples through the layout passes and the bank analysis, and check what TileLang's
// layout choices promise: every shared access of the GEMM and of MLA decode is conflict-free with the chosen
// swizzles, and worse without them.
#include "BankTestSupport.h"
#include "engine/layout/plan/BankPrinter.h"
#include "engine/pipeline/Pipeline.h"

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

namespace tb::test {
namespace {

struct Compiled {
    std::unique_ptr<CompileResult> result;
    layout::LayoutPlan plan;
    DiagnosticEngine diagnostics; // unused: the compile's own diagnostics hold every pass's
};

// Compiles through the bank analysis on the target's own instruction set (wgmma targets on the hopper
// backend: these tests check TileLang's layout choices, not one backend's code).
std::unique_ptr<Compiled> compileSample(const std::string& name, const Target& target) {
    std::ifstream in(std::string(TILEBENCH_SAMPLES_DIR) + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    auto c = std::make_unique<Compiled>();
    CompileOptions options;
    options.target = target;
    options.backend = target.hasWgmma ? Backend::Hopper : Backend::Portable;
    options.stopAfter = "bank-analysis";
    c->result = compileTileProgram(name, text.str(), options);
    if (c->result->plan)
        c->plan = *c->result->plan;
    return c;
}

std::unique_ptr<Compiled> compileText(const std::string& text, const Target& target) {
    auto c = std::make_unique<Compiled>();
    CompileOptions options;
    options.target = target;
    options.backend = Backend::Portable;
    options.stopAfter = "bank-analysis";
    c->result = compileTileProgram("conditional.py", text, options);
    if (c->result->plan)
        c->plan = *c->result->plan;
    return c;
}

// An open-corpus program (tests/corpus/tilelang-examples/REL) through the bank analysis on the portable
// backend, the one `tilec profile` measured it on.
std::unique_ptr<Compiled> compileCorpusProgram(const std::string& rel) {
    std::ifstream in(std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples/" + rel);
    std::stringstream text;
    text << in.rdbuf();
    return compileText(text.str(), targetSm90a());
}

std::string describe(const layout::SharedAccessPlan& a) {
    return a.role + " (" + a.instruction + ", " + std::to_string(a.hardware.conflictWays) +
           "-way, note: " + a.note + ")";
}

TEST(SampleBanks, GemmReluIsConflictFreeOnSm80) {
    auto c = compileSample("02_gemm_relu.py", targetSm80());
    ASSERT_TRUE(c->result->ok()) << c->result->formattedDiagnostics();
    ASSERT_FALSE(c->diagnostics.hasErrors())
        << formatDiagnostics(c->result->sources, c->diagnostics.diagnostics());
    ASSERT_EQ(c->plan.kernels.size(), 1u);
    const layout::KernelPlan& k = c->plan.kernels[0];
    // block 128x128x64: cp.async of A and B, ldmatrix of A and B, all in the 8-iteration pipelined loop.
    int ldmatrix = 0, cpAsync = 0;
    for (const layout::SharedAccessPlan& a : k.sharedAccesses) {
        EXPECT_EQ(a.hardware.conflictWays, 1) << describe(a);
        EXPECT_EQ(a.wavefrontsPerBlock, a.idealWavefrontsPerBlock) << describe(a);
        EXPECT_EQ(a.executionsPerBlock, 8) << describe(a);
        EXPECT_EQ(a.rowSpreadInstructionsPerBlock, 0) << describe(a);
        if (a.access.kind == SharedAccessKind::LdMatrix) {
            ++ldmatrix;
            // Rows of 64 fp16 are 128 B apart: without the swizzle every matrix is 8-way.
            EXPECT_EQ(a.hardwareUnswizzled.conflictWays, 8) << describe(a);
        }
        if (a.access.kind == SharedAccessKind::CpAsyncCg)
            ++cpAsync;
    }
    EXPECT_EQ(ldmatrix, 2);
    EXPECT_EQ(cpAsync, 2);
    layout::KernelBankTotals totals = layout::bankTotalsPerKernel(k);
    EXPECT_EQ(totals.opLd, totals.opLdIdeal);
    EXPECT_GT(totals.lsu.wavefrontsUnswizzled, totals.lsu.wavefronts);
    EXPECT_EQ(totals.blocks, 16); // 512/128 x 512/128
}

TEST(SampleBanks, MlaDecodeExchangeAndOperandsAreConflictFreeOnSm90a) {
    auto c = compileSample("07_mla_decode.py", targetSm90a());
    ASSERT_TRUE(c->result->ok()) << c->result->formattedDiagnostics();
    ASSERT_FALSE(c->diagnostics.hasErrors())
        << formatDiagnostics(c->result->sources, c->diagnostics.diagnostics());
    ASSERT_FALSE(c->plan.kernels.empty());
    const layout::KernelPlan& k = c->plan.kernels[0];
    bool exchange = false, wgmma = false;
    for (const layout::SharedAccessPlan& a : k.sharedAccesses) {
        EXPECT_EQ(a.hardware.conflictWays, 1) << describe(a);
        if (a.role.find("acc_s -> S_shared") != std::string::npos) {
            exchange = true;
            // Each warp's 8 row groups write the same 16-byte column chunk: 8-way without the swizzle.
            EXPECT_EQ(a.hardwareUnswizzled.conflictWays, 8) << describe(a);
            EXPECT_TRUE(a.isStore);
        }
        wgmma = wgmma || a.wgmmaOperand;
    }
    EXPECT_TRUE(exchange);
    EXPECT_TRUE(wgmma);
    std::string json = layout::printBankJson(c->plan, c->result->sources);
    EXPECT_NE(json.find("S_shared"), std::string::npos);
}

TEST(SampleBanks, CopiesAndLoopsCountTheInstructionsTheKernelExecutes) {
    // Measured on the GPU (docs/bank-analysis.md, "Agreement"): softmax's fp16 tile read into float32
    // registers is one 16-byte LDS per 8 elements (the memory side's vector, as TileLang and the emitted
    // code do), and RMSNorm's gamma, read twice through `v` in one T.Parallel body, is loaded once.
    auto softmax = compileSample("04_softmax.py", targetSm80());
    ASSERT_TRUE(softmax->result->ok());
    int tileReads = 0;
    for (const layout::SharedAccessPlan& a : softmax->plan.kernels.at(0).sharedAccesses)
        if (a.buffer && a.buffer->name == "x_shared" && !a.isStore) {
            ++tileReads;
            EXPECT_EQ(a.instruction, "LDS.128") << describe(a);
            EXPECT_EQ(a.hardware.conflictWays, 1) << describe(a);
        }
    EXPECT_EQ(tileReads, 2); // one per pass
    auto rmsnorm = compileSample("05_rmsnorm_silu.py", targetSm80());
    ASSERT_TRUE(rmsnorm->result->ok());
    int gammaReads = 0;
    for (const layout::SharedAccessPlan& a : rmsnorm->plan.kernels.at(0).sharedAccesses)
        gammaReads += a.buffer && a.buffer->name == "g" && !a.isStore ? 1 : 0;
    EXPECT_EQ(gammaReads, 1);
}

TEST(SampleBanks, AStagePickedAtRunTimeIsCopiedWithVectorsWhereTheLayoutRepeats) {
    // TileLang's barrier-pipelined GEMM example copies into `A_shared[ko % 2, :, :]`. The 128B swizzle
    // repeats from stage to stage, so whatever stage the program picks, each thread's 16 bytes stay
    // contiguous and aligned: the code generator emits 16-byte cp.async (conflict-free under the swizzle),
    // and the model says the same. (Before the layout's repetition was used, both copied element by element:
    // 2-byte stores, 4-way conflicts, 1,024 wavefronts per copy measured on the H100.)
    auto c = compileCorpusProgram("warp_specialize/example_warp_specialize_gemm_barrierpipe_stage2.py");
    ASSERT_TRUE(c->result->ok());
    int copies = 0;
    for (const layout::SharedAccessPlan& a : c->plan.kernels.at(0).sharedAccesses)
        if (a.isStore && a.buffer && (a.buffer->name == "A_shared" || a.buffer->name == "B_shared")) {
            ++copies;
            EXPECT_EQ(a.instruction, "LDGSTS.E.BYPASS.128") << describe(a);
            EXPECT_EQ(a.hardware.conflictWays, 1) << describe(a);
            EXPECT_EQ(a.note.find("element by element"), std::string::npos) << describe(a);
        }
    EXPECT_EQ(copies, 2);
}

std::string describeAll(const std::map<std::string, std::string>& m) {
    std::string text;
    for (const auto& [key, value] : m)
        text += "[" + key + "] " + value + "\n";
    return text;
}

TEST(SampleBanks, ARunTimeStartWhereTheSwizzleDoesNotRepeatIsCopiedElementByElement) {
    // Column blocks of a 128B-swizzled tile picked by a loop (tests/engine/codegen/programs/
    // runtime_copy_starts.py, whose code CpAsyncCodegenTest checks): at multiples of 64 columns (whole
    // swizzle atoms) and of 32 rows the layout repeats and the copies are vectors; at multiples of 32
    // columns the swizzle's XOR does not repeat, so the emitted code stores element by element and the
    // model says so.
    std::ifstream in(std::string(TILEBENCH_TESTS_DIR) + "/engine/codegen/programs/runtime_copy_starts.py");
    std::stringstream text;
    text << in.rdbuf();
    auto c = compileText(text.str(), targetSm80());
    ASSERT_TRUE(c->result->ok());
    // Each copy by the start of its destination tile ("0, j * 64" ...).
    std::map<std::string, std::string> instructionOfCopy;
    for (const layout::SharedAccessPlan& a : c->plan.kernels.at(0).sharedAccesses)
        if (a.isStore && a.op && a.op->kind == ir::StmtKind::Copy)
            instructionOfCopy[ir::printExpr(a.op->dst.mins[0]) + ", " + ir::printExpr(a.op->dst.mins[1])] =
                a.instruction;
    const std::string all = describeAll(instructionOfCopy);
    ASSERT_EQ(instructionOfCopy.size(), 3u) << all;
    EXPECT_EQ(instructionOfCopy["0, ja * 64"], "LDGSTS.E.BYPASS.128") << all;
    EXPECT_EQ(instructionOfCopy["jb * 32, 0"], "LDGSTS.E.BYPASS.128") << all;
    EXPECT_EQ(instructionOfCopy["0, jc * 32"], "STS.U16") << all;
}

TEST(SampleBanks, LoadsOfAStoreThatOnlyReplicaZeroRunsAreCountedOnce) {
    // TileLang's cumsum example scans a row of shared memory in a T.Parallel(1) loop over 256 threads:
    // every thread is a replica of the one iteration, and the emitted code runs the statement, loads
    // included, in replica 0 only (`if (rep == 0) G[i] = G[i] + G[i + 1];`): one warp's instructions.
    auto c = compileCorpusProgram("gdn/example_cumsum.py");
    ASSERT_TRUE(c->result->ok());
    int scanAccesses = 0;
    for (const layout::SharedAccessPlan& a : c->plan.kernels.at(0).sharedAccesses)
        if (a.role.find("T.Parallel") != std::string::npos) {
            ++scanAccesses;
            EXPECT_EQ(a.executionsPerBlock, 63) << describe(a);
            EXPECT_EQ(a.instructionsPerBlock, 63) << describe(a); // one warp, not all eight
        }
    EXPECT_EQ(scanAccesses, 3); // two loads and the store
}

TEST(SampleBanks, AnElementBroadcastAlongAThreadsRegistersIsLoadedOnce) {
    // TileLang's chunk_o example scales each row by exp(G_shared[i_s]) (line 126): every register of a
    // thread lies in one row, so the unrolled register loop loads the same address again and again and the
    // compiler keeps one load. Measured on the H100: 8 wavefronts a block, one LDS per warp.
    auto c = compileCorpusProgram("gdn/example_chunk_o.py");
    ASSERT_TRUE(c->result->ok());
    const layout::SharedAccessPlan* scale = nullptr;
    for (const layout::SharedAccessPlan& a : c->plan.kernels.at(0).sharedAccesses)
        if (a.buffer && a.buffer->name == "G_shared" && !a.isStore &&
            c->result->sources.lineOf(a.range) == 126)
            scale = &a;
    ASSERT_NE(scale, nullptr);
    EXPECT_EQ(scale->instructionsPerBlock, 8) << describe(*scale); // 256 threads: one per warp
    EXPECT_EQ(scale->wavefrontsPerBlock, 8) << describe(*scale);
}

TEST(ConditionalBanks, AccessesUnderADataDependentIfCarryTheirConditionAndBoundTheTotals) {
    // A block-sparse loop: the K tile is copied and read only for the blocks the mask keeps. TileBench
    // cannot know how many, so those accesses say so instead of counting every block (issue: 540,672
    // wavefronts predicted, 16,384 measured). A constant condition is decided.
    auto c = compileText(R"(
import tilelang
import tilelang.language as T

@T.prim_func
def main(Q: T.Tensor((64, 64), "float16"), K: T.Tensor((256, 64), "float16"), Mask: T.Tensor((4,), "int32"),
         O: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        Q_shared = T.alloc_shared((64, 64), "float16")
        K_shared = T.alloc_shared((64, 64), "float16")
        acc = T.alloc_fragment((64, 64), "float32")
        T.copy(Q, Q_shared)
        T.clear(acc)
        for k in T.serial(4):
            if Mask[k] != 0:
                T.copy(K[k * 64, 0], K_shared)
                T.gemm(Q_shared, K_shared, acc, transpose_B=True)
            if 1 > 2:
                T.copy(K[0, 0], K_shared)
        T.copy(acc, O)
)",
                         targetSm80());
    ASSERT_TRUE(c->result->ok()) << c->result->diagnostics.diagnostics().size();
    const layout::KernelPlan& kernel = c->plan.kernels.at(0);
    int conditional = 0, kCopies = 0;
    for (const layout::SharedAccessPlan& a : kernel.sharedAccesses) {
        bool inLoop = a.buffer && a.buffer->name == "K_shared";
        kCopies += inLoop && a.isStore ? 1 : 0;
        if (inLoop) {
            EXPECT_NE(a.condition.find("Mask[k]"), std::string::npos) << describe(a) << ": " << a.condition;
            EXPECT_EQ(a.executionsPerBlock, 4) << describe(a);
        } else if (a.buffer && a.buffer->name == "Q_shared" && a.isStore) {
            EXPECT_TRUE(a.condition.empty()) << a.condition; // the copy before the loop always runs
        }
        conditional += a.condition.empty() ? 0 : 1;
    }
    EXPECT_EQ(kCopies, 1); // the `if 1 > 2` copy is decided: never
    EXPECT_GT(conditional, 0);
    layout::KernelBankTotals totals = layout::bankTotalsPerKernel(kernel);
    EXPECT_EQ(totals.conditionalAccesses, conditional);
    std::string table = layout::printBankTable(c->plan, c->result->sources);
    EXPECT_NE(table.find("[if]"), std::string::npos) << table;
    EXPECT_NE(table.find("upper bounds"), std::string::npos) << table;
    std::string json = layout::printBankJson(c->plan, c->result->sources);
    EXPECT_NE(json.find("\"conditional\": true"), std::string::npos);
    EXPECT_NE(json.find("\"conditionalAccesses\": " + std::to_string(conditional)), std::string::npos);
}

TEST(ConditionalBanks, AGuardInsideAParallelLoopBoundsTheAccessesItGuards) {
    // A varlen attention's epilogue: each row of the shared output tile is stored only while it is inside
    // the sequence, whose length is read from memory (measured on the H100: 26% of the tile's loads ran).
    // Loads under such a per-element guard are a bound; the ones outside it, and a guard the compiler can
    // decide, are not.
    auto c = compileText(R"(
import tilelang
import tilelang.language as T

@T.prim_func
def main(X: T.Tensor((64, 64), "float16"), Lens: T.Tensor((4,), "int32"), O: T.Tensor((256, 64), "float16"),
         S: T.Tensor((64,), "float16")):
    with T.Kernel(4, threads=128) as bx:
        O_shared = T.alloc_shared((64, 64), "float16")
        T.copy(X, O_shared)
        length = Lens[bx]
        for i, d in T.Parallel(64, 64):
            if i < length:
                O[bx * 64 + i, d] = O_shared[i, d]
        for i in T.Parallel(64):
            if 2 > 1:
                S[i] = O_shared[i, 0]
)",
                         targetSm80());
    ASSERT_TRUE(c->result->ok());
    int guarded = 0, decided = 0;
    for (const layout::SharedAccessPlan& a : c->plan.kernels.at(0).sharedAccesses) {
        if (!a.buffer || a.isStore)
            continue;
        if (a.condition.find("length") != std::string::npos || a.condition.find("Lens") != std::string::npos)
            ++guarded;
        else if (a.condition.empty())
            ++decided;
    }
    EXPECT_EQ(guarded, 1); // the guarded row loads
    EXPECT_EQ(decided, 1); // the `if 2 > 1` loads run unconditionally
    EXPECT_EQ(layout::bankTotalsPerKernel(c->plan.kernels.at(0)).conditionalAccesses, 1);
}

TEST(SampleBanks, ScalarAccessesAreCountedAsTheEmittedCodeMakesThem) {
    // MInference's index loads, measured on the H100: a T.Parallel body with an if in it is emitted element
    // by element (4 scalar stores of a thread's 4 ints, 4-way conflicts at that stride), not as one 16-byte
    // store; and a load bound to a Python variable (`k = idx[3]`) is made by the statement that uses k,
    // inside its T.if_then_else, so the profiler counts it on that statement's line.
    auto c = compileText(R"(
import tilelang
import tilelang.language as T

@T.prim_func
def main(Idx: T.Tensor((1024,), "int32"), O: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=256) as bx:
        idx = T.alloc_shared((1024,), "int32")
        acc = T.alloc_fragment((64, 64), "float32")
        for vi in T.Parallel(1024):
            if vi < 1000:
                idx[vi] = Idx[vi]
        k = idx[3]
        for i, j in T.Parallel(64, 64):
            acc[i, j] = T.if_then_else(i >= k + j, 0, 1)
        T.copy(acc, O)
)",
                         targetSm80());
    ASSERT_TRUE(c->result->ok());
    bool sawStore = false, sawLoad = false;
    for (const layout::SharedAccessPlan& a : c->plan.kernels.at(0).sharedAccesses) {
        if (!a.buffer || a.buffer->name != "idx")
            continue;
        if (a.isStore) {
            sawStore = true;
            EXPECT_EQ(a.instruction, "STS") << describe(a);
            EXPECT_EQ(a.instructionsPerBlock, 32) << describe(a); // 8 warps x 4 elements each
            EXPECT_EQ(a.hardware.conflictWays, 4) << describe(a);
            EXPECT_NE(a.note.find("control flow in the loop body"), std::string::npos) << describe(a);
        } else {
            sawLoad = true;
            EXPECT_EQ(c->result->sources.lineOf(a.range), 15u)
                << describe(a); // acc[i, j] = ..., not k = (13)
        }
    }
    EXPECT_TRUE(sawStore);
    EXPECT_TRUE(sawLoad);
}

TEST(SampleBanks, AnAtomicAddFromASharedTileReadsItElementByElement) {
    // The linear attentions' `T.atomic_add(O[...], o_shared)`: the code reads the shared tile one float per
    // thread and step in PlanLoopPartition's order (32 consecutive floats a warp: one wavefront), which the
    // hardware counted (2,097,152 wavefronts for 1,024 blocks x 16 chunks on the H100) and the model now
    // does too; before, the atomic add was not modelled.
    auto c = compileText(R"(
import tilelang
import tilelang.language as T

@T.prim_func
def main(X: T.Tensor((64, 64), "float32"), O: T.Tensor((256, 64), "float32")):
    with T.Kernel(4, threads=128) as bx:
        o_shared = T.alloc_shared((64, 64), "float32")
        T.copy(X, o_shared)
        T.atomic_add(O[bx * 64:(bx + 1) * 64, 0:64], o_shared)
)",
                         targetSm80());
    ASSERT_TRUE(c->result->ok());
    int reads = 0;
    for (const layout::SharedAccessPlan& a : c->plan.kernels.at(0).sharedAccesses)
        if (a.buffer && a.buffer->name == "o_shared" && !a.isStore) {
            ++reads;
            EXPECT_EQ(a.instruction, "LDS") << describe(a);
            EXPECT_EQ(a.instructionsPerBlock, 128) << describe(a); // 4 warps x 32 elements a thread
            EXPECT_EQ(a.wavefrontsPerBlock, 128) << describe(a);
            EXPECT_TRUE(a.condition.empty()) << a.condition; // the tile lies inside O
        }
    EXPECT_EQ(reads, 1);
}

TEST(ConditionalBanks, AStoreOfATileThatMayCrossTheTensorsEdgeIsABound) {
    // The convolution example stores a 128x256 tile into a tensor 128 columns wide: the emitted guard skips
    // the shared loads of the out-of-range half (measured: half the static count). A tile that divides the
    // tensor is exact.
    auto store = [](int64_t columns) {
        return compileText(R"(
import tilelang
import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((128, 256), "float16"), B: T.Tensor((128, )" +
                               std::to_string(columns) + R"(), "float16")):
    with T.Kernel(1, threads=128) as bx:
        A_shared = T.alloc_shared((128, 256), "float16")
        T.copy(A, A_shared)
        T.copy(A_shared, B[0, bx * 256])
)",
                           targetSm80());
    };
    for (int64_t columns : {128, 256}) {
        auto c = store(columns);
        ASSERT_TRUE(c->result->ok()) << columns;
        bool sawLoad = false;
        for (const layout::SharedAccessPlan& a : c->plan.kernels.at(0).sharedAccesses)
            if (a.buffer && a.buffer->name == "A_shared" && !a.isStore) {
                sawLoad = true;
                EXPECT_EQ(a.condition.empty(), columns == 256) << columns << ": " << a.condition;
            }
        EXPECT_TRUE(sawLoad) << columns;
    }
}

} // namespace
} // namespace tb::test
