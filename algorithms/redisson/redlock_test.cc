// redisson-redlock over three independent masters: quorum, failures, contention, leases, and
// the classic newLeaseTime = waitTime*2 that turns tryLock(0, lease) into a grant of nothing.
#include <gtest/gtest.h>

#include "algorithms/redisson/redlock.h"
#include "algorithms/testing/sim_world.h"

namespace lockstep::algorithms::redisson {
namespace {

using testing::SimWorld;
using nlohmann::json;
namespace t = testing;

constexpr int64_t kSec = 1'000'000;

SimWorld::Options redlock(size_t clients = 1, json options = json::object()) {
  SimWorld::Options o;
  o.algorithm = "redisson-redlock";
  o.algorithm_options = std::move(options);
  o.shard_sizes = {1, 1, 1};
  o.clients = clients;
  return o;
}

int holders(SimWorld& w, const std::string& lock) {
  int n = 0;
  for (size_t i = 0; i < w.node_count(); ++i) n += w.key(i, lock).has_value();
  return n;
}

TEST(RedLockTest, LockTakesTheSubLockOnEveryMasterAndUnlockReleasesAll) {
  SimWorld w(redlock());
  w.program(0, 0, 1000, {t::lock("L", -1, "l"), t::sleep(15'000), t::unlock("L", "u")});
  w.run_until(2 * kSec);
  EXPECT_TRUE(w.result("l").outcome.acquired);
  EXPECT_EQ(holders(w, "L"), 3);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(w.key(i, "L")->strings, (std::vector<std::string>{w.owner(0, 0), "1"}));
  }
  w.run_until(30 * kSec);
  EXPECT_TRUE(w.result("u").outcome.released);
  EXPECT_EQ(holders(w, "L"), 0);
  // One watchdog per sub-lock: renewals at ~10 s on each node.
  int renewals = 0;
  for (const json& j : w.lines("invoke")) renewals += j["op"] == "renew";
  EXPECT_EQ(renewals, 3);
}

TEST(RedLockTest, OneMasterDownStillMakesAQuorumTwoDownDoNot) {
  for (int down : {1, 2}) {
    SimWorld w(redlock());
    w.at(100, [&] {
      for (int i = 0; i < down; ++i) w.cluster().crash(&w.node(2 - i));
    });
    w.program(0, 0, 1000, {t::try_lock("L", 10'000, -1, "l")});
    w.run_until(60 * kSec);
    if (down == 1) {
      EXPECT_TRUE(w.result("l").outcome.acquired);
      EXPECT_EQ(holders(w, "L"), 2);
    } else {
      EXPECT_FALSE(w.result("l").outcome.acquired);
      EXPECT_EQ(w.result("l").outcome.outcome, Outcome::kOk);
      EXPECT_FALSE(w.key(0, "L").has_value());  // unlocked again
    }
  }
}

TEST(RedLockTest, ContendingClientsTakeTurns) {
  SimWorld w(redlock(2));
  w.program(0, 0, 1000, {t::lock("L", -1, "a"), t::sleep(3000), t::unlock("L")});
  w.program(1, 0, 500'000, {t::lock("L", -1, "b"), t::unlock("L")});
  w.run_until(60 * kSec);
  EXPECT_TRUE(w.result("a").outcome.acquired);
  EXPECT_TRUE(w.result("b").outcome.acquired);
  EXPECT_GT(w.result("b").end_us, 3 * kSec);
  EXPECT_EQ(holders(w, "L"), 0);
}

TEST(RedLockTest, WithALeaseEachSubLockEndsWithPexpireOfTheLease) {
  SimWorld w(redlock());
  w.program(0, 0, 1000, {t::try_lock("L", 500, 10'000, "l")});
  w.run_until(kSec);
  EXPECT_TRUE(w.result("l").outcome.acquired);
  for (size_t i = 0; i < 3; ++i) {
    auto d = w.key(i, "L");
    ASSERT_TRUE(d.has_value());
    EXPECT_NEAR(static_cast<double>(d->expire_at_ms), 10'003.0, 3.0);
  }
  int pexpires = 0;
  for (const json& e : w.lines("exec")) pexpires += e["command"] == "PEXPIRE";
  EXPECT_EQ(pexpires, 3);
}

TEST(RedLockTest, TryLockWithAZeroWaitNeverSucceeds) {
  // The wait budget (0) is charged after the first lock: remainTime <= 0 -> unlock, false.
  SimWorld w(redlock());
  w.program(0, 0, 1000, {t::try_lock("L", 0, 10'000, "l")});
  w.run_until(kSec);
  EXPECT_EQ(w.result("l").outcome.outcome, Outcome::kOk);
  EXPECT_FALSE(w.result("l").outcome.acquired);
  EXPECT_EQ(holders(w, "L"), 0);
}

TEST(RedLockTest, TryLockWithNoWaitAndNoLeaseIsOneAttemptPerMaster) {
  SimWorld w(redlock(2));
  w.program(0, 0, 1000, {t::try_lock("L", 0, -1, "a")});
  w.program(1, 0, 100'000, {t::try_lock("L", 0, -1, "b")});
  w.run_until(kSec);
  EXPECT_TRUE(w.result("a").outcome.acquired);
  EXPECT_FALSE(w.result("b").outcome.acquired);
  EXPECT_LT(w.result("b").end_us - w.result("b").start_us, 5'000);  // no waiting
  EXPECT_EQ(holders(w, "L"), 3);  // b unlocked what it did not get (nothing)
}

Task<void> try_lock_direct(RedissonRedLock* r, const Thread* thread, int64_t wait_ms,
                           int64_t lease_ms, LockOutcome* out) {
  *out = co_await r->try_lock(thread, "L", wait_ms, lease_ms, -1);
}

TEST(RedLockTest, ClassicTryLockWithNoWaitAndALeaseGrantsALockThatExistsNowhere) {
  for (const char* rule : {"wait_times_two", "lease_unless_wait"}) {
    SimWorld w(redlock(1, json{{"redlock_lease", rule}}));
    LockOutcome out;
    w.at(1000, [&] {
      auto* r = static_cast<RedissonRedLock*>(&w.lock_client(0));
      w.client(0).CoroProcess::spawn(try_lock_direct(r, &w.thread(0, 0), -1, 10'000, &out));
    });
    w.run_until(kSec);
    EXPECT_TRUE(out.acquired) << rule;
    // #2172: newLeaseTime = waitTime*2 = -2; every sub-lock script ran PEXPIRE L -2, deleting
    // the lock it had just created, and the final PEXPIRE found nothing: the caller believes it
    // holds a lock that no node has. 3.11.1's rule uses the lease instead.
    EXPECT_EQ(holders(w, "L"), std::string(rule) == "wait_times_two" ? 0 : 3) << rule;
  }
}

TEST(RedLockTest, TheQuorumArithmetic) {
  SimWorld w(redlock());
  auto& r = static_cast<RedissonRedLock&>(w.lock_client(0));
  EXPECT_EQ(r.failed_locks_limit(), 1);
  EXPECT_EQ(r.lock_wait_ms(3000), 1000);
  EXPECT_EQ(r.lock_wait_ms(2), 1);
  EXPECT_EQ(r.lock_wait_ms(-1), 1);
}

}  // namespace
}  // namespace lockstep::algorithms::redisson
