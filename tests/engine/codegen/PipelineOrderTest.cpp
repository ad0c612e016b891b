// T.Pipelined(num_stages=1) in TileLang's order, and T.copy(eviction_policy=) as L2 cache hints, in the CUDA
// the backend generates for the RMSNorm sample's two-pass kernel (rows wider than 2048 channels: two
// one-buffer pipelined passes over X, hints on all three global copies).
#include "CodegenTestSupport.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::codegen::test {
namespace {

std::string rmsnormSource() {
    PlannedProgram p = planSample("05_rmsnorm_silu.py", {{"M", "4096"}, {"C", "4096"}});
    EXPECT_TRUE(p.ok()) << p.planErrors;
    if (!p.ok())
        return "";
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    EXPECT_TRUE(code.ok) << errors;
    return code.ok ? code.units[0].source : "";
}

// The text between the first occurrences of `from` and `to` after it.
std::string between(const std::string& text, const std::string& from, const std::string& to) {
    size_t a = text.find(from);
    size_t b = a == std::string::npos ? a : text.find(to, a + from.size());
    return b == std::string::npos ? "" : text.substr(a, b - a);
}

TEST(PipelineOrder, SingleStageCopiesTheNextChunkRightAfterTheTileIsRead) {
    std::string src = rmsnormSource();
    ASSERT_FALSE(src.empty());
    EXPECT_EQ(src.find("not software-pipelined"), std::string::npos);
    EXPECT_EQ(countOf(src, "T.Pipelined(num_stages=1): one buffer per copy"), 2u);
    // Pass 1: the prologue issues chunk 0 (C = 4096 is 32 chunks of 128, so no guard), every iteration waits
    // for its chunk, reads the tile into registers, and only then (after a barrier: other threads may still
    // be reading it) issues the next chunk, which lands while the squares are summed.
    std::string pass1 = between(src, "// pipeline prologue: the first chunk", "T.reduce_sum");
    ASSERT_FALSE(pass1.empty());
    size_t loop = pass1.find("for (int c = 0; c < 32; ++c) {");
    size_t wait = pass1.find("tb_cp_async_wait<0>();", loop);
    size_t read = pass1.find("T.copy(X_chunk -> x)", wait);
    size_t war = pass1.find("__syncthreads(); // shared reads above finish first", read);
    size_t next = pass1.find("if (c + 1 < 32) {", war);
    size_t sum = pass1.find("sq[r] = (sq[r] + (x[r] * x[r]));", next);
    EXPECT_LT(pass1.find("tb_cp_async_16_hint("), loop) << "the prologue's copy";
    for (size_t at : {loop, wait, read, war, next, sum})
        EXPECT_NE(at, std::string::npos) << pass1;
    EXPECT_NE(pass1.find("(((c + 1) * 128) + tj)"), std::string::npos) << "the next chunk's address";
    // Pass 2 has two copies, each issued after its own tile's last reader: X after X_chunk -> x, gamma after
    // the statement that scales by g_chunk.
    std::string pass2 = src.substr(src.find("for (int c_1 = 0; c_1 < 32; ++c_1) {"));
    size_t xNext = pass2.find("if (c_1 + 1 < 32) {");
    size_t scale = pass2.find("g_chunk[j_1]", xNext);
    size_t gNext = pass2.find("if (c_1 + 1 < 32) {", scale);
    size_t silu = pass2.find("expf", gNext);
    for (size_t at : {xNext, scale, gNext, silu})
        EXPECT_NE(at, std::string::npos) << pass2;
    EXPECT_NE(pass2.find("&gamma[(((c_1 + 1) * 128) + ti)]", gNext), std::string::npos);
}

TEST(PipelineOrder, EvictionPoliciesBecomeL2CacheHints) {
    std::string src = rmsnormSource();
    ASSERT_FALSE(src.empty());
    // One policy register per policy the kernel's copies ask for, made once.
    EXPECT_EQ(countOf(src, "const tb_u64 l2_evict_first = tb_policy_evict_first();"), 1u);
    EXPECT_EQ(countOf(src, "const tb_u64 l2_evict_last = tb_policy_evict_last();"), 1u);
    // Pass 1's cp.async keeps X in L2, pass 2's (prologue and steady state) lets it go first, and so does
    // the vector store of Y (16 bytes: the fp16 side sets the vector, as in TileLang); gamma (no policy) is
    // copied without a hint.
    EXPECT_EQ(countOf(src, ", src_ptr, l2_evict_last);"), 2u);
    EXPECT_EQ(countOf(src, ", src_ptr, l2_evict_first);"), 2u);
    EXPECT_EQ(countOf(src, "tb_cp_async_16_hint(tb_smem_s"), 4u);
    EXPECT_NE(src.find("tb_cp_async_16(tb_smem_s + 2048 + g_chunk_lane"), std::string::npos);
    EXPECT_NE(src.find("tb_st_hint(reinterpret_cast<tb_vec16*>(&Y["), std::string::npos);
    EXPECT_EQ(src.find("*reinterpret_cast<tb_vec16*>(&Y["), std::string::npos);
}

TEST(PipelineOrder, NoPolicyNoHints) {
    PlannedProgram p = planSample("02_gemm_relu.py");
    ASSERT_TRUE(p.ok()) << p.planErrors;
    std::string errors;
    CudaKernelSource code = generateFor(p, errors);
    ASSERT_TRUE(code.ok) << errors;
    const std::string& src = code.units[0].source;
    EXPECT_EQ(src.find("tb_u64 l2_"), std::string::npos);
    EXPECT_EQ(src.find("_hint(tb_smem_s"), std::string::npos);
}

} // namespace
} // namespace tb::codegen::test
