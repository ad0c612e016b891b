// The bench history file: round trip, latest per key, caps, damaged files, and the previous-run verdict.
#include "engine/profile/BenchHistory.h"

#include "ProfileTestSupport.h"
#include "engine/support/JsonReader.h"

#include <fstream>
#include <gtest/gtest.h>
#include <string>

namespace tb::profile {
namespace {

BenchRecord record(const std::string& key, double median, const std::string& stamp = "t") {
    BenchRecord r;
    r.key = key;
    r.file = "f.cu";
    r.medianMs = median;
    r.minMs = median * 0.99;
    r.maxMs = median * 1.01;
    r.count = 20;
    r.timestamp = stamp;
    r.clock = "cupti-activity";
    return r;
}

TEST(BenchHistory, KeyIgnoresParameterOrder) {
    EXPECT_EQ(historyKey("g.py", {{"b", "2"}, {"a", "1"}}, "sm_90a"),
              historyKey("g.py", {{"a", "1"}, {"b", "2"}}, "sm_90a"));
    EXPECT_EQ(historyKey("g.py", {{"b", "2"}, {"a", "1"}}, "sm_90a"), "g.py|a=1 b=2|sm_90a");
    EXPECT_NE(historyKey("g.py", {{"a", "1"}}, "sm_90a"), historyKey("g.py", {{"a", "2"}}, "sm_90a"));
}

TEST(BenchHistory, SaveLoadRoundTripAndLatest) {
    std::string dir = test::freshTempDir("history");
    std::string path = dir + "/sub/bench-history.json";
    BenchHistory h;
    std::string error;
    ASSERT_TRUE(h.load(path, error)) << error; // missing file = empty history
    EXPECT_TRUE(h.records().empty());
    h.add(record("k1", 1.0, "first"));
    h.add(record("k2", 5.0));
    h.add(record("k1", 0.8, "second"));
    ASSERT_TRUE(h.save(path, error)) << error;

    BenchHistory back;
    ASSERT_TRUE(back.load(path, error)) << error;
    ASSERT_EQ(back.records().size(), 3u);
    auto latest = back.latest("k1");
    ASSERT_TRUE(latest);
    EXPECT_DOUBLE_EQ(latest->medianMs, 0.8);
    EXPECT_EQ(latest->timestamp, "second");
    EXPECT_EQ(latest->clock, "cupti-activity");
    EXPECT_FALSE(back.latest("k3"));
}

TEST(BenchHistory, CapsRecordsPerKey) {
    BenchHistory h;
    for (int i = 0; i < int(BenchHistory::kPerKey) + 5; ++i)
        h.add(record("k", 1.0 + i));
    h.add(record("other", 9));
    EXPECT_EQ(h.records().size(), BenchHistory::kPerKey + 1);
    EXPECT_DOUBLE_EQ(h.records().front().medianMs, 6.0); // the five oldest were dropped
    EXPECT_DOUBLE_EQ(h.latest("k")->medianMs, 1.0 + BenchHistory::kPerKey + 4);
}

TEST(BenchHistory, DamagedFileIsAnErrorAndIsNotOverwrittenByLoad) {
    std::string dir = test::freshTempDir("history-bad");
    std::string path = dir + "/bench-history.json";
    std::ofstream(path) << "{\"version\": 1, \"entries\": [ {\"key\": \"k\", ";
    BenchHistory h;
    std::string error;
    EXPECT_FALSE(h.load(path, error));
    EXPECT_NE(error.find("line 1"), std::string::npos) << error;
    std::ofstream(path) << "{\"version\": 7, \"entries\": []}";
    EXPECT_FALSE(h.load(path, error));
    EXPECT_NE(error.find("not a TileBench bench history"), std::string::npos);
}

TEST(BenchHistory, PreviousRunVerdicts) {
    BenchRecord prev = record("k", 1.0); // spread 2%
    EXPECT_EQ(compareWithPrevious(prev, 0.5, 1).verdict, "faster");
    EXPECT_DOUBLE_EQ(compareWithPrevious(prev, 0.5, 1).ratio, 2.0);
    EXPECT_EQ(compareWithPrevious(prev, 1.5, 1).verdict, "slower");
    EXPECT_EQ(compareWithPrevious(prev, 1.01, 1).verdict, "same");
    EXPECT_EQ(compareWithPrevious(prev, 1.08, 10).verdict, "same"); // within this run's 10% spread
}

TEST(JsonReader, ParsesAndBoundsDepth) {
    std::string error;
    auto v = parseJson(R"({"a": [1, 2.5e1, "x\"\u00e9"], "b": {"c": true, "d": null}})", error);
    ASSERT_TRUE(v) << error;
    EXPECT_DOUBLE_EQ(v->member("a")->items[1].number, 25);
    EXPECT_EQ(v->member("a")->items[2].text, "x\"\xc3\xa9");
    EXPECT_TRUE(v->member("b")->member("c")->boolean);
    EXPECT_FALSE(parseJson("[1,]", error));
    EXPECT_FALSE(parseJson("{\"a\":1} x", error));
    EXPECT_FALSE(parseJson(std::string(10000, '['), error));
    EXPECT_NE(error.find("nested too deeply"), std::string::npos);
    EXPECT_FALSE(parseJson("{\n\"a\":\n}", error));
    EXPECT_NE(error.find("line 3"), std::string::npos) << error;
}

TEST(JsonReader, AtFollowsMembersAndIndices) {
    std::string error;
    auto v = parseJson(R"({"funcs": [{"name": "main", "params": [{"name": "A"}, {"name": "B"}]}]})", error);
    ASSERT_TRUE(v) << error;
    ASSERT_TRUE(v->at({"funcs", "0", "params", "1", "name"}));
    EXPECT_EQ(v->at({"funcs", "0", "params", "1", "name"})->text, "B");
    EXPECT_EQ(v->at({"funcs", "0", "params", "2", "name"}), nullptr); // past the end
    EXPECT_EQ(v->at({"funcs", "x"}), nullptr);                        // not an index
    EXPECT_EQ(v->at({"funcs", ""}), nullptr);
    EXPECT_EQ(v->at({"nope", "0"}), nullptr);
    EXPECT_EQ(v->at({}), &*v);
}

} // namespace
} // namespace tb::profile
