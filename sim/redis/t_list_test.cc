#include <gtest/gtest.h>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Replies checked against redis-server 7.0.15.

TEST(ListTest, PushRangeIndex) {
  TestNode t;
  EXPECT_EQ(t.run({"lpush", "l"}), E("ERR wrong number of arguments for 'lpush' command"));
  EXPECT_EQ(t.run({"lpush", "l", "a", "b", "c"}), I(3));
  EXPECT_EQ(t.run({"rpush", "l", "d", "e"}), I(5));
  EXPECT_EQ(t.run({"lrange", "l", "0", "-1"}), A({B("c"), B("b"), B("a"), B("d"), B("e")}));
  EXPECT_EQ(t.run({"lrange", "l", "-100", "100"}), A({B("c"), B("b"), B("a"), B("d"), B("e")}));
  EXPECT_EQ(t.run({"lrange", "l", "3", "1"}), A({}));
  EXPECT_EQ(t.run({"lrange", "l", "-2", "-1"}), A({B("d"), B("e")}));
  EXPECT_EQ(t.run({"lrange", "l", "x", "1"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"lrange", "nokey", "0", "-1"}), A({}));
  EXPECT_EQ(t.run({"lindex", "l", "0"}), B("c"));
  EXPECT_EQ(t.run({"lindex", "l", "-1"}), B("e"));
  EXPECT_EQ(t.run({"lindex", "l", "10"}), N());
  EXPECT_EQ(t.run({"lindex", "l", "x"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"lindex", "nokey", "x"}), N());  // the key is looked up first
  EXPECT_EQ(t.run({"llen", "l"}), I(5));
  EXPECT_EQ(t.run({"llen", "nokey"}), I(0));
}

TEST(ListTest, PopWithAndWithoutCount) {
  TestNode t;
  t.run({"rpush", "l", "c", "b", "a", "d", "e"});
  EXPECT_EQ(t.run({"lpop", "l"}), B("c"));
  EXPECT_EQ(t.run({"rpop", "l"}), B("e"));
  EXPECT_EQ(t.run({"lpop", "l", "2"}), A({B("b"), B("a")}));
  EXPECT_EQ(t.run({"lpop", "l", "0"}), A({}));
  EXPECT_EQ(t.run({"lpop", "l", "-1"}), E("ERR value is out of range, must be positive"));
  EXPECT_EQ(t.run({"lpop", "l", "x"}), E("ERR value is out of range, must be positive"));
  EXPECT_EQ(t.run({"rpop", "l", "10"}), A({B("d")}));
  EXPECT_EQ(t.run({"exists", "l"}), I(0));  // popping the last element deletes the key
  EXPECT_EQ(t.run({"lpop", "l"}), N());
  EXPECT_EQ(t.run({"lpop", "l", "2"}), Reply::nil_array());
  EXPECT_EQ(t.run({"rpop", "nokey", "0"}), Reply::nil_array());
  EXPECT_EQ(t.run({"lpop", "l", "2", "3"}), E("ERR wrong number of arguments for 'lpop' command"));
}

TEST(ListTest, Lrem) {
  TestNode t;
  t.run({"rpush", "l", "a", "b", "a", "c", "a"});
  EXPECT_EQ(t.run({"lrem", "l", "-2", "a"}), I(2));
  EXPECT_EQ(t.run({"lrange", "l", "0", "-1"}), A({B("a"), B("b"), B("c")}));
  EXPECT_EQ(t.run({"lrem", "l", "0", "zz"}), I(0));
  EXPECT_EQ(t.run({"lrem", "l", "x", "a"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"rpush", "l", "b", "b"}), I(5));
  EXPECT_EQ(t.run({"lrem", "l", "1", "b"}), I(1));
  EXPECT_EQ(t.run({"lrange", "l", "0", "-1"}), A({B("a"), B("c"), B("b"), B("b")}));
  EXPECT_EQ(t.run({"lrem", "l", "0", "b"}), I(2));
  EXPECT_EQ(t.run({"lrem", "l", "0", "a"}), I(1));
  EXPECT_EQ(t.run({"lrem", "l", "0", "c"}), I(1));
  EXPECT_EQ(t.run({"exists", "l"}), I(0));
  EXPECT_EQ(t.run({"lrem", "nokey", "0", "c"}), I(0));
}

TEST(ListTest, WrongType) {
  TestNode t;
  t.run({"set", "s", "x"});
  const Reply wrong = E("WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(t.run({"lpush", "s", "a"}), wrong);
  EXPECT_EQ(t.run({"lpop", "s"}), wrong);
  EXPECT_EQ(t.run({"lrange", "s", "0", "1"}), wrong);
  EXPECT_EQ(t.run({"llen", "s"}), wrong);
}

}  // namespace
}  // namespace lockstep::redis::testing

namespace lockstep::redis::testing {
namespace {

// LSET, LTRIM, LPOS, LMOVE and the collection commands RENAME, COPY, SMISMEMBER, HSTRLEN,
// HINCRBYFLOAT (issue 10), as redis-server 7.0.15 answered them.
TEST(ListTest, LsetLtrimLposLmoveAndFriends) {
  TestNode t;
  EXPECT_EQ(t.run({"lset", "nokey", "x", "a"}), E("ERR no such key"));  // the key first
  EXPECT_EQ(t.run({"rpush", "m", "a", "b", "a", "c", "a"}), I(5));
  EXPECT_EQ(t.run({"lpos", "m", "a", "rank", "2"}), I(2));
  EXPECT_EQ(t.run({"lpos", "m", "a", "rank", "-1", "count", "2"}), A({I(4), I(2)}));
  EXPECT_EQ(t.run({"lpos", "m", "a", "count", "0", "maxlen", "3"}), A({I(0), I(2)}));
  EXPECT_EQ(t.run({"lpos", "m", "a", "count", "-1"}), E("ERR COUNT can't be negative"));
  EXPECT_EQ(t.run({"lpos", "m", "a", "maxlen", "x"}), E("ERR MAXLEN can't be negative"));
  EXPECT_EQ(t.run({"lpos", "m", "a", "foo", "1"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"lpos", "m", "z"}), N());
  EXPECT_EQ(t.run({"lpos", "nokey", "z", "count", "1"}), A({}));
  EXPECT_EQ(t.run({"lmove", "m", "m", "left", "right"}), B("a"));
  EXPECT_EQ(t.run({"lrange", "m", "0", "-1"}), A({B("b"), B("a"), B("c"), B("a"), B("a")}));
  EXPECT_EQ(t.run({"lmove", "m", "m2", "up", "right"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"lmove", "nokey", "m", "left", "left"}), N());
  EXPECT_EQ(t.run({"lset", "m", "0", "z"}), S("OK"));
  EXPECT_EQ(t.run({"lset", "m", "9", "z"}), E("ERR index out of range"));
  EXPECT_EQ(t.run({"ltrim", "m", "1", "-2"}), S("OK"));
  EXPECT_EQ(t.run({"lrange", "m", "0", "-1"}), A({B("a"), B("c"), B("a")}));
  EXPECT_EQ(t.run({"ltrim", "m", "5", "1"}), S("OK"));
  EXPECT_EQ(t.run({"exists", "m"}), I(0));  // trimmed to nothing: gone
  EXPECT_EQ(t.run({"set", "s", "v"}), S("OK"));
  EXPECT_EQ(t.run({"rename", "s", "s"}), S("OK"));
  EXPECT_EQ(t.run({"renamenx", "s", "s"}), I(0));
  EXPECT_EQ(t.run({"rename", "nokey", "x"}), E("ERR no such key"));
  EXPECT_EQ(t.run({"copy", "s", "s"}), E("ERR source and destination objects are the same"));
  EXPECT_EQ(t.run({"copy", "s", "t", "db", "1"}), I(1));
  EXPECT_EQ(t.run({"copy", "s", "t", "db", "99"}), E("ERR DB index is out of range"));
  EXPECT_EQ(t.run({"copy", "s", "t", "foo"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"rename", "s", "u"}), S("OK"));
  EXPECT_EQ(t.run({"get", "u"}), B("v"));
  EXPECT_EQ(t.run({"sadd", "set", "a"}), I(1));
  EXPECT_EQ(t.run({"smismember", "set", "a", "x"}), A({I(1), I(0)}));
  EXPECT_EQ(t.run({"smismember", "nokey", "a"}), A({I(0)}));
  EXPECT_EQ(t.run({"hset", "h", "f", "abc"}), I(1));
  EXPECT_EQ(t.run({"hstrlen", "h", "f"}), I(3));
  EXPECT_EQ(t.run({"hincrbyfloat", "h", "f", "1"}), E("ERR hash value is not a float"));
  EXPECT_EQ(t.run({"hincrbyfloat", "h", "g", "inf"}), E("ERR value is NaN or Infinity"));
  EXPECT_EQ(t.run({"hincrbyfloat", "h2", "g", "abc"}), E("ERR value is not a valid float"));
  EXPECT_EQ(t.run({"exists", "h2"}), I(0));
  EXPECT_EQ(t.run({"hincrbyfloat", "h2", "g", "2.5"}), B("2.5"));
}

}  // namespace
}  // namespace lockstep::redis::testing
