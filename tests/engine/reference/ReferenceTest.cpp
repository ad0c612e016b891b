// Tests of the naive references (engine/reference/): each one on tiny inputs with hand-computed results,
// the shape and flag errors they report, the output-marking rule, the MLA split partials combining into
// the unsplit result, and the `# tilebench-reference:` directive (including that every bundled sample
// names a registered reference).
#include "engine/reference/Reference.h"

#include "engine/reference/ReferenceSupport.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace tb {
namespace {

using ir::DType;

HostTensor tensor(std::string name, DType dtype, std::vector<int64_t> shape,
                  std::vector<double> values = {}) {
    HostTensor t(std::move(name), dtype, std::move(shape));
    if (!values.empty()) {
        EXPECT_EQ(values.size(), t.data.size()) << "test data for " << t.name;
        t.data = std::move(values);
    }
    return t;
}

void setSpec(ir::Module& module, std::string name,
             std::variant<std::monostate, int64_t, double, bool, std::string> value) {
    ir::SpecializationParam p;
    p.name = std::move(name);
    p.value = std::move(value);
    module.specialization.push_back(std::move(p));
}

struct RunResult {
    bool ok = false;
    std::map<int, HostTensor> expected;
    std::string error;
};

RunResult run(std::string_view name, const std::vector<HostTensor>& params, const ir::Module& module,
              const ir::PrimFunc* func = nullptr) {
    const Reference* ref = findReference(name);
    EXPECT_NE(ref, nullptr) << name;
    RunResult result;
    if (!ref)
        return result;
    ReferenceInvocation invocation{params, module, func};
    result.ok = ref->compute(invocation, result.expected, result.error);
    return result;
}

void expectValues(const HostTensor& t, const std::vector<double>& values, double tolerance = 1e-12) {
    ASSERT_EQ(t.data.size(), values.size()) << t.name;
    for (size_t i = 0; i < values.size(); ++i)
        EXPECT_NEAR(t.data[i], values[i], tolerance) << t.name << " element " << i;
}

// --- registry and directive ------------------------------------------------------------------------

// The references' row exponential: libm's value to 1e-15 relative over the whole double range of
// finite results, and libm's own results for NaN, infinities and |x| > 700.
TEST(ReferenceExp, MatchesLibmToAFewUlps) {
    std::vector<double> x;
    for (int i = 0; i <= 200000; ++i)
        x.push_back(-745.0 + 1455.0 * i / 200000.0);
    for (double special : {0.0, -0.0, 1.0, -1.0, 700.0, -700.0, 700.5, -744.9, 709.7, 710.0, 1e300, -1e300,
                           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), 1e-300, -1e-18})
        x.push_back(special);
    std::vector<double> out(x.size());
    reference::expRow(x.data(), out.data(), int64_t(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
        const double want = std::exp(x[i]);
        if (std::isnan(want) || std::isinf(want) || want == 0 || std::fabs(x[i]) > 700) {
            EXPECT_TRUE(std::isnan(want) ? std::isnan(out[i]) : out[i] == want) << "exp(" << x[i] << ")";
            continue;
        }
        ASSERT_LE(std::fabs(out[i] - want), 1e-15 * want) << "exp(" << x[i] << ")";
    }
}

TEST(ReferenceRegistry, ListsEveryReferenceSortedWithTolerances) {
    const std::vector<std::string> names = referenceNames();
    const std::vector<std::string> want = {"elementwise_add", "flash_attention", "gemm",
                                           "gemm_nt",         "gemm_relu",       "gemm_transpose",
                                           "mla_decode",      "rmsnorm_silu",    "softmax"};
    EXPECT_EQ(names, want);
    for (const std::string& name : names) {
        const Reference* ref = findReference(name);
        ASSERT_NE(ref, nullptr);
        EXPECT_EQ(ref->name, name);
        EXPECT_FALSE(ref->summary.empty()) << name;
        EXPECT_GT(ref->atol, 0) << name;
        EXPECT_GT(ref->rtol, 0) << name;
        EXPECT_TRUE(static_cast<bool>(ref->compute)) << name;
    }
    EXPECT_EQ(findReference("no_such_reference"), nullptr);
}

TEST(ReferenceDirective, ParsesTheCommentLine) {
    EXPECT_EQ(referenceDirective("# tilebench-reference: gemm_relu\nimport tilelang\n"), "gemm_relu");
    EXPECT_EQ(referenceDirective("# what it teaches\n#   tilebench-reference:softmax  \r\nx = 1\n"),
              "softmax");
    EXPECT_EQ(referenceDirective("import x\n    # tilebench-reference: late_one"), "late_one");
    EXPECT_EQ(referenceDirective("# tilebench-reference: first\n# tilebench-reference: second\n"), "first");
}

TEST(ReferenceDirective, IgnoresNonDirectives) {
    EXPECT_EQ(referenceDirective(""), std::nullopt);
    EXPECT_EQ(referenceDirective("# a plain comment\nx = 1\n"), std::nullopt);
    EXPECT_EQ(referenceDirective("x = 1  # tilebench-reference: not_a_comment_line\n"), std::nullopt);
    EXPECT_EQ(referenceDirective("s = '# tilebench-reference: in_a_string'\n"), std::nullopt);
    EXPECT_EQ(referenceDirective("# tilebench-reference:   \n"), std::nullopt);
    EXPECT_EQ(referenceDirective("# tilebench-references: plural\n"), std::nullopt);
}

TEST(ReferenceDirective, EverySampleNamesARegisteredReferenceAndEveryReferenceHasASample) {
    std::set<std::string> used;
    int samples = 0;
    for (const auto& entry : std::filesystem::directory_iterator(TILEBENCH_SAMPLES_DIR)) {
        if (entry.path().extension() != ".py")
            continue;
        ++samples;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        const std::optional<std::string> name = referenceDirective(text.str());
        ASSERT_TRUE(name.has_value()) << entry.path();
        EXPECT_NE(findReference(*name), nullptr) << entry.path() << " names " << *name;
        used.insert(*name);
    }
    EXPECT_EQ(samples, 7);
    // "gemm" and "gemm_nt" check TileLang's own GEMM examples
    // (CpuRun.WarpSpecializedCorpusGemmsComputeTheProduct, CpuRun.Float8CorpusGemmComputesTheProduct).
    used.insert("gemm");
    used.insert("gemm_nt");
    for (const std::string& name : referenceNames())
        EXPECT_TRUE(used.count(name)) << "no sample uses " << name;
}

// --- elementwise -----------------------------------------------------------------------------------

TEST(ElementwiseAddReference, AddsAndRoundsOnceToTheOutputDType) {
    ir::Module module;
    std::vector<HostTensor> params = {tensor("A", DType::Float32, {2, 2}, {1, 2, 3, 1}),
                                      tensor("B", DType::Float32, {2, 2}, {10, 20, 30, std::ldexp(1.0, -11)}),
                                      tensor("C", DType::Float32, {2, 2})};
    RunResult r = run("elementwise_add", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.expected.size(), 1u);
    expectValues(r.expected.at(2), {11, 22, 33, 1 + std::ldexp(1.0, -11)});
    EXPECT_EQ(r.expected.at(2).dtype, DType::Float32);

    // 1 + 2^-11 is halfway between two float16 values: round to even gives 1.
    params[2] = tensor("C", DType::Float16, {2, 2});
    r = run("elementwise_add", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(2), {11, 22, 33, 1});
}

TEST(ElementwiseAddReference, RejectsMismatchedShapes) {
    ir::Module module;
    std::vector<HostTensor> params = {tensor("A", DType::Float32, {2, 2}),
                                      tensor("B", DType::Float32, {2, 3}),
                                      tensor("C", DType::Float32, {2, 2})};
    RunResult r = run("elementwise_add", params, module);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("'B' (1) has shape [2, 3], expected [2, 2]"), std::string::npos) << r.error;

    r = run("elementwise_add", {params[0], params[0]}, module);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("expected 3 parameters"), std::string::npos) << r.error;
}

// --- GEMM ------------------------------------------------------------------------------------------

TEST(GemmReluReference, TwoByTwoWithNegativeEntriesClampedToZero) {
    // [1 2; 3 4] @ [5 6; 7 -8] = [19 -10; 43 -14] -> relu -> [19 0; 43 0]
    ir::Module module;
    std::vector<HostTensor> params = {tensor("A", DType::Float16, {2, 2}, {1, 2, 3, 4}),
                                      tensor("B", DType::Float16, {2, 2}, {5, 6, 7, -8}),
                                      tensor("C", DType::Float16, {2, 2})};
    RunResult r = run("gemm_relu", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(2), {19, 0, 43, 0});
}

TEST(GemmReluReference, NonSquareShapes) {
    // [1 2 3; 4 5 6] @ [1; 0; -1] = [-2; -2] -> relu -> 0; with [1; 1; 1]: [6; 15]
    ir::Module module;
    std::vector<HostTensor> params = {tensor("A", DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                                      tensor("B", DType::Float32, {3, 2}, {1, 1, 0, 1, -1, 1}),
                                      tensor("C", DType::Float32, {2, 2})};
    RunResult r = run("gemm_relu", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(2), {0, 6, 0, 15});

    params[1] = tensor("B", DType::Float32, {2, 2});
    r = run("gemm_relu", params, module);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("'B' (1) has shape [2, 2], expected [3, 2]"), std::string::npos) << r.error;
}

TEST(GemmTransposeReference, AllFourLayoutsGiveTheSameProduct) {
    // op(A) = [1 2; 3 4], op(B) = [5 6; 7 -8]: product [19 -10; 43 -14] (no relu here).
    const std::vector<double> a = {1, 2, 3, 4}, aT = {1, 3, 2, 4};
    const std::vector<double> b = {5, 6, 7, -8}, bT = {5, 7, 6, -8};
    for (bool transA : {false, true}) {
        for (bool transB : {false, true}) {
            ir::Module module;
            setSpec(module, "trans_A", transA);
            setSpec(module, "trans_B", transB);
            std::vector<HostTensor> params = {tensor("A", DType::Float16, {2, 2}, transA ? aT : a),
                                              tensor("B", DType::Float16, {2, 2}, transB ? bT : b),
                                              tensor("C", DType::Float16, {2, 2})};
            RunResult r = run("gemm_transpose", params, module);
            ASSERT_TRUE(r.ok) << r.error;
            expectValues(r.expected.at(2), {19, -10, 43, -14});
        }
    }
}

TEST(GemmTransposeReference, ShapesFollowTheFlags) {
    // trans_A: A is (K, M) = (3, 1); trans_B: B is (N, K) = (2, 3). op(A) = [1 2 3], op(B) = [1 0; 0 1; 1 1].
    ir::Module module;
    setSpec(module, "trans_A", true);
    setSpec(module, "trans_B", int64_t(1)); // an integer flag counts as a bool
    std::vector<HostTensor> params = {tensor("A", DType::Float32, {3, 1}, {1, 2, 3}),
                                      tensor("B", DType::Float32, {2, 3}, {1, 0, 1, 0, 1, 1}),
                                      tensor("C", DType::Float32, {1, 2})};
    RunResult r = run("gemm_transpose", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(2), {4, 5});
}

TEST(GemmNtReference, MultipliesByBTransposed) {
    // A = [1 2; 3 4], B stored [N][K] = [5 7; 6 -8] (so B^T = [5 6; 7 -8]): [19 -10; 43 -14].
    ir::Module module;
    std::vector<HostTensor> params = {tensor("A", DType::Float8E4M3, {2, 2}, {1, 2, 3, 4}),
                                      tensor("B", DType::Float8E4M3, {2, 2}, {5, 7, 6, -8}),
                                      tensor("C", DType::Float32, {2, 2})};
    RunResult r = run("gemm_nt", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(2), {19, -10, 43, -14});
    params[1] = tensor("B", DType::Float8E4M3, {3, 2}); // N = 3 does not match C's 2 columns
    EXPECT_FALSE(run("gemm_nt", params, module).ok);
}

TEST(GemmTransposeReference, MissingFlagIsAnError) {
    ir::Module module;
    setSpec(module, "trans_A", false);
    std::vector<HostTensor> params = {tensor("A", DType::Float32, {2, 2}),
                                      tensor("B", DType::Float32, {2, 2}),
                                      tensor("C", DType::Float32, {2, 2})};
    RunResult r = run("gemm_transpose", params, module);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("trans_B"), std::string::npos) << r.error;
}

TEST(ReferenceOutputs, MarkedOutputsMustIncludeThePrimaryOutput) {
    ir::Module module;
    ir::PrimFunc func;
    std::vector<ir::Buffer*> buffers;
    for (int i = 0; i < 3; ++i) {
        ir::Buffer* b = module.newBuffer(std::string(1, char('A' + i)), ir::MemoryScope::Global,
                                         DType::Float32, {ir::makeInt(1), ir::makeInt(1)});
        b->paramIndex = i;
        buffers.push_back(b);
        func.params.push_back(b);
    }
    std::vector<HostTensor> params = {tensor("A", DType::Float32, {1, 1}, {2}),
                                      tensor("B", DType::Float32, {1, 1}, {3}),
                                      tensor("C", DType::Float32, {1, 1})};

    // No marks: the sample's known position is used.
    RunResult r = run("gemm_relu", params, module, &func);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(2), {6});

    buffers[2]->isOutput = true;
    r = run("gemm_relu", params, module, &func);
    EXPECT_TRUE(r.ok) << r.error;

    buffers[2]->isOutput = false;
    buffers[0]->isOutput = true;
    r = run("gemm_relu", params, module, &func);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("parameter 2"), std::string::npos) << r.error;
}

// --- softmax ---------------------------------------------------------------------------------------

TEST(SoftmaxReference, SoftmaxOfZeroAndLn3IsAQuarterAndThreeQuarters) {
    ir::Module module;
    std::vector<HostTensor> params = {
        tensor("X", DType::Float32, {3, 2}, {0, std::log(3.0), 1000, 1000, -5, -5 + std::log(3.0)}),
        tensor("Y", DType::Float32, {3, 2})};
    RunResult r = run("softmax", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    // Large equal inputs must not overflow; a shift by a constant changes nothing.
    expectValues(r.expected.at(1), {0.25, 0.75, 0.5, 0.5, 0.25, 0.75}, 1e-7);
}

TEST(SoftmaxReference, RowsSumToOne) {
    ir::Module module;
    HostTensor x("X", DType::Float16, {5, 37});
    fillRandom(x, 7);
    std::vector<HostTensor> params = {x, tensor("Y", DType::Float32, {5, 37})};
    RunResult r = run("softmax", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    for (int64_t i = 0; i < 5; ++i) {
        double sum = 0;
        for (int64_t j = 0; j < 37; ++j)
            sum += r.expected.at(1).at({i, j});
        EXPECT_NEAR(sum, 1.0, 1e-6);
    }
}

// --- RMSNorm + SiLU --------------------------------------------------------------------------------

TEST(RmsNormSiluReference, UnitRowGivesSiluOfGamma) {
    // x = [1 1 1 1]: mean(x^2) = 1, so with eps = 0 the normalised row is gamma and y = silu(gamma).
    ir::Module module;
    setSpec(module, "eps", 0.0);
    std::vector<HostTensor> params = {tensor("X", DType::Float32, {1, 4}, {1, 1, 1, 1}),
                                      tensor("gamma", DType::Float32, {4}, {1, 2, -1, 0}),
                                      tensor("Y", DType::Float32, {1, 4})};
    RunResult r = run("rmsnorm_silu", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(2), {0.7310585786300049, 1.7615941559557649, -0.2689414213699951, 0}, 1e-7);
}

TEST(RmsNormSiluReference, ScaleInvarianceAndDefaultEps) {
    // x = [3 4]: rms = sqrt(12.5); with gamma = 1, y = silu(x / rms), the same for x = [6 8] (eps = 0).
    ir::Module module;
    setSpec(module, "eps", 0.0);
    std::vector<HostTensor> params = {tensor("X", DType::Float64, {2, 2}, {3, 4, 6, 8}),
                                      tensor("gamma", DType::Float64, {2}, {1, 1}),
                                      tensor("Y", DType::Float64, {2, 2})};
    RunResult r = run("rmsnorm_silu", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    auto silu = [](double v) { return v / (1 + std::exp(-v)); };
    const double v0 = 3 / std::sqrt(12.5), v1 = 4 / std::sqrt(12.5);
    expectValues(r.expected.at(2), {silu(v0), silu(v1), silu(v0), silu(v1)});

    // Without eps in the specialization the sample's 1e-5 applies: x = [1 1] gives silu(1 / sqrt(1 + 1e-5)).
    ir::Module plain;
    params[0] = tensor("X", DType::Float64, {1, 2}, {1, 1});
    params[2] = tensor("Y", DType::Float64, {1, 2});
    r = run("rmsnorm_silu", params, plain);
    ASSERT_TRUE(r.ok) << r.error;
    const double v = 1 / std::sqrt(1 + 1e-5);
    expectValues(r.expected.at(2), {silu(v), silu(v)});
}

TEST(RmsNormSiluReference, GammaMustMatchTheChannelCount) {
    ir::Module module;
    std::vector<HostTensor> params = {tensor("X", DType::Float32, {2, 4}),
                                      tensor("gamma", DType::Float32, {3}),
                                      tensor("Y", DType::Float32, {2, 4})};
    RunResult r = run("rmsnorm_silu", params, module);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("'gamma' (1) has shape [3], expected [4]"), std::string::npos) << r.error;
}

// --- flash attention -------------------------------------------------------------------------------

std::vector<HostTensor> attentionParams(std::vector<int64_t> shape, std::vector<double> q,
                                        std::vector<double> k, std::vector<double> v) {
    return {tensor("Q", DType::Float32, shape, std::move(q)),
            tensor("K", DType::Float32, shape, std::move(k)),
            tensor("V", DType::Float32, shape, std::move(v)), tensor("Output", DType::Float32, shape)};
}

TEST(FlashAttentionReference, ASingleKeyReturnsItsValue) {
    ir::Module module;
    setSpec(module, "is_causal", false);
    auto params = attentionParams({1, 1, 1, 2}, {0.3, -0.7}, {5, 9}, {1.5, -2.5});
    RunResult r = run("flash_attention", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(3), {1.5, -2.5});
}

TEST(FlashAttentionReference, CausalMaskingHidesLaterKeys) {
    // D = 1 (scale 1), Q = [1 1], K = [0 ln3], V = [2 6]: a query that sees both keys weights them 1/4, 3/4
    // and gets 5; causal query 0 sees only key 0 and gets 2.
    auto params = attentionParams({1, 2, 1, 1}, {1, 1}, {0, std::log(3.0)}, {2, 6});
    ir::Module full;
    setSpec(full, "is_causal", false);
    RunResult r = run("flash_attention", params, full);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(3), {5, 5});

    ir::Module causal;
    setSpec(causal, "is_causal", true);
    r = run("flash_attention", params, causal);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(3), {2, 5});
}

TEST(FlashAttentionReference, ScoresAreScaledByInverseSqrtDim) {
    // D = 4: q = e0, k1 = 2 ln3 * e0, so q.k1 / sqrt(4) = ln3; V rows 0 and 4 -> output 3 everywhere.
    const double c = 2 * std::log(3.0);
    auto params = attentionParams({1, 2, 1, 4}, {1, 0, 0, 0, 1, 0, 0, 0}, {0, 0, 0, 0, c, 0, 0, 0},
                                  {0, 0, 0, 0, 4, 4, 4, 4});
    ir::Module module;
    setSpec(module, "is_causal", false);
    RunResult r = run("flash_attention", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(3), {3, 3, 3, 3, 3, 3, 3, 3});
}

TEST(FlashAttentionReference, HeadsAndBatchesAreIndependent) {
    // [B=2, S=1, H=2, D=1]: a single key per (batch, head), so Output == V element by element.
    auto params = attentionParams({2, 1, 2, 1}, {1, 2, 3, 4}, {4, 3, 2, 1}, {10, 20, 30, 40});
    ir::Module module;
    setSpec(module, "is_causal", true);
    RunResult r = run("flash_attention", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(3), {10, 20, 30, 40});

    ir::Module noFlag;
    r = run("flash_attention", params, noFlag);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("is_causal"), std::string::npos) << r.error;
}

// --- MLA decode ------------------------------------------------------------------------------------

struct MlaDims {
    int64_t batch = 1, heads = 1, seqLen = 2, kvHeads = 1, dim = 1, peDim = 3, numSplit = 1;
};

std::vector<HostTensor> mlaParams(const MlaDims& d, DType outDType = DType::Float32) {
    return {tensor("Q", DType::Float32, {d.batch, d.heads, d.dim}),
            tensor("Q_pe", DType::Float32, {d.batch, d.heads, d.peDim}),
            tensor("KV", DType::Float32, {d.batch, d.seqLen, d.kvHeads, d.dim}),
            tensor("K_pe", DType::Float32, {d.batch, d.seqLen, d.kvHeads, d.peDim}),
            tensor("glse", DType::Float32, {d.batch, d.heads, d.numSplit}),
            tensor("Output_partial", outDType, {d.batch, d.heads, d.numSplit, d.dim}),
            tensor("Output", outDType, {d.batch, d.heads, d.dim})};
}

TEST(MlaDecodeReference, NopeAndRopePartsBothScoreWithScaleOfTheFullWidth) {
    // dim 1 + pe_dim 3: scale 1/2. KV = [0; 2 ln3] with q = 1 (rope part 0): scores 0, ln3 -> weights
    // 1/4, 3/4 -> output 1.5 ln3.
    MlaDims d;
    const double c = 2 * std::log(3.0);
    auto params = mlaParams(d);
    params[0].data = {1};
    params[2].data = {0, c};
    ir::Module module;
    RunResult r = run("mla_decode", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.expected.size(), 1u) << "no split: only Output";
    expectValues(r.expected.at(6), {1.5 * std::log(3.0)}, 1e-6); // rounded to float32

    // The same weights from the rope part alone: q = 0, Q_pe = e0, K_pe rows 0 and 2 ln3 * e0; KV = [2; 6].
    params[0].data = {0};
    params[1].data = {1, 0, 0};
    params[2].data = {2, 6};
    params[3].data = {0, 0, 0, c, 0, 0};
    r = run("mla_decode", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(6), {5});
}

TEST(MlaDecodeReference, SplitPartialsCombineToTheUnsplitOutput) {
    // seqlen 10, block_N 3 -> 4 blocks over 3 splits: keys [0, 3), [3, 6), [6, 10).
    MlaDims d;
    d.batch = 2;
    d.heads = 4;
    d.seqLen = 10;
    d.dim = 8;
    d.peDim = 4;
    d.numSplit = 3;
    auto params = mlaParams(d, DType::Float64);
    for (int i = 0; i < 4; ++i)
        fillRandom(params[i], 11);
    ir::Module module;
    setSpec(module, "block_N", int64_t(3));
    RunResult split = run("mla_decode", params, module);
    ASSERT_TRUE(split.ok) << split.error;
    ASSERT_EQ(split.expected.size(), 3u);

    const HostTensor& glse = split.expected.at(4);
    const HostTensor& partial = split.expected.at(5);
    const HostTensor& out = split.expected.at(6);
    for (int64_t b = 0; b < d.batch; ++b) {
        for (int64_t h = 0; h < d.heads; ++h) {
            // The combine kernel's math: lse = log2(sum 2^glse_s), out = sum partial_s * 2^(glse_s - lse).
            double sum = 0;
            for (int64_t s = 0; s < d.numSplit; ++s)
                sum += std::exp2(glse.at({b, h, s}));
            const double lse = std::log2(sum);
            for (int64_t e = 0; e < d.dim; ++e) {
                double combined = 0;
                for (int64_t s = 0; s < d.numSplit; ++s)
                    combined += partial.at({b, h, s, e}) * std::exp2(glse.at({b, h, s}) - lse);
                EXPECT_NEAR(combined, out.at({b, h, e}), 1e-6) << b << "," << h << "," << e;
            }
        }
    }

    // The unsplit run gives the same Output.
    d.numSplit = 1;
    auto single = mlaParams(d, DType::Float64);
    for (int i = 0; i < 4; ++i)
        single[i] = params[i];
    RunResult whole = run("mla_decode", single, module);
    ASSERT_TRUE(whole.ok) << whole.error;
    expectValues(whole.expected.at(6), out.data.values(), 1e-12);
}

TEST(MlaDecodeReference, GlseOfASplitIsItsLog2SumExp) {
    // Four keys, block_N 2, two splits of two keys: scores (dim 1, pe 3, scale 1/2) are KV / 2 with q = 1.
    MlaDims d;
    d.seqLen = 4;
    d.numSplit = 2;
    auto params = mlaParams(d);
    params[0].data = {1};
    params[2].data = {0, 2 * std::log(3.0), 2, 4};
    ir::Module module;
    setSpec(module, "block_N", int64_t(2));
    RunResult r = run("mla_decode", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    // Split 0: exp(0) + exp(ln3) = 4 -> log2 = 2. Split 1: exp(1) + exp(2).
    expectValues(r.expected.at(4), {2, std::log2(std::exp(1.0) + std::exp(2.0))}, 1e-6);
    const double w1 = std::exp(1.0) / (std::exp(1.0) + std::exp(2.0));
    expectValues(r.expected.at(5), {1.5 * std::log(3.0), w1 * 2 + (1 - w1) * 4}, 1e-6);
}

TEST(MlaDecodeReference, SplitsNeedBlockNAndEnoughBlocks) {
    MlaDims d;
    d.seqLen = 4;
    d.numSplit = 3;
    auto params = mlaParams(d);
    ir::Module noBlock;
    RunResult r = run("mla_decode", params, noBlock);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("block_N"), std::string::npos) << r.error;

    ir::Module module;
    setSpec(module, "block_N", int64_t(2));
    r = run("mla_decode", params, module);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("num_split 3 exceeds the 2 key blocks"), std::string::npos) << r.error;
}

TEST(MlaDecodeReference, GroupedHeadsShareTheirKvHead) {
    // heads 2, kv heads 2, one key each with distinct values: each head returns its own KV head's row.
    MlaDims d;
    d.heads = 2;
    d.kvHeads = 2;
    d.seqLen = 1;
    auto params = mlaParams(d);
    params[2].data = {7, -3};
    ir::Module module;
    RunResult r = run("mla_decode", params, module);
    ASSERT_TRUE(r.ok) << r.error;
    expectValues(r.expected.at(6), {7, -3});
}

} // namespace
} // namespace tb
