// Fragments read in a T.Parallel loop through the variable of an enclosing sequential loop (flash decoding's
// combine kernel: `lse_local_split[i] = lse_local[k, i]` inside `for k in T.Pipelined(num_split)`): every
// value of k runs on the same threads, so the thread that takes iteration i must hold lse_local[k, i] for
// every k. A default partition taken at the copy that fills lse_local (one row per warp) cannot give that;
// TileLang's free level then tries the other roots and keeps the conflict-free plan with the fewest
// registers, where lse_local keeps each column's rows in one thread.
#include "PassTestSupport.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <optional>
#include <string>

using namespace tb;
using namespace tb::passtest;

namespace {

const char* kCombine = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def combine(parts=4, block=128):

    @T.prim_func
    def main(L: T.Tensor((parts, block), "float16"), Out: T.Tensor((block,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            lse_local = T.alloc_fragment((parts, block), "float16")
            lse_split = T.alloc_fragment((block,), "float32")
            lse_max = T.alloc_fragment((block,), "float32")
            total = T.alloc_fragment((block,), "float32")
            T.clear(total)
            T.copy(L, lse_local)
            T.reduce_max(lse_local, lse_max, dim=0, clear=True)
            for k in T.Pipelined(parts):
                T.copy(lse_local[k, :], lse_split)
                for i in T.Parallel(block):
                    total[i] += T.exp2(lse_split[i] - lse_max[i])
            T.copy(total, Out)

    return main
)";

} // namespace

TEST(OuterLoopAccess, EveryRowOfAColumnLivesWithTheThreadThatReadsIt) {
    auto p = planText("combine.py", kCombine, targetSm90a());
    ASSERT_FALSE(hasErrors(*p)) << p->diagnosticsText();
    const layout::KernelPlan& k = p->kernel();
    const layout::FragmentPlan* rows = fragmentNamed(k, "lse_local");
    const layout::FragmentPlan* split = fragmentNamed(k, "lse_split");
    ASSERT_NE(rows, nullptr);
    ASSERT_NE(split, nullptr);
    // The thread that takes iteration i of the copy loop holds lse_local[k, i] for every k.
    for (int64_t i = 0; i < 128; ++i)
        for (int64_t rep = 0; rep < split->fragment.replicateExtent(); ++rep) {
            std::optional<int64_t> thread = split->fragment.threadOf({i}, rep);
            ASSERT_TRUE(thread);
            for (int64_t kk = 0; kk < 4; ++kk) {
                bool held = false;
                for (int64_t r = 0; r < rows->fragment.replicateExtent() && !held; ++r)
                    held = rows->fragment.threadOf({kk, i}, r) == thread;
                EXPECT_TRUE(held) << "lse_local[" << kk << ", " << i << "] is not on thread " << *thread;
            }
        }
    // The fewest registers: one row element per thread, a column of four rows per thread.
    EXPECT_EQ(split->registersPerThread, 1);
    EXPECT_EQ(rows->registersPerThread, 4);
    EXPECT_EQ(fragmentNamed(k, "lse_max")->registersPerThread, 1);
    EXPECT_NE(rows->origin.description.find("for every iteration of the enclosing loops"), std::string::npos)
        << rows->origin.description;
}

// The same rows read directly in the loop (no copy) are planned the same way.
TEST(OuterLoopAccess, AHandWrittenLoopIsPlannedLikeTheCopy) {
    std::string text = kCombine;
    const std::string copy = "T.copy(lse_local[k, :], lse_split)";
    text.replace(text.find(copy), copy.size(),
                 "for i in T.Parallel(block):\n                    lse_split[i] = lse_local[k, i]");
    auto p = planText("combine_loop.py", text, targetSm90a());
    ASSERT_FALSE(hasErrors(*p)) << p->diagnosticsText();
    auto q = planText("combine.py", kCombine, targetSm90a());
    for (const char* name : {"lse_local", "lse_split", "lse_max", "total"})
        EXPECT_TRUE(equalFragments(fragmentNamed(p->kernel(), name)->fragment,
                                   fragmentNamed(q->kernel(), name)->fragment))
            << name;
}
