#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "sim/redis/object.h"
#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Replies checked against redis-server 7.0.15.
const Reply kWrongType = E("WRONGTYPE Operation against a key holding the wrong kind of value");

TEST(HashTest, SetGetAndArity) {
  TestNode t;
  EXPECT_EQ(t.run({"hset", "h", "a"}), E("ERR wrong number of arguments for 'hset' command"));
  EXPECT_EQ(t.run({"hset", "h", "a", "1", "b"}), E("ERR wrong number of arguments for 'hset' command"));
  EXPECT_EQ(t.run({"hset", "h", "a", "1", "b", "2", "a", "3"}), I(2));
  EXPECT_EQ(t.run({"hgetall", "h"}), A({B("a"), B("3"), B("b"), B("2")}));
  EXPECT_EQ(t.run({"hmset", "h", "c", "4"}), OK());
  EXPECT_EQ(t.run({"hmset", "h", "c"}), E("ERR wrong number of arguments for 'hmset' command"));
  EXPECT_EQ(t.run({"hsetnx", "h", "a", "x"}), I(0));
  EXPECT_EQ(t.run({"hsetnx", "h", "z", "x"}), I(1));
  EXPECT_EQ(t.run({"hget", "h", "a"}), B("3"));
  EXPECT_EQ(t.run({"hget", "h", "nope"}), N());
  EXPECT_EQ(t.run({"hget", "nokey", "a"}), N());
  EXPECT_EQ(t.run({"hmget", "h", "a", "nope", "b"}), A({B("3"), N(), B("2")}));
  EXPECT_EQ(t.run({"hmget", "nokey", "a"}), A({N()}));
  EXPECT_EQ(t.run({"hexists", "h", "a"}), I(1));
  EXPECT_EQ(t.run({"hexists", "h", "nope"}), I(0));
}

// HGETALL is a map (RESP2: field, value, field, value...); HKEYS/HVALS/HMGET stay arrays.
TEST(HashTest, HgetallIsAMap) {
  TypedTestNode t;
  EXPECT_EQ(t.run({"hset", "h", "f1", "v1", "f2", "v2"}), I(2));
  EXPECT_EQ(t.run({"hgetall", "h"}), M({B("f1"), B("v1"), B("f2"), B("v2")}));
  EXPECT_EQ(t.run({"hgetall", "nosuch"}), M({}));
  EXPECT_EQ(t.run({"hkeys", "h"}), A({B("f1"), B("f2")}));
  EXPECT_EQ(t.run({"hmget", "h", "f1", "x"}), A({B("v1"), N()}));
  TestNode u;
  u.run({"hset", "h", "f1", "v1"});
  EXPECT_EQ(u.run({"hgetall", "h"}), A({B("f1"), B("v1")}));
}

TEST(HashTest, InsertionOrderSurvivesUpdatesAndDeletes) {
  TestNode t;
  t.run({"hset", "h", "a", "1", "b", "2", "c", "3"});
  EXPECT_EQ(t.run({"hdel", "h", "a", "nope", "a"}), I(1));
  t.run({"hset", "h", "b", "20", "a", "10"});
  EXPECT_EQ(t.run({"hkeys", "h"}), A({B("b"), B("c"), B("a")}));
  EXPECT_EQ(t.run({"hvals", "h"}), A({B("20"), B("3"), B("10")}));
  EXPECT_EQ(t.run({"hlen", "h"}), I(3));
  EXPECT_EQ(t.run({"hlen", "nokey"}), I(0));
  EXPECT_EQ(t.run({"hkeys", "nokey"}), A({}));
  EXPECT_EQ(t.run({"hgetall", "nokey"}), A({}));
}

TEST(HashTest, LargeHashKeepsInsertionOrderThroughTheIndex) {
  TestNode t;
  for (int i = 0; i < 200; i++) t.run({"hset", "big", "f" + std::to_string(i), std::to_string(i)});
  for (int i = 0; i < 200; i += 2) EXPECT_EQ(t.run({"hdel", "big", "f" + std::to_string(i)}), I(1));
  EXPECT_EQ(t.run({"hlen", "big"}), I(100));
  Reply keys = t.run({"hkeys", "big"});
  ASSERT_EQ(keys.elements.size(), 100u);
  for (int i = 0; i < 100; i++) EXPECT_EQ(keys.elements[i], B("f" + std::to_string(2 * i + 1)));
  EXPECT_EQ(t.run({"hget", "big", "f199"}), B("199"));
  EXPECT_EQ(t.run({"hget", "big", "f198"}), N());
}

TEST(HashTest, DeletingTheLastFieldDeletesTheKey) {
  TestNode t;
  t.run({"hset", "h", "a", "1"});
  EXPECT_EQ(t.run({"hdel", "h", "a"}), I(1));
  EXPECT_EQ(t.run({"exists", "h"}), I(0));
  EXPECT_EQ(t.run({"hdel", "h", "a"}), I(0));
}

TEST(HashTest, Hincrby) {
  TestNode t;
  EXPECT_EQ(t.run({"hincrby", "h", "n", "5"}), I(5));
  EXPECT_EQ(t.run({"hincrby", "h", "n", "-7"}), I(-2));
  EXPECT_EQ(t.run({"hincrby", "h", "n", "x"}), E("ERR value is not an integer or out of range"));
  t.run({"hset", "h", "z", "x"});
  EXPECT_EQ(t.run({"hincrby", "h", "z", "1"}), E("ERR hash value is not an integer"));
  t.run({"hset", "h", "big", "9223372036854775807", "neg", "-9223372036854775808"});
  EXPECT_EQ(t.run({"hincrby", "h", "big", "1"}), E("ERR increment or decrement would overflow"));
  EXPECT_EQ(t.run({"hincrby", "h", "neg", "-1"}), E("ERR increment or decrement would overflow"));
  EXPECT_EQ(t.run({"hkeys", "h"}), A({B("n"), B("z"), B("big"), B("neg")}));
}

TEST(HashTest, WrongType) {
  TestNode t;
  t.run({"set", "str", "x"});
  EXPECT_EQ(t.run({"hset", "str", "a", "1"}), kWrongType);
  EXPECT_EQ(t.run({"hget", "str", "a"}), kWrongType);
  EXPECT_EQ(t.run({"hgetall", "str"}), kWrongType);
  EXPECT_EQ(t.run({"hexists", "str", "a"}), kWrongType);
  // The increment is parsed before the key is looked at.
  EXPECT_EQ(t.run({"hincrby", "str", "a", "x"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"hincrby", "str", "a", "1"}), kWrongType);
}

// The packed and the unpacked representation against an insertion-ordered reference.
RC_GTEST_PROP(HashValueTest, BehavesLikeAnInsertionOrderedMap, (std::vector<std::tuple<uint8_t, uint8_t, std::string>> ops)) {
  HashValue h;
  std::vector<std::pair<std::string, std::string>> model;
  for (const auto& [kind, f, v] : ops) {
    std::string field = "f" + std::to_string(f % 90);  // up to 90 fields: crosses the packed limit
    auto it = std::find_if(model.begin(), model.end(), [&](const auto& p) { return p.first == field; });
    if (kind % 4 == 0) {
      RC_ASSERT(h.erase(field) == (it != model.end()));
      if (it != model.end()) model.erase(it);
    } else {
      std::string value = v + std::string(kind % 3 == 0 ? 200 : 0, 'x');  // some long values
      RC_ASSERT(h.set(field, value) == (it == model.end()));
      if (it == model.end()) {
        model.emplace_back(field, value);
      } else {
        it->second = value;
      }
    }
    RC_ASSERT(h.size() == model.size());
    RC_ASSERT(h.empty() == model.empty());
  }
  std::vector<std::pair<std::string, std::string>> seen;
  h.for_each([&](std::string_view f, std::string_view v) { seen.emplace_back(f, v); });
  RC_ASSERT(seen == model);
  for (const auto& [f, v] : model) RC_ASSERT(h.get(f) == std::optional<std::string_view>(v));
  HashValue copy = h;
  std::vector<std::pair<std::string, std::string>> copied;
  copy.for_each([&](std::string_view f, std::string_view v) { copied.emplace_back(f, v); });
  RC_ASSERT(copied == model);
}

TEST(HashValueTest, FieldsWithAnyBytes) {
  HashValue h;
  std::string nul("\0", 1);
  EXPECT_TRUE(h.set(nul, "a"));
  EXPECT_TRUE(h.set("", "empty"));
  EXPECT_FALSE(h.set(nul, "b"));
  EXPECT_EQ(h.get(nul), std::optional<std::string_view>("b"));
  EXPECT_EQ(h.get(""), std::optional<std::string_view>("empty"));
  EXPECT_EQ(h.size(), 2u);
}

}  // namespace
}  // namespace lockstep::redis::testing
