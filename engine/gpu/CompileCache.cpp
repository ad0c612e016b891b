// In-memory LRU and on-disk store for NVRTC results (see CompileCache.h).
//
// Disk format, one file <hash>.tbcubin per entry: the line "tilebench-compile-cache 1", then sections
// "<name> <byte count>\n<bytes>\n" for key, log, ptx, cubin, kernel and the resource figures. Files are
// written to a temporary name and renamed, so a reader never sees half an entry; an unreadable or
// mismatching file is treated as a miss.
#include "engine/gpu/CompileCache.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <list>
#include <map>
#include <mutex>
#include <sstream>
#include <unistd.h>
#include <unordered_map>
#include <utility>

namespace tb::gpu {

namespace {

constexpr const char* kDiskMagic = "tilebench-compile-cache 1";

struct Entry {
    std::string key;
    CudaCompileResult result;
};

struct Cache {
    std::mutex mutex;
    CompileCacheSettings settings;
    std::list<Entry> lru; // front = most recent
    std::unordered_map<std::string, std::list<Entry>::iterator> byKey;
    CompileCacheStats stats;

    void trim() {
        while (lru.size() > settings.capacity) {
            byKey.erase(lru.back().key);
            lru.pop_back();
        }
    }
    void insert(const std::string& key, const CudaCompileResult& result) {
        if (settings.capacity == 0)
            return;
        auto it = byKey.find(key);
        if (it != byKey.end()) {
            lru.erase(it->second);
            byKey.erase(it);
        }
        lru.push_front(Entry{key, result});
        byKey[key] = lru.begin();
        trim();
    }
};

Cache& cache() {
    static Cache instance;
    return instance;
}

std::string diskPath(const std::string& dir, const std::string& key) {
    return (std::filesystem::path(dir) / (compileCacheHash(key) + ".tbcubin")).string();
}

void writeSection(std::ostream& out, const char* name, const std::string& bytes) {
    out << name << ' ' << bytes.size() << '\n';
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out << '\n';
}

bool readSection(std::istream& in, std::map<std::string, std::string>& sections) {
    std::string name;
    size_t size = 0;
    if (!(in >> name >> size) || in.get() != '\n' || size > (size_t(1) << 30))
        return false;
    std::string bytes(size, '\0');
    if (!in.read(bytes.data(), static_cast<std::streamsize>(size)) || in.get() != '\n')
        return false;
    sections[name] = std::move(bytes);
    return true;
}

std::optional<CudaCompileResult> loadFromDisk(const std::string& dir, const std::string& key) {
    std::ifstream in(diskPath(dir, key), std::ios::binary);
    if (!in)
        return std::nullopt;
    std::string magic;
    if (!std::getline(in, magic) || magic != kDiskMagic)
        return std::nullopt;
    std::map<std::string, std::string> sections;
    while (in.peek() != EOF) {
        if (!readSection(in, sections))
            return std::nullopt;
    }
    if (sections["key"] != key || sections["cubin"].empty())
        return std::nullopt;
    CudaCompileResult result;
    result.ok = true;
    result.log = sections["log"];
    result.ptx = sections["ptx"];
    result.cubin.assign(sections["cubin"].begin(), sections["cubin"].end());
    result.kernelName = sections["kernel"];
    std::istringstream figures(sections["figures"]);
    if (!(figures >> result.registers >> result.sharedBytes >> result.spillStoreBytes >>
          result.spillLoadBytes >> result.stackBytes))
        return std::nullopt;
    return result;
}

void saveToDisk(const std::string& dir, const std::string& key, const CudaCompileResult& result) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        return; // the disk cache is best effort; the compile itself succeeded
    std::string path = diskPath(dir, key);
    std::string tmp = path + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            return;
        out << kDiskMagic << '\n';
        writeSection(out, "key", key);
        writeSection(out, "kernel", result.kernelName);
        writeSection(out, "log", result.log);
        writeSection(out, "ptx", result.ptx);
        writeSection(out, "cubin", std::string(result.cubin.begin(), result.cubin.end()));
        std::ostringstream figures;
        figures << result.registers << ' ' << result.sharedBytes << ' ' << result.spillStoreBytes << ' '
                << result.spillLoadBytes << ' ' << result.stackBytes;
        writeSection(out, "figures", figures.str());
        if (!out)
            return;
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec)
        std::filesystem::remove(tmp, ec);
}

} // namespace

void configureCompileCache(const CompileCacheSettings& settings) {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    c.settings = settings;
    c.trim();
}

CompileCacheSettings compileCacheSettings() {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    return c.settings;
}

void clearCompileCache() {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    c.lru.clear();
    c.byKey.clear();
}

CompileCacheStats compileCacheStats() {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    CompileCacheStats stats = c.stats;
    stats.entries = c.lru.size();
    return stats;
}

std::string compileCacheHash(const std::string& key) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : key) {
        h ^= ch;
        h *= 1099511628211ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::optional<CudaCompileResult> lookupCompileCache(const std::string& key) {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    auto it = c.byKey.find(key);
    if (it != c.byKey.end()) {
        c.lru.splice(c.lru.begin(), c.lru, it->second);
        ++c.stats.memoryHits;
        return it->second->result;
    }
    if (!c.settings.diskDirectory.empty()) {
        if (auto fromDisk = loadFromDisk(c.settings.diskDirectory, key)) {
            ++c.stats.diskHits;
            c.insert(key, *fromDisk);
            return fromDisk;
        }
    }
    ++c.stats.misses;
    return std::nullopt;
}

void storeCompileCache(const std::string& key, const CudaCompileResult& result) {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    c.insert(key, result);
    if (!c.settings.diskDirectory.empty())
        saveToDisk(c.settings.diskDirectory, key, result);
}

} // namespace tb::gpu
