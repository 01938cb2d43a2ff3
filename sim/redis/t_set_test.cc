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


// SPOP/SRANDMEMBER: errors and shapes as redis-server 7.0.15 gives them; the members drawn come
// from the server's own seeded stream (the same on every run).
TEST(SetTest, SpopAndSrandmemberErrorsAndShapes) {
  TestNode t;
  t.run({"sadd", "s", "1", "2", "3"});
  t.run({"set", "str", "x"});
  EXPECT_EQ(t.run({"spop", "s", "abc"}), E("ERR value is out of range, must be positive"));
  EXPECT_EQ(t.run({"spop", "s", "-1"}), E("ERR value is out of range, must be positive"));
  EXPECT_EQ(t.run({"spop", "s", "1", "2"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"spop", "nosuch"}), N());
  EXPECT_EQ(t.run({"spop", "nosuch", "2"}), A({}));
  EXPECT_EQ(t.run({"spop", "str"}), E("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(t.run({"spop", "str", "0"}), E("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(t.run({"spop", "s", "0"}), A({}));
  EXPECT_EQ(t.run({"srandmember", "s", "-9223372036854775808"}),
            E("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"));
  EXPECT_EQ(t.run({"srandmember", "s", "abc"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"srandmember", "nosuch", "3"}), A({}));
  EXPECT_EQ(t.run({"srandmember", "nosuch"}), N());
  EXPECT_EQ(t.run({"srandmember", "s", "1", "2"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"srandmember", "s", "0"}), A({}));
  // A count at least the set's size: the whole set, in its order.
  EXPECT_EQ(t.run({"srandmember", "s", "5"}), A({B("1"), B("2"), B("3")}));
  EXPECT_EQ(t.run({"scard", "s"}), I(3));
}

TEST(SetTest, SrandmemberDrawsMembers) {
  TestNode t;
  t.run({"sadd", "s", "a", "b", "c", "d"});
  std::set<std::string> seen;
  for (int i = 0; i < 64; i++) {
    Reply r = t.run({"srandmember", "s"});
    ASSERT_EQ(r.type, Reply::Type::kBulk);
    seen.insert(r.str);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"a", "b", "c", "d"}));  // every member comes up
  // Distinct members for a positive count below the size; repetitions for a negative one.
  Reply two = t.run({"srandmember", "s", "2"});
  ASSERT_EQ(two.elements.size(), 2u);
  EXPECT_NE(two.elements[0].str, two.elements[1].str);
  Reply many = t.run({"srandmember", "s", "-10"});
  ASSERT_EQ(many.elements.size(), 10u);
  for (const Reply& m : many.elements) EXPECT_TRUE(seen.count(m.str) == 1) << m.str;
  EXPECT_EQ(t.run({"scard", "s"}), I(4));  // nothing removed
}

TEST(SetTest, SpopRemovesWhatItReturnsAndPropagatesSrem) {
  TestNode t;
  t.run({"sadd", "s", "a", "b", "c", "d", "e"});
  t.effects.clear();
  Reply one = t.run({"spop", "s"});
  ASSERT_EQ(one.type, Reply::Type::kBulk);
  EXPECT_EQ(t.run({"sismember", "s", one.str}), I(0));
  ASSERT_EQ(t.effects.size(), 1u);
  EXPECT_EQ(t.effects[0].argv, (std::vector<std::string>{"SREM", "s", one.str}));
  t.effects.clear();
  Reply two = t.run({"spop", "s", "2"});
  ASSERT_EQ(two.elements.size(), 2u);
  EXPECT_EQ(t.run({"scard", "s"}), I(2));
  ASSERT_EQ(t.effects.size(), 2u);  // one SREM per member, as Redis 7.0
  for (size_t i = 0; i < 2; i++) {
    EXPECT_EQ(t.run({"sismember", "s", two.elements[i].str}), I(0));
    EXPECT_EQ(t.effects[i].argv, (std::vector<std::string>{"SREM", "s", two.elements[i].str}));
  }
  // A count reaching the size: everything, the key deleted, propagated as DEL.
  t.effects.clear();
  EXPECT_EQ(t.run({"spop", "s", "9"}).elements.size(), 2u);
  EXPECT_EQ(t.run({"exists", "s"}), I(0));
  ASSERT_EQ(t.effects.size(), 1u);
  EXPECT_EQ(t.effects[0].argv, (std::vector<std::string>{"DEL", "s"}));
  // The last member popped deletes the key.
  t.run({"sadd", "one", "x"});
  EXPECT_EQ(t.run({"spop", "one"}), B("x"));
  EXPECT_EQ(t.run({"exists", "one"}), I(0));
}

TEST(SetTest, SpopWithCountIsASetInResp3) {
  TypedTestNode t;
  t.run({"sadd", "s", "1", "2"});
  EXPECT_EQ(t.run({"spop", "nosuch", "1"}), Set({}));
  EXPECT_EQ(t.run({"spop", "s", "0"}), Set({}));
  EXPECT_EQ(t.run({"spop", "s", "5"}), Set({B("1"), B("2")}));
  EXPECT_EQ(t.run({"srandmember", "nosuch", "1"}), A({}));
}

TEST(SetTest, RandomDrawsAreDeterministic) {
  auto draws = [] {
    TestNode t;
    t.run({"sadd", "s", "a", "b", "c", "d", "e", "f"});
    std::string out;
    for (int i = 0; i < 5; i++) out += t.run({"srandmember", "s"}).str;
    out += t.run({"spop", "s"}).str;
    return out;
  };
  EXPECT_EQ(draws(), draws());
}

}  // namespace
}  // namespace lockstep::redis::testing
