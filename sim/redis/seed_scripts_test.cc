// The seed's Redisson RLock scripts (/work/shared/seeds/001_*.txt, as Redisson sent them in the
// seed's MONITOR log), run against the model state by state.
#include <gtest/gtest.h>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

constexpr std::string_view kAcquire =
    "if (redis.call('exists', KEYS[1]) == 0) then redis.call('hset', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; if (redis.call('hexists', KEYS[1], "
    "ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], "
    "ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);";

constexpr std::string_view kUnlock =
    "if (redis.call('exists', KEYS[1]) == 0) then redis.call('publish', KEYS[2], ARGV[1]); return 1; "
    "end;if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = "
    "redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], "
    "ARGV[2]); return 0; else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); "
    "return 1; end; return nil;";

constexpr std::string_view kRenew =
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return 1; end; return 0;";

constexpr std::string_view kLock = "my_first_lock_name";
constexpr std::string_view kChannel = "redisson_lock__channel:{my_first_lock_name}";
constexpr std::string_view kA = "58c62432-bb74-4d14-8a00-9908cc8b828f:1";
constexpr std::string_view kB = "58c62432-bb74-4d14-8a00-9908cc8b828f:26";

class RLockTest : public ::testing::Test {
 protected:
  Reply acquire(std::string_view lease_ms, std::string_view owner) {
    return t.run({"EVAL", kAcquire, "1", kLock, lease_ms, owner});
  }
  Reply unlock(std::string_view owner) {
    return t.run({"EVAL", kUnlock, "2", kLock, kChannel, "0", "30000", owner});
  }
  Reply renew(std::string_view owner) { return t.run({"EVAL", kRenew, "1", kLock, "30000", owner}); }
  std::vector<std::string> state() {
    auto dump = t.node->inspect(kLock);
    return dump ? dump->strings : std::vector<std::string>{};
  }

  TestNode t;
};

TEST_F(RLockTest, AcquireReenterContendRelease) {
  ConnectionId waiter = t.node->connect();
  t.run_all(waiter, {"subscribe", kChannel});
  // Free lock: acquired (nil), hash {owner: 1}, TTL = lease.
  EXPECT_EQ(acquire("30000", kA), N());
  EXPECT_EQ(state(), (std::vector<std::string>{std::string(kA), "1"}));
  EXPECT_EQ(t.run({"pttl", kLock}), I(30000));
  // Re-entry by the owner: count 2, TTL reset to the lease.
  t.advance_ms(1000);
  EXPECT_EQ(acquire("30000", kA), N());
  EXPECT_EQ(state(), (std::vector<std::string>{std::string(kA), "2"}));
  EXPECT_EQ(t.run({"pttl", kLock}), I(30000));
  // Another owner gets the remaining TTL.
  t.advance_ms(2500);
  EXPECT_EQ(acquire("30000", kB), I(27500));
  // Unlock by a non-owner: nil, nothing changes.
  EXPECT_EQ(unlock(kB), N());
  EXPECT_EQ(state(), (std::vector<std::string>{std::string(kA), "2"}));
  // The watchdog renews the owner's lease, not a stranger's.
  EXPECT_EQ(renew(kB), I(0));
  EXPECT_EQ(renew(kA), I(1));
  EXPECT_EQ(t.run({"pttl", kLock}), I(30000));
  // First unlock: still held (0), lease renewed.
  EXPECT_EQ(unlock(kA), I(0));
  EXPECT_EQ(state(), (std::vector<std::string>{std::string(kA), "1"}));
  EXPECT_TRUE(t.messages.empty());
  // Final unlock: deleted (1) and "0" published on the channel.
  EXPECT_EQ(unlock(kA), I(1));
  EXPECT_TRUE(state().empty());
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_EQ(t.messages[0].first, waiter);
  EXPECT_EQ(t.messages[0].second, A({B("message"), B(kChannel), B("0")}));
  // The waiter can now take it.
  EXPECT_EQ(acquire("30000", kB), N());
  // Unlocking a free lock publishes too and replies 1.
  t.run({"del", kLock});
  EXPECT_EQ(unlock(kA), I(1));
  EXPECT_EQ(t.messages.size(), 2u);
}

TEST_F(RLockTest, LeaseExpiryLetsTheNextOwnerIn) {
  EXPECT_EQ(acquire("100", kA), N());
  t.advance_ms(100);
  EXPECT_EQ(acquire("100", kB), I(0));  // expire_at == now: still held, PTTL clamps at 0
  t.advance_ms(1);
  EXPECT_EQ(acquire("100", kB), N());   // expired at the script's first access
  EXPECT_EQ(state(), (std::vector<std::string>{std::string(kB), "1"}));
  EXPECT_EQ(t.expired, (std::vector<std::string>{std::string(kLock)}));
  // The old owner's unlock now fails: not the owner.
  EXPECT_EQ(unlock(kA), N());
  EXPECT_EQ(renew(kA), I(0));
}

TEST_F(RLockTest, EffectsAsRedisPropagatesThem) {
  std::string at = std::to_string(t.now_ms() + 30000);
  acquire("30000", kA);
  unlock(kA);
  using Argv = std::vector<std::string>;
  ASSERT_EQ(t.effects.size(), 5u);
  EXPECT_EQ(t.effects[0].argv, (Argv{"hset", std::string(kLock), std::string(kA), "1"}));
  EXPECT_EQ(t.effects[1].argv, (Argv{"PEXPIREAT", std::string(kLock), at}));
  EXPECT_EQ(t.effects[2].argv, (Argv{"hincrby", std::string(kLock), std::string(kA), "-1"}));
  EXPECT_EQ(t.effects[0].group, t.effects[1].group);
  EXPECT_NE(t.effects[1].group, t.effects[2].group);
  // The last unlock deleted the key (del) and published: both propagated with that script.
  EXPECT_EQ(t.effects[3].argv, (Argv{"del", std::string(kLock)}));
  EXPECT_EQ(t.effects[4].argv, (Argv{"publish", std::string(kChannel), "0"}));
  EXPECT_EQ(t.effects[2].group, t.effects[4].group);
}

TEST_F(RLockTest, EvalshaRunsTheCachedScript) {
  EXPECT_EQ(t.run({"EVALSHA", sha1_hex(kAcquire), "1", kLock, "30000", kA}),
            E("NOSCRIPT No matching script. Please use EVAL."));
  Reply sha = t.run({"SCRIPT", "LOAD", kAcquire});
  EXPECT_EQ(sha, B(sha1_hex(kAcquire)));
  EXPECT_EQ(t.run({"EVALSHA", sha.str, "1", kLock, "30000", kA}), N());
  EXPECT_EQ(t.run({"EVALSHA", sha.str, "1", kLock, "30000", kB}), I(30000));
}

}  // namespace
}  // namespace lockstep::redis::testing
