#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>

#include "sim/redis/db.h"
#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Expiry semantics of Redis 7.0 (replies checked against redis-server 7.0.15).

TEST(ExpireTest, OptionsAndErrors) {
  TestNode t;
  t.run({"set", "k", "v"});
  EXPECT_EQ(t.run({"expire", "k", "10", "nx", "xx"}), E("ERR NX and XX, GT or LT options at the same time are not compatible"));
  EXPECT_EQ(t.run({"expire", "k", "10", "gt", "lt"}), E("ERR GT and LT options at the same time are not compatible"));
  EXPECT_EQ(t.run({"expire", "k", "10", "foo"}), E("ERR Unsupported option foo"));
  EXPECT_EQ(t.run({"expire", "k", "abc", "foo"}), E("ERR Unsupported option foo"));  // options first
  EXPECT_EQ(t.run({"expire", "k", "abc"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"expire", "k", "9223372036854775807"}), E("ERR invalid expire time in 'expire' command"));
  EXPECT_EQ(t.run({"pexpire", "k", "9223372036854775807"}), E("ERR invalid expire time in 'pexpire' command"));
  EXPECT_EQ(t.run({"expire", "k", "-9223372036854775808"}), E("ERR invalid expire time in 'expire' command"));
  EXPECT_EQ(t.run({"expire", "k", "10", "gt"}), I(0));  // no TTL counts as infinite
  EXPECT_EQ(t.run({"expire", "k", "10", "xx"}), I(0));
  EXPECT_EQ(t.run({"expire", "k", "10", "nx"}), I(1));
  EXPECT_EQ(t.run({"expire", "k", "20", "nx"}), I(0));
  EXPECT_EQ(t.run({"expire", "k", "5", "gt"}), I(0));
  EXPECT_EQ(t.run({"expire", "k", "20", "gt"}), I(1));
  EXPECT_EQ(t.run({"expire", "k", "30", "lt"}), I(0));
  EXPECT_EQ(t.run({"expire", "k", "5", "lt"}), I(1));
  EXPECT_EQ(t.run({"ttl", "k"}), I(5));
  EXPECT_EQ(t.run({"expire", "nokey", "10"}), I(0));
}

TEST(ExpireTest, TtlCodesAndClamp) {
  TestNode t;
  EXPECT_EQ(t.run({"ttl", "nokey"}), I(-2));
  EXPECT_EQ(t.run({"pttl", "nokey"}), I(-2));
  t.run({"set", "k", "v"});
  EXPECT_EQ(t.run({"ttl", "k"}), I(-1));
  EXPECT_EQ(t.run({"pttl", "k"}), I(-1));
  t.run({"pexpire", "k", "1499"});
  EXPECT_EQ(t.run({"ttl", "k"}), I(1));    // rounded: (1499 + 500) / 1000
  EXPECT_EQ(t.run({"pttl", "k"}), I(1499));
  t.advance_ms(1499);
  EXPECT_EQ(t.run({"pttl", "k"}), I(0));   // expire_at == now: still alive (now > when expires)
  EXPECT_EQ(t.run({"exists", "k"}), I(1));
  t.advance_ms(1);
  EXPECT_EQ(t.run({"pttl", "k"}), I(-2));
  EXPECT_EQ(t.run({"persist", "nokey"}), I(0));
  t.run({"set", "k", "v", "ex", "100"});
  EXPECT_EQ(t.run({"persist", "k"}), I(1));
  EXPECT_EQ(t.run({"persist", "k"}), I(0));
  EXPECT_EQ(t.run({"ttl", "k"}), I(-1));
}

TEST(ExpireTest, ExpireInThePastDeletesOnAMaster) {
  TestNode t;
  t.run({"set", "k", "v"});
  EXPECT_EQ(t.run({"expire", "k", "-1"}), I(1));
  EXPECT_EQ(t.run({"exists", "k"}), I(0));
  t.run({"set", "k", "v"});
  EXPECT_EQ(t.run({"pexpireat", "k", "1"}), I(1));
  EXPECT_EQ(t.run({"exists", "k"}), I(0));
  t.run({"set", "k", "v"});
  EXPECT_EQ(t.run({"pexpire", "k", "0"}), I(1));  // a time equal to now counts as past
  EXPECT_EQ(t.run({"exists", "k"}), I(0));
  t.run({"set", "k", "v"});
  EXPECT_EQ(t.run({"pexpire", "k", "-9223372036854775808"}), I(1));
  EXPECT_EQ(t.run({"exists", "k"}), I(0));
  // Explicit deletion: no expiry notification, a DEL is propagated.
  EXPECT_TRUE(t.expired.empty());
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"DEL", "k"}));
}

TEST(ExpireTest, LazyExpiryNotifiesAndPropagatesDel) {
  TestNode t;
  t.run({"set", "k", "v", "px", "100"});
  t.advance_ms(101);
  EXPECT_EQ(t.run({"get", "k"}), N());
  ASSERT_EQ(t.expired.size(), 1u);
  EXPECT_EQ(t.expired[0], "k");
  EXPECT_EQ(t.expired_at[0], t.now_ms());
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"DEL", "k"}));
  EXPECT_EQ(t.node->dbsize(), 0u);
}

TEST(ExpireTest, ActiveCycleDeletesInExpiryOrder) {
  TestNode t;
  t.run({"set", "c", "v", "px", "30"});
  t.run({"set", "b", "v", "px", "10"});
  t.run({"set", "a", "v", "px", "10"});
  t.run({"set", "keep", "v", "px", "1000"});
  t.run({"set", "d", "v", "px", "5"});
  t.run({"pexpire", "d", "50"});  // extended: its first index entry is stale
  t.advance_ms(40);
  size_t before = t.effects.size();
  EXPECT_EQ(t.node->active_expire_cycle(), 3u);
  EXPECT_EQ(t.expired, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(t.effects.size(), before + 3);
  // Each expiry DEL is its own atomic group.
  EXPECT_NE(t.effects[before].group, t.effects[before + 1].group);
  EXPECT_EQ(t.node->keys_sorted(), (std::vector<std::string>{"d", "keep"}));
  t.advance_ms(20);
  EXPECT_EQ(t.node->active_expire_cycle(), 1u);
  EXPECT_EQ(t.expired.back(), "d");
  EXPECT_EQ(t.node->active_expire_cycle(), 0u);
}

TEST(ExpireTest, ReplicasNeverExpireKeysThemselves) {
  TestNode t;
  t.node->set_replica(true);
  t.node->apply_replicated(std::vector<std::string>{"SET", "k", "v", "PXAT", std::to_string(t.now_ms() + 10)});
  EXPECT_EQ(t.run({"get", "k"}), B("v"));
  t.advance_ms(11);
  EXPECT_EQ(t.run({"get", "k"}), N());     // logically expired for normal clients
  EXPECT_EQ(t.run({"pttl", "k"}), I(-2));
  EXPECT_EQ(t.node->active_expire_cycle(), 0u);
  EXPECT_EQ(t.node->dbsize(), 1u);          // still stored
  EXPECT_TRUE(t.expired.empty());
  // A PEXPIREAT in the past from the master does not delete on a replica either.
  t.node->apply_replicated(std::vector<std::string>{"SET", "j", "v"});
  t.node->apply_replicated(std::vector<std::string>{"PEXPIREAT", "j", "1"});
  EXPECT_EQ(t.node->dbsize(), 2u);
  // The master's DEL removes them; the master's stream sees expired keys as present.
  t.node->apply_replicated(std::vector<std::string>{"DEL", "k", "j"});
  EXPECT_EQ(t.node->dbsize(), 0u);
  EXPECT_TRUE(t.effects.empty());  // applying the stream propagates nothing
}

TEST(ExpireTest, ScriptSeesTimeFrozenAtItsStart) {
  TestNode t;
  t.run({"set", "dead", "v", "px", "5"});
  t.advance_ms(6);
  t.run({"set", "alive", "v", "px", "5"});
  // Every clock reading moves time 1 ms; TIME reads the clock, so the loop takes ~10 ms.
  t.set_tick_us(1000);
  Reply r = t.run({"eval",
                   "local seen = {} "
                   "for i = 1, 10 do seen[i] = redis.call('exists', KEYS[1]); redis.call('time') end "
                   "return {seen[1], seen[10], redis.call('exists', KEYS[2]), redis.call('pttl', KEYS[1])}",
                   "2", "alive", "dead"});
  t.set_tick_us(0);
  // "alive" stays alive for the whole script although PTTL (current time) says 0 ms are left;
  // "dead" had expired before the script started and is gone at its first access.
  EXPECT_EQ(r, A({I(1), I(1), I(0), I(0)}));
  EXPECT_EQ(t.expired, (std::vector<std::string>{"dead"}));
  EXPECT_EQ(t.run({"exists", "alive"}), I(0));  // after the script, current time applies
  EXPECT_EQ(t.expired, (std::vector<std::string>{"dead", "alive"}));
}

TEST(ExpireTest, PexpireInsideAScriptUsesTheCurrentClock) {
  TestNode t;
  t.run({"set", "k", "v"});
  std::string at = std::to_string(t.now_ms() + 100);
  t.run({"eval", "return redis.call('pexpire', KEYS[1], 100)", "1", "k"});
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"PEXPIREAT", "k", at}));
  EXPECT_EQ(t.run({"pttl", "k"}), I(100));
}

TEST(ExpireTest, PropagatedAsAbsolutePexpireat) {
  TestNode t;
  t.run({"set", "k", "v"});
  std::string in10s = std::to_string(t.now_ms() + 10'000);
  t.run({"expire", "k", "10", "gt"});  // no TTL: GT fails, nothing propagated
  size_t n = t.effects.size();
  t.run({"expire", "k", "10"});
  ASSERT_EQ(t.effects.size(), n + 1);
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"PEXPIREAT", "k", in10s}));
  t.run({"pexpire", "k", "10000", "xx"});
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"PEXPIREAT", "k", in10s, "xx"}));
  t.run({"expireat", "k", "5000"});
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"PEXPIREAT", "k", "5000000"}));
  t.run({"pexpireat", "k", "5000001"});
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"pexpireat", "k", "5000001"}));
  t.run({"persist", "k"});
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"persist", "k"}));
}

// The lazily maintained expiry index against a plain map: for random TTL changes and deletions,
// the active cycle returns exactly the keys whose expiry passed, in (time, key) order.
RC_GTEST_PROP(KeyspaceTest, ExpiryIndexAgreesWithAMap, (std::vector<std::tuple<uint8_t, uint8_t, uint16_t>> ops)) {
  Keyspace ks;
  std::map<std::string, int64_t> ttl;  // key -> expire time, kNoExpire for none
  int64_t now = 0;
  for (const auto& [kind, k, v] : ops) {
    std::string key = "k" + std::to_string(k % 20);
    switch (kind % 5) {
      case 0:
      case 1: {  // set or move an expiry
        Entry* e = ks.find(key);
        if (e == nullptr) e = &ks.add(key, Value(std::string("v")));
        int64_t at = now + v % 100;
        ks.set_expire(key, *e, at);
        ttl[key] = at;
        break;
      }
      case 2:  // delete
        ks.remove(key);
        ttl.erase(key);
        break;
      case 3: {  // clear the expiry
        if (Entry* e = ks.find(key)) {
          ks.set_expire(key, *e, kNoExpire);
          ttl[key] = kNoExpire;
        }
        break;
      }
      default: {  // time passes; collect due keys
        now += v % 50;
        std::vector<std::pair<int64_t, std::string>> expected;
        for (const auto& [name, at] : ttl) {
          if (at != kNoExpire && at < now) expected.emplace_back(at, name);
        }
        std::sort(expected.begin(), expected.end());
        std::string due;
        std::vector<std::pair<int64_t, std::string>> got;
        while (ks.pop_due(now, &due)) {
          got.emplace_back(ks.find(due)->expire_at_ms, due);
          ks.remove(due);
          ttl.erase(due);
        }
        RC_ASSERT(got == expected);
      }
    }
    RC_ASSERT(ks.size() == ttl.size());
  }
}

}  // namespace
}  // namespace lockstep::redis::testing
