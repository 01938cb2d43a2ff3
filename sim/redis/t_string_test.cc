#include <gtest/gtest.h>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Expected replies below were checked against redis-server 7.0.15.

TEST(StringTest, GetSetBasics) {
  TestNode t;
  EXPECT_EQ(t.run({"GET", "k"}), N());
  EXPECT_EQ(t.run({"SET", "k", "v"}), OK());
  EXPECT_EQ(t.run({"get", "k"}), B("v"));
  EXPECT_EQ(t.run({"GET"}), E("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(t.run({"Get", "a", "b"}), E("ERR wrong number of arguments for 'get' command"));
}

TEST(StringTest, SetOptionConflictsAreSyntaxErrors) {
  TestNode t;
  EXPECT_EQ(t.run({"set", "k", "v", "nx", "xx"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"set", "k", "v", "ex", "10", "px", "100"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"set", "k", "v", "ex"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"set", "k", "v", "keepttl", "ex", "5"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"set", "k", "v", "foo"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"set", "k", "v", "ex", "10", "ex", "20"}), OK());
}

TEST(StringTest, SetExpireErrors) {
  TestNode t;
  const Reply invalid = E("ERR invalid expire time in 'set' command");
  EXPECT_EQ(t.run({"set", "k", "v", "ex", "0"}), invalid);
  EXPECT_EQ(t.run({"set", "k", "v", "ex", "-1"}), invalid);
  EXPECT_EQ(t.run({"set", "k", "v", "px", "0"}), invalid);
  EXPECT_EQ(t.run({"set", "k", "v", "pxat", "0"}), invalid);
  EXPECT_EQ(t.run({"set", "k", "v", "ex", "9223372036854775807"}), invalid);
  EXPECT_EQ(t.run({"set", "k", "v", "px", "9223372036854775807"}), invalid);
  EXPECT_EQ(t.run({"set", "k", "v", "ex", "abc"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"set", "k", "v", "ex", "1.5"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"setex", "k", "0", "v"}), E("ERR invalid expire time in 'setex' command"));
}

TEST(StringTest, SetNxXxGet) {
  TestNode t;
  EXPECT_EQ(t.run({"set", "k", "v", "get", "nx"}), N());
  EXPECT_EQ(t.run({"set", "k", "v2", "xx", "get"}), B("v"));
  EXPECT_EQ(t.run({"set", "k", "v3", "nx", "get"}), B("v2"));
  EXPECT_EQ(t.run({"set", "k", "v3", "nx"}), N());
  EXPECT_EQ(t.run({"set", "other", "v", "xx"}), N());
  EXPECT_EQ(t.run({"get", "other"}), N());
  EXPECT_EQ(t.run({"hset", "h", "f", "v"}), I(1));
  EXPECT_EQ(t.run({"set", "h", "v", "get"}),
            E("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(t.run({"set", "h", "v"}), OK());  // SET overwrites any type
  EXPECT_EQ(t.run({"get", "h"}), B("v"));
}

TEST(StringTest, SetExpiryAndKeepTtl) {
  TestNode t;
  EXPECT_EQ(t.run({"set", "k", "v", "px", "1500"}), OK());
  EXPECT_EQ(t.run({"pttl", "k"}), I(1500));
  EXPECT_EQ(t.run({"set", "k", "w", "keepttl"}), OK());
  EXPECT_EQ(t.run({"pttl", "k"}), I(1500));
  EXPECT_EQ(t.run({"set", "k", "x"}), OK());
  EXPECT_EQ(t.run({"pttl", "k"}), I(-1));
  std::string at = std::to_string(t.now_ms() + 5000);
  EXPECT_EQ(t.run({"set", "k", "v", "pxat", at}), OK());
  EXPECT_EQ(t.run({"pttl", "k"}), I(5000));
  EXPECT_EQ(t.run({"set", "k", "v", "exat", "1"}), OK());  // in the past: logically gone
  EXPECT_EQ(t.run({"get", "k"}), N());
}

TEST(StringTest, IncrDecrAndOverflow) {
  TestNode t;
  EXPECT_EQ(t.run({"incr", "n"}), I(1));
  EXPECT_EQ(t.run({"decr", "m"}), I(-1));
  EXPECT_EQ(t.run({"incrby", "n", "41"}), I(42));
  EXPECT_EQ(t.run({"decrby", "n", "2"}), I(40));
  EXPECT_EQ(t.run({"set", "n", "9223372036854775807"}), OK());
  EXPECT_EQ(t.run({"incr", "n"}), E("ERR increment or decrement would overflow"));
  EXPECT_EQ(t.run({"incrby", "n", "-1"}), I(9223372036854775806));
  EXPECT_EQ(t.run({"decrby", "n", "-9223372036854775808"}), E("ERR decrement would overflow"));
  EXPECT_EQ(t.run({"set", "n", "-9223372036854775808"}), OK());
  EXPECT_EQ(t.run({"decr", "n"}), E("ERR increment or decrement would overflow"));
  for (std::string_view bad : {"abc", "+1", " 1", "1.0"}) {
    EXPECT_EQ(t.run({"incrby", "n", bad}), E("ERR value is not an integer or out of range")) << bad;
  }
  for (std::string_view stored : {"007", "-0", "1.0", ""}) {
    t.run({"set", "s", stored});
    EXPECT_EQ(t.run({"incr", "s"}), E("ERR value is not an integer or out of range")) << stored;
  }
  t.run({"hset", "h", "a", "1"});
  EXPECT_EQ(t.run({"incr", "h"}), E("WRONGTYPE Operation against a key holding the wrong kind of value"));
  // INCR keeps the TTL.
  t.run({"set", "ttl", "1", "px", "1000"});
  EXPECT_EQ(t.run({"incr", "ttl"}), I(2));
  EXPECT_EQ(t.run({"pttl", "ttl"}), I(1000));
}

TEST(StringTest, MultiKeyAndAppend) {
  TestNode t;
  EXPECT_EQ(t.run({"mset", "a", "1", "b"}), E("ERR wrong number of arguments for 'mset' command"));
  EXPECT_EQ(t.run({"mset", "a", "1", "b", "2"}), OK());
  t.run({"hset", "h", "f", "v"});
  EXPECT_EQ(t.run({"mget", "a", "b", "h", "zz"}), A({B("1"), B("2"), N(), N()}));
  EXPECT_EQ(t.run({"append", "a", "xyz"}), I(4));
  EXPECT_EQ(t.run({"append", "new", "xyz"}), I(3));
  EXPECT_EQ(t.run({"strlen", "a"}), I(4));
  EXPECT_EQ(t.run({"strlen", "zz"}), I(0));
  EXPECT_EQ(t.run({"strlen", "h"}), E("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(t.run({"getdel", "a"}), B("1xyz"));
  EXPECT_EQ(t.run({"getdel", "a"}), N());
  EXPECT_EQ(t.run({"setnx", "b", "x"}), I(0));
  EXPECT_EQ(t.run({"setnx", "c", "x"}), I(1));
}

TEST(StringTest, PropagationRewritesRelativeExpiry) {
  TestNode t;
  std::string at = std::to_string(t.now_ms() + 10'000);
  t.run({"set", "k", "v", "ex", "10"});
  ASSERT_EQ(t.effects.size(), 1u);
  EXPECT_EQ(t.effects[0].argv, (std::vector<std::string>{"SET", "k", "v", "PXAT", at}));
  t.run({"setex", "k", "10", "v"});
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"SET", "k", "v", "PXAT", at}));
  t.run({"set", "k", "v", "get", "xx"});
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"set", "k", "v", "xx"}));
  t.run({"getdel", "k"});
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"DEL", "k"}));
  size_t before = t.effects.size();
  t.run({"set", "k", "v", "nx"});
  t.run({"set", "k", "v", "nx"});  // not written: not propagated
  EXPECT_EQ(t.effects.size(), before + 1);
  EXPECT_NE(t.effects[before].group, t.effects[before - 1].group);
}

}  // namespace
}  // namespace lockstep::redis::testing

namespace lockstep::redis::testing {
namespace {

// INCRBYFLOAT, GETSET, GETEX, EXPIRETIME (issue 10), replies as redis-server 7.0.15 gave them
// to redis-cli in both protocols.
TEST(StringTest, IncrbyfloatGetsetGetex) {
  TestNode t;
  EXPECT_EQ(t.run({"set", "s", "abc"}), S("OK"));
  EXPECT_EQ(t.run({"incrbyfloat", "s", "1"}), E("ERR value is not a valid float"));
  EXPECT_EQ(t.run({"incrbyfloat", "n", "inf"}), E("ERR increment would produce NaN or Infinity"));
  EXPECT_EQ(t.run({"incrbyfloat", "n", " 1"}), E("ERR value is not a valid float"));
  EXPECT_EQ(t.run({"incrbyfloat", "n", ""}), E("ERR value is not a valid float"));
  EXPECT_EQ(t.run({"incrbyfloat", "n", "1e-5000"}), E("ERR value is not a valid float"));
  EXPECT_EQ(t.run({"incrbyfloat", "n", "0x10"}), B("16"));
  EXPECT_EQ(t.run({"incrbyfloat", "n", "-0"}), B("16"));
  EXPECT_EQ(t.run({"incrbyfloat", "n", "3.0"}), B("19"));
  EXPECT_EQ(t.run({"incrbyfloat", "n", "-3"}), B("16"));
  EXPECT_EQ(t.run({"incrbyfloat", "n", "1.5e3"}), B("1516"));
  EXPECT_EQ(t.run({"set", "k", "10"}), S("OK"));
  EXPECT_EQ(t.run({"incrbyfloat", "k", "0.1"}), B("10.1"));
  // Long doubles: 1e400 is finite, and "%.17Lf" writes every digit.
  const Reply big = t.run({"incrbyfloat", "k", "1e400"});
  ASSERT_EQ(big.type, Reply::Type::kBulk);
  EXPECT_EQ(big.str.size(), 401u);
  EXPECT_EQ(big.str.substr(0, 21), "100000000000000000002");
  EXPECT_EQ(t.run({"getset", "k", "5"}).str, big.str);
  EXPECT_EQ(t.run({"lpush", "l", "a"}), I(1));
  EXPECT_EQ(t.run({"getset", "l", "x"}).type, Reply::Type::kError);  // WRONGTYPE
  EXPECT_EQ(t.run({"getex", "k", "px", "100000"}), B("5"));
  EXPECT_EQ(t.run({"ttl", "k"}), I(100));
  EXPECT_EQ(t.run({"getex", "k", "persist"}), B("5"));
  EXPECT_EQ(t.run({"ttl", "k"}), I(-1));
  EXPECT_EQ(t.run({"getex", "k", "nx"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"getex", "k", "px", "10", "persist"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"getex", "k", "ex", "0"}), E("ERR invalid expire time in 'getex' command"));
  EXPECT_EQ(t.run({"getex", "k", "ex", "abc"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"getex", "nokey", "ex", "10"}), N());
  EXPECT_EQ(t.run({"getex", "k", "pxat", "1"}), B("5"));  // already past: deleted
  EXPECT_EQ(t.run({"exists", "k"}), I(0));
  EXPECT_EQ(t.run({"set", "e", "v", "pxat", "4000000000000"}), S("OK"));
  EXPECT_EQ(t.run({"pexpiretime", "e"}), I(4000000000000));
  EXPECT_EQ(t.run({"expiretime", "e"}), I(4000000000));
  EXPECT_EQ(t.run({"expiretime", "l"}), I(-1));
  EXPECT_EQ(t.run({"expiretime", "nokey"}), I(-2));
}

}  // namespace
}  // namespace lockstep::redis::testing
