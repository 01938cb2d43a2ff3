#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>

#include "sim/redis/object.h"
#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Replies checked against redis-server 7.0.15, except the order of non-integer sets (Redis's
// dict order is unspecified; the model uses insertion order).

TEST(SetTest, IntegerSetsListAscending) {
  TestNode t;
  EXPECT_EQ(t.run({"sadd", "s", "3", "1", "2", "1"}), I(3));
  EXPECT_EQ(t.run({"smembers", "s"}), A({B("1"), B("2"), B("3")}));
  EXPECT_EQ(t.run({"sadd", "s", "-5", "10"}), I(2));
  EXPECT_EQ(t.run({"smembers", "s"}), A({B("-5"), B("1"), B("2"), B("3"), B("10")}));
}

TEST(SetTest, SmembersIsASet) {
  TypedTestNode t;
  EXPECT_EQ(t.run({"sadd", "s", "3", "1"}), I(2));
  EXPECT_EQ(t.run({"smembers", "s"}), Set({B("1"), B("3")}));
  EXPECT_EQ(t.run({"smembers", "nosuch"}), Set({}));
  EXPECT_EQ(t.run({"sismember", "s", "1"}), I(1));  // an integer in RESP3 too
}

TEST(SetTest, NonIntegerSetsKeepInsertionOrder) {
  TestNode t;
  t.run({"sadd", "t", "b", "a", "c"});
  EXPECT_EQ(t.run({"smembers", "t"}), A({B("b"), B("a"), B("c")}));
  // "01" is not a canonical integer: the set starts as a dict.
  t.run({"sadd", "u", "01", "1"});
  EXPECT_EQ(t.run({"smembers", "u"}), A({B("01"), B("1")}));
  // An intset that receives a string keeps its ascending prefix.
  t.run({"sadd", "v", "3", "1"});
  t.run({"sadd", "v", "x", "2"});
  EXPECT_EQ(t.run({"smembers", "v"}), A({B("1"), B("3"), B("x"), B("2")}));
}

TEST(SetTest, MembershipAndRemoval) {
  TestNode t;
  t.run({"sadd", "s", "1", "2", "a"});
  EXPECT_EQ(t.run({"srem", "s", "1", "zz", "1"}), I(1));
  EXPECT_EQ(t.run({"scard", "s"}), I(2));
  EXPECT_EQ(t.run({"scard", "nokey"}), I(0));
  EXPECT_EQ(t.run({"sismember", "s", "a"}), I(1));
  EXPECT_EQ(t.run({"sismember", "s", "1"}), I(0));
  EXPECT_EQ(t.run({"sismember", "nokey", "1"}), I(0));
  EXPECT_EQ(t.run({"smembers", "nokey"}), A({}));
  EXPECT_EQ(t.run({"sadd", "s"}), E("ERR wrong number of arguments for 'sadd' command"));
  EXPECT_EQ(t.run({"srem", "s"}), E("ERR wrong number of arguments for 'srem' command"));
  EXPECT_EQ(t.run({"srem", "s", "2", "a"}), I(2));
  EXPECT_EQ(t.run({"exists", "s"}), I(0));
  t.run({"set", "str", "x"});
  EXPECT_EQ(t.run({"sadd", "str", "a"}), E("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

TEST(SetValueTest, IntsetConvertsPastItsLimit) {
  SetValue s;
  for (int i = 600; i > 0; i--) s.add(std::to_string(i));
  EXPECT_FALSE(s.is_intset());
  EXPECT_EQ(s.size(), 600u);
  std::vector<std::string> order;
  s.for_each([&](std::string_view m) { order.emplace_back(m); });
  // Converted at the 513th addition: the 513 members so far in ascending order, then the rest.
  EXPECT_EQ(order[0], "88");
  EXPECT_EQ(order[512], "600");
  EXPECT_EQ(order[513], "87");
}

RC_GTEST_PROP(SetValueTest, BehavesLikeAMathematicalSet, (std::vector<std::pair<bool, int>> ops)) {
  SetValue s;
  std::set<std::string> model;
  for (const auto& [add, n] : ops) {
    std::string m = (n % 3 == 0) ? "m" + std::to_string(n % 50) : std::to_string(n % 50);
    if (add) {
      RC_ASSERT(s.add(m) == model.insert(m).second);
    } else {
      RC_ASSERT(s.remove(m) == (model.erase(m) == 1));
    }
    RC_ASSERT(s.size() == model.size());
  }
  std::set<std::string> seen;
  s.for_each([&](std::string_view m) { seen.emplace(m); });
  RC_ASSERT(seen == model);
  for (const std::string& m : model) RC_ASSERT(s.contains(m));
}

}  // namespace
}  // namespace lockstep::redis::testing
