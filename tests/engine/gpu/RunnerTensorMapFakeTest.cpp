// The runner's `tensormap` request and `tmap:` kernel arguments against `tilebench-runner --fake`: maps are
// checked against the driver's rules (the same checks the real runner makes before calling the driver),
// bound to a buffer, dropped when it is freed, and passed to launches by name.
#include "RunnerTestSupport.h"
#include "engine/gpu/RunnerClient.h"
#include "engine/gpu/TensorMapSpec.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::gpu {
namespace {

using test::fakeCubin;
using test::fakeRunner;

const char* kGoodMap = "tensormap tA a dtype=f16 rank=2 dims=256,128 strides=512 box=64,128 swizzle=128B";

TEST(RunnerTensorMapFake, BuildsAMapOverABufferAndPassesItToALaunch) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.request("alloc a " + std::to_string(256 * 128 * 2)).ok());
    RunnerReply map = client.request(kGoodMap);
    ASSERT_TRUE(map.ok()) << map.code << " " << map.message;
    EXPECT_EQ(map.words.at(0), "tensormap");
    EXPECT_EQ(map.words.at(1), "tA");
    EXPECT_EQ(map.field("buffer"), "a");
    EXPECT_EQ(map.field("bytes"), "128");

    ASSERT_TRUE(client.loadCubin("k", "sm_90a", "copy", fakeCubin("copy")).ok());
    RunnerReply launch = client.request("launch k grid=1 block=32 args=tmap:tA,buf:a,i32:3");
    EXPECT_TRUE(launch.ok()) << launch.code << " " << launch.message;
    RunnerReply unknown = client.request("launch k grid=1 block=32 args=tmap:nope");
    EXPECT_EQ(unknown.status, RunnerStatus::Error);
    EXPECT_EQ(unknown.code, "unknown-tensormap");
    EXPECT_EQ(unknown.message, "argument 0: no tensor map 'nope' (create it with a tensormap request)");

    // Freeing the buffer drops its maps; the same name can be made again over a new buffer.
    ASSERT_TRUE(client.request("free a").ok());
    EXPECT_EQ(client.request("launch k grid=1 block=32 args=tmap:tA").code, "unknown-tensormap");
    ASSERT_TRUE(client.request("alloc a " + std::to_string(256 * 128 * 2)).ok());
    EXPECT_TRUE(client.request(kGoodMap).ok());
    EXPECT_TRUE(client.request("launch k grid=1 block=32 args=tmap:tA").ok());
}

TEST(RunnerTensorMapFake, BrokenRulesAreBadTensormapErrors) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.request("alloc a 65536").ok());
    auto answer = [&](const std::string& line) {
        RunnerReply r = client.request(line);
        EXPECT_EQ(r.status, RunnerStatus::Error) << line;
        return r.code + ": " + r.message;
    };
    EXPECT_EQ(answer("tensormap t a dtype=f16 rank=2 dims=128,128 strides=256 box=72,64 swizzle=128B"),
              "bad-tensormap: box[0] is 72 elements x 2 bytes = 144 bytes, more than the 128B swizzle span");
    EXPECT_EQ(answer("tensormap t a dtype=f16 rank=2 dims=128,128 strides=264 box=64,64"),
              "bad-tensormap: strides[0] = 264 bytes (of dim 1) is not a multiple of 16");
    EXPECT_EQ(answer("tensormap t a dtype=f16 rank=2 dims=128,128 strides=256 box=64,300"),
              "bad-tensormap: box[1] = 300 is not 1..256");
    EXPECT_EQ(answer("tensormap t a dtype=f32 rank=1 dims=16 box=16 elem_strides=9"),
              "bad-tensormap: elem_strides[0] = 9 is not 1..8");
    EXPECT_EQ(answer("tensormap t a dtype=f16 rank=2 dims=128,257 strides=256 box=64,64"),
              "bad-tensormap: the tensor reaches byte 65792 of buffer 'a', which has 65536");
    EXPECT_EQ(answer("tensormap t a dtype=f16 rank=2 dims=128,128 strides=256 box=64,64 offset=8"),
              "bad-tensormap: the global address 0x7f0000000008 (buffer + offset 8) is not 16-byte aligned");
    EXPECT_EQ(answer("tensormap t nope dtype=f16 rank=2 dims=128,128 strides=256 box=64,64"),
              "unknown-buffer: no buffer 'nope'");
    EXPECT_EQ(answer("tensormap t a dtype=f16 rank=2 dims=128,128 box=64,64"),
              "bad-request: strides= is missing (1 values)");
    // The runner stays up and in step after every refusal.
    EXPECT_TRUE(client.request("tensormap t a dtype=f16 rank=2 dims=128,128 strides=256 box=64,64").ok());
    EXPECT_EQ(client.restartCount(), 0);
}

TEST(RunnerTensorMapFake, TheClientBuilderChecksBeforeSending) {
    RunnerClient client(fakeRunner());
    ASSERT_TRUE(client.request("alloc b 524288").ok());
    TensorMapSpec good =
        tensorMap2d("b", TensorMapDtype::BF16, 512, 512, 1024, 64, 64, TensorMapSwizzle::B128);
    RunnerReply ok = client.createTensorMap("tB", good);
    ASSERT_TRUE(ok.ok()) << ok.message;
    EXPECT_EQ(ok.field("buffer"), "b");
    TensorMapSpec wide = good;
    wide.box[0] = 128; // 256 bytes: wider than the 128B swizzle span
    RunnerReply bad = client.createTensorMap("tB2", wide);
    EXPECT_EQ(bad.status, RunnerStatus::Error);
    EXPECT_EQ(bad.code, "bad-tensormap");
    EXPECT_EQ(bad.message, "box[0] is 128 elements x 2 bytes = 256 bytes, more than the 128B swizzle span");
    EXPECT_EQ(client.request("launch k grid=1 block=1 args=tmap:tB2").code, "unknown-module");
}

} // namespace
} // namespace tb::gpu
