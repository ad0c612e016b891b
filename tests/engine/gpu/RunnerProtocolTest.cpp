// Splitting protocol lines into verb, words and fields, and escaping values with spaces.
#include "engine/gpu/RunnerProtocol.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::gpu {
namespace {

TEST(RunnerProtocol, SplitsVerbWordsAndFields) {
    ProtocolLine line = parseProtocolLine("launch m0 grid=4,1,1 block=256 args=buf:a,i32:7\r\n");
    EXPECT_EQ(line.verb, "launch");
    ASSERT_EQ(line.words.size(), 1u);
    EXPECT_EQ(line.words[0], "m0");
    EXPECT_EQ(line.field("grid"), "4,1,1");
    EXPECT_EQ(line.field("block"), "256");
    EXPECT_EQ(line.field("args"), "buf:a,i32:7");
    EXPECT_FALSE(line.has("smem"));
    EXPECT_EQ(line.field("smem", "0"), "0");
}

TEST(RunnerProtocol, KeepsTheRestOfAnErrorLineVerbatim) {
    ProtocolLine line = parseProtocolLine("error unknown-buffer no buffer 'x' (a=b)");
    EXPECT_EQ(line.verb, "error");
    EXPECT_EQ(line.rest, "unknown-buffer no buffer 'x' (a=b)");
}

TEST(RunnerProtocol, EscapesRoundTrip) {
    for (std::string value : {std::string("NVIDIA H200"), std::string("a=b%c"), std::string("tab\there\nnl"),
                              std::string(""), std::string("plain")}) {
        std::string escaped = escapeProtocolValue(value);
        EXPECT_EQ(escaped.find(' '), std::string::npos);
        EXPECT_EQ(escaped.find('='), std::string::npos);
        EXPECT_EQ(escaped.find('\n'), std::string::npos);
        EXPECT_EQ(unescapeProtocolValue(escaped), value);
    }
    EXPECT_EQ(escapeProtocolValue("NVIDIA H200"), "NVIDIA%20H200");
    ProtocolLine line = parseProtocolLine("device 0 name=" + escapeProtocolValue("NVIDIA H200 NVL"));
    EXPECT_EQ(line.field("name"), "NVIDIA H200 NVL");
    // A '%' that does not start a two-digit escape stays as it is.
    EXPECT_EQ(unescapeProtocolValue("a%41b%"), "aAb%");
    EXPECT_EQ(unescapeProtocolValue("%zz%4"), "%zz%4");
    EXPECT_EQ(unescapeProtocolValue("100%%41"), "100%A");
}

TEST(RunnerProtocol, QuotesControlBytesForMessages) {
    EXPECT_EQ(quoteForMessage("a\x01"
                              "b"),
              "\"a\\x01b\"");
    EXPECT_EQ(quoteForMessage(std::string(100, 'x'), 4), "\"xxxx\"...");
}

} // namespace
} // namespace tb::gpu
