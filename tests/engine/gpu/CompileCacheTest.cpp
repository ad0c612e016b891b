// The NVRTC result cache: a second identical compile is a hit with the same cubin, any change in source,
// kernel or options is a miss, and the disk directory serves a hit after the memory cache is cleared.
#include "engine/gpu/CompileCache.h"

#include "TestKernels.h"

#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace tb::gpu {
namespace {

// A source no other test compiles, so the process-wide cache starts cold for it.
std::string uniqueSource(const std::string& tag) {
    static int counter = 0;
    return std::string(test::kMmaSource) + "\n// " + tag + " " + std::to_string(::getpid()) + " " +
           std::to_string(++counter) + " " +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "\n";
}

TEST(CompileCache, HashIsStableAndDistinguishesKeys) {
    EXPECT_EQ(compileCacheHash("abc"), compileCacheHash("abc"));
    EXPECT_NE(compileCacheHash("abc"), compileCacheHash("abd"));
    EXPECT_EQ(compileCacheHash("").size(), 16u);
}

#if TILEBENCH_HAS_NVRTC

TEST(CompileCache, SecondCompileIsAHit) {
    std::string source = uniqueSource("hit");
    CudaCompileOptions options;
    options.arch = "sm_90a";
    CudaCompileResult first = compileCuda(source, "mma_tile", options);
    ASSERT_TRUE(first.ok) << first.log;
    EXPECT_FALSE(first.cacheHit);
    CudaCompileResult second = compileCuda(source, "mma_tile", options);
    ASSERT_TRUE(second.ok);
    EXPECT_TRUE(second.cacheHit);
    EXPECT_EQ(second.cubin, first.cubin);
    EXPECT_EQ(second.registers, first.registers);
    EXPECT_LT(second.milliseconds, first.milliseconds);

    CudaCompileOptions other = options;
    other.arch = "sm_80";
    EXPECT_FALSE(compileCuda(source, "mma_tile", other).cacheHit);
    other = options;
    other.lineInfo = false;
    EXPECT_FALSE(compileCuda(source, "mma_tile", other).cacheHit);
    other = options;
    other.extraOptions = {"-DUNUSED=1"};
    EXPECT_FALSE(compileCuda(source, "mma_tile", other).cacheHit);
    EXPECT_FALSE(compileCuda(source + " ", "mma_tile", options).cacheHit);
    EXPECT_TRUE(compileCuda(source, "mma_tile", options).cacheHit);
}

TEST(CompileCache, FailedCompilesAreNotCached) {
    std::string source = uniqueSource("fail") + "this is not CUDA;\n";
    CudaCompileOptions options;
    EXPECT_FALSE(compileCuda(source, "mma_tile", options).ok);
    CudaCompileResult again = compileCuda(source, "mma_tile", options);
    EXPECT_FALSE(again.ok);
    EXPECT_FALSE(again.cacheHit);
}

TEST(CompileCache, DiskCacheServesAfterMemoryIsCleared) {
    auto dir =
        std::filesystem::temp_directory_path() / ("tilebench-cache-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    CompileCacheSettings saved = compileCacheSettings();
    CompileCacheSettings settings = saved;
    settings.diskDirectory = dir.string();
    configureCompileCache(settings);

    std::string source = uniqueSource("disk");
    CudaCompileOptions options;
    CudaCompileResult first = compileCuda(source, "mma_tile", options);
    ASSERT_TRUE(first.ok) << first.log;
    EXPECT_FALSE(first.cacheHit);
    size_t files = 0;
    for (auto& entry : std::filesystem::directory_iterator(dir))
        files += entry.path().extension() == ".tbcubin";
    EXPECT_EQ(files, 1u);

    clearCompileCache();
    size_t diskHitsBefore = compileCacheStats().diskHits;
    CudaCompileResult second = compileCuda(source, "mma_tile", options);
    EXPECT_TRUE(second.cacheHit);
    EXPECT_EQ(second.cubin, first.cubin);
    EXPECT_EQ(second.ptx, first.ptx);
    EXPECT_EQ(second.registers, first.registers);
    EXPECT_EQ(second.sharedBytes, first.sharedBytes);
    EXPECT_EQ(compileCacheStats().diskHits, diskHitsBefore + 1);

    // A corrupted entry is a miss, not a crash or a wrong cubin.
    for (auto& entry : std::filesystem::directory_iterator(dir))
        std::filesystem::resize_file(entry.path(), 40);
    clearCompileCache();
    CudaCompileResult third = compileCuda(source, "mma_tile", options);
    EXPECT_TRUE(third.ok);
    EXPECT_FALSE(third.cacheHit);

    configureCompileCache(saved);
    std::filesystem::remove_all(dir);
}

TEST(CompileCache, LruEvictsTheOldestEntry) {
    CompileCacheSettings saved = compileCacheSettings();
    CompileCacheSettings small;
    small.capacity = 2;
    configureCompileCache(small);
    clearCompileCache();
    CudaCompileOptions options;
    std::string a = uniqueSource("a"), b = uniqueSource("b"), c = uniqueSource("c");
    ASSERT_TRUE(compileCuda(a, "mma_tile", options).ok);
    ASSERT_TRUE(compileCuda(b, "mma_tile", options).ok);
    EXPECT_TRUE(compileCuda(a, "mma_tile", options).cacheHit); // a is now the most recent
    ASSERT_TRUE(compileCuda(c, "mma_tile", options).ok);       // evicts b
    EXPECT_EQ(compileCacheStats().entries, 2u);
    EXPECT_TRUE(compileCuda(a, "mma_tile", options).cacheHit);
    EXPECT_FALSE(compileCuda(b, "mma_tile", options).cacheHit);
    configureCompileCache(saved);
}

#endif

} // namespace
} // namespace tb::gpu
