// Interrupts and cancellations (the `interrupt` and `cancel` faults; docs/algorithms.md
// "Interrupts"): the library's edge scenarios run through the whole pipeline, each checked
// against the timeline Redisson's code gives, plus the parser's rules.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/scenario/parse.h"
#include "harness/scenario/ran_test_util.h"
#include "harness/scenario/run.h"

namespace lockstep::scenario {
namespace {

using nlohmann::json;

using testing::Ran;
using testing::t_of;

Ran run_edge(const std::string& name) { return testing::run_library("edge", name); }

Ran run_text(const std::string& text) { return testing::run_checked(parse_scenario_text(text, "test.json"), "test.json"); }

std::vector<json> renewals_of(const Ran& r, const std::string& thread) {
  std::vector<json> out;
  for (const json& inv : r.of("invoke", "op", "renew")) {
    if (inv["thread"] == thread) out.push_back(inv);
  }
  return out;
}

TEST(InterruptTest, AnInterruptedTryLockWhoseScriptRanIsRenewedForNobody) {
  Ran r = run_edge("redisson-lock-interrupted-trylock");
  // The interrupt lands right after the acquire script ran on the node, before its reply.
  auto faults = r.of("fault", "kind", "interrupt");
  ASSERT_EQ(faults.size(), 1u);
  // (The profile sends EVALSHA first, which the fresh node answers NOSCRIPT, then EVAL.)
  auto execs = r.of("exec", "command", "EVAL");
  ASSERT_FALSE(execs.empty());
  EXPECT_EQ(execs[0]["op"], 1);
  EXPECT_EQ(t_of(faults[0]), t_of(execs[0]));
  const json done = r.completion(1);
  EXPECT_EQ(done["outcome"], "unknown");
  EXPECT_EQ(done["error"], "RedisException: java.lang.InterruptedException");
  EXPECT_TRUE(r.of("hold_begin", "thread", "c1/t0").empty());
  // The watchdog renews every 10 s for the rest of the run, and c2 never gets the lock.
  const auto renewals = renewals_of(r, "c1/t0");
  EXPECT_GE(renewals.size(), 11u);
  EXPECT_TRUE(r.of("hold_begin", "thread", "c2/t0").empty());
  EXPECT_EQ(r.report.verdict, "violation");
  EXPECT_NE(r.report.result.dump().find("never believed it held the lock"), std::string::npos);
}

TEST(InterruptTest, WithTheDroppedCallbackTheGrantLivesOutItsLease) {
  Ran r = run_edge("redisson-lock-interrupted-trylock-dropped");
  EXPECT_EQ(r.completion(1)["outcome"], "unknown");
  EXPECT_TRUE(renewals_of(r, "c1/t0").empty());
  auto holds = r.of("hold_begin", "thread", "c2/t0");
  ASSERT_EQ(holds.size(), 1u);
  EXPECT_GE(t_of(holds[0]), 30'000'000);  // the orphaned key's 30 s lease
  EXPECT_LT(t_of(holds[0]), 31'000'000);
}

TEST(InterruptTest, WithTheProposedFixTheGrantIsUnlockedAtOnce) {
  Ran r = run_edge("redisson-lock-interrupted-trylock-unlocked");
  EXPECT_TRUE(renewals_of(r, "c1/t0").empty());
  // The background unlock belongs to no operation of the history.
  bool unlocked = false;
  for (const json& e : r.of("exec")) {
    if (e["conn"] == "c1" && e.value("script", "").find("unlock") != std::string::npos) {
      EXPECT_FALSE(e.contains("op"));
      unlocked = true;
    }
  }
  EXPECT_TRUE(unlocked);
  auto holds = r.of("hold_begin", "thread", "c2/t0");
  ASSERT_EQ(holds.size(), 1u);
  EXPECT_LT(t_of(holds[0]), 1'010'000);
}

TEST(InterruptTest, WaitersInterruptiblyGiveUpAtOnceAndLockSwallowsIt) {
  Ran r = run_edge("redisson-lock-interrupt-waiters");
  // op 2: c2's lockInterruptibly, op 3: c3's lock(), op 4: c4's tryLock(20 s).
  for (int64_t id : {2, 4}) {
    const json done = r.completion(id);
    EXPECT_EQ(done["outcome"], "fail");
    EXPECT_EQ(done["error"], "java.lang.InterruptedException");
    EXPECT_EQ(t_of(done), 2'000'000);
  }
  const json got = r.completion(3);
  EXPECT_EQ(got["outcome"], "ok");
  EXPECT_EQ(got["acquired"], true);
  EXPECT_GT(t_of(got), 5'000'000);
  // The interrupted waiters unsubscribed: c1's release reaches only c3.
  EXPECT_EQ(r.report.verdict, "ok");
}

TEST(InterruptTest, ACancelledTryLockUndoesALateGrantAndEndsAWait) {
  Ran r = run_edge("redisson-lock-cancelled-trylock");
  const json first = r.completion(1);
  EXPECT_EQ(first["outcome"], "unknown");
  EXPECT_EQ(first["error"], "java.util.concurrent.CancellationException");
  auto holds = r.of("hold_begin", "thread", "c2/t0");
  ASSERT_EQ(holds.size(), 1u);
  EXPECT_LT(t_of(holds[0]), 1'010'000);
  const json waiting = r.completion(3);
  EXPECT_EQ(waiting["outcome"], "fail");
  EXPECT_EQ(waiting["error"], "java.util.concurrent.CancellationException");
  EXPECT_EQ(t_of(waiting), 2'500'000);
}

TEST(InterruptTest, AnInterruptedFairWaiterStaysQueuedWithoutAcquireFailed) {
  Ran r = run_edge("redisson-fair-lock-interrupted-waiter-current");
  const json done = r.completion(2);  // c2's tryLock(60 s)
  EXPECT_EQ(done["outcome"], "fail");
  EXPECT_EQ(t_of(done), 500'000);
  for (const json& e : r.of("exec", "conn", "c2")) {
    EXPECT_EQ(e.value("script", "").find("failed"), std::string::npos) << e.dump();
  }
  // c2's entry is still the head of the queue after c1's release.
  const std::string queue = "redisson_lock_queue:{anyLock}";
  json last;
  for (const json& s : r.of("state", "key", queue)) {
    if (t_of(s) <= 10'000'000) last = s;
  }
  ASSERT_TRUE(last.is_object() && last["value"].is_object());
  EXPECT_EQ(last["value"]["strings"][0], r.of("invoke", "id", 2)[0]["owner"]);
  EXPECT_NE(r.report.result.dump().find("the head of anyLock's queue was c2/t0"), std::string::npos);
}

// A scenario with one holder whose hold an interrupt cuts short, and a cancel that reaches a
// thread outside any tryLock (so does nothing).
const char* kHoldInterrupted = R"({"name": "hold",
  "duration_ms": 20000,
  "algorithm": {"name": "redisson-lock"},
  "clients": {"count": 2},
  "workload": {"script": [
    {"threads": "c1", "steps": [{"op": "lock", "lock": "L"}, {"op": "hold", "ms": 10000}, {"op": "unlock", "lock": "L"}]},
    {"threads": "c2", "steps": [{"op": "lock", "lock": "M"}, {"op": "hold", "ms": 10000}, {"op": "unlock", "lock": "M"}]}]},
  "faults": {"schedule": [{"kind": "interrupt", "at_ms": 2000, "target": "c1/t0"},
                          {"kind": "cancel", "at_ms": 2000, "target": "c2/t0"}]}
})";

TEST(InterruptTest, AnInterruptEndsAHoldEarlyAndACancelOutsideATryLockDoesNothing) {
  Ran r = run_text(kHoldInterrupted);
  auto c1 = r.of("hold_end", "thread", "c1/t0");
  ASSERT_EQ(c1.size(), 1u);
  EXPECT_EQ(t_of(c1[0]), 2'000'000);
  auto c2 = r.of("hold_end", "thread", "c2/t0");
  ASSERT_EQ(c2.size(), 1u);
  EXPECT_GE(t_of(c2[0]), 10'000'000);
  EXPECT_EQ(r.report.verdict, "ok");
}

// An interrupt that arrives while the thread is in unlock() stays pending: its next lock call
// sends its command and then ends as interrupted.
const char* kPending = R"({"name": "pending",
  "duration_ms": 20000,
  "algorithm": {"name": "redisson-lock"},
  "clients": {"count": 1},
  "network": {"latency": 50000},
  "workload": {"script": [
    {"threads": "c1", "steps": [{"op": "lock", "lock": "L"}, {"op": "unlock", "lock": "L"},
                                {"op": "lock", "lock": "L", "then": [{"op": "unlock", "lock": "L"}]}]}]},
  "faults": {"schedule": [{"kind": "interrupt", "at_ms": 120, "target": "c1/t0"}]}
})";

TEST(InterruptTest, AnInterruptDuringUnlockIsTakenByTheNextCommand) {
  Ran r = run_text(kPending);
  const json unlock = r.completion(2);
  EXPECT_EQ(unlock["outcome"], "ok");
  EXPECT_EQ(unlock["released"], true);
  const json relock = r.completion(3);
  EXPECT_EQ(relock["outcome"], "unknown");
  EXPECT_EQ(relock["error"], "RedisException: java.lang.InterruptedException");
}

std::string error_of(const std::string& text) {
  Result<Scenario> s = parse_scenario_text(text, "t.json");
  return s.ok() ? "" : s.status().message();
}

std::string with_fault(const std::string& algorithm, const std::string& fault) {
  return R"({"name": "t", "duration_ms": 1000, "algorithm": {"name": ")" + algorithm + R"("}, "clients": {"count": 1, "threads": 2},
    "workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": "L"}]}]},
    "faults": {"schedule": [)" + fault + "]}}";
}

TEST(InterruptTest, TheParserChecksTargetsEventsAndAlgorithms) {
  EXPECT_EQ(error_of(with_fault("redisson-lock", R"({"kind": "interrupt", "at_ms": 1, "target": "c1/t1"})")), "");
  EXPECT_EQ(error_of(with_fault("redisson-fair-lock", R"({"kind": "cancel", "at_ms": 1, "target": "c1/t0", "on": "acquire_executed"})")), "");
  EXPECT_NE(error_of(with_fault("redisson-lock", R"({"kind": "interrupt", "at_ms": 1, "target": "c1/t2"})")).find("/faults/schedule/0/target"), std::string::npos);
  EXPECT_NE(error_of(with_fault("redisson-lock", R"({"kind": "interrupt", "at_ms": 1, "target": "c1"})")).find("thread"), std::string::npos);
  EXPECT_NE(error_of(with_fault("redisson-lock", R"({"kind": "interrupt", "at_ms": 1, "target": "c1/t01"})")), "");
  EXPECT_NE(error_of(with_fault("redisson-lock", R"({"kind": "interrupt", "at_ms": 1, "target": "c1/t0", "on": "grant"})")).find("/faults/schedule/0/on"), std::string::npos);
  EXPECT_NE(error_of(with_fault("set-nx-px", R"({"kind": "interrupt", "at_ms": 1, "target": "c1/t0"})")).find("no interrupt handling"), std::string::npos);
  EXPECT_NE(error_of(with_fault("redisson-redlock", R"({"kind": "interrupt", "at_ms": 1, "target": "c1/t0"})")).find("no interrupt handling"), std::string::npos);
  // Not in random profiles.
  const std::string random = R"({"name": "t", "duration_ms": 1000, "algorithm": {"name": "redisson-lock"}, "clients": {"count": 1},
    "workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": "L"}]}]},
    "faults": {"random": {"kinds": [{"kind": "interrupt"}]}}})";
  EXPECT_NE(error_of(random).find("/faults/random/kinds/0/kind"), std::string::npos);
  // lockInterruptibly is a lock step's flag.
  const std::string on_try = R"({"name": "t", "duration_ms": 1000, "algorithm": {"name": "redisson-lock"}, "clients": {"count": 1},
    "workload": {"script": [{"threads": "all", "steps": [{"op": "try_lock", "lock": "L", "interruptibly": true}]}]}})";
  EXPECT_NE(error_of(on_try).find("interruptibly"), std::string::npos);
}

}  // namespace
}  // namespace lockstep::scenario
