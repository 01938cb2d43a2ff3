// RLock under faults, and the version-profile behaviours that only show under faults: the
// watchdog after a failed renewal, the unlock latch against a lost reply, WAIT for replicas, a
// retried acquire that re-enters.
#include <gtest/gtest.h>

#include "algorithms/redisson/redisson_lock.h"
#include "algorithms/testing/sim_world.h"

namespace lockstep::algorithms::redisson {
namespace {

using testing::SimWorld;
using nlohmann::json;
namespace t = testing;

constexpr int64_t kSec = 1'000'000;

SimWorld::Options rlock(json options, size_t clients = 1) {
  SimWorld::Options o;
  o.algorithm = "redisson-lock";
  o.algorithm_options = std::move(options);
  o.clients = clients;
  return o;
}

int64_t count_ops(const SimWorld& w, const std::string& op) {
  int64_t n = 0;
  for (const json& j : w.lines("invoke")) n += j["op"] == op;
  return n;
}

TEST(RLockFaultsTest, ClassicWatchdogStopsForGoodAfterOneFailedRenewalCurrentKeepsGoing) {
  for (const char* mode : {"stop", "reschedule"}) {
    SimWorld w(rlock(json{{"watchdog_after_failure", mode}, {"retry_attempts", 0}}));
    w.program(0, 0, 1000, {t::lock("L"), t::sleep(100'000)});
    // The renewal due at 10 s gets no reply (3 s timeout, no retry).
    kernel::WindowId cut = 0;
    w.at(9 * kSec, [&] { cut = w.net().add_partition({{0}, {1}}, false); });
    w.at(11 * kSec, [&] { w.net().remove(cut); });
    w.run_until(40 * kSec);
    const bool stop = std::string(mode) == "stop";
    // stop: no renewal after the failed one, the key expired at 30 s although the thread holds
    // the lock; reschedule: renewed at ~23 s and ~33 s.
    EXPECT_EQ(w.key(0, "L").has_value(), !stop) << mode;
    EXPECT_EQ(count_ops(w, "renew"), stop ? 1 : 3) << mode;
    auto completes = w.lines("complete");
    bool unknown_renew = false;
    for (const json& c : completes) unknown_renew |= c["outcome"] == "unknown";
    EXPECT_TRUE(unknown_renew) << mode;
  }
}

struct LatchCase {
  json options;
  std::string script;  // the unlock script whose first reply is lost
  Outcome outcome;
  bool released;
};

// Current clients send EVALSHA first and EVAL on NOSCRIPT: the EVAL's reply is the one lost
// (armed once the lock call is done, so the lock's own EVAL is not hit).
const char* lost_match(const LatchCase& c) {
  return c.options.value("profile", "") == "current" ? "EVAL" : c.script.c_str();
}

TEST(RLockFaultsTest, ALostUnlockReplyAndItsRetryUnderEachUnlockVariant) {
  const std::vector<LatchCase> cases = {
      // Seed 001: the retry finds no lock and the EXISTS branch answers 1: "released".
      {json::object(), "rlock_unlock", Outcome::kOk, true},
      // Seed 003: the retry is not the owner: IllegalMonitorStateException, though it worked.
      {json{{"unlock_script", "owner_check"}}, "rlock_unlock_owner_check", Outcome::kFail, false},
      // 3.24+ latch with a per-call request id (3.52): the retry reads the cached 1.
      {json{{"profile", "current"}}, "rlock_unlock_latch", Outcome::kOk, true},
      // 3.24-3.51: each retry had a fresh request id, the latch never matched (#6651).
      {json{{"profile", "current"}, {"latch_request_id", "per_attempt"}}, "rlock_unlock_latch",
       Outcome::kFail, false},
  };
  for (const LatchCase& c : cases) {
    SimWorld w(rlock(c.options));
    const TimeUs arm_us = lost_match(c) == c.script ? 500 : 1900;
    w.at(arm_us, [&] { w.net().add_lose_reply(w.client(0).id(), lost_match(c), 1, nullptr); });
    w.program(0, 0, 1000, {t::lock("L"), t::unlock("L", "u")});
    w.run_until(30 * kSec);
    const LockOutcome& o = w.result("u").outcome;
    EXPECT_EQ(o.outcome, c.outcome) << c.options << " " << o.error;
    EXPECT_EQ(o.released, c.released) << c.options;
    if (c.outcome == Outcome::kFail) {
      EXPECT_NE(o.error.find("IllegalMonitorStateException"), std::string::npos) << o.error;
    }
    EXPECT_FALSE(w.key(0, "L").has_value());  // the first attempt did release it
    int execs = 0;
    for (const json& e : w.lines("exec")) execs += e.value("script", "") == c.script;
    // Two runs of the unlock (the first one's reply lost); current clients also had a NOSCRIPT.
    EXPECT_EQ(execs, lost_match(c) == c.script ? 2 : 3) << c.options;
  }
}

TEST(RLockFaultsTest, ARetriedAcquireWhoseFirstReplyWasLostReentersAndOutlivesTheUnlock) {
  SimWorld w(rlock(json::object()));
  w.at(500, [&] { w.net().add_lose_reply(w.client(0).id(), "rlock_acquire", 1, nullptr); });
  w.program(0, 0, 1000, {t::lock("L", -1, "l"), t::unlock("L", "u")});
  w.run_until(10 * kSec);
  EXPECT_TRUE(w.result("l").outcome.acquired);
  // The lost attempt ran: the retry re-entered, the count is 2, one unlock leaves 1.
  EXPECT_FALSE(w.result("u").outcome.released);
  ASSERT_TRUE(w.key(0, "L").has_value());
  // The unlock cancelled the watchdog: the orphaned hold expires 30 s after the retry.
  w.run_until(40 * kSec);
  EXPECT_FALSE(w.key(0, "L").has_value());
  EXPECT_EQ(count_ops(w, "renew"), 0);
}

TEST(RLockFaultsTest, AnAcquisitionNoReplicaConfirmedIsUndoneWithNoSyncedSlaves) {
  for (bool cut : {false, true}) {
    SimWorld::Options o = rlock(json{{"profile", "current"}});
    o.shard_sizes = {2};  // node0 master, node1 replica
    SimWorld w(o);
    if (cut) w.at(100, [&] { w.net().add_partition({{0}, {1}}, false); });
    w.program(0, 0, 1000, {t::lock("L", -1, "l")});
    w.run_until(5 * kSec);
    const LockOutcome& r = w.result("l").outcome;
    int waits = 0;
    for (const json& e : w.lines("exec")) waits += e["command"] == "WAIT";
    if (!cut) {
      EXPECT_TRUE(r.acquired);
      EXPECT_EQ(waits, 1);
      EXPECT_LT(w.result("l").end_us, 10'000);
    } else {
      EXPECT_EQ(r.outcome, Outcome::kFail);
      EXPECT_EQ(r.error, "NoSyncedSlavesException: None of slaves were synced");
      EXPECT_GE(w.result("l").end_us, kSec);  // the WAIT timed out after slaves_sync_timeout
      EXPECT_FALSE(w.key(0, "L").has_value());  // handleNoSync unlocked it
      EXPECT_EQ(waits, 2);                       // after the acquire and after the unlock
    }
  }
}

TEST(RLockFaultsTest, ACrashedHoldersLockExpiresAfterTheWatchdogTimeout) {
  SimWorld w(rlock(json::object(), 2));
  w.program(0, 0, 1000, {t::lock("L"), t::sleep(100'000)});
  w.program(1, 0, 2 * kSec, {t::lock("L", -1, "b")});
  w.at(15 * kSec, [&] { w.client(0).crash_client(); });
  w.run_until(60 * kSec);
  // Last renewal at ~10 s: the key lives until ~40 s, then B (waiting on the TTL) gets it.
  EXPECT_GT(w.result("b").end_us, 40 * kSec);
  EXPECT_LT(w.result("b").end_us, 41 * kSec);
  auto ends = w.lines("hold_end");
  ASSERT_FALSE(ends.empty());
  EXPECT_EQ(ends[0]["reason"], "crash");
}

}  // namespace
}  // namespace lockstep::algorithms::redisson
