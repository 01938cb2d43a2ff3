// redisson-lock (RLock) in the simulator with the real Redis model: acquire/unlock, reentrancy,
// waiting through pub/sub, tryLock budgets, the watchdog, leases, forceUnlock, the unlock latch.
#include <gtest/gtest.h>

#include "algorithms/redisson/redisson_lock.h"
#include "algorithms/testing/sim_world.h"

namespace lockstep::algorithms::redisson {
namespace {

using testing::SimWorld;
using testing::Step;
using testing::StepResult;
using nlohmann::json;
namespace t = testing;

constexpr int64_t kSec = 1'000'000;  // microseconds

SimWorld::Options rlock(size_t clients = 1, size_t threads = 1) {
  SimWorld::Options o;
  o.algorithm = "redisson-lock";
  o.clients = clients;
  o.threads_per_client = threads;
  return o;
}

// Field -> value of a hash key.
std::map<std::string, std::string> hash(const std::optional<redis::KeyDump>& d) {
  std::map<std::string, std::string> out;
  if (!d) return out;
  EXPECT_EQ(d->type, "hash");
  for (size_t i = 0; i + 1 < d->strings.size(); i += 2) out[d->strings[i]] = d->strings[i + 1];
  return out;
}

int64_t renewals(const SimWorld& w) {
  int64_t n = 0;
  for (const json& j : w.lines("invoke")) n += j["op"] == "renew";
  return n;
}

TEST(RLockTest, LockSetsTheOwnerFieldWithTheWatchdogLeaseAndUnlockDeletesIt) {
  SimWorld w(rlock());
  w.program(0, 0, 1000, {t::lock("L", -1, "lock"), t::sleep(100), t::unlock("L", "unlock")});
  w.run_until(50'000);
  EXPECT_TRUE(w.result("lock").outcome.acquired);
  auto d = w.key(0, "L");
  EXPECT_EQ(hash(d), (std::map<std::string, std::string>{{w.owner(0, 0), "1"}}));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->expire_at_ms, 1 + 30'000);  // executed at local 1.2 ms; lockWatchdogTimeout
  w.run_until(200'000);
  EXPECT_FALSE(w.key(0, "L").has_value());
  EXPECT_TRUE(w.result("unlock").outcome.released);
  EXPECT_EQ(w.result("unlock").outcome.outcome, Outcome::kOk);
}

TEST(RLockTest, TheHashHoldsTheReentrancyCountAndTheTtlIsTheLease) {
  SimWorld w(rlock());
  w.program(0, 0, 1000, {t::lock("L", 10'000, "a"), t::lock("L", 10'000, "b"), t::sleep(1000)});
  w.run_until(10'000);
  auto d = w.key(0, "L");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(hash(d), (std::map<std::string, std::string>{{w.owner(0, 0), "2"}}));
  // Re-entry resets the TTL to the lease (node local time: ~1.6 ms + 10 s).
  EXPECT_NEAR(static_cast<double>(d->expire_at_ms), 10'002.0, 2.0);
  EXPECT_TRUE(w.result("a").outcome.acquired);
  EXPECT_TRUE(w.result("b").outcome.acquired);
}

TEST(RLockTest, ReentrantUnlocksDecrementAndOnlyTheLastReleases) {
  SimWorld w(rlock());
  w.program(0, 0, 1000,
            {t::lock("L"), t::lock("L"), t::unlock("L", "u1"), t::unlock("L", "u2"),
             t::unlock("L", "u3")});
  w.run_until(kSec);
  EXPECT_EQ(w.result("u1").outcome.outcome, Outcome::kOk);
  EXPECT_FALSE(w.result("u1").outcome.released);
  EXPECT_TRUE(w.result("u2").outcome.released);
  // Seed 001's unlock of a lock that no longer exists publishes and returns 1.
  EXPECT_EQ(w.result("u3").outcome.outcome, Outcome::kOk);
  EXPECT_TRUE(w.result("u3").outcome.released);
  EXPECT_FALSE(w.key(0, "L").has_value());
}

TEST(RLockTest, UnlockByAnotherThreadThrowsIllegalMonitorState) {
  SimWorld w(rlock(1, 2));
  w.program(0, 0, 1000, {t::lock("L"), t::sleep(10'000)});
  w.program(0, 1, 100'000, {t::unlock("L", "bad")});
  w.run_until(kSec);
  const LockOutcome& o = w.result("bad").outcome;
  EXPECT_EQ(o.outcome, Outcome::kFail);
  EXPECT_EQ(o.error,
            "IllegalMonitorStateException: attempt to unlock lock, not locked by current thread "
            "by node id: " +
                std::string(w.client(0).uuid()) + " thread-id: 1");
  EXPECT_EQ(hash(w.key(0, "L")), (std::map<std::string, std::string>{{w.owner(0, 0), "1"}}));
}

TEST(RLockTest, SeedThreeUnlockOfAFreeLockThrowsInsteadOfReturningOne) {
  SimWorld::Options o = rlock();
  o.algorithm_options = json{{"unlock_script", "owner_check"}};
  SimWorld w(o);
  w.program(0, 0, 1000, {t::unlock("L", "u")});
  w.run_until(kSec);
  EXPECT_EQ(w.result("u").outcome.outcome, Outcome::kFail);
  EXPECT_NE(w.result("u").outcome.error.find("IllegalMonitorStateException"), std::string::npos);
}

TEST(RLockTest, AWaiterIsWokenByTheUnlockMessageNotByTheTtl) {
  SimWorld w(rlock(2));
  w.program(0, 0, 1000, {t::lock("L", -1, "a"), t::sleep(2000), t::unlock("L")});
  w.program(1, 0, 100'000, {t::try_lock("L", 600'000, 600'000, "b")});
  w.run_until(10 * kSec);
  const StepResult& b = w.result("b");
  EXPECT_TRUE(b.outcome.acquired);
  // A unlocks at ~2.0012 s; B gets the message and retries within a few round trips.
  EXPECT_GT(b.end_us, 2'001'000);
  EXPECT_LT(b.end_us, 2'005'000);
  // B subscribed to the lock's channel and left it again.
  int subscribes = 0;
  for (const json& e : w.lines("exec")) subscribes += e["command"] == "SUBSCRIBE";
  EXPECT_EQ(subscribes, 1);
  auto deliveries = w.lines("deliver");
  ASSERT_EQ(deliveries.size(), 1u);
  EXPECT_EQ(deliveries[0]["channel"], "redisson_lock__channel:{L}");
  EXPECT_EQ(deliveries[0]["message"], "0");
}

TEST(RLockTest, WithoutAMessageTheWaiterRetriesWhenTheTtlRunsOut) {
  SimWorld w(rlock(2));
  // A holds a 3 s lease and never unlocks; B waits up to 10 s.
  w.program(0, 0, 1000, {t::lock("L", 3000, "a")});
  w.program(1, 0, 100'000, {t::try_lock("L", 10'000, 1000, "b")});
  w.run_until(20 * kSec);
  const StepResult& b = w.result("b");
  EXPECT_TRUE(b.outcome.acquired);
  EXPECT_GE(b.end_us, 3'001'000);
  EXPECT_LT(b.end_us, 3'010'000);
}

TEST(RLockTest, TryLockGivesUpWhenTheWaitBudgetRunsOut) {
  SimWorld w(rlock(2));
  w.program(0, 0, 1000, {t::try_lock("L", 10, 2000, "a")});
  w.program(1, 0, 50'000, {t::try_lock("L", 1000, 10, "b")});
  w.run_until(10 * kSec);
  EXPECT_TRUE(w.result("a").outcome.acquired);
  const StepResult& b = w.result("b");
  EXPECT_EQ(b.outcome.outcome, Outcome::kOk);
  EXPECT_FALSE(b.outcome.acquired);
  const int64_t cost_us = b.end_us - b.start_us;
  EXPECT_GE(cost_us, 1'000'000);
  EXPECT_LT(cost_us, 1'010'000);
}

TEST(RLockTest, TryLockWithoutWaitMakesOneAttempt) {
  SimWorld w(rlock(2));
  w.program(0, 0, 1000, {t::lock("L")});
  w.program(1, 0, 50'000, {t::try_lock("L", 0, -1, "b")});
  w.run_until(kSec);
  EXPECT_FALSE(w.result("b").outcome.acquired);
  EXPECT_LT(w.result("b").end_us - w.result("b").start_us, 1000);
}

TEST(RLockTest, TheWatchdogRenewsEveryThirdOfTheTimeoutUntilUnlock) {
  SimWorld w(rlock());
  w.program(0, 0, 1000, {t::lock("L"), t::sleep(65'000), t::unlock("L")});
  w.run_until(30 * kSec);
  auto d = w.key(0, "L");
  ASSERT_TRUE(d.has_value());
  // Renewed at ~10 s and ~20 s: the key now expires ~50 s.
  EXPECT_NEAR(static_cast<double>(d->expire_at_ms), 50'002.0, 5.0);
  w.run_until(200 * kSec);
  // Renewals at 10, 20, ..., 60 s; none after the unlock at 65 s.
  EXPECT_EQ(renewals(w), 6);
  for (const json& c : w.lines("complete")) {
    if (c.contains("renewed")) {
      EXPECT_EQ(c["renewed"], true) << c;
    }
  }
  EXPECT_FALSE(w.key(0, "L").has_value());
}

TEST(RLockTest, TheWatchdogEntryCountsReentrantHoldsAndStopsAtTheLastUnlock) {
  // Seed 003's cancelExpirationRenewal removes one count of the thread per unlock; the renewal
  // stops only when the thread's last hold is released.
  SimWorld w(rlock());
  w.program(0, 0, 1000, {t::lock("L"), t::lock("L"), t::unlock("L"), t::sleep(25'000),
                         t::unlock("L", "last"), t::sleep(60'000)});
  w.run_until(2 * kSec);
  auto& client = static_cast<RedissonLock&>(w.lock_client(0));
  EXPECT_TRUE(client.context().watchdog.active(0, "L"));
  EXPECT_EQ(client.context().watchdog.count(0, "L", w.thread(0, 0)), 1);
  w.run_until(24 * kSec);
  EXPECT_EQ(renewals(w), 2);  // ~10 s and ~20 s: the lock is still held once
  w.run_until(100 * kSec);
  EXPECT_TRUE(w.result("last").outcome.released);
  EXPECT_FALSE(client.context().watchdog.active(0, "L"));
  EXPECT_EQ(renewals(w), 2);
}

TEST(RLockTest, TheFencedLockReturnsAGrowingTokenForEveryAcquisition) {
  SimWorld::Options o = rlock(2);
  o.algorithm = "redisson-fenced-lock";
  SimWorld w(o);
  w.program(0, 0, 1000, {t::lock("F", -1, "a1"), t::lock("F", -1, "a2"), t::unlock("F"),
                         t::unlock("F")});
  w.program(1, 0, 100'000, {t::lock("F", -1, "b")});
  w.run_until(5 * kSec);
  EXPECT_EQ(w.result("a1").outcome.token, 1);
  EXPECT_EQ(w.result("a2").outcome.token, 2);  // a re-entry takes a token too
  EXPECT_EQ(w.result("b").outcome.token, 3);
  EXPECT_EQ(w.key(0, "redisson_lock_token:{F}")->strings, std::vector<std::string>{"3"});
  auto begins = w.lines("hold_begin");
  ASSERT_EQ(begins.size(), 2u);
  EXPECT_EQ(begins[0]["token"], 1);
  EXPECT_EQ(begins[1]["token"], 3);
}

TEST(RLockTest, AZeroLatencyNetworkDoesNotSpinOnAZeroTtl) {
  SimWorld::Options o = rlock(2);
  o.link = kernel::LinkSpec{kernel::LatencyDist::fixed(0), 0};
  SimWorld w(o);
  // B retries at the very millisecond A's 5 ms lease runs out (PTTL 0).
  w.program(0, 0, 0, {t::lock("L", 5)});
  w.program(1, 0, 0, {t::try_lock("L", 100, 1000, "b"), t::lock("L", 3, "c")});
  w.run_until(kSec);
  EXPECT_TRUE(w.result("b").outcome.acquired);
  EXPECT_LE(w.result("b").end_us, 7'000);
  EXPECT_TRUE(w.result("c").outcome.acquired);  // re-entry
}

TEST(RLockTest, ALeaseMeansNoWatchdogAndTheKeyExpires) {
  SimWorld w(rlock());
  w.program(0, 0, 1000, {t::lock("L", 1000), t::sleep(5000), t::unlock("L", "u")});
  w.run_until(2 * kSec);
  EXPECT_FALSE(w.key(0, "L").has_value());
  w.run_until(10 * kSec);
  EXPECT_EQ(renewals(w), 0);
  EXPECT_EQ(w.lines("expire").size(), 1u);
}

TEST(RLockTest, ForceUnlockDeletesAnyonesLockAndWakesAWaiter) {
  SimWorld w(rlock(3));
  w.program(0, 0, 1000, {t::lock("L")});
  w.program(1, 0, 50'000, {t::lock("L", -1, "b")});
  w.program(2, 0, 1'000'000, {t::force_unlock("L", "f")});
  w.run_until(5 * kSec);
  EXPECT_TRUE(w.result("f").outcome.released);
  EXPECT_TRUE(w.result("b").outcome.acquired);
  EXPECT_LT(w.result("b").end_us, 1'005'000);
  EXPECT_EQ(hash(w.key(0, "L")), (std::map<std::string, std::string>{{w.owner(1, 0), "1"}}));
}

TEST(RLockTest, PausedHolderLosesTheLockWhileItStillBelievesItHoldsIt) {
  SimWorld w(rlock(2));
  w.program(0, 0, 1000, {t::lock("L", -1, "a"), t::sleep(60'000), t::unlock("L", "ua")});
  w.program(1, 0, 2 * kSec, {t::lock("L", -1, "b")});
  w.at(5 * kSec, [&] { w.client(0).pause(); });
  w.at(50 * kSec, [&] { w.client(0).resume(); });
  w.run_until(120 * kSec);
  EXPECT_TRUE(w.result("a").outcome.acquired);
  EXPECT_TRUE(w.result("b").outcome.acquired);
  // B acquired when A's key expired: 30 s after A's last renewal (none happened before 5 s).
  EXPECT_GT(w.result("b").end_us, 30 * kSec);
  EXPECT_LT(w.result("b").end_us, 31 * kSec);
  // A's unlock after the pause is refused: B holds the lock.
  EXPECT_EQ(w.result("ua").outcome.outcome, Outcome::kFail);
}

TEST(RLockTest, QueriesReportTheLockState) {
  SimWorld w(rlock(1, 2));
  w.program(0, 0, 1000, {t::lock("L"), t::lock("L")});
  std::vector<std::string> got;
  w.at(kSec, [&] {
    auto& client = static_cast<RedissonLock&>(w.lock_client(0));
    w.client(0).CoroProcess::spawn([](RedissonLock& c, const Thread* t0, const Thread* t1,
                                      std::vector<std::string>* got) -> Task<void> {
      Result<bool> locked = co_await c.is_locked("L");
      Result<bool> held0 = co_await c.is_held_by_thread(t0, "L");
      Result<bool> held1 = co_await c.is_held_by_thread(t1, "L");
      Result<int64_t> count0 = co_await c.hold_count(t0, "L");
      Result<int64_t> count1 = co_await c.hold_count(t1, "L");
      Result<bool> other = co_await c.is_locked("M");
      got->push_back(std::to_string(locked.value()) + std::to_string(held0.value()) +
                     std::to_string(held1.value()) + std::to_string(count0.value()) +
                     std::to_string(count1.value()) + std::to_string(other.value()));
    }(client, &w.thread(0, 0), &w.thread(0, 1), &got));
  });
  w.run_until(2 * kSec);
  EXPECT_EQ(got, (std::vector<std::string>{"110200"}));
}

}  // namespace
}  // namespace lockstep::algorithms::redisson
