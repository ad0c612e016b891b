// Cooperative scheduling of the T.ws scopes that run concurrently on the GPU (ir::concurrentWarpGroupRun)
// for the CPU executor: each scope runs on a thread of its own, but only the one holding the baton runs,
// so the interpreter's state needs no locking and every run switches at the same points (the results are
// deterministic). Scope 0 runs first, until it waits for something not yet true (an mbarrier phase another
// scope completes); the baton then goes to the next scope, round robin, that can run: one not started yet,
// or one whose wait now holds. A thread is the simplest way to suspend a tree-walking interpreter in the
// middle of a statement.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

namespace tb {

class CooperativeScopes {
public:
    // Runs task(i) for i in [0, count), one at a time, and returns when all have returned. When a task
    // throws, the others are stopped at their next wait (or not started) and the first exception is
    // rethrown here, on the calling thread.
    static void run(size_t count, const std::function<void(CooperativeScopes&, size_t)>& task);

    // Called by the running task `self`: returns true once ready() holds, letting the other tasks run in
    // the meantime; ready() is evaluated only while its caller holds the baton. Returns false when every
    // unfinished task waits for something no task can make true any more (a deadlock): the caller still
    // holds the baton, reports it and throws, which stops the run. The caller saves and restores whatever
    // interpreter state is its own around this call.
    bool waitUntil(size_t self, const std::function<bool()>& ready);

private:
    using Task = std::function<void(CooperativeScopes&, size_t)>;
    struct Start;

    explicit CooperativeScopes(size_t count);
    static void* threadEntry(void* start);
    void threadMain(size_t self, const Task& task);
    // Gives the baton from `from` (which then waits, or has finished) to the next task that can run.
    void passBaton(size_t from);

    std::mutex m_mutex;
    std::condition_variable m_changed;
    size_t m_holder = 0;                               // the task that may run
    std::vector<const std::function<bool()>*> m_waits; // a task's unsatisfied wait, null when none
    std::vector<bool> m_finished;
    bool m_stopping = false;   // a task failed: the others unwind, one at a time
    bool m_deadlocked = false; // the holder was woken because nothing can run
    std::exception_ptr m_error;
};

} // namespace tb
