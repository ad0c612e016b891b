// T.ws scopes that run concurrently on the GPU (a producer and a consumer ordered by the program's
// mbarriers) run on the CPU executor as cooperating scopes that switch at an unsatisfied wait: a ring whose
// consumer comes first in program order, a protocol that can never complete (a diagnostic, not a hang),
// TileLang's FlashMLA ping-pong and MInference's 2-stage K/V ring at more blocks than stages. The JIT does
// not lower them and says so.
#include "CodegenTestSupport.h"
#include "engine/exec/Executor.h"
#include "engine/jit/ProgramExecution.h"
#include "engine/run/CpuRun.h"
#include "engine/run/RunReport.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace tb;
using namespace tb::codegen::test;

namespace {

struct ProgramRun {
    bool ok = false;
    std::vector<HostTensor> params;
    std::string diagnostics;
    ProgramExecutionReport report;
};

// Runs the program's first prim_func on `params` (allocated with seed 1 when empty) with `backend`.
ProgramRun runProgram(const PlannedProgram& p, CpuBackend backend, std::vector<HostTensor> params = {}) {
    ProgramRun r;
    const ir::PrimFunc& func = p.result->module->funcs.front();
    DiagnosticEngine diags;
    r.params = params.empty() ? allocateParams(func, {}, 1, diags) : std::move(params);
    ProgramExecutionOptions options;
    options.backend = backend;
    r.ok = executeProgram(*p.result->module, func, r.params, {}, diags, options, nullptr, &r.report);
    r.diagnostics = formatDiagnostics(p.result->sources, diags.diagnostics());
    return r;
}

} // namespace

// The consumer scope is first in program order: it waits for stage k % 2 to be filled by the producer,
// which comes after it. B = 2 * A + k exactly (one rounding of an exact product plus a small integer).
TEST(ConcurrentScopes, ARingWhoseConsumerComesFirstComputesEveryTile) {
    PlannedProgram p = planInterpreterProgram("ws_ring_consumer_first.py");
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    for (CpuBackend backend : {CpuBackend::Interpreter, CpuBackend::Auto}) {
        ProgramRun r = runProgram(p, backend);
        ASSERT_TRUE(r.ok) << r.diagnostics;
        const HostTensor& A = r.params[0];
        const HostTensor& B = r.params[1];
        ASSERT_EQ(B.data.size(), 6u * 64u);
        for (size_t e = 0; e < B.data.size(); ++e) {
            const double k = static_cast<double>(e / 64);
            ASSERT_EQ(B.data[e], roundToDType(A.data[e] * 2 + k, ir::DType::Float32)) << "element " << e;
        }
        EXPECT_EQ(r.report.used, CpuBackend::Interpreter);
    }
}

// The JIT runs a block straight through and cannot switch scopes at a wait: it falls back, saying why, and a
// JIT-only run is an error, not a silently serialized result.
TEST(ConcurrentScopes, TheJitFallsBackToTheInterpreterWithANote) {
    PlannedProgram p = planInterpreterProgram("ws_ring_consumer_first.py");
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    if (!cpuJitAvailable())
        GTEST_SKIP() << "built without the CPU JIT";
    ProgramRun automatic = runProgram(p, CpuBackend::Auto);
    ASSERT_TRUE(automatic.ok) << automatic.diagnostics;
    EXPECT_NE(automatic.report.fallbackNote.find("T.ws scopes that run concurrently"), std::string::npos)
        << automatic.report.fallbackNote;
    ProgramRun jitOnly = runProgram(p, CpuBackend::Jit);
    EXPECT_FALSE(jitOnly.ok);
    EXPECT_NE(jitOnly.diagnostics.find("T.ws scopes that run concurrently"), std::string::npos)
        << jitOnly.diagnostics;
}

// Each scope waits first for a phase that only the other completes after its own wait: the executor says
// which scope waits on which mbarrier where, and returns.
TEST(ConcurrentScopes, ScopesThatWaitForEachOtherAreADeadlockDiagnostic) {
    PlannedProgram p = planInterpreterProgram("ws_mbarrier_deadlock.py");
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    ProgramRun r = runProgram(p, CpuBackend::Auto);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.diagnostics.find("[execution-mbarrier-deadlock]"), std::string::npos) << r.diagnostics;
    EXPECT_NE(r.diagnostics.find("ws(0) (threads 0..127) waits for mbarrier first[0], parity 0"),
              std::string::npos)
        << r.diagnostics;
    EXPECT_NE(r.diagnostics.find("ws(1) (threads 128..255) waits for mbarrier second[0], parity 0"),
              std::string::npos)
        << r.diagnostics;
    EXPECT_NE(r.diagnostics.find("ws_mbarrier_deadlock.py:18:"), std::string::npos) << r.diagnostics;
    EXPECT_NE(r.diagnostics.find("ws_mbarrier_deadlock.py:23:"), std::string::npos) << r.diagnostics;
}

// TileLang's FlashMLA with two consumer warpgroups that ping-pong the softmax through shared memory: ws(0)
// waits on mbarriers that ws(1), later in program order, arrives. It computes the MLA decode (its parameters
// are the mla_decode reference's), at two lengths of the KV cache.
TEST(ConcurrentScopes, FlashMlaPingPongComputesTheMlaDecode) {
    const std::string file = "warp_specialize/example_warp_specialize_flashmla.py";
    const std::string text =
        readFile(std::string(TILEBENCH_TESTS_DIR) + "/corpus/tilelang-examples/" + file) +
        "\n# tilebench-reference: mla_decode\n";
    for (const char* seqlen : {"256", "512"}) {
        SCOPED_TRACE(seqlen);
        PlannedProgram p = planProgram(file, text, {{"batch", "1"}, {"heads", "64"}, {"seqlen_kv", seqlen}});
        ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
        run::CpuRunResult r = run::runOnCpu(*p.result);
        ASSERT_TRUE(r.executed) << r.error;
        EXPECT_TRUE(r.checked) << r.error;
        EXPECT_TRUE(r.ok) << run::describeCpuRun(r).text();
    }
}

namespace {

// MInference's vertical-slash attention of one query row, by hand: softmax over the keys of its slash
// blocks (causal within each block) and its vertical columns (every one), a key counted once per time it is
// selected, in double precision.
std::vector<double> verticalSlashRow(const std::vector<HostTensor>& t, int64_t row, int64_t dim) {
    const HostTensor &Q = t[0], &K = t[1], &V = t[2];
    const HostTensor &count = t[4], &offset = t[5], &columns = t[6], &index = t[7];
    const int64_t bx = row / 64;
    std::vector<int64_t> keys;
    for (int64_t bi = 0; bi < static_cast<int64_t>(count.at({0, 0, bx})); ++bi) {
        const int64_t k = static_cast<int64_t>(offset.at({0, 0, bx, bi}));
        for (int64_t j = 0; j < 64; ++j)
            if (row >= k + j)
                keys.push_back(k + j);
    }
    for (int64_t c = 0; c < static_cast<int64_t>(columns.at({0, 0, bx})); ++c)
        keys.push_back(static_cast<int64_t>(index.at({0, 0, bx, c})));
    std::vector<double> scores;
    double top = -INFINITY;
    for (int64_t key : keys) {
        double s = 0;
        for (int64_t d = 0; d < dim; ++d)
            s += Q.at({0, 0, row, d}) * K.at({0, 0, key, d});
        scores.push_back(s / std::sqrt(double(dim)));
        top = std::max(top, scores.back());
    }
    std::vector<double> out(static_cast<size_t>(dim), 0.0);
    double sum = 0;
    for (size_t n = 0; n < keys.size(); ++n) {
        const double p = std::exp(scores[n] - top);
        sum += p;
        for (int64_t d = 0; d < dim; ++d)
            out[size_t(d)] += p * V.at({0, 0, keys[n], d});
    }
    for (double& o : out)
        o /= sum;
    return out;
}

} // namespace

// TileLang's MInference kernel: the producer scope, first in program order, loads K and V of each slash
// block into a 2-stage ring that the consumer scope reads. Each query block here has up to 8 slash blocks at
// distinct offsets (so a stage overwritten before it is read changes the result) and some vertical columns;
// every output row is checked against the attention over exactly the keys it selects.
TEST(ConcurrentScopes, MInferenceRingComputesTheVerticalSlashAttention) {
    const std::string file = "minference/example_vertical_slash_sparse_attn.py";
    PlannedProgram p = planCorpusProgram(file, {{"batch", "1"},
                                                {"heads", "1"},
                                                {"seq_len", "256"},
                                                {"dim", "64"},
                                                {"vertical_size", "64"},
                                                {"slash_size", "8"}});
    ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
    const ir::PrimFunc& func = p.result->module->funcs.front();
    DiagnosticEngine diags;
    std::vector<HostTensor> params = allocateParams(func, {}, 7, diags);
    ASSERT_EQ(params.size(), 8u) << formatDiagnostics(p.result->sources, diags.diagnostics());
    // Slash blocks at offsets up to the query block's start (every row keeps a key, as MInference's
    // diagonal block does), vertical columns anywhere.
    std::mt19937 random(11);
    auto pick = [&](int64_t lo, int64_t hi) {
        return double(std::uniform_int_distribution<int64_t>(lo, hi)(random));
    };
    int64_t slashBlocks = 0;
    for (int64_t bx = 0; bx < 4; ++bx) {
        params[4].at({0, 0, bx}) = bx == 0 ? 8 : pick(3, 8);
        for (int64_t s = 0; s < 8; ++s)
            params[5].at({0, 0, bx, s}) = bx == 0 ? 0 : pick(0, bx * 64);
        params[6].at({0, 0, bx}) = pick(1, 64);
        for (int64_t c = 0; c < 64; ++c)
            params[7].at({0, 0, bx, c}) = pick(0, 255);
        slashBlocks += static_cast<int64_t>(params[4].at({0, 0, bx}));
    }
    ASSERT_GT(slashBlocks, 4 * 2);
    ProgramRun r = runProgram(p, CpuBackend::Auto, params);
    ASSERT_TRUE(r.ok) << r.diagnostics;
    const HostTensor& out = r.params[3];
    int64_t compared = 0;
    for (int64_t row = 0; row < 256; ++row) {
        const std::vector<double> expected = verticalSlashRow(r.params, row, 64);
        for (int64_t d = 0; d < 64; ++d, ++compared) {
            const double got = out.at({0, 0, row, d});
            ASSERT_FALSE(std::isnan(got)) << "row " << row << " d " << d;
            // float16 inputs, probabilities and output: a few float16 ulps of values below 1.
            ASSERT_NEAR(got, expected[size_t(d)], 4e-3) << "row " << row << " d " << d;
        }
    }
    EXPECT_EQ(compared, 256 * 64);
}
