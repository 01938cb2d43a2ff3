#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Error replies and the small-collection shapes checked against redis-server 7.0.15; the order
// of a hash-table scan is the model's own (Redis's depends on its per-process hash seed).

// Scans `cmd key` (or SCAN when key is empty) to the end with COUNT `count`; counts how often
// each name came back. The number of calls is returned through `calls`.
std::map<std::string, int> scan_all(TestNode& t, std::string_view cmd, std::string_view key, std::string_view count,
                                    int* calls, const std::function<void(int)>& between = {}) {
  std::map<std::string, int> seen;
  std::string cursor = "0";
  *calls = 0;
  do {
    const Reply r = key.empty() ? t.run({cmd, cursor, "COUNT", count}) : t.run({cmd, key, cursor, "COUNT", count});
    EXPECT_EQ(r.elements.size(), 2u) << describe(r);
    if (r.elements.size() != 2) break;
    cursor = r.elements[0].str;
    const bool pairs = cmd != "scan" && cmd != "sscan";
    for (size_t i = 0; i < r.elements[1].elements.size(); i += pairs ? 2 : 1) seen[r.elements[1].elements[i].str]++;
    ++*calls;
    if (between) between(*calls);
  } while (cursor != "0" && *calls < 10'000);
  return seen;
}

TEST(ScanTest, VisitsEveryKeyOnceAndEnds) {
  TestNode t;
  for (int i = 0; i < 50; ++i) t.run({"set", "k" + std::to_string(i), "v"});
  int calls = 0;
  const auto seen = scan_all(t, "scan", "", "7", &calls);
  EXPECT_EQ(seen.size(), 50u);
  for (const auto& [key, n] : seen) EXPECT_EQ(n, 1) << key;
  EXPECT_GE(calls, 50 / 8);  // COUNT bounds a call (a shared hash aside)
  // One call covers a keyspace of at most COUNT keys.
  const Reply whole = t.run({"scan", "0", "COUNT", "100"});
  EXPECT_EQ(whole.elements[0], B("0"));
  EXPECT_EQ(whole.elements[1].elements.size(), 50u);
}

TEST(ScanTest, KeysPresentThroughoutAreReturnedWhileOthersComeAndGo) {
  TestNode t;
  for (int i = 0; i < 40; ++i) t.run({"set", "stay" + std::to_string(i), "v"});
  int calls = 0;
  const auto seen = scan_all(t, "scan", "", "5", &calls, [&t](int call) {
    t.run({"set", "new" + std::to_string(call), "v"});
    t.run({"del", "gone" + std::to_string(call)});
  });
  for (int i = 0; i < 40; ++i) EXPECT_EQ(seen.count("stay" + std::to_string(i)), 1u) << i;
}

TEST(ScanTest, MatchTypeAndErrors) {
  TestNode t;
  t.run({"set", "a1", "v"});
  t.run({"hset", "a2", "f", "v"});
  t.run({"set", "b1", "v"});
  EXPECT_EQ(t.run({"scan", "0", "MATCH", "a*", "TYPE", "string"}), A({B("0"), A({B("a1")})}));
  EXPECT_EQ(t.run({"scan", "0", "TYPE", "HASH"}), A({B("0"), A({B("a2")})}));
  EXPECT_EQ(t.run({"scan", "x"}), E("ERR invalid cursor"));
  EXPECT_EQ(t.run({"scan", " 1"}), E("ERR invalid cursor"));
  EXPECT_EQ(t.run({"scan", "18446744073709551616"}), E("ERR invalid cursor"));
  EXPECT_EQ(t.run({"scan", "0", "COUNT", "0"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"scan", "0", "COUNT", "abc"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"scan", "0", "MATCH"}), E("ERR syntax error"));
  // An empty cursor is 0, as strtoul reads it.
  EXPECT_EQ(t.run({"scan", "", "MATCH", "b*"}), A({B("0"), A({B("b1")})}));
}

TEST(ScanTest, CollectionsSmallComeBackWholeInTheirOwnOrder) {
  TestNode t;
  t.run({"hset", "h", "z", "1", "a", "2"});
  t.run({"sadd", "s", "3", "1", "2"});
  t.run({"zadd", "z", "2", "b", "1", "a"});
  t.run({"set", "str", "v"});
  EXPECT_EQ(t.run({"hscan", "h", "0"}), A({B("0"), A({B("z"), B("1"), B("a"), B("2")})}));
  EXPECT_EQ(t.run({"sscan", "s", "0"}), A({B("0"), A({B("1"), B("2"), B("3")})}));  // intset order
  EXPECT_EQ(t.run({"zscan", "z", "0", "MATCH", "a"}), A({B("0"), A({B("a"), B("1")})}));
  // Any cursor on a listpack returns it whole with cursor 0.
  EXPECT_EQ(t.run({"hscan", "h", "12345", "COUNT", "1"}), A({B("0"), A({B("z"), B("1"), B("a"), B("2")})}));
  // Cursor first, then the key (a missing key ignores bad options), then its type.
  EXPECT_EQ(t.run({"hscan", "nokey", "x"}), E("ERR invalid cursor"));
  EXPECT_EQ(t.run({"hscan", "nokey", "0", "COUNT", "0"}), A({B("0"), A({})}));
  EXPECT_EQ(t.run({"sscan", "str", "0"}), E("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(t.run({"zscan", "z", "0", "COUNT", "0"}), E("ERR syntax error"));
}

TEST(ScanTest, LargeCollectionsAreWalkedByCursor) {
  TestNode t;
  for (int i = 0; i < 300; ++i) {
    const std::string n = std::to_string(i);
    t.run({"hset", "h", "f" + n, n});
    t.run({"sadd", "s", "m" + n});
    t.run({"zadd", "z", n, "m" + n});
  }
  for (std::string_view cmd : {"hscan", "sscan", "zscan"}) {
    const std::string key = cmd == "hscan" ? "h" : cmd == "sscan" ? "s" : "z";
    int calls = 0;
    const auto seen = scan_all(t, cmd, key, "20", &calls);
    EXPECT_EQ(seen.size(), 300u) << cmd;
    for (const auto& [name, n] : seen) EXPECT_EQ(n, 1) << cmd << " " << name;
    EXPECT_GT(calls, 1) << cmd;
  }
}

}  // namespace
}  // namespace lockstep::redis::testing
