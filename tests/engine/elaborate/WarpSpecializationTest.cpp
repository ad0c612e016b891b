// T.ws, T.alloc_barrier, the mbarrier operations and T.tma_copy as TileLang's Hopper programs write them:
// what they elaborate to, and the diagnostics for what cannot be (a warpgroup the kernel does not have,
// nested or non-consecutive scopes, a TMA load without its barrier, an arrive count of zero, clusters).
#include "engine/ir/Printer.h"
#include "tests/engine/elaborate/ElaborateTestSupport.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::test {
namespace {

std::string warpSpecializedKernel(const std::string& body, int threads = 256) {
    return "import tilelang.language as T\n"
           "\n"
           "@T.prim_func\n"
           "def main(A: T.Tensor((128, 64), \"float16\"), C: T.Tensor((128, 64), \"float16\")):\n"
           "    with T.Kernel(1, threads=" +
           std::to_string(threads) +
           ") as bx:\n"
           "        A_shared = T.alloc_shared((128, 64), \"float16\")\n"
           "        bars = T.alloc_barrier([128, 128])\n" +
           body;
}

TEST(WarpSpecialization, ScopesBarriersAndTmaCopiesElaborate) {
    auto e = elaborateText(warpSpecializedKernel("        with T.ws(1):\n"
                                                 "            T.mbarrier_wait_parity(bars[1], 1)\n"
                                                 "            T.tma_copy(A, A_shared, barrier=bars[0])\n"
                                                 "            T.mbarrier_arrive(bars[0])\n"
                                                 "        with T.ws(0):\n"
                                                 "            T.barrier_wait(bars[0], 0)\n"
                                                 "            T.copy(A_shared, C)\n"
                                                 "            T.barrier_arrive(bars[1])\n"));
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_FALSE(e->diagnostics.hasErrors()) << e->report();
    const ir::Buffer* bars = e->buffer("bars");
    ASSERT_NE(bars, nullptr);
    EXPECT_EQ(bars->scope, ir::MemoryScope::Barrier);
    EXPECT_EQ(bars->dtype, ir::DType::UInt64);
    EXPECT_EQ(bars->arriveCounts, (std::vector<int64_t>{128, 128}));
    const ir::StmtPtr& body = e->module->funcs.at(0).body;
    std::vector<const ir::Stmt*> scopes = collect(body, ir::StmtKind::WarpGroups);
    ASSERT_EQ(scopes.size(), 2u);
    EXPECT_EQ(scopes[0]->firstThread, 128);
    EXPECT_EQ(scopes[0]->threadCount, 128);
    EXPECT_EQ(scopes[1]->firstThread, 0);
    std::vector<const ir::Stmt*> barriers = collect(body, ir::StmtKind::Barrier);
    ASSERT_EQ(barriers.size(), 4u);
    EXPECT_EQ(barriers[0]->barrierOp, ir::BarrierOp::WaitParity);
    EXPECT_EQ(ir::constantInt(barriers[0]->barrierIndex), 1);
    EXPECT_EQ(barriers[1]->barrierOp, ir::BarrierOp::Arrive);
    EXPECT_EQ(barriers[2]->barrierOp, ir::BarrierOp::WaitParity); // T.barrier_wait is the same operation
    std::vector<const ir::Stmt*> copies = collect(body, ir::StmtKind::Copy);
    ASSERT_EQ(copies.size(), 2u);
    EXPECT_EQ(copies[0]->barrier, bars);
    EXPECT_EQ(copies[1]->barrier, nullptr);
    EXPECT_NE(ir::printModule(*e->module).find("ws(1): threads 128..255"), std::string::npos)
        << ir::printModule(*e->module);
}

struct BadCase {
    const char* body;
    const char* code;
    int line;
};

TEST(WarpSpecialization, WhatCannotBeIsADiagnosticAtItsLine) {
    const std::vector<BadCase> cases = {
        {"        with T.ws(2):\n            T.copy(A, A_shared)\n", "index-out-of-range", 8},
        {"        with T.ws(0, 2):\n            T.copy(A, A_shared)\n", "unsupported-construct", 8},
        {"        with T.ws(0):\n            with T.ws(1):\n                T.copy(A, A_shared)\n",
         "unsupported-construct", 9},
        {"        T.tma_copy(A, A_shared)\n", "wrong-arguments", 8},
        {"        T.mbarrier_arrive(bars[0], cta_id=1)\n", "unsupported-construct", 8},
        {"        T.mbarrier_wait_parity(A_shared, 0)\n", "type-error", 8},
        {"        more = T.alloc_barrier(0)\n", "value-error", 8},
        {"        T.tma_copy(A, A_shared, barrier=bars[0], cluster_mask=3)\n", "unsupported-construct", 8},
    };
    for (const BadCase& c : cases) {
        SCOPED_TRACE(c.body);
        auto e = elaborateText(warpSpecializedKernel(c.body));
        std::vector<std::string> codes = e->codes();
        ASSERT_FALSE(codes.empty()) << "no diagnostic";
        EXPECT_EQ(codes[0].substr(0, codes[0].find(':')), std::string(c.code) + "@" + std::to_string(c.line))
            << e->report();
        const Diagnostic* d = e->first(c.code);
        ASSERT_NE(d, nullptr);
        EXPECT_FALSE(d->hint.empty()) << d->message;
    }
}

} // namespace
} // namespace tb::test
