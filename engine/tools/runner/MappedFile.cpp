// mmap-backed files for out-of-band buffer transfers (see MappedFile.h).
#include "MappedFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace tb::runner {

std::optional<MappedFile> MappedFile::openForRead(const std::string& path, std::string& error) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = "cannot open " + path + ": " + std::strerror(errno);
        return std::nullopt;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        error = "cannot read " + path + ": not a regular file";
        ::close(fd);
        return std::nullopt;
    }
    MappedFile f;
    f.m_size = static_cast<size_t>(st.st_size);
    if (f.m_size > 0) {
        void* p = ::mmap(nullptr, f.m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            error = "cannot map " + path + ": " + std::strerror(errno);
            ::close(fd);
            return std::nullopt;
        }
        f.m_data = p;
    }
    ::close(fd);
    return f;
}

std::optional<MappedFile> MappedFile::createForWrite(const std::string& path, size_t bytes,
                                                     std::string& error) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        error = "cannot create " + path + ": " + std::strerror(errno);
        return std::nullopt;
    }
    MappedFile f;
    f.m_size = bytes;
    if (bytes > 0) {
        // posix_fallocate reserves the pages now, so a full disk is an error here rather than a SIGBUS later.
        int r = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
        void* p = r == 0 ? ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
        if (p == MAP_FAILED) {
            error = "cannot write " + std::to_string(bytes) + " bytes to " + path + ": " +
                    std::strerror(r != 0 ? r : errno);
            ::close(fd);
            ::unlink(path.c_str());
            return std::nullopt;
        }
        f.m_data = p;
    }
    ::close(fd);
    return f;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        if (m_data)
            ::munmap(m_data, m_size);
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
    }
    return *this;
}

MappedFile::~MappedFile() {
    if (m_data)
        ::munmap(m_data, m_size);
}

} // namespace tb::runner
