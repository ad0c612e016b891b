// A small fixed pool of worker threads for running the blocks of a kernel in parallel. Workers are
// pthreads with large stacks (the JIT keeps a block's on-chip buffers on the stack). parallelFor hands
// out index ranges in chunks through an atomic counter, so uneven blocks balance, and returns when every
// index has run. One parallelFor at a time per pool; the caller waits and does not run indices itself.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace tb::jit {

class ThreadPool {
public:
    // `threads` workers (at least 1), each with a stack of `stackBytes`.
    explicit ThreadPool(int threads, size_t stackBytes = size_t(64) << 20);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int threadCount() const { return static_cast<int>(m_threads.size()); }

    // Calls fn(begin, end, worker) over disjoint ranges covering [0, count), `chunk` indices at a time
    // (0 = choose), on the workers. Returns after all calls have returned.
    void parallelFor(int64_t count, int64_t chunk,
                     const std::function<void(int64_t begin, int64_t end, int worker)>& fn);

    // The process-wide pool with one worker per hardware thread, created on first use.
    static ThreadPool& shared();

private:
    void workerLoop(int worker);

    std::vector<unsigned long> m_threads; // pthread_t
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const std::function<void(int64_t, int64_t, int)>* m_job = nullptr;
    int64_t m_count = 0;
    int64_t m_chunk = 1;
    int64_t m_next = 0; // guarded by m_mutex (chunks are coarse, a lock per chunk is cheap)
    int m_busy = 0;
    uint64_t m_generation = 0;
    bool m_stop = false;
};

} // namespace tb::jit
