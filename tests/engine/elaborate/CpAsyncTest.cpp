// T.ptx_cp_async with T.access_ptr and T.cp_async_barrier_noinc, as FlashMLA's warp-specialized decode
// (deepseek_mla/example_mla_decode_ws.py) writes its producer: what they elaborate to, the diagnostics for
// what cp.async cannot do (width, scopes, dtypes, access intent, extents), the check that the copies are
// completed on an mbarrier, and an if/elif chain over the thread index that splits the block into three T.ws
// scopes.
#include "engine/check/Checks.h"
#include "engine/ir/Printer.h"
#include "engine/target/Target.h"
#include "tests/engine/elaborate/ElaborateTestSupport.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::test {
namespace {

// A producer warpgroup (threads 128..255) that loads B's 64x64 tile, 8 halves per thread and round; `copy`
// is the copy statement (tx is the block's thread index, row/col the thread's element).
std::string producerKernel(const std::string& copy,
                           const std::string& after = "            "
                                                      "T.cp_async_barrier_noinc(bars[0])\n") {
    return "import tilelang.language as T\n"
           "\n"
           "@T.prim_func\n"
           "def main(B: T.Tensor((64, 64), \"float16\"), C: T.Tensor((64, 64), \"float16\")):\n"
           "    with T.Kernel(1, threads=256) as bx:\n"
           "        B_shared = T.alloc_shared((2, 64, 64), \"float16\")\n"
           "        bars = T.alloc_barrier([128, 128])\n"
           "        tx = T.get_thread_binding()\n"
           "        if tx >= 128:\n"
           "            for r in T.serial(4):\n"
           "                row = r * 16 + (tx - 128) // 8\n"
           "                col = (tx - 128) % 8 * 8\n" +
           copy + after +
           "        else:\n"
           "            T.barrier_wait(bars[0], 0)\n"
           "            T.copy(B_shared[0, :, :], C)\n";
}

const char* kCopy = "                T.ptx_cp_async(T.access_ptr(B_shared[0, row, col], \"w\", 8),\n"
                    "                               T.access_ptr(B[row, col], \"r\", 8), 8)\n";

TEST(CpAsync, TheProducersCopiesAndItsNoincArriveElaborate) {
    auto e = elaborateText(producerKernel(kCopy));
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_FALSE(e->diagnostics.hasErrors()) << e->report();
    const ir::StmtPtr& body = e->module->funcs.at(0).body;
    std::vector<const ir::Stmt*> copies = collect(body, ir::StmtKind::CpAsync);
    ASSERT_EQ(copies.size(), 1u);
    const ir::Stmt& c = *copies[0];
    EXPECT_EQ(c.src.buffer, e->buffer("B"));
    EXPECT_EQ(c.dst.buffer, e->buffer("B_shared"));
    // The n elements run along the last dimension; every other extent is 1.
    EXPECT_EQ(regionOf(c.dst).substr(0, 9), "B_shared[");
    ASSERT_EQ(c.dst.extents.size(), 3u);
    EXPECT_EQ(ir::constantInt(c.dst.extents[0]), 1);
    EXPECT_EQ(ir::constantInt(c.dst.extents[1]), 1);
    EXPECT_EQ(ir::constantInt(c.dst.extents[2]), 8);
    EXPECT_EQ(ir::constantInt(c.src.extents[1]), 8);
    EXPECT_EQ(c.cond, nullptr);
    std::vector<const ir::Stmt*> barriers = collect(body, ir::StmtKind::Barrier);
    ASSERT_EQ(barriers.size(), 2u);
    EXPECT_EQ(barriers[0]->barrierOp, ir::BarrierOp::CpAsyncArrive);
    EXPECT_EQ(barriers[0]->value, nullptr);
    const std::string listing = ir::printModule(*e->module);
    EXPECT_NE(listing.find("ptx_cp_async B[(r * 16) + ((tx - 128) // 8) : +1, ((tx - 128) % 8) * 8 : +8] -> "
                           "B_shared[0:1, (r * 16) + ((tx - 128) // 8) : +1, ((tx - 128) % 8) * 8 : +8]"),
              std::string::npos)
        << listing;
    EXPECT_NE(listing.find("cp_async_barrier_noinc bars[0]"), std::string::npos) << listing;
    // Semantic checks accept it: the copy is completed on bars[0].
    DiagnosticEngine checks;
    check::checkModule(*e->module, targetSm90a(), checks);
    EXPECT_FALSE(checks.hasErrors());
}

TEST(CpAsync, APredicateAndTheAccessPointerForms) {
    // predicate= zero-fills when false; extent= and a list of extents give the pointer's extent.
    auto e = elaborateText(
        producerKernel("                T.ptx_cp_async(T.access_ptr(B_shared[0, row, col], 2, extent=8),\n"
                       "                               T.access_ptr(B[row, col], \"rw\", [1, 8]), 8,\n"
                       "                               predicate=row < 60)\n"));
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_FALSE(e->diagnostics.hasErrors()) << e->report();
    std::vector<const ir::Stmt*> copies = collect(e->module->funcs.at(0).body, ir::StmtKind::CpAsync);
    ASSERT_EQ(copies.size(), 1u);
    ASSERT_NE(copies[0]->cond, nullptr);
    EXPECT_EQ(copies[0]->cond->dtype, ir::DType::Bool);
    EXPECT_NE(ir::printModule(*e->module).find(" if ((r * 16) + ((tx - 128) // 8)) < 60"), std::string::npos)
        << ir::printModule(*e->module);
}

struct BadCopy {
    const char* copy;
    const char* code;
    int line;
};

TEST(CpAsync, WhatCpAsyncCannotDoIsADiagnosticAtItsLine) {
    const std::vector<BadCopy> cases = {
        // 3 halves are 6 bytes: not a cp.async width.
        {"                T.ptx_cp_async(T.access_ptr(B_shared[0, row, col], \"w\", 3),\n"
         "                               T.access_ptr(B[row, col], \"r\", 3), 3)\n",
         "cp-async-width", 14},
        // Shared to global is the wrong way round.
        {"                T.ptx_cp_async(T.access_ptr(B[row, col], \"w\", 8),\n"
         "                               T.access_ptr(B_shared[0, row, col], \"r\", 8), 8)\n",
         "cp-async-scope", 13},
        // A plain element is not an access pointer.
        {"                T.ptx_cp_async(B_shared[0, row, col], T.access_ptr(B[row, col], \"r\", 8), 8)\n",
         "type-error", 13},
        // The destination is written, not read-only.
        {"                T.ptx_cp_async(T.access_ptr(B_shared[0, row, col], \"r\", 8),\n"
         "                               T.access_ptr(B[row, col], \"r\", 8), 8)\n",
         "value-error", 13},
        // The pointer covers 4 elements of the 8 copied.
        {"                T.ptx_cp_async(T.access_ptr(B_shared[0, row, col], \"w\", 4),\n"
         "                               T.access_ptr(B[row, col], \"r\", 8), 8)\n",
         "value-error", 13},
        {"                T.ptx_cp_async(T.access_ptr(B_shared[0, row, col], \"x\", 8),\n"
         "                               T.access_ptr(B[row, col], \"r\", 8), 8)\n",
         "value-error", 13},
        // Out of the buffer: a constant start past the row.
        {"                T.ptx_cp_async(T.access_ptr(B_shared[0, row, 64], \"w\", 8),\n"
         "                               T.access_ptr(B[row, col], \"r\", 8), 8)\n",
         "index-out-of-range", 13},
    };
    for (const BadCopy& c : cases) {
        SCOPED_TRACE(c.copy);
        auto e = elaborateText(producerKernel(c.copy));
        std::vector<std::string> codes = e->codes();
        ASSERT_FALSE(codes.empty()) << "no diagnostic";
        EXPECT_EQ(codes[0].substr(0, codes[0].find(':')), std::string(c.code) + "@" + std::to_string(c.line))
            << e->report();
        const Diagnostic* d = e->first(c.code);
        ASSERT_NE(d, nullptr);
        EXPECT_FALSE(d->hint.empty()) << d->message;
    }
}

TEST(CpAsync, ADtypeMismatchIsADiagnostic) {
    std::string text = producerKernel(kCopy);
    const std::string half = "B: T.Tensor((64, 64), \"float16\")";
    text.replace(text.find(half), half.size(), "B: T.Tensor((64, 64), \"float32\")");
    auto e = elaborateText(text);
    ASSERT_NE(e->first("cp-async-dtype"), nullptr) << e->report();
}

TEST(CpAsync, ACopyNoMbarrierCompletesIsACheckDiagnostic) {
    auto e = elaborateText(producerKernel(kCopy, ""));
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_FALSE(e->diagnostics.hasErrors()) << e->report();
    DiagnosticEngine checks;
    check::checkModule(*e->module, targetSm90a(), checks);
    ASSERT_TRUE(checks.hasErrors());
    EXPECT_EQ(checks.diagnostics().at(0).code, "cp-async-not-awaited");
    const SourceRange at = checks.diagnostics().at(0).range;
    EXPECT_EQ(e->sources.file(at.file).lineCol(at.begin).line, 13);
}

TEST(CpAsync, AnElifChainOverTheThreadIndexIsOneScopePerBranch) {
    // FlashMLA's shape: two consumers and a producer, each a warpgroup of a 384-thread block.
    auto e =
        elaborateText("import tilelang.language as T\n"
                      "\n"
                      "@T.prim_func\n"
                      "def main(A: T.Tensor((128, 64), \"float16\"), C: T.Tensor((128, 64), \"float16\")):\n"
                      "    with T.Kernel(1, threads=384) as bx:\n"
                      "        A_shared = T.alloc_shared((128, 64), \"float16\")\n"
                      "        tx = T.get_thread_binding()\n"
                      "        if tx < 128:\n"
                      "            T.copy(A_shared[0:64, :], C[0:64, :])\n"
                      "        elif tx >= 128 and tx < 256:\n"
                      "            T.copy(A_shared[64:128, :], C[64:128, :])\n"
                      "        elif tx >= 256:\n"
                      "            T.copy(A, A_shared)\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_FALSE(e->diagnostics.hasErrors()) << e->report();
    std::vector<const ir::Stmt*> scopes = collect(e->module->funcs.at(0).body, ir::StmtKind::WarpGroups);
    ASSERT_EQ(scopes.size(), 3u) << ir::printModule(*e->module);
    EXPECT_EQ(scopes[0]->firstThread, 0);
    EXPECT_EQ(scopes[1]->firstThread, 128);
    EXPECT_EQ(scopes[2]->firstThread, 256);
    for (const ir::Stmt* s : scopes)
        EXPECT_EQ(s->threadCount, 128);
    EXPECT_TRUE(collect(e->module->funcs.at(0).body, ir::StmtKind::IfThenElse).empty());
}

} // namespace
} // namespace tb::test
