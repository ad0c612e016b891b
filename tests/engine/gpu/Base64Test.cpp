// Base64 as the runner protocol uses it: every length round-trips, and malformed text is rejected.
#include "engine/gpu/Base64.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::gpu {
namespace {

TEST(Base64, KnownVectors) {
    EXPECT_EQ(encodeBase64("", 0), "");
    EXPECT_EQ(encodeBase64("f", 1), "Zg==");
    EXPECT_EQ(encodeBase64("fo", 2), "Zm8=");
    EXPECT_EQ(encodeBase64("foo", 3), "Zm9v");
    EXPECT_EQ(encodeBase64("foobar", 6), "Zm9vYmFy");
}

TEST(Base64, EveryLengthRoundTrips) {
    std::vector<char> bytes;
    for (int n = 0; n < 300; ++n) {
        std::string text = encodeBase64(bytes);
        EXPECT_EQ(text.size() % 4, 0u);
        auto back = decodeBase64(text);
        ASSERT_TRUE(back.has_value()) << "length " << n;
        EXPECT_EQ(*back, bytes) << "length " << n;
        bytes.push_back(static_cast<char>((n * 131 + 7) & 0xff));
    }
}

// The forms the runner protocol uses for multi-MB payloads: appending to a line being built, and decoding
// into a reused buffer.
TEST(Base64, AppendsAndDecodesIntoABuffer) {
    std::string line = "ok read a base64=";
    appendBase64(line, "foobar", 6);
    EXPECT_EQ(line, "ok read a base64=Zm9vYmFy");
    std::vector<char> out(100, 'x');
    ASSERT_TRUE(decodeBase64("Zm9vYg==", out));
    EXPECT_EQ(std::string(out.begin(), out.end()), "foob");
    ASSERT_TRUE(decodeBase64("", out));
    EXPECT_TRUE(out.empty());
    EXPECT_FALSE(decodeBase64("Zm9v!mFy", out));
    EXPECT_TRUE(out.empty());
}

TEST(Base64, RejectsMalformedText) {
    EXPECT_FALSE(decodeBase64("Zg=").has_value());      // length not a multiple of 4
    EXPECT_FALSE(decodeBase64("Z!==").has_value());     // bad character
    EXPECT_FALSE(decodeBase64("Zg==Zg==").has_value()); // padding in the middle
    EXPECT_FALSE(decodeBase64("Zm 9v").has_value());
    EXPECT_FALSE(decodeBase64("Z===").has_value());     // one character cannot make a byte
    EXPECT_FALSE(decodeBase64("Zm9v=g==").has_value()); // padding before the last group
}

} // namespace
} // namespace tb::gpu
