// The JIT's worker pool: every index of a parallelFor runs exactly once, whatever the chunk size and
// thread count, jobs run one after another on the same pool, and an empty range returns at once.
#include "engine/jit/ThreadPool.h"

#include <atomic>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace tb::jit {
namespace {

TEST(ThreadPool, EveryIndexRunsExactlyOnce) {
    for (int threads : {1, 2, 5}) {
        ThreadPool pool(threads);
        EXPECT_EQ(pool.threadCount(), threads);
        for (int64_t chunk : {int64_t(0), int64_t(1), int64_t(7), int64_t(1000)}) {
            std::vector<std::atomic<int>> hits(997);
            std::atomic<int> maxWorker{0};
            pool.parallelFor(997, chunk, [&](int64_t begin, int64_t end, int worker) {
                EXPECT_LT(begin, end);
                for (int64_t i = begin; i < end; ++i)
                    hits[size_t(i)]++;
                int seen = maxWorker.load();
                while (worker > seen && !maxWorker.compare_exchange_weak(seen, worker)) {
                }
            });
            for (size_t i = 0; i < hits.size(); ++i)
                ASSERT_EQ(hits[i].load(), 1) << "index " << i << " chunk " << chunk << " threads " << threads;
            EXPECT_LT(maxWorker.load(), threads);
        }
    }
}

TEST(ThreadPool, ConsecutiveJobsAndEmptyRanges) {
    ThreadPool pool(2);
    std::atomic<int64_t> sum{0};
    for (int job = 0; job < 200; ++job)
        pool.parallelFor(job, 0, [&](int64_t begin, int64_t end, int) {
            for (int64_t i = begin; i < end; ++i)
                sum += i;
        });
    int64_t want = 0;
    for (int job = 0; job < 200; ++job)
        want += int64_t(job) * (job - 1) / 2;
    EXPECT_EQ(sum.load(), want);
}

TEST(ThreadPool, SharedPoolHasOneWorkerPerHardwareThread) {
    EXPECT_GE(ThreadPool::shared().threadCount(), 1);
}

} // namespace
} // namespace tb::jit
