// Private transfer directories and whole-file I/O for out-of-band buffer transfers (see TransferFiles.h).
#include "engine/gpu/TransferFiles.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <utility>

namespace tb::gpu {

namespace {

bool writableDirectory(const std::string& dir) {
    struct stat st {};
    return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ::access(dir.c_str(), W_OK | X_OK) == 0;
}

// Free bytes for an unprivileged writer on the file system holding `dir`; SIZE_MAX when unknown.
size_t freeBytes(const std::string& dir) {
    struct statvfs vfs {};
    if (::statvfs(dir.c_str(), &vfs) != 0)
        return SIZE_MAX;
    return static_cast<size_t>(vfs.f_bavail) * static_cast<size_t>(vfs.f_frsize);
}

constexpr size_t kChunk = size_t(1) << 30; // read/write at most 1 GiB per call

} // namespace

TransferFiles::TransferFiles(std::vector<std::string> parents) : m_parents(std::move(parents)) {
    if (m_parents.empty()) {
        if (writableDirectory("/dev/shm"))
            m_parents.push_back("/dev/shm");
        const char* tmp = std::getenv("TMPDIR");
        m_parents.push_back(tmp && *tmp ? tmp : "/tmp");
    }
    m_dirs.resize(m_parents.size());
}

TransferFiles::~TransferFiles() {
    for (const std::string& dir : m_made) {
        std::error_code ec; // only ever a directory this object made
        std::filesystem::remove_all(dir, ec);
    }
}

std::string TransferFiles::fileIn(size_t index, size_t bytes, std::string& error) {
    if (index >= m_parents.size()) {
        error = "no directory for transfer files";
        return {};
    }
    const std::string& parent = m_parents[index];
    if (m_dirs[index].empty()) {
        std::string pattern = parent + "/tilebench-transfer-XXXXXX";
        if (!::mkdtemp(pattern.data())) { // mode 0700: only this user (and so the runner) can use it
            error = "cannot make a directory in " + parent + ": " + std::strerror(errno);
            return {};
        }
        m_dirs[index] = pattern;
        m_made.push_back(pattern);
    }
    // Some room to spare beyond the file itself.
    if (bytes && freeBytes(m_dirs[index]) < bytes + (size_t(16) << 20)) {
        error = parent + " has " + std::to_string(freeBytes(m_dirs[index]) >> 20) + " MiB free, " +
                std::to_string(bytes >> 20) + " MiB needed";
        return {};
    }
    return m_dirs[index] + "/t" + std::to_string(++m_count) + ".bin";
}

bool writeWholeFile(const std::string& path, const void* data, size_t bytes, std::string& error) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        error = "cannot create " + path + ": " + std::strerror(errno);
        return false;
    }
    const char* p = static_cast<const char*>(data);
    size_t done = 0;
    while (done < bytes) {
        ssize_t n = ::write(fd, p + done, std::min(bytes - done, kChunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            error =
                "cannot write " + std::to_string(bytes) + " bytes to " + path + ": " + std::strerror(errno);
            ::close(fd);
            return false;
        }
        done += static_cast<size_t>(n);
    }
    if (::close(fd) != 0) {
        error = "cannot write " + path + ": " + std::strerror(errno);
        return false;
    }
    return true;
}

bool readWholeFile(const std::string& path, std::vector<char>& out, std::string& error) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
        error = "cannot open " + path + ": " + std::strerror(errno);
        if (fd >= 0)
            ::close(fd);
        return false;
    }
    out.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < out.size()) {
        ssize_t n = ::read(fd, out.data() + done, std::min(out.size() - done, kChunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            error = "cannot read " + path + ": " +
                    (n == 0 ? std::string("it is shorter than it was") : std::strerror(errno));
            ::close(fd);
            return false;
        }
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    return true;
}

} // namespace tb::gpu
