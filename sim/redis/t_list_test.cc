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
