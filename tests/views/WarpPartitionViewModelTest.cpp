// Warp partitions of real samples: GEMM (one gemm, 4 warps covering the tile) and MLA decode (FullCol,
// two warpgroup halves, the S_shared exchange).
#include "views/model/WarpPartitionViewModel.h"

#include "ViewTestSupport.h"
#include "views/model/LayoutViewModel.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tb::views {

namespace {

// Every output element is owned by exactly one warp.
void expectExactCover(const GemmPartition& p) {
    std::vector<int> owners(size_t(p.M * p.N), 0);
    for (const WarpRect& r : p.warpRects)
        for (int64_t m = r.m0; m < r.m0 + r.m; ++m)
            for (int64_t n = r.n0; n < r.n0 + r.n; ++n)
                ++owners[size_t(m * p.N + n)];
    for (int c : owners)
        ASSERT_EQ(c, 1);
}

} // namespace

TEST(WarpPartitionViewModel, GemmTileIsCoveredByFourWarps) {
    auto a = test::analyzeSample("gemm_relu");
    ASSERT_TRUE(a && a->ok());
    WarpPartitionViewModel m = buildWarpPartitionView(*a->kernel(0), a->sources());
    ASSERT_EQ(m.gemms.size(), 1u);
    const GemmPartition& p = m.gemms[0];
    EXPECT_EQ(p.M, 128);
    EXPECT_EQ(p.N, 128);
    EXPECT_EQ(p.warps, 4);
    EXPECT_GT(p.line, 0u);
    EXPECT_NE(p.title.find("C_local[128, 128] += A_shared @ B_shared"), std::string::npos);
    expectExactCover(p);
    std::set<int64_t> warps;
    for (const WarpRect& r : p.warpRects)
        warps.insert(r.warp);
    EXPECT_EQ(warps, (std::set<int64_t>{0, 1, 2, 3}));
    EXPECT_EQ(p.warpAt(0, 0), p.warpRects.front().warp);
    EXPECT_EQ(p.warpAt(-1, 0), -1);
    EXPECT_TRUE(m.exchanges.empty());
}

TEST(WarpPartitionViewModel, MlaDecodeShowsFullColHalvesAndTheExchange) {
    // TileLang's own plan on sm_90a: wgmma warpgroups (the hopper backend's plan).
    auto a = test::analyzeSample("mla_decode", Backend::Hopper);
    ASSERT_TRUE(a && a->plan) << (a ? a->compile->formattedDiagnostics() : "");
    WarpPartitionViewModel m = buildWarpPartitionView(*a->kernel(0), a->sources());
    ASSERT_GE(m.gemms.size(), 3u);
    bool sawHalves = false;
    for (const GemmPartition& p : m.gemms) {
        EXPECT_EQ(p.policy, "FullCol");
        expectExactCover(p);
        if (p.warpgroups == 2) {
            sawHalves = true;
            ASSERT_EQ(p.warpgroupRects.size(), 2u);
            // FullCol: the two warpgroups split the columns, each owning every row.
            EXPECT_EQ(p.warpgroupRects[0].m, p.M);
            EXPECT_EQ(p.warpgroupRects[0].n * 2, p.N);
            EXPECT_EQ(p.warpgroupRects[1].n0, p.N / 2);
        }
    }
    EXPECT_TRUE(sawHalves);
    ASSERT_FALSE(m.exchanges.empty());
    EXPECT_EQ(m.exchanges[0].fragment, "acc_s");
    EXPECT_EQ(m.exchanges[0].shared, "S_shared");
    EXPECT_GT(m.exchanges[0].consumerLine, m.exchanges[0].producerLine);
    std::string svg = warpPartitionViewToSvg(m);
    EXPECT_NE(svg.find("warpgroup 1"), std::string::npos);
    EXPECT_NE(svg.find("exchange: acc_s"), std::string::npos);
}

// TileLang's copy_0_gemm_1 example at 256^3: its gemm and accumulator live in T.ws(1) (threads 128..255).
static std::shared_ptr<ProgramAnalysis> analyzeWarpSpecializedGemm() {
    std::string text;
    if (!readTextFile(
            std::string(TILEBENCH_TESTS_DIR) +
                "/corpus/tilelang-examples/warp_specialize/example_warp_specialize_gemm_copy_0_gemm_1.py",
            text))
        return nullptr;
    CompileOptions options;
    options.elaborate.overrides = {{"M", "256"}, {"N", "256"}, {"K", "256"}};
    return analyzeProgram("copy_0_gemm_1.py", text, options);
}

// A gemm in T.ws(1) of a 256-thread kernel runs on the block's warps 4..7, and the view numbers them so.
TEST(WarpPartitionViewModel, AGemmInAWarpGroupScopeIsDrawnOnThatScopesWarps) {
    auto a = analyzeWarpSpecializedGemm();
    ASSERT_TRUE(a && a->ok());
    WarpPartitionViewModel m = buildWarpPartitionView(*a->kernel(0), a->sources());
    ASSERT_EQ(m.gemms.size(), 1u);
    const GemmPartition& p = m.gemms[0];
    EXPECT_EQ(p.warps, 4);
    EXPECT_NE(p.title.find("T.ws: threads 128..255"), std::string::npos) << p.title;
    std::set<int64_t> warps;
    for (const WarpRect& r : p.warpRects)
        warps.insert(r.warp);
    EXPECT_EQ(warps, (std::set<int64_t>{4, 5, 6, 7}));
}

// The same program's accumulator, drawn as the layout view does with its scope's first thread: every cell
// names a thread of warpgroup 1 (128..255), as the kernel's registers are.
TEST(WarpPartitionViewModel, AWarpGroupScopesFragmentNamesTheBlocksThreads) {
    auto a = analyzeWarpSpecializedGemm();
    ASSERT_TRUE(a && a->ok());
    const layout::KernelPlan& k = *a->kernel(0);
    const layout::FragmentPlan* acc = k.fragmentOf(k.gemms.at(0).gemm->c.buffer);
    ASSERT_NE(acc, nullptr);
    const ir::Stmt* scope = k.registerScopeOf.at(acc->buffer);
    ASSERT_NE(scope, nullptr);
    LayoutViewModel m = buildFragmentView("C_local", acc->fragment, LayoutColoring::Warp, scope->firstThread);
    ASSERT_FALSE(m.cells.empty());
    for (const LayoutCell& c : m.cells) {
        ASSERT_GE(c.thread, 128);
        ASSERT_LT(c.thread, 256);
        ASSERT_EQ(c.warp, c.thread / 32);
    }
}

} // namespace tb::views
