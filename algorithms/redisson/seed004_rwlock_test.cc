// Seed 004's read-write lock walk-throughs, state by state: after each step the lock hash and
// the rwlock_timeout keys are exactly what the seed shows (UUID1:ThreadID1 is client c1's
// thread 0 here, UUID2:ThreadID2 client c2's, UUID3:ThreadID3 client c3's). Then the reentrancy
// matrix, the read watchdog, write-unlock waking every waiter, and the read lock's
// max(remain, lease) against the plain PEXPIRE of earlier versions.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "algorithms/redisson/redisson_lock.h"
#include "algorithms/testing/sim_world.h"

namespace lockstep::algorithms::redisson {
namespace {

using testing::SimWorld;
using testing::Step;
using testing::StepResult;
using nlohmann::json;
namespace t = testing;

constexpr int64_t kSec = 1'000'000;
constexpr LockMode kRead = LockMode::kRead;
constexpr LockMode kWrite = LockMode::kWrite;

struct RwState {
  std::map<std::string, std::string> hash;
  std::set<std::string> timeouts;  // "{myLock}:<owner>:rwlock_timeout:<n>" keys holding "1"
  bool operator==(const RwState&) const = default;
};

std::ostream& operator<<(std::ostream& os, const RwState& s) {
  os << "hash{";
  for (const auto& [k, v] : s.hash) os << k << "=" << v << " ";
  os << "} timeouts{";
  for (const auto& k : s.timeouts) os << k << " ";
  return os << "}";
}

class Seed004Test : public ::testing::Test {
 protected:
  Seed004Test() : w_(options()) {
    a_ = w_.owner(0, 0);
    b_ = w_.owner(1, 0);
    c_ = w_.owner(2, 0);
  }

  static SimWorld::Options options(json algorithm_options = json::object()) {
    SimWorld::Options o;
    o.algorithm = "redisson-rwlock";
    o.algorithm_options = std::move(algorithm_options);
    o.clients = 3;
    return o;
  }

  // Runs one step on client c's thread 0 and lets it finish.
  const StepResult& step(size_t c, Step s) {
    const TimeUs start = w_.loop().now() + 1000;
    w_.program(c, 0, start, {std::move(s)});
    w_.run_until(start + 5'000);  // an uncontended call takes two round trips (< 1 ms)
    return w_.results().back();
  }
  const StepResult& read(size_t c) { return step(c, t::with_mode(t::lock("myLock"), kRead)); }
  const StepResult& write(size_t c) { return step(c, t::with_mode(t::lock("myLock"), kWrite)); }
  const StepResult& try_read(size_t c) {
    return step(c, t::with_mode(t::try_lock("myLock", 0, 30'000), kRead));
  }
  const StepResult& try_write(size_t c) {
    return step(c, t::with_mode(t::try_lock("myLock", 0, 30'000), kWrite));
  }
  const StepResult& read_unlock(size_t c) { return step(c, t::with_mode(t::unlock("myLock"), kRead)); }
  const StepResult& write_unlock(size_t c) {
    return step(c, t::with_mode(t::unlock("myLock"), kWrite));
  }

  RwState state() {
    RwState s;
    if (auto d = w_.key(0, "myLock")) {
      EXPECT_EQ(d->type, "hash");
      for (size_t i = 0; i + 1 < d->strings.size(); i += 2) s.hash[d->strings[i]] = d->strings[i + 1];
    }
    for (const std::string& k : w_.keys(0)) {
      if (k.find(":rwlock_timeout:") == std::string::npos) continue;
      auto d = w_.key(0, k);
      EXPECT_EQ(d->strings, std::vector<std::string>{"1"}) << k;
      s.timeouts.insert(k);
    }
    return s;
  }
  std::string tk(const std::string& owner, int n) {
    return "{myLock}:" + owner + ":rwlock_timeout:" + std::to_string(n);
  }
  int64_t pttl(const std::string& key) {
    auto d = w_.key(0, key);
    EXPECT_TRUE(d.has_value()) << key;
    return d ? d->expire_at_ms - w_.node(0).local_ms() : -2;
  }

  SimWorld w_;
  std::string a_, b_, c_;
};

// Section 2 (1) and 4: A reads three times, then B twice; the hash counts holds per thread and
// every hold has its own timeout key.
TEST_F(Seed004Test, ReadHoldsAccumulatePerThreadWithOneTimeoutKeyEach) {
  ASSERT_TRUE(read(0).outcome.acquired);
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "1"}}, {tk(a_, 1)}}));
  ASSERT_TRUE(read(0).outcome.acquired);
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "2"}}, {tk(a_, 1), tk(a_, 2)}}));
  ASSERT_TRUE(read(0).outcome.acquired);
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "3"}}, {tk(a_, 1), tk(a_, 2), tk(a_, 3)}}));
  ASSERT_TRUE(read(1).outcome.acquired);
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "3"}, {b_, "1"}},
                              {tk(a_, 1), tk(a_, 2), tk(a_, 3), tk(b_, 1)}}));
  ASSERT_TRUE(read(1).outcome.acquired);
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "3"}, {b_, "2"}},
                              {tk(a_, 1), tk(a_, 2), tk(a_, 3), tk(b_, 1), tk(b_, 2)}}));
  // Every key carries the 30 s lease (the hash: max(remaining, lease)).
  EXPECT_NEAR(static_cast<double>(pttl("myLock")), 30'000.0, 6.0);
  EXPECT_NEAR(static_cast<double>(pttl(tk(b_, 2))), 30'000.0, 6.0);
}

// Section 2 (2): the read watchdog refreshes the hash and every field's timeout keys.
TEST_F(Seed004Test, TheReadWatchdogRefreshesTheHashAndEveryTimeoutKey) {
  read(0);
  read(0);
  read(1);
  w_.run_until(8 * kSec);
  EXPECT_LT(pttl(tk(a_, 1)), 23'000);
  w_.run_until(11 * kSec);  // A's and B's watchdogs ran at ~10 s
  for (const std::string& k : {std::string("myLock"), tk(a_, 1), tk(a_, 2), tk(b_, 1)}) {
    EXPECT_GT(pttl(k), 28'900) << k;
  }
  int renewals = 0;
  for (const json& j : w_.lines("invoke")) {
    if (j["op"] == "renew") {
      ++renewals;
      EXPECT_EQ(j["mode"], "read");
    }
  }
  EXPECT_EQ(renewals, 2);  // one entry per client, each renewing for its first thread
}

// Section 5: reads exclude a write by another thread, and a write excludes other reads.
TEST_F(Seed004Test, ReadAndWriteOfDifferentThreadsExcludeEachOther) {
  read(0);
  read(1);
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "1"}, {b_, "1"}}, {tk(a_, 1), tk(b_, 1)}}));
  EXPECT_FALSE(try_write(2).outcome.acquired);  // C: hget mode = read -> pttl
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "1"}, {b_, "1"}}, {tk(a_, 1), tk(b_, 1)}}));
  read_unlock(0);
  read_unlock(1);
  EXPECT_EQ(state(), RwState{});
  ASSERT_TRUE(write(0).outcome.acquired);
  EXPECT_EQ(state(), (RwState{{{"mode", "write"}, {a_ + ":write", "1"}}, {}}));
  EXPECT_FALSE(try_read(1).outcome.acquired);   // B: mode = write, not B's own
  EXPECT_FALSE(try_write(1).outcome.acquired);  // section 6: write excludes write
  EXPECT_EQ(state(), (RwState{{{"mode", "write"}, {a_ + ":write", "1"}}, {}}));
}

// Section 7: the same thread may re-read, read under its write, re-write; never write under
// its own read.
TEST_F(Seed004Test, TheSameThreadsReentrancyMatrix) {
  read(0);
  ASSERT_TRUE(read(0).outcome.acquired);  // read -> read
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "2"}}, {tk(a_, 1), tk(a_, 2)}}));
  EXPECT_FALSE(try_write(0).outcome.acquired);  // read -> write: refused
  read_unlock(0);
  read_unlock(0);
  ASSERT_TRUE(write(0).outcome.acquired);
  ASSERT_TRUE(read(0).outcome.acquired);  // write -> read (downgrade allowed)
  EXPECT_EQ(state(), (RwState{{{"mode", "write"}, {a_ + ":write", "1"}, {a_, "1"}}, {tk(a_, 1)}}));
  read_unlock(0);
  w_.run_until(w_.loop().now() + 10 * kSec);  // the TTL runs down: pttl ~20 s, as in the seed
  const int64_t before = pttl("myLock");
  ASSERT_TRUE(write(0).outcome.acquired);  // write -> write: the lease is ADDED to the TTL
  EXPECT_EQ(state(), (RwState{{{"mode", "write"}, {a_ + ":write", "2"}}, {}}));
  EXPECT_NEAR(static_cast<double>(pttl("myLock")), static_cast<double>(before + 30'000), 7.0);
}

// Section 8 (4): cases one and two merged — A holds two reads, B one; three unlocks.
TEST_F(Seed004Test, ReadUnlocksDropOneHoldAndItsKeyUntilTheLockIsDeleted) {
  read(0);
  read(0);
  read(1);
  ASSERT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "2"}, {b_, "1"}},
                              {tk(a_, 1), tk(a_, 2), tk(b_, 1)}}));
  EXPECT_FALSE(read_unlock(0).outcome.released);  // A still holds one read
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "1"}, {b_, "1"}}, {tk(a_, 1), tk(b_, 1)}}));
  // A's last read: the script answers 0 (B still reads) but A's own holds are gone, which is
  // what the history's `released` says.
  EXPECT_TRUE(read_unlock(0).outcome.released);
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {b_, "1"}}, {tk(b_, 1)}}));
  EXPECT_TRUE(read_unlock(1).outcome.released);
  EXPECT_EQ(state(), RwState{});
  std::vector<json> replies;
  for (const json& e : w_.lines("exec")) {
    if (e.value("script", "") == "read_unlock") replies.push_back(e["reply"]);
  }
  EXPECT_EQ(replies, (std::vector<json>{0, 0, 1}));
  auto pubs = w_.lines("publish");
  ASSERT_EQ(pubs.size(), 1u);
  EXPECT_EQ(pubs[0]["channel"], "redisson_rwlock:{myLock}");
  EXPECT_EQ(pubs[0]["message"], "0");
}

// Section 8 (5): case three — a read held under the thread's own write; its unlock keeps the
// write and returns 0.
TEST_F(Seed004Test, ReadUnlockUnderTheOwnWriteKeepsTheWriteLock) {
  write(0);
  read(0);
  ASSERT_EQ(state(), (RwState{{{"mode", "write"}, {a_ + ":write", "1"}, {a_, "1"}}, {tk(a_, 1)}}));
  const StepResult& r = read_unlock(0);
  EXPECT_EQ(r.outcome.outcome, Outcome::kOk);
  EXPECT_TRUE(r.outcome.released);  // the thread's read hold is gone; its write stays
  EXPECT_EQ(state(), (RwState{{{"mode", "write"}, {a_ + ":write", "1"}}, {}}));
  EXPECT_EQ(w_.lines("exec").back()["reply"], 0);  // the script's answer, as the seed says
}

// Section 9: write held twice plus a read; two write unlocks: the first decrements, the second
// removes the write field and turns the lock into a read lock (the read hold stays).
TEST_F(Seed004Test, WriteUnlocksDecrementThenDowngradeToRead) {
  write(0);
  write(0);
  read(0);
  ASSERT_EQ(state(), (RwState{{{"mode", "write"}, {a_ + ":write", "2"}, {a_, "1"}}, {tk(a_, 1)}}));
  EXPECT_FALSE(write_unlock(0).outcome.released);
  EXPECT_EQ(state(), (RwState{{{"mode", "write"}, {a_ + ":write", "1"}, {a_, "1"}}, {tk(a_, 1)}}));
  EXPECT_TRUE(write_unlock(0).outcome.released);
  EXPECT_EQ(state(), (RwState{{{"mode", "read"}, {a_, "1"}}, {tk(a_, 1)}}));
  EXPECT_TRUE(w_.lines("publish").empty());  // a downgrade wakes nobody
  // Now other readers are let in, writers still not.
  EXPECT_TRUE(try_read(1).outcome.acquired);
  EXPECT_FALSE(try_write(2).outcome.acquired);
}

TEST(RwLockTest, WriteUnlockWakesEveryWaitingReader) {
  SimWorld::Options o;
  o.algorithm = "redisson-rwlock";
  o.clients = 1;
  o.threads_per_client = 4;
  SimWorld w(o);
  w.program(0, 0, 1000, {t::with_mode(t::lock("L"), kWrite), t::sleep(1000),
                         t::with_mode(t::unlock("L"), kWrite)});
  for (size_t th = 1; th < 4; ++th) {
    w.program(0, th, 100'000, {t::with_mode(t::try_lock("L", 20'000, -1, "r" + std::to_string(th)), kRead)});
  }
  w.run_until(5 * kSec);
  // One message (READ_UNLOCK_MESSAGE, 1) released a permit per waiting thread: all three readers
  // got in right after the unlock, not at the TTL.
  for (size_t th = 1; th < 4; ++th) {
    const StepResult& r = w.result("r" + std::to_string(th));
    EXPECT_TRUE(r.outcome.acquired);
    EXPECT_LT(r.end_us, 1'010'000) << th;
  }
  auto pubs = w.lines("publish");
  ASSERT_FALSE(pubs.empty());
  EXPECT_EQ(pubs[0]["message"], "1");
}

TEST(RwLockTest, AShortReaderNoLongerShortensALongReadersLock) {
  for (bool lease_max : {true, false}) {
    SimWorld::Options o;
    o.algorithm = "redisson-rwlock";
    o.algorithm_options = json{{"read_lease_max", lease_max}};
    o.clients = 2;
    SimWorld w(o);
    w.program(0, 0, 1000, {t::with_mode(t::lock("L", 60'000), kRead)});
    w.program(1, 0, 100'000, {t::with_mode(t::lock("L", 1000), kRead)});
    w.run_until(2 * kSec);
    // With max(remain, lease) the long reader's 60 s survive; with a plain PEXPIRE (before
    // 3.11.1) the hash dies after the short reader's 1 s, though A still holds its read.
    EXPECT_EQ(w.key(0, "L").has_value(), lease_max);
  }
}

TEST(RwLockTest, ReadUnderWriteLosesItsWatchdogWhenTheWriteIsReleased) {
  // The read and write lock objects share one watchdog entry (the same entryName), renewed with
  // the script of the type that created it: here the write lock's, which finds its field gone
  // once the write is released, and stops. The read hold then expires with its 30 s TTL.
  SimWorld::Options o;
  o.algorithm = "redisson-rwlock";
  SimWorld w(o);
  w.program(0, 0, 1000, {t::with_mode(t::lock("L"), kWrite), t::with_mode(t::lock("L"), kRead),
                         t::with_mode(t::unlock("L"), kWrite), t::sleep(100'000)});
  w.run_until(5 * kSec);
  auto d = w.key(0, "L");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->strings[1], "read");  // downgraded: the thread still holds its read lock
  w.run_until(45 * kSec);
  EXPECT_FALSE(w.key(0, "L").has_value());
  std::vector<json> renews;
  for (const json& j : w.lines("invoke")) {
    if (j["op"] == "renew") renews.push_back(j);
  }
  ASSERT_EQ(renews.size(), 1u);
  EXPECT_EQ(renews[0]["mode"], "write");
  for (const json& c : w.lines("complete")) {
    if (c.contains("renewed")) {
      EXPECT_EQ(c["renewed"], false);
    }
  }
}

TEST(RwLockTest, ModesAreRequired) {
  SimWorld::Options o;
  o.algorithm = "redisson-rwlock";
  SimWorld w(o);
  w.program(0, 0, 1000, {t::lock("L", -1, "x")});
  w.run_until(kSec);
  EXPECT_EQ(w.result("x").outcome.outcome, Outcome::kFail);
  EXPECT_EQ(w.result("x").outcome.error, "this lock has no exclusive mode");
}

}  // namespace
}  // namespace lockstep::algorithms::redisson
