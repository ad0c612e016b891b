// Buffer contents out of band (issue 15 item 6): above RunnerOptions::outOfBandBytes a write or read goes
// through a file in the client's private transfer directory and the line carries only its path, so the
// size is limited by memory, not by the protocol's line length. Small buffers stay inline (base64). The
// files are removed after each request and the directory with the client. Sizes here are a few MB with a
// lowered threshold, and one buffer above the default threshold.
#include "RunnerTestSupport.h"
#include "engine/gpu/RunnerClient.h"

#include <cstdint>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace tb::gpu {
namespace {

using test::fakeRunner;

std::vector<char> pattern(size_t bytes, uint32_t seed) {
    std::vector<char> v(bytes);
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < bytes; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] = static_cast<char>(x);
    }
    return v;
}

bool isEmptyDirectory(const std::string& dir) {
    std::error_code ec;
    return std::filesystem::is_directory(dir, ec) && std::filesystem::is_empty(dir, ec);
}

TEST(RunnerTransferFake, LargeBuffersGoThroughAPrivateFileAndComeBackIntact) {
    std::string dir;
    {
        RunnerOptions options = fakeRunner();
        options.outOfBandBytes = 64 << 10;
        RunnerClient client(options);
        const size_t bytes = (3 << 20) + 5; // not a multiple of anything
        std::vector<char> data = pattern(bytes, 1);
        ASSERT_TRUE(client.request("alloc x " + std::to_string(bytes)).ok());
        RunnerReply w = client.writeBuffer("x", data.data(), data.size());
        ASSERT_TRUE(w.ok()) << w.code << " " << w.message;
        EXPECT_EQ(w.field("bytes"), std::to_string(bytes));
        ASSERT_EQ(client.transferDirectories().size(), 1u);
        dir = client.transferDirectories()[0];
        struct stat st {};
        ASSERT_EQ(::stat(dir.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0700u) << "the transfer directory is private";
        EXPECT_TRUE(isEmptyDirectory(dir)) << "the write's file is removed after the request";

        std::vector<char> back;
        RunnerReply r = client.readBuffer("x", back);
        ASSERT_TRUE(r.ok()) << r.code << " " << r.message;
        EXPECT_EQ(r.field("bytes"), std::to_string(bytes));
        EXPECT_EQ(r.fields.count("file"), 0u) << "the client's reply hides the transport";
        EXPECT_TRUE(back == data);
        EXPECT_TRUE(isEmptyDirectory(dir)) << "the read's file is removed after the request";

        // A write that does not fit is refused and its file still removed; the runner goes on.
        ASSERT_TRUE(client.request("alloc small 1024").ok());
        RunnerReply tooBig = client.writeBuffer("small", data.data(), data.size());
        EXPECT_EQ(tooBig.code, "out-of-range");
        EXPECT_TRUE(isEmptyDirectory(dir));
        EXPECT_EQ(client.restartCount(), 0);
    }
    EXPECT_FALSE(std::filesystem::exists(dir)) << "the client removes its directory";
}

TEST(RunnerTransferFake, TheRunnerAnswersSmallReadsInlineAndLargeOnesByFile) {
    RunnerOptions options = fakeRunner();
    RunnerClient client(options);
    std::vector<char> data = pattern(4096, 2);
    ASSERT_TRUE(client.request("alloc x 4096").ok());
    ASSERT_TRUE(client.writeBuffer("x", data.data(), data.size()).ok());
    std::string path = std::filesystem::temp_directory_path().string() + "/tilebench-transfer-test-" +
                       std::to_string(::getpid()) + ".bin";
    RunnerReply small = client.request("read x file=" + path + " inline_max=4096");
    ASSERT_TRUE(small.ok()) << small.message;
    EXPECT_EQ(small.fields.count("file"), 0u);
    EXPECT_EQ(small.field("base64").size(), 5464u); // 4096 bytes inline
    EXPECT_FALSE(std::filesystem::exists(path));
    RunnerReply large = client.request("read x file=" + path + " inline_max=4095");
    ASSERT_TRUE(large.ok()) << large.message;
    EXPECT_EQ(large.field("file"), path);
    EXPECT_EQ(large.fields.count("base64"), 0u);
    EXPECT_EQ(std::filesystem::file_size(path), 4096u);
    std::filesystem::remove(path);
    EXPECT_EQ(client.request("read x inline_max=lots").code, "bad-request");
}

TEST(RunnerTransferFake, AboveTheDefaultThresholdWithoutTuning) {
    RunnerClient client(fakeRunner());
    const size_t bytes = (RunnerOptions().outOfBandBytes) + (1 << 20);
    std::vector<char> data = pattern(bytes, 3);
    ASSERT_TRUE(client.request("alloc big " + std::to_string(bytes)).ok());
    ASSERT_TRUE(client.writeBuffer("big", data.data(), data.size()).ok());
    EXPECT_FALSE(client.transferDirectories().empty()) << "the write went out of band";
    std::vector<char> back;
    RunnerReply r = client.readBuffer("big", back);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_TRUE(back == data);
}

TEST(RunnerTransferFake, WithoutAUsableDirectoryItFallsBackToInline) {
    RunnerOptions options = fakeRunner();
    options.outOfBandBytes = 1024;
    options.transferParents = {"/nonexistent/tilebench"};
    RunnerClient client(options);
    std::vector<char> data = pattern(100000, 4);
    ASSERT_TRUE(client.request("alloc x 100000").ok());
    RunnerReply w = client.writeBuffer("x", data.data(), data.size());
    ASSERT_TRUE(w.ok()) << w.message;
    std::vector<char> back;
    ASSERT_TRUE(client.readBuffer("x", back).ok());
    EXPECT_TRUE(back == data);
    EXPECT_TRUE(client.transferDirectories().empty());
}

TEST(RunnerTransferFake, TheFirstUsableParentIsTaken) {
    RunnerOptions options = fakeRunner();
    options.outOfBandBytes = 1024;
    const std::string tmp = std::filesystem::temp_directory_path().string();
    options.transferParents = {"/nonexistent/tilebench", tmp};
    RunnerClient client(options);
    std::vector<char> data = pattern(200000, 5);
    ASSERT_TRUE(client.request("alloc x 200000").ok());
    ASSERT_TRUE(client.writeBuffer("x", data.data(), data.size()).ok());
    std::vector<char> back;
    ASSERT_TRUE(client.readBuffer("x", back).ok());
    EXPECT_TRUE(back == data);
    ASSERT_EQ(client.transferDirectories().size(), 1u);
    EXPECT_EQ(client.transferDirectories()[0].rfind(tmp + "/tilebench-transfer-", 0), 0u);
}

} // namespace
} // namespace tb::gpu
