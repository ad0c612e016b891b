// A process-wide memo of layout tables (a fragment's element -> (thread, register) table, a layout's offset
// table): pure functions of a layout's canonical text that several passes (layout inference, the bank
// analysis, the emitter), the stage sweep's variants and the next keystroke's compile all ask for again.
// Building one evaluates every element; copying it out of the memo is a memcpy. Thread-safe: the app
// compiles on worker threads and the sweep compiles its variants in parallel. When the memo holds more
// than its byte budget it starts over, so it never grows without bound.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tb::layout {

template <typename Table>
class TableMemo {
public:
    explicit TableMemo(size_t byteBudget) : m_byteBudget(byteBudget) {}

    // The table of `key`, built by `build` on a miss; `bytes` estimates a table's size.
    std::shared_ptr<const Table> get(const std::string& key, const std::function<Table()>& build,
                                     const std::function<size_t(const Table&)>& bytes) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (auto it = m_tables.find(key); it != m_tables.end())
                return it->second;
        }
        // Built outside the lock: two threads may build the same table once each, never wait on each other.
        auto table = std::make_shared<const Table>(build());
        const size_t size = bytes(*table) + key.size();
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_bytes + size > m_byteBudget) {
            m_tables.clear();
            m_bytes = 0;
        }
        if (m_tables.emplace(key, table).second)
            m_bytes += size;
        return table;
    }

private:
    std::mutex m_mutex;
    std::unordered_map<std::string, std::shared_ptr<const Table>> m_tables;
    size_t m_bytes = 0;
    size_t m_byteBudget;
};

} // namespace tb::layout
