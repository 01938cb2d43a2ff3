// The differential generators cover what they claim to (no model needed).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <set>

#include "tests/differential/command_gen.h"

namespace lockstep::differential {
namespace {

TEST(Generators, CoverEveryCommandOfTheModelList) {
  std::set<std::string> seen;
  std::set<std::string> rules;
  // Sample many sequences at a fixed RapidCheck seed.
  const auto gen = gen_sequence(Family::kEverything);
  for (int seed = 0; seed < 400; seed++) {
    const auto shrinkable = gen(rc::Random(seed), 60);
    for (const Step& s : shrinkable.value()) {
      std::string name = s.argv[0];
      if (name == "SCRIPT" && s.argv.size() > 1) name += " " + s.argv[1];
      seen.insert(name);
      for (const auto& next : s.then) seen.insert(next[0]);
      rules.insert(std::to_string(static_cast<int>(s.rule)));
    }
  }
  for (const char* cmd :
       {"DEL", "UNLINK", "EXISTS", "TYPE", "EXPIRE", "PEXPIRE", "PEXPIREAT", "TTL", "PTTL", "PERSIST",
        "KEYS", "DBSIZE", "TIME", "PING", "ECHO", "GET", "SET", "SETNX", "INCR", "INCRBY", "DECR",
        "DECRBY", "HSET", "HSETNX", "HGET", "HMGET", "HEXISTS", "HDEL", "HINCRBY", "HLEN", "HKEYS",
        "HVALS", "HGETALL", "LPUSH", "RPUSH", "LPOP", "RPOP", "LINDEX", "LRANGE", "LLEN", "LREM",
        "SADD", "SREM", "SISMEMBER", "SMEMBERS", "SCARD", "ZADD", "ZINCRBY", "ZSCORE", "ZREM", "ZRANGE",
        "ZRANGEBYSCORE", "ZCARD", "ZRANK", "PUBLISH", "SUBSCRIBE", "UNSUBSCRIBE", "PSUBSCRIBE", "EVAL",
        "EVALSHA", "SCRIPT LOAD", "SCRIPT EXISTS", "SCRIPT FLUSH", "WAIT", "HELLO", "RESET", "CLIENT",
        "CONFIG", "SCAN", "HSCAN", "SSCAN", "ZSCAN", "MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH", "COPY",
        "RENAME", "LMOVE", "GETEX", "INCRBYFLOAT", "ZREVRANGE", "ZREMRANGEBYSCORE", "PUBSUB", "SPOP",
        "SRANDMEMBER", "RANDOMKEY", "OBJECT", "APPEND", "STRLEN", "MSET", "MGET", "FUNCTION", "FCALL",
        "FCALL_RO", "SSUBSCRIBE", "SUNSUBSCRIBE", "SPUBLISH", "BLPOP", "BRPOP"}) {
    EXPECT_TRUE(seen.count(cmd)) << cmd << " is never generated";
  }
  EXPECT_EQ(rules.size(), static_cast<size_t>(CompareRule::kFunctionList) + 1) << "every compare rule is used";
}

TEST(Generators, PlaceholdersResolveToTheSameValueForBothSides) {
  EXPECT_EQ(resolve_placeholders("$FUTURE_MS", 1000), "601000");
  EXPECT_EQ(resolve_placeholders("$PAST_MS", 100000), "40000");
  EXPECT_EQ(resolve_placeholders("$FUTURE_S", 5000), "605");
  EXPECT_EQ(resolve_placeholders("x", 5000), "x");
}

}  // namespace
}  // namespace lockstep::differential
