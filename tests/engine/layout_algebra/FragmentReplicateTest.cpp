// Fragment::replicate and fully replicated fragments.
#include "engine/layout/algebra/FragmentTable.h"
#include "engine/layout/algebra/GemmFragments.h"

#include <cstdint>
#include <gtest/gtest.h>

using namespace tb::layout;

TEST(FragmentReplicate, NewThreadsHoldCopies) {
    Fragment atom = mmaAtomA();
    Fragment twice = atom.replicate(2);
    EXPECT_EQ(twice.replicateExtent(), 2);
    EXPECT_EQ(twice.threadExtent(), 64);
    EXPECT_EQ(twice.registersPerThread(), 8);
    for (int64_t i = 0; i < 16; ++i)
        for (int64_t j = 0; j < 16; ++j) {
            EXPECT_EQ(twice.threadOf({i, j}, 0), atom.threadOf({i, j}));
            EXPECT_EQ(twice.threadOf({i, j}, 1), *atom.threadOf({i, j}) + 32);
            EXPECT_EQ(twice.registerOf({i, j}), atom.registerOf({i, j}));
        }
    // Replicating again keeps the earlier replicas in order: rep = old rep + 2 * new copy.
    Fragment four = twice.replicate(2);
    EXPECT_EQ(four.threadOf({3, 5}, 3), *atom.threadOf({3, 5}) + 32 + 64);
    LayoutResult<FragmentInverseTable> inverse = inverseFragment(four);
    ASSERT_TRUE(inverse.ok()) << inverse.error().message;
    EXPECT_EQ(inverse->unusedSlots(), 0);
}

TEST(FragmentReplicate, FullyReplicated) {
    Fragment all = Fragment::fullyReplicated({4, 8}, 128);
    EXPECT_EQ(all.threadExtent(), 128);
    EXPECT_EQ(all.registersPerThread(), 32);
    EXPECT_EQ(all.threadOf({2, 3}, 77), 77);
    EXPECT_EQ(all.registerOf({2, 3}), 19);
}
