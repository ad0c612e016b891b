// The layout-table memo: a hit is the table a fresh build gives, a key is built once, the budget bounds what
// it holds, and threads that ask at once all get the one table.
#include "engine/layout/algebra/TableMemo.h"

#include "engine/layout/algebra/FragmentTable.h"
#include "engine/layout/algebra/GemmFragments.h"
#include "engine/layout/algebra/Swizzle.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace tb::layout;

TEST(TableMemo, BuildsAKeyOnceAndStartsOverPastItsBudget) {
    TableMemo<std::vector<int>> memo(100);
    int builds = 0;
    auto build = [&] {
        ++builds;
        return std::vector<int>(10, builds);
    };
    auto bytes = [](const std::vector<int>& v) { return v.size() * sizeof(int); };
    std::shared_ptr<const std::vector<int>> a = memo.get("a", build, bytes);
    EXPECT_EQ(memo.get("a", build, bytes), a);
    EXPECT_EQ(builds, 1);
    // 41 bytes each ("a"/"b" + 40): the third table passes 100 bytes, so the memo starts over.
    memo.get("b", build, bytes);
    memo.get("c", build, bytes);
    EXPECT_EQ(builds, 3);
    memo.get("a", build, bytes);
    EXPECT_EQ(builds, 4);
    EXPECT_EQ(a->front(), 1); // a table handed out stays valid after the memo let it go
}

TEST(TableMemo, ThreadsAskingAtOnceGetEqualTables) {
    TableMemo<std::vector<int>> memo(1 << 20);
    std::atomic<int> builds{0};
    std::vector<std::shared_ptr<const std::vector<int>>> got(8);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < got.size(); ++t)
        threads.emplace_back([&, t] {
            got[t] = memo.get(
                "k",
                [&] {
                    ++builds;
                    return std::vector<int>{1, 2, 3};
                },
                [](const std::vector<int>& v) { return v.size(); });
        });
    for (std::thread& t : threads)
        t.join();
    for (const auto& g : got)
        EXPECT_EQ(*g, (std::vector<int>{1, 2, 3}));
    EXPECT_GE(builds.load(), 1);
    EXPECT_EQ(memo.get(
                  "k", [] { return std::vector<int>{}; }, [](const std::vector<int>&) { return 0; }),
              memo.get(
                  "k", [] { return std::vector<int>{}; }, [](const std::vector<int>&) { return 0; }));
}

TEST(TableMemo, FragmentAndOffsetTablesFromTheMemoAreTheFreshlyBuiltOnes) {
    for (const Fragment& f : {mmaAtomC(), mmaAtomA()}) {
        LayoutResult<FragmentTable> memo = tabulateFragment(f), again = tabulateFragment(f),
                                    fresh = tabulateFragmentUncached(f);
        ASSERT_TRUE(memo.ok() && fresh.ok());
        ASSERT_EQ(memo->cells.size(), fresh->cells.size());
        for (size_t k = 0; k < fresh->cells.size(); ++k) {
            EXPECT_EQ(memo->cells[k].thread, fresh->cells[k].thread);
            EXPECT_EQ(memo->cells[k].reg, fresh->cells[k].reg);
            EXPECT_EQ(again->cells[k].reg, fresh->cells[k].reg);
        }
    }
    LayoutResult<Layout> made = makeSwizzledLayout(SwizzleKind::Full128B, 64, 64, 16);
    ASSERT_TRUE(made.ok());
    const Layout& swizzled = made.value();
    swizzled.offsetTable(); // the second call is served by the memo
    auto table = swizzled.offsetTable();
    ASSERT_TRUE(table);
    for (int64_t i : {0, 7, 63})
        for (int64_t j : {0, 9, 63})
            EXPECT_EQ((*table)[size_t(i * 64 + j)], swizzled.offset({i, j}));
}
