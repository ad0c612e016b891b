// The sampled CPU check of large grids (engine/run/SampledCheck.h): which blocks run, that the interpreter
// and the JIT run the same ones and write exactly their elements, and when a program must be checked whole.
#include "engine/run/SampledCheck.h"

#include "CodegenTestSupport.h"
#include "engine/exec/Executor.h"
#include "engine/ir/IrQueries.h"
#include "engine/jit/ProgramExecution.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace tb;
using namespace tb::codegen::test;

namespace {

// 2048 blocks of 128 elements each: block b writes C[b * 128 .. b * 128 + 127] = A + 1.
std::string wideProgram(bool atomic) {
    return std::string("import tilelang.language as T\n"
                       "\n"
                       "@T.prim_func\n"
                       "def wide(A: T.Tensor((262144,), \"float32\"), C: T.Tensor((262144,), \"float32\")):\n"
                       "    with T.Kernel(2048, threads=128) as bx:\n"
                       "        for i in T.Parallel(128):\n") +
           (atomic ? "            T.atomic_add(C[bx * 128 + i], A[bx * 128 + i])\n"
                   : "            C[bx * 128 + i] = A[bx * 128 + i] + 1.0\n");
}

TEST(SampledCheck, BlocksAreSpreadEvenlyWithTheFirstAndTheLast) {
    EXPECT_EQ(sampledBlocks(10, 4), (std::vector<int64_t>{0, 3, 6, 9}));
    EXPECT_EQ(sampledBlocks(5, 0), (std::vector<int64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(sampledBlocks(3, 8), (std::vector<int64_t>{0, 1, 2}));
    EXPECT_EQ(sampledBlocks(100, 1), (std::vector<int64_t>{0}));
}

TEST(SampledCheck, TheInterpreterAndTheJitRunTheSameBlocksAndWriteOnlyTheirElements) {
    PlannedProgram p = planProgram("wide.py", wideProgram(false));
    ASSERT_TRUE(p.ok()) << p.planErrors;
    const ir::PrimFunc& f = p.result->module->funcs.at(0);
    run::OracleSample sample = run::chooseOracleSample(*p.result->module, f, {}, -1);
    EXPECT_EQ(sample.gridBlocks, 2048);
    EXPECT_EQ(sample.blocks, run::kAutoSampledBlocks);
    EXPECT_TRUE(sample.whyNot.empty());
    std::vector<int64_t> blocks = sampledBlocks(2048, 16);
    for (CpuBackend backend : {CpuBackend::Interpreter, CpuBackend::Jit}) {
        if (backend == CpuBackend::Jit && !cpuJitAvailable())
            continue;
        SCOPED_TRACE(cpuBackendName(backend));
        DiagnosticEngine diags;
        std::vector<HostTensor> params = allocateParams(f, {}, 3, diags);
        ASSERT_EQ(run::sentinelRuns(params, {false, true}), 1); // a float output: NaN, one run
        run::fillSentinels(params, {false, true}, 0);
        ProgramExecutionOptions options;
        options.backend = backend;
        options.limits.blockSample = 16;
        ASSERT_TRUE(executeProgram(*p.result->module, f, params, {}, diags, options));
        int64_t written = 0;
        for (int64_t e = 0; e < 262144; ++e) {
            const bool sampled = std::find(blocks.begin(), blocks.end(), e / 128) != blocks.end();
            const double c = params[1].data[size_t(e)];
            if (!sampled) {
                ASSERT_TRUE(std::isnan(c)) << "element " << e << " of an unsampled block";
                continue;
            }
            ++written;
            ASSERT_FLOAT_EQ(float(c), float(params[0].data[size_t(e)] + 1.0)) << "element " << e;
        }
        EXPECT_EQ(written, 16 * 128);
        HostTensor gpu = params[1];
        gpu.data.assign(gpu.data.size(), 5.0);
        EXPECT_EQ(run::maskUnsampled(gpu, params[1], run::writtenElements({&params[1]})), 16 * 128);
        EXPECT_TRUE(std::isnan(gpu.data[128])) << "an unsampled element takes the oracle's value";
        EXPECT_EQ(gpu.data[0], 5.0) << "a sampled element keeps the GPU's";
    }
}

// An integer output cannot hold NaN: two sentinel runs (0, then 1) tell the written elements, even where a
// sampled block writes 0 or 1 itself.
TEST(SampledCheck, TwoSentinelRunsFindTheElementsOfAnIntegerOutput) {
    const std::string program =
        "import tilelang.language as T\n"
        "\n"
        "@T.prim_func\n"
        "def parity(A: T.Tensor((262144,), \"int32\"), C: T.Tensor((262144,), \"int32\")):\n"
        "    with T.Kernel(2048, threads=128) as bx:\n"
        "        for i in T.Parallel(128):\n"
        "            C[bx * 128 + i] = A[bx * 128 + i] % 2\n";
    PlannedProgram p = planProgram("parity.py", program);
    ASSERT_TRUE(p.ok()) << p.planErrors;
    const ir::PrimFunc& f = p.result->module->funcs.at(0);
    const std::vector<int64_t> blocks = sampledBlocks(2048, 16);
    for (CpuBackend backend : {CpuBackend::Interpreter, CpuBackend::Jit}) {
        if (backend == CpuBackend::Jit && !cpuJitAvailable())
            continue;
        SCOPED_TRACE(cpuBackendName(backend));
        DiagnosticEngine diags;
        const std::vector<HostTensor> params = allocateParams(f, {}, 3, diags);
        ASSERT_EQ(run::sentinelRuns(params, {false, true}), 2);
        std::vector<std::vector<HostTensor>> runs;
        for (int r = 0; r < 2; ++r) {
            std::vector<HostTensor>& outputs = runs.emplace_back(params);
            run::fillSentinels(outputs, {false, true}, r);
            ProgramExecutionOptions options;
            options.backend = backend;
            options.limits.blockSample = 16;
            ASSERT_TRUE(executeProgram(*p.result->module, f, outputs, {}, diags, options));
        }
        const std::vector<bool> written = run::writtenElements({&runs[0][1], &runs[1][1]});
        int64_t zerosAndOnesWritten = 0;
        for (int64_t e = 0; e < 262144; ++e) {
            const bool sampled = std::find(blocks.begin(), blocks.end(), e / 128) != blocks.end();
            ASSERT_EQ(written[size_t(e)], sampled) << "element " << e;
            zerosAndOnesWritten += sampled;
        }
        EXPECT_EQ(zerosAndOnesWritten, 16 * 128);
        HostTensor gpu = runs[0][1];
        gpu.data.assign(gpu.data.size(), 7);
        EXPECT_EQ(run::maskUnsampled(gpu, runs[0][1], written), 16 * 128);
        EXPECT_EQ(gpu.data[128], 0) << "an unsampled element takes the oracle's sentinel";
    }
}

TEST(SampledCheck, AtomicsAndSmallGridsAreCheckedWhole) {
    PlannedProgram atomic = planProgram("wide_atomic.py", wideProgram(true));
    ASSERT_TRUE(atomic.ok()) << atomic.planErrors;
    run::OracleSample s =
        run::chooseOracleSample(*atomic.result->module, atomic.result->module->funcs.at(0), {}, -1);
    EXPECT_EQ(s.blocks, 0);
    EXPECT_NE(s.whyNot.find("atomic"), std::string::npos) << s.whyNot;
    PlannedProgram small = planSample("01_elementwise_add.py", {{"M", "64"}, {"N", "128"}});
    ASSERT_TRUE(small.ok());
    run::OracleSample t =
        run::chooseOracleSample(*small.result->module, small.result->module->funcs.at(0), {}, -1);
    EXPECT_EQ(t.blocks, 0);
    EXPECT_TRUE(t.whyNot.empty());
    // Asked for explicitly, a small grid is sampled too.
    EXPECT_EQ(run::chooseOracleSample(*small.result->module, small.result->module->funcs.at(0), {}, 2).blocks,
              t.gridBlocks > 2 ? 2 : 0);
}

// Blocks that wait for each other at a grid barrier read what other blocks wrote: checked whole, even when a
// sample is asked for, with the reason.
TEST(SampledCheck, AKernelWithAGridBarrierIsCheckedWhole) {
    PlannedProgram p = planTestProgram("grid_barrier.py", {{"blocks", "1056"}});
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    const ir::PrimFunc& f = p.result->module->funcs.at(0);
    for (int64_t requested : {int64_t(-1), int64_t(2)}) {
        run::OracleSample s = run::chooseOracleSample(*p.result->module, f, {}, requested);
        EXPECT_EQ(s.gridBlocks, 1056);
        EXPECT_EQ(s.blocks, 0) << requested;
        EXPECT_NE(s.whyNot.find("grid barrier (T.sync_grid)"), std::string::npos) << s.whyNot;
    }
}

TEST(SampledCheck, AnOutputReadThroughAViewIsCheckedWhole) {
    // C[b] = C viewed flat [b - 1] + A[b]: each block reads what another block wrote, through a view of C.
    const std::string program = "import tilelang.language as T\n"
                                "\n"
                                "@T.prim_func\n"
                                "def chained(A: T.Tensor((2048, 128), \"float32\"), C: T.Tensor((2048, 128), "
                                "\"float32\")):\n"
                                "    with T.Kernel(2048, threads=128) as bx:\n"
                                "        c_flat = T.Tensor((262144,), \"float32\", C.data)\n"
                                "        for i in T.Parallel(128):\n"
                                "            C[bx, i] = c_flat[T.max(bx * 128 + i - 128, 0)] + A[bx, i]\n";
    PlannedProgram p = planProgram("chained.py", program);
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    const ir::PrimFunc& f = p.result->module->funcs.at(0);
    EXPECT_EQ(ir::producedParams(f), (std::vector<bool>{false, true}));
    run::OracleSample s = run::chooseOracleSample(*p.result->module, f, {}, -1);
    EXPECT_EQ(s.blocks, 0);
    EXPECT_EQ(s.whyNot, "it reads its output 'C'");
}

} // namespace
