// redlock-spec and setnx-naive in the simulator: the spec's quorum and validity, release on all
// masters, extension; the naive lock's two commands and blind DEL.
#include <gtest/gtest.h>

#include "algorithms/redlock_spec/redlock_spec.h"
#include "algorithms/testing/sim_world.h"

namespace lockstep::algorithms {
namespace {

using testing::SimWorld;
using testing::StepResult;
using nlohmann::json;
namespace t = testing;

constexpr int64_t kSec = 1'000'000;

SimWorld::Options spec(size_t masters, size_t clients = 1, json options = json::object()) {
  SimWorld::Options o;
  o.algorithm = "redlock-spec";
  o.algorithm_options = std::move(options);
  o.shard_sizes.assign(masters, 1);
  o.clients = clients;
  return o;
}

int holders(SimWorld& w, const std::string& lock) {
  int n = 0;
  for (size_t i = 0; i < w.node_count(); ++i) n += w.key(i, lock).has_value();
  return n;
}

TEST(RedlockSpecTest, ValidityIsTtlMinusElapsedMinusDrift) {
  redlock_spec::SpecOptions o;
  EXPECT_EQ(redlock_spec::validity_ms(o, 10'000, 5), 10'000 - 5 - (100 + 2));
  EXPECT_EQ(redlock_spec::validity_ms(o, 30'000, 0), 30'000 - 302);
  EXPECT_LE(redlock_spec::validity_ms(o, 100, 200), 0);
  // Regression (issue 9): a client clock stepped back 5 s during the acquisition (explore seed
  // 71 aborted here) gives a validity longer than the TTL, as a wall-clock client computes it.
  EXPECT_EQ(redlock_spec::validity_ms(o, 10'000, -5'000), 10'000 + 5'000 - (100 + 2));
}

TEST(RedlockSpecTest, AcquiresOnAllFiveWithTheValidityAndReleasesEverywhere) {
  SimWorld w(spec(5));
  w.program(0, 0, 1000, {t::lock("R", 10'000, "l"), t::sleep(100), t::unlock("R", "u")});
  w.run_until(50'000);
  const LockOutcome& l = w.result("l").outcome;
  EXPECT_TRUE(l.acquired);
  // Five sequential SETs of 0.4 ms each: elapsed 2 ms (local ms), drift 100 + 2.
  EXPECT_EQ(l.validity_ms, 10'000 - 2 - 102);
  EXPECT_EQ(holders(w, "R"), 5);
  w.run_until(kSec);
  EXPECT_TRUE(w.result("u").outcome.released);
  EXPECT_EQ(holders(w, "R"), 0);
  for (const json& c : w.lines("complete")) {
    if (c.contains("validity_ms")) {
      EXPECT_EQ(c["validity_ms"], 10'000 - 2 - 102);
    }
  }
}

TEST(RedlockSpecTest, WithoutAQuorumItUnlocksEverywhereAndRetriesUntilTheWaitRunsOut) {
  SimWorld w(spec(5, 2));
  w.at(100, [&] {
    w.cluster().crash(&w.node(3));
    w.cluster().crash(&w.node(4));
  });
  // c1 holds R on node0..2; c2 finds only the two dead nodes: no quorum, retries, gives up.
  w.program(0, 0, 1000, {t::lock("R", 60'000, "a")});
  w.program(1, 0, 10'000, {t::try_lock("R", 1000, 60'000, "b")});
  w.run_until(5 * kSec);
  EXPECT_TRUE(w.result("a").outcome.acquired);
  const StepResult& b = w.result("b");
  EXPECT_FALSE(b.outcome.acquired);
  EXPECT_GE(b.end_us - b.start_us, 1'000'000);
  EXPECT_LT(b.end_us - b.start_us, 1'400'000);
  EXPECT_EQ(holders(w, "R"), 3);  // c2's failed attempts left nothing behind
  int releases = 0;
  for (const json& e : w.lines("exec")) releases += e.value("script", "") == "redlock_release";
  EXPECT_GE(releases, 2 * 3);  // every failed attempt released on all (live) masters
}

TEST(RedlockSpecTest, ASlowAcquisitionIsRejectedByTheValidityCheck) {
  SimWorld::Options o = spec(3, 1, json{{"node_timeout_ms", 500}});
  o.link = kernel::LinkSpec{kernel::LatencyDist::fixed(100'000), 0};  // 100 ms each way
  SimWorld w(o);
  // Three sequential SETs take 600 ms: more than the 500 ms TTL -> never valid.
  w.program(0, 0, 1000, {t::try_lock("R", 2000, 500, "l")});
  w.run_until(10 * kSec);
  EXPECT_FALSE(w.result("l").outcome.acquired);
}

TEST(RedlockSpecTest, WithoutALeaseTheLockIsExtendedOnAQuorum) {
  SimWorld w(spec(3));
  w.program(0, 0, 1000, {t::lock("R"), t::sleep(70'000), t::unlock("R", "u")});
  w.run_until(60 * kSec);
  EXPECT_EQ(holders(w, "R"), 3);
  w.run_until(100 * kSec);
  EXPECT_TRUE(w.result("u").outcome.released);
  int renewals = 0;
  for (const json& j : w.lines("invoke")) renewals += j["op"] == "renew";
  EXPECT_EQ(renewals, 6);  // every 10 s (plus the round trips), up to the unlock at 70 s
  EXPECT_TRUE(w.lines("hold_end").size() == 1u && w.lines("hold_end")[0]["reason"] == "unlock");
}

TEST(RedlockSpecTest, AFailedExtensionEndsTheHoldAsLost) {
  SimWorld w(spec(3));
  w.program(0, 0, 1000, {t::lock("R"), t::sleep(70'000)});
  w.at(5 * kSec, [&] {
    w.cluster().crash(&w.node(1));
    w.cluster().crash(&w.node(2));
  });
  w.run_until(20 * kSec);
  auto ends = w.lines("hold_end");
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0]["reason"], "lost");
}

TEST(SetnxNaiveTest, TwoCommandsAndABlindDel) {
  SimWorld::Options o;
  o.algorithm = "setnx-naive";
  o.clients = 2;
  SimWorld w(o);
  // A's 1.5 s lease is rounded up to EXPIRE 2; it works 3 s, B takes the lock at ~2 s, and A's
  // unlock deletes B's lock.
  w.program(0, 0, 1000, {t::lock("N", 1500, "a"), t::sleep(3000), t::unlock("N", "ua")});
  w.program(1, 0, 100'000, {t::lock("N", 10'000, "b")});
  w.run_until(10 * kSec);
  EXPECT_TRUE(w.result("a").outcome.acquired);
  EXPECT_TRUE(w.result("b").outcome.acquired);
  EXPECT_GT(w.result("b").end_us, 2 * kSec);
  EXPECT_TRUE(w.result("ua").outcome.released);
  EXPECT_FALSE(w.key(0, "N").has_value());  // B's lock is gone
  std::vector<std::string> commands;
  for (const json& e : w.lines("exec")) {
    if (e["conn"] == "c1") commands.push_back(e["command"]);
  }
  EXPECT_EQ(commands, (std::vector<std::string>{"SETNX", "EXPIRE", "DEL"}));
}

TEST(SetnxNaiveTest, ALostExpireLeavesALockThatNeverExpires) {
  SimWorld::Options o;
  o.algorithm = "setnx-naive";
  SimWorld w(o);
  w.at(50, [&] { w.net().add_lose_reply(w.client(0).id(), "SETNX", 1, nullptr); });
  w.at(900, [&] { w.client(0).crash_client(); });  // dies before sending EXPIRE
  w.program(0, 0, 100, {t::lock("N", 1000)});
  w.run_until(60 * kSec);
  auto d = w.key(0, "N");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->expire_at_ms, -1);
}

}  // namespace
}  // namespace lockstep::algorithms
