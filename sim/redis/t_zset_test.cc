#include <gtest/gtest.h>

#include <cmath>
#include <rapidcheck/gtest.h>

#include <map>
#include <set>

#include "sim/redis/object.h"
#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Replies checked against redis-server 7.0.15.

TEST(ZSetTest, ZaddScoresAndFormatting) {
  TestNode t;
  EXPECT_EQ(t.run({"zadd", "z", "0.1", "a"}), I(1));
  EXPECT_EQ(t.run({"zscore", "z", "a"}), B("0.10000000000000001"));
  EXPECT_EQ(t.run({"zadd", "z", "1e300", "b", "-inf", "c", "+inf", "d", "3", "e", "-0", "f"}), I(5));
  EXPECT_EQ(t.run({"zrange", "z", "0", "-1", "withscores"}),
            A({B("c"), B("-inf"), B("f"), B("0"), B("a"), B("0.10000000000000001"), B("e"), B("3"),
               B("b"), B("1.0000000000000001e+300"), B("d"), B("inf")}));
  EXPECT_EQ(t.run({"zincrby", "z", "0.2", "a"}), B("0.30000000000000004"));
  EXPECT_EQ(t.run({"zadd", "z", "incr", "1.5", "a"}), B("1.8"));
  EXPECT_EQ(t.run({"zadd", "z", "0x10", "g"}), I(1));
  EXPECT_EQ(t.run({"zscore", "z", "g"}), B("16"));
}

// The reversed and lexicographic ranges, counts and removals by range (issue 10), checked
// against redis-server 7.0.15 with redis-cli in both protocols.
TEST(ZSetTest, ReversedLexRangesCountsAndRemovals) {
  TestNode t;
  EXPECT_EQ(t.run({"zadd", "z", "1", "a", "2", "b", "3", "c"}), I(3));
  EXPECT_EQ(t.run({"zrevrange", "z", "0", "-1", "withscores"}),
            A({B("c"), B("3"), B("b"), B("2"), B("a"), B("1")}));
  EXPECT_EQ(t.run({"zrevrange", "z", "0", "1", "rev"}).type, Reply::Type::kError);
  EXPECT_EQ(t.run({"zrevrangebyscore", "z", "+inf", "(1"}), A({B("c"), B("b")}));
  EXPECT_EQ(t.run({"zrevrangebyscore", "z", "3", "1", "limit", "1", "1"}), A({B("b")}));
  EXPECT_EQ(t.run({"zcount", "z", "(1", "3"}), I(2));
  EXPECT_EQ(t.run({"zcount", "z", "a", "b"}), E("ERR min or max is not a float"));
  EXPECT_EQ(t.run({"zrevrank", "z", "c"}), I(0));
  EXPECT_EQ(t.run({"zrevrank", "z", "x"}), N());
  EXPECT_EQ(t.run({"zremrangebyrank", "z", "0", "0"}), I(1));
  EXPECT_EQ(t.run({"zrange", "z", "0", "-1"}), A({B("b"), B("c")}));
  EXPECT_EQ(t.run({"zremrangebyrank", "z", "5", "9"}), I(0));
  EXPECT_EQ(t.run({"zremrangebyrank", "z", "x", "1"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"zadd", "l", "0", "a", "0", "b", "0", "c"}), I(3));
  EXPECT_EQ(t.run({"zrangebylex", "l", "[b", "+"}), A({B("b"), B("c")}));
  EXPECT_EQ(t.run({"zrevrangebylex", "l", "+", "(a", "limit", "0", "1"}), A({B("c")}));
  EXPECT_EQ(t.run({"zrangebylex", "l", "b", "+"}), E("ERR min or max not valid string range item"));
  EXPECT_EQ(t.run({"zlexcount", "l", "-", "+"}), I(3));
  EXPECT_EQ(t.run({"zremrangebylex", "l", "[a", "[b"}), I(2));
  EXPECT_EQ(t.run({"zremrangebyscore", "z", "-inf", "+inf"}), I(2));
  EXPECT_EQ(t.run({"exists", "z"}), I(0));  // emptied: the key is gone
  EXPECT_EQ(t.run({"set", "s", "v"}), S("OK"));
  EXPECT_EQ(t.run({"zcount", "s", "0", "1"}).type, Reply::Type::kError);  // WRONGTYPE
}

// Scores are doubles (RESP3 ","; RESP2 bulk strings); WITHSCORES gives [member, score] pairs to
// RESP3 connections and member, score, member, score... to RESP2 ones (redis-server 7.0.15).
TEST(ZSetTest, ScoresAreDoublesAndPairsInRespThree) {
  TypedTestNode t;
  EXPECT_EQ(t.run({"zadd", "z", "1.5", "a", "0.1", "b", "inf", "c"}), I(3));
  EXPECT_EQ(t.run({"zscore", "z", "b"}), D(0.1));
  EXPECT_EQ(t.run({"zscore", "z", "b"}).str, "0.10000000000000001");
  EXPECT_EQ(t.run({"zscore", "z", "c"}).str, "inf");
  EXPECT_EQ(t.run({"zscore", "z", "x"}), N());
  EXPECT_EQ(t.run({"zincrby", "z", "1", "a"}), D(2.5));
  EXPECT_EQ(t.run({"zadd", "z", "incr", "1", "a"}), D(3.5));
  EXPECT_EQ(t.run({"zadd", "z", "nx", "incr", "1", "a"}), N());
  EXPECT_EQ(t.run({"zrank", "z", "x"}), N());
  const Reply flat = A({B("b"), D(0.1), B("a"), D(3.5), B("c"), D(INFINITY)});
  EXPECT_EQ(t.run({"zrange", "z", "0", "-1", "withscores"}), flat);
  EXPECT_EQ(t.run({"zrangebyscore", "z", "-inf", "+inf", "withscores"}), flat);
  t.run({"hello", "3"});
  const Reply pairs = A({A({B("b"), D(0.1)}), A({B("a"), D(3.5)}), A({B("c"), D(INFINITY)})});
  EXPECT_EQ(t.run({"zrange", "z", "0", "-1", "withscores"}), pairs);
  EXPECT_EQ(t.run({"zrangebyscore", "z", "-inf", "+inf", "withscores"}), pairs);
  EXPECT_EQ(t.run({"zrange", "z", "0", "0"}), A({B("b")}));
  EXPECT_EQ(t.run({"zscore", "z", "a"}), D(3.5));
  // Without typed replies (the simulator), a RESP3 connection gets the pairs with string scores.
  TestNode u;
  u.run({"zadd", "z", "1.5", "a"});
  EXPECT_EQ(u.run({"zscore", "z", "a"}), B("1.5"));
  u.run({"hello", "3"});
  EXPECT_EQ(u.run({"zrange", "z", "0", "-1", "withscores"}), A({A({B("a"), B("1.5")})}));
}

TEST(ZSetTest, ZaddErrors) {
  TestNode t;
  t.run({"zadd", "z", "1", "a"});
  const Reply not_float = E("ERR value is not a valid float");
  for (std::string_view bad : {"nan", "abc", " 1", "1e400"}) EXPECT_EQ(t.run({"zadd", "z", bad, "a"}), not_float);
  t.run({"zadd", "z", "inf", "c", "-inf", "d"});
  EXPECT_EQ(t.run({"zincrby", "z", "-inf", "c"}), E("ERR resulting score is not a number (NaN)"));
  EXPECT_EQ(t.run({"zincrby", "z", "inf", "d"}), E("ERR resulting score is not a number (NaN)"));
  EXPECT_EQ(t.run({"zadd", "z", "nx", "xx", "1", "a"}), E("ERR XX and NX options at the same time are not compatible"));
  EXPECT_EQ(t.run({"zadd", "z", "gt", "lt", "1", "a"}), E("ERR GT, LT, and/or NX options at the same time are not compatible"));
  EXPECT_EQ(t.run({"zadd", "z", "nx", "gt", "1", "a"}), E("ERR GT, LT, and/or NX options at the same time are not compatible"));
  EXPECT_EQ(t.run({"zadd", "z", "incr", "1", "a", "2", "b"}), E("ERR INCR option supports a single increment-element pair"));
  EXPECT_EQ(t.run({"zadd", "z", "1"}), E("ERR wrong number of arguments for 'zadd' command"));
  EXPECT_EQ(t.run({"zadd", "z", "1", "a", "2"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"zadd", "z", "ch", "1"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"zadd", "z", "ch", "1", "a", "foo", "b"}), not_float);
  EXPECT_EQ(t.run({"zadd", "z", "foo", "1", "a"}), E("ERR syntax error"));
  t.run({"set", "s", "x"});
  EXPECT_EQ(t.run({"zadd", "s", "1", "a"}), E("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(t.run({"zadd", "s", "x", "a"}), not_float);  // scores are parsed first
}

TEST(ZSetTest, ZaddConditions) {
  TestNode t;
  t.run({"zadd", "z", "1", "a", "3", "e"});
  EXPECT_EQ(t.run({"zadd", "z", "xx", "incr", "1", "nosuch"}), N());
  EXPECT_EQ(t.run({"zadd", "z", "nx", "incr", "1", "a"}), N());
  EXPECT_EQ(t.run({"zadd", "z", "gt", "incr", "-100", "a"}), N());
  EXPECT_EQ(t.run({"zadd", "z", "gt", "ch", "100", "a", "1", "e"}), I(1));
  EXPECT_EQ(t.run({"zadd", "z", "lt", "ch", "-100", "a", "1000", "e"}), I(1));
  EXPECT_EQ(t.run({"zrange", "z", "0", "-1", "withscores"}), A({B("a"), B("-100"), B("e"), B("3")}));
  EXPECT_EQ(t.run({"zadd", "z2", "xx", "1", "a"}), I(0));
  EXPECT_EQ(t.run({"exists", "z2"}), I(0));
  EXPECT_EQ(t.run({"zadd", "z", "ch", "-100", "a", "4", "e", "5", "new"}), I(2));
}

TEST(ZSetTest, NegativeZeroInAListpackReadsBackAsZero) {
  TestNode t;
  EXPECT_EQ(t.run({"zadd", "small", "-0", "a"}), I(1));
  EXPECT_EQ(t.run({"zscore", "small", "a"}), B("0"));
  EXPECT_EQ(t.run({"zincrby", "small", "-0", "c"}), B("-0"));  // the reply is the computed score
  EXPECT_EQ(t.run({"zscore", "small", "c"}), B("0"));
  std::vector<std::string> args = {"zadd", "big"};
  for (int i = 0; i < 200; i++) {
    args.push_back(std::to_string(i));
    args.push_back("m" + std::to_string(i));
  }
  std::vector<std::string_view> views(args.begin(), args.end());
  EXPECT_EQ(t.node->execute_one(t.conn, views), I(200));
  EXPECT_EQ(t.run({"zadd", "big", "-0", "x"}), I(1));  // a skiplist keeps -0
  EXPECT_EQ(t.run({"zscore", "big", "x"}), B("-0"));
}

TEST(ZSetTest, RangeByRankAndScore) {
  TestNode t;
  t.run({"zadd", "z", "1", "a", "2", "b", "3", "c", "3", "d"});
  EXPECT_EQ(t.run({"zrange", "z", "0", "-1"}), A({B("a"), B("b"), B("c"), B("d")}));
  EXPECT_EQ(t.run({"zrange", "z", "1", "2", "withscores"}), A({B("b"), B("2"), B("c"), B("3")}));
  EXPECT_EQ(t.run({"zrange", "z", "-2", "-1"}), A({B("c"), B("d")}));
  EXPECT_EQ(t.run({"zrange", "z", "0", "-1", "rev"}), A({B("d"), B("c"), B("b"), B("a")}));
  EXPECT_EQ(t.run({"zrange", "z", "(1", "3", "byscore"}), A({B("b"), B("c"), B("d")}));
  EXPECT_EQ(t.run({"zrange", "z", "1", "(3", "byscore", "withscores"}), A({B("a"), B("1"), B("b"), B("2")}));
  EXPECT_EQ(t.run({"zrange", "z", "-inf", "+inf", "byscore", "limit", "1", "2"}), A({B("b"), B("c")}));
  EXPECT_EQ(t.run({"zrange", "z", "+inf", "-inf", "byscore", "rev"}), A({B("d"), B("c"), B("b"), B("a")}));
  EXPECT_EQ(t.run({"zrange", "z", "3", "1", "byscore", "rev", "limit", "0", "2", "withscores"}),
            A({B("d"), B("3"), B("c"), B("3")}));
  EXPECT_EQ(t.run({"zrange", "z", "[a", "[c", "bylex"}), A({B("a"), B("b"), B("c")}));
  EXPECT_EQ(t.run({"zrangebyscore", "z", "-inf", "+inf"}), A({B("a"), B("b"), B("c"), B("d")}));
  EXPECT_EQ(t.run({"zrangebyscore", "z", "(1", "(3", "withscores"}), A({B("b"), B("2")}));
  EXPECT_EQ(t.run({"zrangebyscore", "z", "1", "3", "limit", "1", "-1"}), A({B("b"), B("c"), B("d")}));
  EXPECT_EQ(t.run({"zrangebyscore", "z", "1", "3", "limit", "-1", "2"}), A({}));
  EXPECT_EQ(t.run({"zrangebyscore", "z", "1", "3", "withscores", "limit", "0", "1"}), A({B("a"), B("1")}));
  EXPECT_EQ(t.run({"zrangebyscore", "z", "(", "3"}), A({B("a"), B("b"), B("c"), B("d")}));
  EXPECT_EQ(t.run({"zrangebyscore", "nokey", "0", "1"}), A({}));
  EXPECT_EQ(t.run({"zrange", "nokey", "0", "1"}), A({}));
}

TEST(ZSetTest, RangeErrors) {
  TestNode t;
  t.run({"zadd", "z", "1", "a"});
  EXPECT_EQ(t.run({"zrange", "z", "0", "-1", "limit", "0", "1"}),
            E("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"));
  EXPECT_EQ(t.run({"zrange", "z", "x", "1", "byscore"}), E("ERR min or max is not a float"));
  EXPECT_EQ(t.run({"zrange", "z", "0", "x"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"zrange", "z", "0", "1", "foo"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"zrange", "z", "0", "1", "byscore", "bylex"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"zrange", "z", "0", "1", "limit", "1"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"zrange", "z", "0", "1", "byscore", "limit", "a", "1"}), E("ERR value is not an integer or out of range"));
  for (std::string_view bad : {"a", "1 ", "nan"}) {
    EXPECT_EQ(t.run({"zrangebyscore", "z", bad, "3"}), E("ERR min or max is not a float")) << bad;
  }
  EXPECT_EQ(t.run({"zrangebyscore", "z", "1", "3", "foo"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"zrangebyscore", "z", "1", "3", "rev"}), E("ERR syntax error"));
  t.run({"set", "s", "x"});
  EXPECT_EQ(t.run({"zrange", "s", "0", "1"}), E("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

TEST(ZSetTest, CardRankScoreRem) {
  TestNode t;
  t.run({"zadd", "z", "1", "a", "2", "b", "3", "c", "3", "d"});
  EXPECT_EQ(t.run({"zcard", "z"}), I(4));
  EXPECT_EQ(t.run({"zcard", "nokey"}), I(0));
  EXPECT_EQ(t.run({"zrank", "z", "c"}), I(2));
  EXPECT_EQ(t.run({"zrank", "z", "nope"}), N());
  EXPECT_EQ(t.run({"zrank", "nokey", "a"}), N());
  EXPECT_EQ(t.run({"zrank", "z", "c", "withscore"}), E("ERR wrong number of arguments for 'zrank' command"));
  EXPECT_EQ(t.run({"zrem", "z", "a", "nope"}), I(1));
  EXPECT_EQ(t.run({"zrem", "z"}), E("ERR wrong number of arguments for 'zrem' command"));
  EXPECT_EQ(t.run({"zscore", "z", "nope"}), N());
  EXPECT_EQ(t.run({"zscore", "nokey", "a"}), N());
  EXPECT_EQ(t.run({"zincrby", "z", "1", "new"}), B("1"));
  EXPECT_EQ(t.run({"zincrby", "z", "x", "new"}), E("ERR value is not a valid float"));
  EXPECT_EQ(t.run({"zrem", "z", "b", "c", "d", "new"}), I(4));
  EXPECT_EQ(t.run({"exists", "z"}), I(0));
}

// The model's order against a straightforward reference: sort by (score, member).
RC_GTEST_PROP(ZSetValueTest, OrderedByScoreThenMember, (std::vector<std::pair<int, int>> ops)) {
  ZSetValue z;
  std::map<std::string, double> model;
  for (const auto& [member, score] : ops) {
    std::string m = "m" + std::to_string(member % 40);
    if (score % 5 == 0) {
      RC_ASSERT(z.remove(m) == (model.erase(m) == 1));
    } else {
      z.set(m, score % 7);
      model[m] = score % 7;
    }
  }
  std::set<std::pair<double, std::string>> expected;
  for (const auto& [m, s] : model) expected.emplace(s, m);
  RC_ASSERT(z.size() == expected.size());
  auto it = expected.begin();
  size_t rank = 0;
  for (const auto& item : z.ordered()) {
    RC_ASSERT(item.score == it->first);
    RC_ASSERT(item.member == it->second);
    RC_ASSERT(z.rank(item.member) == rank);
    ++it;
    ++rank;
  }
}

}  // namespace
}  // namespace lockstep::redis::testing
