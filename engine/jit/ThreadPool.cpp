// The worker pool behind the JIT's parallel blocks: pthreads (for the stack size), one mutex, two
// condition variables. A job is published with a generation number; each worker claims chunks until the
// range is exhausted, and the last one out wakes the caller.
#include "engine/jit/ThreadPool.h"

#include <algorithm>
#include <pthread.h>
#include <thread>

namespace tb::jit {

namespace {

struct StartArgs {
    ThreadPool* pool;
    int worker;
    void (*entry)(ThreadPool*, int);
};

void* threadMain(void* raw) {
    StartArgs* args = static_cast<StartArgs*>(raw);
    StartArgs copy = *args;
    delete args;
    copy.entry(copy.pool, copy.worker);
    return nullptr;
}

} // namespace

ThreadPool::ThreadPool(int threads, size_t stackBytes) {
    threads = std::max(threads, 1);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stackBytes);
    for (int i = 0; i < threads; ++i) {
        auto* args = new StartArgs{this, i, [](ThreadPool* pool, int worker) { pool->workerLoop(worker); }};
        pthread_t thread;
        if (pthread_create(&thread, &attr, threadMain, args) != 0) {
            delete args;
            break;
        }
        m_threads.push_back(static_cast<unsigned long>(thread));
    }
    pthread_attr_destroy(&attr);
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (unsigned long thread : m_threads)
        pthread_join(static_cast<pthread_t>(thread), nullptr);
}

void ThreadPool::parallelFor(int64_t count, int64_t chunk,
                             const std::function<void(int64_t, int64_t, int)>& fn) {
    if (count <= 0)
        return;
    if (m_threads.empty()) { // no worker could be started: run here
        fn(0, count, 0);
        return;
    }
    if (chunk <= 0) // about 8 chunks per worker: balance without contention
        chunk = std::max<int64_t>(1, count / (int64_t(m_threads.size()) * 8));
    std::unique_lock<std::mutex> lock(m_mutex);
    m_job = &fn;
    m_count = count;
    m_chunk = chunk;
    m_next = 0;
    m_busy = static_cast<int>(m_threads.size());
    ++m_generation;
    m_wake.notify_all();
    m_done.wait(lock, [&] { return m_busy == 0; });
    m_job = nullptr;
}

void ThreadPool::workerLoop(int worker) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
        if (m_stop)
            return;
        seen = m_generation;
        const auto* job = m_job;
        while (m_next < m_count) {
            int64_t begin = m_next;
            int64_t end = std::min(m_count, begin + m_chunk);
            m_next = end;
            lock.unlock();
            (*job)(begin, end, worker);
            lock.lock();
        }
        if (--m_busy == 0)
            m_done.notify_all();
    }
}

ThreadPool& ThreadPool::shared() {
    static ThreadPool pool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    return pool;
}

} // namespace tb::jit
