// The baton: one mutex and one condition variable; m_holder names the task that may run, and every other
// task thread sleeps on the condition variable until it is named. Scope threads get large stacks, as the
// interpreter's recursion (statements within expressions, up to ExecutionLimits::maxDepth) needs.
#include "engine/exec/CooperativeScopes.h"

#include <pthread.h>
#include <stdexcept>
#include <string>

namespace tb {

namespace {

constexpr size_t kNoHolder = ~size_t(0);
constexpr size_t kScopeStackBytes = size_t(64) << 20;

// Thrown at the wait of a task that must stop because another one failed; never leaves this file.
struct ScopeCancelled {};

} // namespace

struct CooperativeScopes::Start {
    CooperativeScopes* self;
    size_t index;
    const Task* task;
};

CooperativeScopes::CooperativeScopes(size_t count) : m_waits(count, nullptr), m_finished(count, false) {}

void* CooperativeScopes::threadEntry(void* start) {
    const Start* s = static_cast<const Start*>(start);
    s->self->threadMain(s->index, *s->task);
    return nullptr;
}

void CooperativeScopes::run(size_t count, const Task& task) {
    CooperativeScopes scopes(count);
    scopes.m_holder = kNoHolder; // nobody runs until every thread exists
    std::vector<Start> starts(count);
    std::vector<pthread_t> threads;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kScopeStackBytes);
    for (size_t i = 0; i < count; ++i) {
        starts[i] = {&scopes, i, &task};
        pthread_t thread;
        if (pthread_create(&thread, &attr, &CooperativeScopes::threadEntry, &starts[i]) != 0) {
            std::lock_guard<std::mutex> lock(scopes.m_mutex);
            scopes.m_error = std::make_exception_ptr(
                std::runtime_error("cannot start a thread for T.ws scope " + std::to_string(i)));
            scopes.m_stopping = true; // the threads already started finish without running their task
            for (size_t j = i; j < count; ++j)
                scopes.m_finished[j] = true;
            break;
        }
        threads.push_back(thread);
    }
    pthread_attr_destroy(&attr);
    {
        std::unique_lock<std::mutex> lock(scopes.m_mutex);
        if (!threads.empty())
            scopes.m_holder = 0;
        scopes.m_changed.notify_all();
        scopes.m_changed.wait(lock, [&] {
            for (bool finished : scopes.m_finished)
                if (!finished)
                    return false;
            return true;
        });
    }
    for (pthread_t thread : threads)
        pthread_join(thread, nullptr);
    if (scopes.m_error)
        std::rethrow_exception(scopes.m_error);
}

void CooperativeScopes::threadMain(size_t self, const Task& task) {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_changed.wait(lock, [&] { return m_holder == self; });
    if (!m_stopping) {
        lock.unlock();
        std::exception_ptr failure;
        try {
            task(*this, self);
        } catch (const ScopeCancelled&) {
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        if (failure) {
            if (!m_error)
                m_error = failure;
            m_stopping = true;
        }
    }
    m_finished[self] = true;
    passBaton(self);
}

bool CooperativeScopes::waitUntil(size_t self, const std::function<bool()>& ready) {
    if (ready())
        return true;
    std::unique_lock<std::mutex> lock(m_mutex);
    m_waits[self] = &ready;
    passBaton(self);
    m_changed.wait(lock, [&] { return m_holder == self; });
    m_waits[self] = nullptr;
    if (m_stopping)
        throw ScopeCancelled{};
    if (m_deadlocked) {
        m_deadlocked = false;
        return false;
    }
    return true;
}

// Called with the mutex held, by the holder. The waits are evaluated here, by the holder, while every other
// task sleeps. When stopping, every unfinished task gets the baton in turn, to unwind.
void CooperativeScopes::passBaton(size_t from) {
    const size_t n = m_finished.size();
    m_holder = kNoHolder;
    for (size_t d = 1; d <= n && m_holder == kNoHolder; ++d) {
        const size_t j = (from + d) % n;
        if (!m_finished[j] && (m_stopping || !m_waits[j] || (*m_waits[j])()))
            m_holder = j;
    }
    // Nothing can run but some tasks wait: they wait forever. One of them gets the baton to report it.
    for (size_t d = 1; d <= n && m_holder == kNoHolder; ++d) {
        const size_t j = (from + d) % n;
        if (!m_finished[j]) {
            m_holder = j;
            m_deadlocked = true;
        }
    }
    m_changed.notify_all();
}

} // namespace tb
