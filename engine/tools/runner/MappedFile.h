// A file mapped into memory for the runner's out-of-band transfers (`write <buf> file=`, `read <buf> file=`):
// buffer contents go between the device and the file's pages with one copy, never through a second host
// vector, so a tensor of hundreds of MB costs its own size once in the runner (docs/runner-protocol.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace tb::runner {

class MappedFile {
public:
    // The whole file, read-only. nullopt with `error` ("cannot open <path>: <why>").
    static std::optional<MappedFile> openForRead(const std::string& path, std::string& error);
    // A new or truncated file of exactly `bytes`, writable.
    static std::optional<MappedFile> createForWrite(const std::string& path, size_t bytes,
                                                    std::string& error);

    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    void* data() const { return m_data; } // nullptr for an empty file
    size_t size() const { return m_size; }

private:
    MappedFile() = default;
    void* m_data = nullptr;
    size_t m_size = 0;
};

} // namespace tb::runner
