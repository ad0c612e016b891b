// Files for RunnerClient's out-of-band buffer transfers (docs/runner-protocol.md, "Binary payloads"): private
// directories (mode 0700, made with mkdtemp on first use) under candidate parents, /dev/shm first (memory, no
// disk) and then $TMPDIR or /tmp, chosen per transfer by free space, so a small /dev/shm (64 MB in many
// containers) does not stop a 268 MB result; and whole-file reads and writes. The runner runs as the same
// user, so it can use the paths. Directories are removed with the object.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tb::gpu {

class TransferFiles {
public:
    // `parents` empty: /dev/shm when it is a writable directory, then $TMPDIR (or /tmp).
    explicit TransferFiles(std::vector<std::string> parents = {});
    ~TransferFiles();
    TransferFiles(const TransferFiles&) = delete;
    TransferFiles& operator=(const TransferFiles&) = delete;

    // The candidate parents, best first: a transfer tries them in order.
    size_t parentCount() const { return m_parents.size(); }
    // A fresh file path in parent `index`'s private directory (made on first use); empty, with `error`
    // saying why, when the directory cannot be made or (for `bytes` > 0) its file system has no room.
    std::string fileIn(size_t index, size_t bytes, std::string& error);
    // The private directories made so far.
    const std::vector<std::string>& directories() const { return m_made; }

private:
    std::vector<std::string> m_parents;
    std::vector<std::string> m_dirs; // per parent: its private directory, or empty until made
    std::vector<std::string> m_made;
    unsigned m_count = 0;
};

// The whole of `bytes` at `data` as a new file (O_EXCL, mode 0600). False with `error`.
bool writeWholeFile(const std::string& path, const void* data, size_t bytes, std::string& error);
// The whole file into `out`. False with `error`.
bool readWholeFile(const std::string& path, std::vector<char>& out, std::string& error);

} // namespace tb::gpu
