// Seed 002's fair lock: the queue list and the timeout zset evolve as the seed describes — waiters
// queue in arrival order with deadlines chained one threadWaitTime apart, a retry refreshes a
// waiter's deadline, a waiter that stopped retrying is evicted from the head once its deadline
// passes (here B and then C, exactly the seed's walk-through), and the re-queued waiter gets a
// new deadline of pttl + now + threadWaitTime. Then the client flows: FIFO grants through the
// per-waiter channels, acquireFailed, and a dead waiter at the head of the queue.
#include <gtest/gtest.h>

#include <optional>

#include "algorithms/redisson/redisson_lock.h"
#include "algorithms/testing/sim_world.h"

namespace lockstep::algorithms::redisson {
namespace {

using testing::SimWorld;
using testing::StepResult;
using nlohmann::json;
namespace t = testing;

constexpr int64_t kMs = 1000;  // microseconds
constexpr int64_t kSec = 1'000'000;
const std::string kLock = "anyLock";
const std::string kQueue = "redisson_lock_queue:{anyLock}";
const std::string kTimeouts = "redisson_lock_timeout:{anyLock}";

SimWorld::Options fair(size_t clients, json options = json::object()) {
  SimWorld::Options o;
  o.algorithm = "redisson-fair-lock";
  o.algorithm_options = std::move(options);
  o.clients = clients;
  return o;
}

Task<void> acquire_once(FairType* type, const Thread* thread, int64_t lease_ms,
                        std::optional<AcquireReply>* out) {
  *out = co_await type->try_acquire(0, kLock, thread, lease_ms, -1, false, -1);
}

class Seed002Test : public ::testing::Test {
 protected:
  Seed002Test() : w_(fair(3)) {}

  // One run of the acquire script (EVAL_LONG) by client c at client time at_ms.
  AcquireReply acquire(size_t c, int64_t at_ms, int64_t lease_ms = 60'000) {
    std::optional<AcquireReply> out;
    auto& client = static_cast<RedissonLock&>(w_.lock_client(c));
    auto* type = static_cast<FairType*>(&client.type(LockMode::kExclusive));
    w_.at(at_ms * kMs, [&, type, c] {
      w_.client(c).CoroProcess::spawn(acquire_once(type, &w_.thread(c, 0), lease_ms, &out));
    });
    w_.run_until(at_ms * kMs + 5 * kMs);
    EXPECT_TRUE(out.has_value());
    EXPECT_EQ(out->outcome, Outcome::kOk) << out->error;
    return *out;
  }

  std::vector<std::string> queue() {
    auto d = w_.key(0, kQueue);
    return d ? d->strings : std::vector<std::string>{};
  }
  // member -> deadline (client ms)
  std::vector<std::pair<std::string, int64_t>> timeouts() {
    std::vector<std::pair<std::string, int64_t>> out;
    auto d = w_.key(0, kTimeouts);
    if (!d) return out;
    for (size_t i = 0; i + 1 < d->strings.size(); i += 2) {
      out.emplace_back(d->strings[i], std::stoll(d->strings[i + 1]));
    }
    return out;
  }
  int64_t lock_expiry() { return w_.key(0, kLock)->expire_at_ms; }

  SimWorld w_;
};

TEST_F(Seed002Test, TheQueueAndTheTimeoutSetEvolveAsTheSeedDescribes) {
  const std::string a = w_.owner(0, 0), b = w_.owner(1, 0), c = w_.owner(2, 0);
  // A takes the lock (lease 60 s: it expires at 61 s).
  ASSERT_TRUE(acquire(0, 1000).acquired);
  ASSERT_EQ(lock_expiry(), 61'000);
  // B queues: deadline = pttl + now + threadWaitTime = lock expiry + 5 s.
  AcquireReply rb = acquire(1, 2000);
  EXPECT_FALSE(rb.acquired);
  EXPECT_EQ(rb.ttl_ms, 59'000);
  EXPECT_EQ(queue(), (std::vector<std::string>{b}));
  EXPECT_EQ(timeouts(), (std::vector<std::pair<std::string, int64_t>>{{b, 66'000}}));
  // C queues behind B: its ttl is B's deadline - now, its deadline B's + 5 s.
  AcquireReply rc = acquire(2, 3000);
  EXPECT_EQ(rc.ttl_ms, 63'000);
  EXPECT_EQ(queue(), (std::vector<std::string>{b, c}));
  EXPECT_EQ(timeouts(), (std::vector<std::pair<std::string, int64_t>>{{b, 66'000}, {c, 71'000}}));
  // A re-enters (its TTL is reset to 60 s, as a watchdog renewal would); B and C retry: the
  // order stays, their deadlines only grow ("timeout不断加长").
  ASSERT_TRUE(acquire(0, 10'000).acquired);
  acquire(1, 11'000);
  acquire(2, 12'000);
  EXPECT_EQ(queue(), (std::vector<std::string>{b, c}));
  EXPECT_EQ(timeouts(), (std::vector<std::pair<std::string, int64_t>>{{b, 75'000}, {c, 80'000}}));
  // B stops retrying (network trouble). A keeps the lock alive long past both deadlines.
  ASSERT_TRUE(acquire(0, 60'000).acquired);
  ASSERT_EQ(lock_expiry(), 120'000);
  // C retries at 81 s: the loop evicts B (75 s <= 81 s), then C itself (80 s <= 81 s); the
  // queue is empty and A still holds, so ttl = pttl = 39 s and C queues again with a new
  // deadline 39 s + 81 s + 5 s.
  AcquireReply late = acquire(2, 81'000);
  EXPECT_FALSE(late.acquired);
  EXPECT_EQ(late.ttl_ms, 39'000);
  EXPECT_EQ(queue(), (std::vector<std::string>{c}));
  EXPECT_EQ(timeouts(), (std::vector<std::pair<std::string, int64_t>>{{c, 125'000}}));
  // B comes back: it now queues behind C — the order was rearranged by the eviction.
  acquire(1, 82'000);
  EXPECT_EQ(queue(), (std::vector<std::string>{c, b}));
  // The executed scripts recorded the queue and zset after each run (for the invariant check).
  int states = 0;
  for (const json& s : w_.lines("state")) states += s["key"] == kQueue;
  EXPECT_EQ(states, 9);  // one per script run
}

TEST_F(Seed002Test, OnlyTheHeadOfTheQueueMayTakeAFreeLock) {
  const std::string b = w_.owner(1, 0), c = w_.owner(2, 0);
  ASSERT_TRUE(acquire(0, 1000, 5000).acquired);  // A's lock expires at 6 s
  acquire(1, 2000);
  acquire(2, 3000);
  // At 7 s the lock is gone, but C is not at the head: refused.
  AcquireReply rc = acquire(2, 7000);
  EXPECT_FALSE(rc.acquired);
  EXPECT_EQ(queue(), (std::vector<std::string>{b, c}));
  // B, the head, gets it and leaves the queue and the zset.
  EXPECT_TRUE(acquire(1, 7100).acquired);
  EXPECT_EQ(queue(), (std::vector<std::string>{c}));
  ASSERT_EQ(timeouts().size(), 1u);
  EXPECT_EQ(timeouts()[0].first, c);
}

TEST(FairLockTest, WaitersAreGrantedInArrivalOrderThroughTheirOwnChannels) {
  SimWorld w(fair(4));
  w.program(0, 0, 1000, {t::lock("anyLock"), t::sleep(1000), t::unlock("anyLock")});
  for (size_t c = 1; c < 4; ++c) {
    w.program(c, 0, (100 + 10 * c) * kMs,
              {t::lock("anyLock", -1, "got" + std::to_string(c)), t::sleep(100), t::unlock("anyLock")});
  }
  w.run_until(20 * kSec);
  TimeUs last = 0;
  for (size_t c = 1; c < 4; ++c) {
    const StepResult& r = w.result("got" + std::to_string(c));
    EXPECT_TRUE(r.outcome.acquired);
    EXPECT_GT(r.end_us, last) << c;
    last = r.end_us;
  }
  // Each wake-up went to one waiter's channel: redisson_lock__channel:{anyLock}:<uuid>:<tid>.
  auto deliveries = w.lines("deliver");
  ASSERT_GE(deliveries.size(), 3u);
  EXPECT_EQ(deliveries[0]["channel"], "redisson_lock__channel:{anyLock}:" + w.owner(1, 0));
  EXPECT_EQ(deliveries[0]["thread"], "c2");
  // Grants came right after each unlock (a message, not a TTL or deadline).
  EXPECT_LT(w.result("got1").end_us, 1'010'000);
}

TEST(FairLockTest, AGivingUpWaiterLeavesTheQueueAndShortensTheDeadlinesBehindIt) {
  SimWorld w(fair(4));
  w.program(0, 0, 1000, {t::lock("anyLock", 60'000)});
  w.program(1, 0, 100 * kMs, {t::lock("anyLock")});
  w.program(2, 0, 200 * kMs, {t::try_lock("anyLock", 1000, -1, "gives_up")});
  w.program(3, 0, 300 * kMs, {t::lock("anyLock")});
  w.run_until(500 * kMs);
  // Seed 002's script gives every non-head waiter the head's deadline + threadWaitTime:
  // B (head) 65 s, C 70 s, D 70 s.
  auto deadline = [&](size_t c) -> int64_t {
    auto d = w.key(0, kTimeouts);
    for (size_t i = 0; d && i + 1 < d->strings.size(); i += 2) {
      if (d->strings[i] == w.owner(c, 0)) return std::stoll(d->strings[i + 1]);
    }
    return -1;
  };
  const int64_t b_before = deadline(1), c_before = deadline(2), d_before = deadline(3);
  EXPECT_EQ(c_before, b_before + 5000);
  EXPECT_EQ(d_before, b_before + 5000);
  w.run_until(2 * kSec);
  EXPECT_FALSE(w.result("gives_up").outcome.acquired);
  auto q = w.key(0, kQueue);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->strings, (std::vector<std::string>{w.owner(1, 0), w.owner(3, 0)}));
  // C left the zset; D, behind it, was moved 5 s (threadWaitTime) earlier — onto B's deadline,
  // because acquireFailed assumes deadlines chained one wait apart and the seed's acquire does
  // not chain them: D becomes evictable together with the head.
  EXPECT_EQ(deadline(2), -1);
  EXPECT_EQ(deadline(1), b_before);
  EXPECT_EQ(deadline(3), d_before - 5000);
  EXPECT_EQ(deadline(3), deadline(1));
}

TEST(FairLockTest, ADeadWaiterAtTheHeadIsEvictedAfterItsDeadline) {
  SimWorld w(fair(3));
  w.program(0, 0, 1000, {t::lock("anyLock"), t::sleep(2000), t::unlock("anyLock")});
  w.program(1, 0, 100 * kMs, {t::lock("anyLock")});               // B queues, then dies
  w.program(2, 0, 200 * kMs, {t::lock("anyLock", -1, "c")});     // C queues behind B
  w.at(500 * kMs, [&] { w.client(1).crash_client(); });
  w.run_until(60 * kSec);
  // A unlocks at ~2 s and wakes B (dead). C gets the lock only once B's deadline has passed and
  // a script evicts B: B's deadline ~ 30 s (A's watchdog lease) + 0.1 s + 5 s.
  const StepResult& r = w.result("c");
  EXPECT_TRUE(r.outcome.acquired);
  EXPECT_GT(r.end_us, 35 * kSec);
  EXPECT_LT(r.end_us, 41 * kSec);
}

TEST(FairLockTest, TheSeedScriptFailsOnAQueueEntryWithoutAScoreAndTheCurrentOneSkipsIt) {
  for (const char* profile : {"classic", "current"}) {
    SimWorld w(fair(2, json{{"profile", profile}}));
    // Corrupt the queue the way a half-applied script or a lost ZADD would.
    w.at(500, [&] {
      std::vector<std::string> argv = {"RPUSH", kQueue, "ghost"};
      w.client(1).CoroProcess::spawn([](kernel::ClientProcess& p, std::vector<std::string> argv) -> Task<void> {
        co_await p.conn(0).call(std::move(argv));
      }(w.client(1), argv));
    });
    w.program(0, 0, 100 * kMs, {t::try_lock("anyLock", 100, -1, "x")});
    w.run_until(kSec);
    const LockOutcome& o = w.result("x").outcome;
    if (std::string(profile) == "classic") {
      EXPECT_EQ(o.outcome, Outcome::kFail);
      EXPECT_NE(o.error.find("attempt to compare nil with number"), std::string::npos) << o.error;
    } else {
      // The guard stops the eviction at the ghost, which then blocks the head: not acquired.
      EXPECT_EQ(o.outcome, Outcome::kOk) << o.error;
      EXPECT_FALSE(o.acquired);
    }
  }
}

}  // namespace
}  // namespace lockstep::algorithms::redisson
