// The content-addressed cache of NVRTC results: an in-memory LRU of recent compiles plus an optional
// directory on disk that survives restarts. Entries are keyed by the full key text (source, kernel name,
// options, NVRTC version); the 64-bit hash only names the entry, and a hit compares the full key, so a
// hash collision is a miss, never a wrong cubin.
#pragma once

#include "engine/gpu/Nvrtc.h"

#include <cstddef>
#include <optional>
#include <string>

namespace tb::gpu {

struct CompileCacheSettings {
    size_t capacity = 64;      // in-memory entries; 0 disables the memory cache
    std::string diskDirectory; // empty: no disk cache; created on first store
};

// Applies to the process-wide cache compileCuda uses. Thread-safe.
void configureCompileCache(const CompileCacheSettings& settings);
CompileCacheSettings compileCacheSettings();
void clearCompileCache(); // memory only; the disk directory is left alone

struct CompileCacheStats {
    size_t memoryHits = 0, diskHits = 0, misses = 0, entries = 0;
};
CompileCacheStats compileCacheStats();

// FNV-1a 64-bit hash of the key as 16 hex digits: the entry's file name on disk.
std::string compileCacheHash(const std::string& key);

// Used by compileCuda: look up a key, store a successful result.
std::optional<CudaCompileResult> lookupCompileCache(const std::string& key);
void storeCompileCache(const std::string& key, const CudaCompileResult& result);

} // namespace tb::gpu
