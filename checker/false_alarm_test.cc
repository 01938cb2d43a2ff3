// Regression tests of the checker for the false alarms of issues 9 and 14: each history
// is the smallest shape of a pattern lockstep's own runs produced, judged once as it happened
// (legal) and once changed so that the same rule must refuse it, so no test passes by a checker
// that accepts everything.
#include <gtest/gtest.h>

#include <string>

#include "checker/check.h"

namespace lockstep::checker {
namespace {

// Parses `lines` (JSONL without the footer) and returns the linearizability result.
PropertyResult lin(const std::string& header, const std::string& lines) {
  const std::string text = header + "\n" + lines + R"({"t": 900000000, "type": "end", "complete": true})" + "\n";
  Result<History> h = parse_history_text(text, "<test>");
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.status().message());
  if (!h.ok()) return PropertyResult{};
  return check_linearizability(h.value(), CheckOptions{});
}

const char* kSingle = R"({"lockstep_history": 1, "lock_kind": "reentrant", "nodes": ["node0"]})";
const char* kRedlock =
    R"({"lockstep_history": 1, "lock_kind": "redlock", "nodes": ["node0", "node1", "node2"], "quorum": 2})";

// A tryLock that failed while nobody held the lock.
const char* kFailedTryOnFreeLock = R"(
{"t": 1000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "try_lock", "wait_ms": 0, "lease_ms": 10000}
{"t": 2000, "type": "complete", "id": 1, "outcome": "ok", "acquired": false}
)";

TEST(LinearizabilityRegression, AQuorumLocksFailedAcquisitionIsAvailabilityNotSafety) {
  EXPECT_EQ(lin(kRedlock, kFailedTryOnFreeLock).verdict, Verdict::kOk);
  // On a single node nothing excuses it.
  const PropertyResult single = lin(kSingle, kFailedTryOnFreeLock);
  EXPECT_EQ(single.verdict, Verdict::kViolation);
  EXPECT_NE(single.reason.find("failed although nothing blocked it"), std::string::npos) << single.reason;
  // A reentrant lock's holder refused its own re-entry: the story says it was its own hold
  // (`explore --algorithm redisson-lock` seed 80016, on a node a failover had rolled back).
  const PropertyResult own = lin(kSingle, R"({"t": 500, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 10000}
{"t": 600, "type": "complete", "id": 2, "outcome": "ok", "acquired": true, "count": 1}
)" + std::string(kFailedTryOnFreeLock));
  EXPECT_EQ(own.verdict, Verdict::kViolation) << own.reason;
  EXPECT_NE(own.reason.find("failed although only its own hold was there, which it may re-enter"), std::string::npos) << own.reason;
}

// c1 holds L; its unlock runs (and releases), the reply is lost, the re-sent unlock finds the lock
// free and fails with IllegalMonitorStateException; c2 then acquires. `unlock_execs` are the
// unlock's exec lines.
std::string retried_unlock(const std::string& unlock_execs, bool hold_end = true) {
  return std::string(R"({"t": 1000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 1100, "type": "exec", "node": "node0", "seq": 1, "conn": "c1", "command": "EVAL", "script": "rlock_acquire", "op": 1, "keys": ["L"], "reply": null}
{"t": 1200, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 1200, "type": "hold_begin", "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": 1}
{"t": 2000, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "unlock"}
)") + (hold_end ? R"({"t": 2000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "unlock"})" "\n" : "") + unlock_execs +
         R"({"t": 5100000, "type": "complete", "id": 2, "outcome": "fail", "error": "IllegalMonitorStateException: attempt to unlock lock, not locked by current thread"}
{"t": 5200000, "type": "invoke", "id": 3, "thread": "c2/t0", "owner": "u2:0", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 5200100, "type": "exec", "node": "node0", "seq": 4, "conn": "c2", "command": "EVAL", "script": "rlock_acquire", "op": 3, "keys": ["L"], "reply": null}
{"t": 5200200, "type": "complete", "id": 3, "outcome": "ok", "acquired": true}
)";
}

TEST(LinearizabilityRegression, ARetriedUnlockThatFailedMayHaveTakenEffectAtItsFirstRun) {
  const std::string two_runs =
      R"({"t": 2100, "type": "exec", "node": "node0", "seq": 2, "conn": "c1", "command": "EVAL", "script": "rlock_unlock", "op": 2, "keys": ["L"], "reply": 1}
{"t": 5000000, "type": "exec", "node": "node0", "seq": 3, "conn": "c1", "command": "EVAL", "script": "rlock_unlock", "op": 2, "keys": ["L"], "reply": null}
)";
  const PropertyResult r = lin(kSingle, retried_unlock(two_runs));
  EXPECT_EQ(r.verdict, Verdict::kOk) << r.reason;
  // Run once, the failure is the only answer: the unlock had no effect, so c1 still held L; a
  // c1 that still believed it held L (no hold_end) is then hurt by c2's grant inside its lease.
  const std::string one_run =
      R"({"t": 5000000, "type": "exec", "node": "node0", "seq": 3, "conn": "c1", "command": "EVAL", "script": "rlock_unlock", "op": 2, "keys": ["L"], "reply": null}
)";
  EXPECT_EQ(lin(kSingle, retried_unlock(one_run, false)).verdict, Verdict::kViolation);
  // While the retried one, even for a believer, took effect at its first run.
  EXPECT_EQ(lin(kSingle, retried_unlock(two_runs, false)).verdict, Verdict::kOk);
}

// A redis-py-style unlock: EVALSHA answered NOSCRIPT, SCRIPT LOAD, EVALSHA again. Only the last
// is a run of the unlock: the first did nothing and SCRIPT LOAD is another command, so neither
// may release early (before the fix the execution order released at the NOSCRIPT and then
// found the real unlock "not held", and a violation elsewhere was explained by that).
TEST(LinearizabilityRegression, AnEvalshaAnsweredNoscriptAndTheScriptLoadAreNotRunsOfTheUnlock) {
  auto history = [](const std::string& first_reply) {
    return R"({"t": 1000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 3000}
{"t": 1100, "type": "exec", "node": "node0", "seq": 1, "conn": "c1", "command": "SET", "op": 1, "args": ["L", "t1", "EX", "3", "NX"], "reply": {"ok": "OK"}}
{"t": 1200, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 2000000, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "unlock"}
{"t": 2000100, "type": "exec", "node": "node0", "seq": 2, "conn": "c1", "command": "EVALSHA", "script": "unlock", "op": 2, "keys": ["L"], "args": ["t1"], "reply": )" +
           first_reply + R"(}
{"t": 2000200, "type": "exec", "node": "node0", "seq": 3, "conn": "c1", "command": "SCRIPT", "op": 2, "args": ["LOAD", "..."], "reply": "sha"}
{"t": 2000300, "type": "exec", "node": "node0", "seq": 4, "conn": "c1", "command": "EVALSHA", "script": "unlock", "op": 2, "keys": ["L"], "args": ["t1"], "reply": 1}
{"t": 2000400, "type": "complete", "id": 2, "outcome": "ok", "released": true}
)";
  };
  const char* simple = R"({"lockstep_history": 1, "lock_kind": "simple", "nodes": ["node0"]})";
  const PropertyResult noscript = lin(simple, history(R"({"err": "NOSCRIPT No matching script. Please use EVAL."})"));
  EXPECT_EQ(noscript.verdict, Verdict::kOk) << noscript.reason;
  EXPECT_EQ(noscript.details.value("locks_by_exec_order", -1), 1) << noscript.details.dump();
  // A first EVALSHA that did run (and released) is a run: the order then tries it first, finds
  // the last one releasing a free lock, and leaves the lock to the search (still legal).
  const PropertyResult ran = lin(simple, history("1"));
  EXPECT_EQ(ran.verdict, Verdict::kOk) << ran.reason;
  EXPECT_EQ(ran.details.value("locks_by_search", -1), 1) << ran.details.dump();
}

// A holder without a lease: the explanation says so instead of a lapse time 2^52 µs away.
TEST(LinearizabilityRegression, AHolderWithoutALeaseIsDescribedAsHavingNone) {
  const char* simple = R"({"lockstep_history": 1, "lock_kind": "simple", "nodes": ["node0"]})";
  const PropertyResult r = lin(simple, R"({"t": 1000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": null}
{"t": 2000, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 5000000, "type": "invoke", "id": 2, "thread": "c2/t0", "owner": "u2:0", "lock": "L", "op": "try_lock", "wait_ms": 0, "lease_ms": 1000}
{"t": 5001000, "type": "complete", "id": 2, "outcome": "ok", "acquired": true}
)");
  ASSERT_EQ(r.verdict, Verdict::kViolation) << r.reason;
  // Refuted without a search: c1's hold certainly lasts (no lease, no later call).
  EXPECT_NE(r.explanation.text.find("was granted while c1/t0 (owner u1:0) held it in every order of the operations"),
            std::string::npos) << r.explanation.text;
  EXPECT_NE(r.explanation.text.find("its grant has no lease, so it never lapses by itself"), std::string::npos)
      << r.explanation.text;
  EXPECT_NE(r.explanation.text.find("c1/t0 held L from 0.002 s (no lease)"), std::string::npos) << r.explanation.text;
  EXPECT_EQ(r.explanation.text.find("may lapse"), std::string::npos) << r.explanation.text;

  // The same holder believed it held the lock until 6 s: the hold is certain until then, by
  // that belief alone.
  const PropertyResult until_unlock = lin(simple, R"({"t": 1000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": null}
{"t": 2000, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 2000, "type": "hold_begin", "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": 1}
{"t": 5000000, "type": "invoke", "id": 2, "thread": "c2/t0", "owner": "u2:0", "lock": "L", "op": "try_lock", "wait_ms": 0, "lease_ms": 1000}
{"t": 5001000, "type": "complete", "id": 2, "outcome": "ok", "acquired": true}
{"t": 6000000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "crash"}
)");
  ASSERT_EQ(until_unlock.verdict, Verdict::kViolation) << until_unlock.reason;
  EXPECT_NE(until_unlock.explanation.text.find("its grant has no lease, its owner believed it held it until then"),
            std::string::npos) << until_unlock.explanation.text;
  EXPECT_EQ(until_unlock.explanation.text.find("its lease and"), std::string::npos) << until_unlock.explanation.text;
}

// c1's lock is granted at 1 s but the reply is lost; the re-sent script re-enters at 4 s (the
// server now counts 2, the client 1); c1's unlock then leaves the lock held (released=false)
// although c1 believes it released it. c2 takes the lock at 6 s, inside the orphaned hold's lease.
std::string lost_grant_reply(bool client_released) {
  std::string text = R"({"t": 900000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 1000000, "type": "exec", "node": "node0", "seq": 1, "conn": "c1", "command": "EVAL", "script": "rlock_acquire", "op": 1, "keys": ["L"], "reply": null}
{"t": 4000000, "type": "exec", "node": "node0", "seq": 2, "conn": "c1", "command": "EVAL", "script": "rlock_acquire", "op": 1, "keys": ["L"], "reply": null}
{"t": 4000100, "type": "complete", "id": 1, "outcome": "ok", "acquired": true, "count": 1}
{"t": 4000100, "type": "hold_begin", "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": 1}
{"t": 5000000, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "unlock"}
)";
  if (client_released) text += R"({"t": 5000000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "unlock"})" "\n";
  text += R"({"t": 5000100, "type": "exec", "node": "node0", "seq": 3, "conn": "c1", "command": "EVAL", "script": "rlock_unlock", "op": 2, "keys": ["L"], "reply": 0}
{"t": 5000200, "type": "complete", "id": 2, "outcome": "ok", "released": false}
{"t": 6000000, "type": "invoke", "id": 3, "thread": "c2/t0", "owner": "u2:0", "lock": "L", "op": "try_lock", "wait_ms": 0, "lease_ms": 30000}
{"t": 6000100, "type": "exec", "node": "node0", "seq": 4, "conn": "c2", "command": "EVAL", "script": "rlock_acquire", "op": 3, "keys": ["L"], "reply": null}
{"t": 6000200, "type": "complete", "id": 3, "outcome": "ok", "acquired": true, "count": 1}
)";
  return text;
}

TEST(LinearizabilityRegression, AnUnseenGrantReentersAndItsOrphanedHoldProtectsNobody) {
  // The server's count of 2 explains released=false; nobody believes in the remaining hold, so
  // its early lapse (c2's grant) harms nobody.
  const PropertyResult r = lin(kSingle, lost_grant_reply(true));
  EXPECT_EQ(r.verdict, Verdict::kOk) << r.reason;
  // Had c1 kept believing it held L (no hold_end), c2's grant inside the lease is an early lapse.
  EXPECT_EQ(lin(kSingle, lost_grant_reply(false)).verdict, Verdict::kViolation);
}

TEST(LinearizabilityRegression, AnUnseenGrantThatLapsedIsFollowedByAFreshOne) {
  // c1's first grant (2 s lease) is unseen and lapses; c3's tryLock at 1.5 s fails because of it;
  // c4 holds L from 5 s to 6 s; c1's re-sent script takes the lock afresh at 9 s.
  const std::string text = R"({"t": 500000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 2000}
{"t": 1000000, "type": "exec", "node": "node0", "seq": 1, "conn": "c1", "command": "EVAL", "script": "rlock_acquire", "op": 1, "keys": ["L"], "reply": null}
{"t": 1500000, "type": "invoke", "id": 2, "thread": "c3/t0", "owner": "u3:0", "lock": "L", "op": "try_lock", "wait_ms": 0, "lease_ms": 2000}
{"t": 1500100, "type": "exec", "node": "node0", "seq": 2, "conn": "c3", "command": "EVAL", "script": "rlock_acquire", "op": 2, "keys": ["L"], "reply": 1500}
{"t": 1500200, "type": "complete", "id": 2, "outcome": "ok", "acquired": false}
{"t": 5000000, "type": "invoke", "id": 4, "thread": "c4/t0", "owner": "u4:0", "lock": "L", "op": "try_lock", "wait_ms": 0, "lease_ms": 2000}
{"t": 5000100, "type": "exec", "node": "node0", "seq": 5, "conn": "c4", "command": "EVAL", "script": "rlock_acquire", "op": 4, "keys": ["L"], "reply": null}
{"t": 5000200, "type": "complete", "id": 4, "outcome": "ok", "acquired": true, "count": 1}
{"t": 6000000, "type": "invoke", "id": 5, "thread": "c4/t0", "owner": "u4:0", "lock": "L", "op": "unlock"}
{"t": 6000100, "type": "exec", "node": "node0", "seq": 6, "conn": "c4", "command": "EVAL", "script": "rlock_unlock", "op": 5, "keys": ["L"], "reply": 1}
{"t": 6000200, "type": "complete", "id": 5, "outcome": "ok", "released": true, "count": 0}
{"t": 9000000, "type": "exec", "node": "node0", "seq": 3, "conn": "c1", "command": "EVAL", "script": "rlock_acquire", "op": 1, "keys": ["L"], "reply": null}
{"t": 9000100, "type": "complete", "id": 1, "outcome": "ok", "acquired": true, "count": 1}
{"t": 9500000, "type": "invoke", "id": 3, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "unlock"}
{"t": 9500100, "type": "exec", "node": "node0", "seq": 4, "conn": "c1", "command": "EVAL", "script": "rlock_unlock", "op": 3, "keys": ["L"], "reply": 1}
{"t": 9500200, "type": "complete", "id": 3, "outcome": "ok", "released": true, "count": 0}
)";
  const PropertyResult r = lin(kSingle, text);
  EXPECT_EQ(r.verdict, Verdict::kOk) << r.reason;
  // Without the unseen first grant, c1's own grant must explain c3's failure (at 0.5 s) and its
  // unlock at 9.5 s (so after c4's hold): no single grant does both.
  std::string without = text;
  without.erase(without.find(R"({"t": 1000000, "type": "exec")"), without.find(R"({"t": 1500000)") - without.find(R"({"t": 1000000, "type": "exec")"));
  EXPECT_EQ(lin(kSingle, without).verdict, Verdict::kViolation);
}

// c1 takes L, unlocks with the reply lost (unknown; the unlock ran at 2.1 s), takes L again at
// 3.1 s and holds it until 5 s; c2 is granted L at 4.1 s. `unlock_run` is the unlock's exec line.
std::string late_unknown_unlock(const std::string& unlock_run) {
  return R"({"t": 1000000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 1100000, "type": "exec", "node": "node0", "seq": 1, "conn": "c1", "command": "EVAL", "script": "rlock_acquire", "op": 1, "keys": ["L"], "reply": null}
{"t": 1200000, "type": "complete", "id": 1, "outcome": "ok", "acquired": true, "count": 1}
{"t": 1200000, "type": "hold_begin", "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": 1}
{"t": 2000000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "unlock"}
{"t": 2000000, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "unlock"}
)" + unlock_run + R"({"t": 2900000, "type": "complete", "id": 2, "outcome": "unknown", "error": "command timed out"}
{"t": 3000000, "type": "invoke", "id": 3, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 3100000, "type": "exec", "node": "node0", "seq": 3, "conn": "c1", "command": "EVAL", "script": "rlock_acquire", "op": 3, "keys": ["L"], "reply": null}
{"t": 3200000, "type": "complete", "id": 3, "outcome": "ok", "acquired": true, "count": 1}
{"t": 3200000, "type": "hold_begin", "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": 3}
{"t": 4000000, "type": "invoke", "id": 4, "thread": "c2/t0", "owner": "u2:0", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 4100000, "type": "exec", "node": "node0", "seq": 4, "conn": "c2", "command": "EVAL", "script": "rlock_acquire", "op": 4, "keys": ["L"], "reply": null}
{"t": 4200000, "type": "complete", "id": 4, "outcome": "ok", "acquired": true, "count": 1}
{"t": 5000000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "unlock"}
)";
}

TEST(LinearizabilityRegression, AnUnknownCallTookEffectOnlyWhereItsRunsSay) {
  const std::string ran = R"({"t": 2100000, "type": "exec", "node": "node0", "seq": 2, "conn": "c1", "command": "EVAL", "script": "rlock_unlock", "op": 2, "keys": ["L"], "reply": 1}
)";
  // The exec log says the lost unlock released c1's first hold at 2.1 s: c1's second hold stands
  // and c2's grant inside it is impossible. Had it never reached the node, likewise.
  EXPECT_EQ(lin(kSingle, late_unknown_unlock(ran)).verdict, Verdict::kViolation);
  EXPECT_EQ(lin(kSingle, late_unknown_unlock("")).verdict, Verdict::kViolation);
  // From the client's view alone (no exec log) a lost unlock may be delivered arbitrarily late:
  // at 4.1 s it releases c1's second hold (same owner) and explains c2's grant.
  std::string without_execs = late_unknown_unlock("");
  for (size_t at; (at = without_execs.find(R"("type": "exec")")) != std::string::npos;) {
    const size_t begin = without_execs.rfind('\n', at) + 1;
    without_execs.erase(begin, without_execs.find('\n', at) + 1 - begin);
  }
  EXPECT_EQ(lin(kSingle, without_execs).verdict, Verdict::kOk);
}

// c1 holds L until 10 s; node0 restarts empty at 2 s; c2's lock is granted at 3.1 s but its reply
// is lost (unknown at 20 s, after c1's hold ended). The story is told at the grant the client
// never saw, when c1 still believed (explore, redisson-lock seed 92: it had no story at all).
TEST(LinearizabilityRegression, AnUnseenGrantsStoryIsToldAtItsRun) {
  const std::string text = R"({"t": 1000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 1100, "type": "exec", "node": "node0", "seq": 1, "conn": "c1", "command": "EVAL", "script": "rlock_acquire", "op": 1, "keys": ["L"], "reply": null}
{"t": 1200, "type": "complete", "id": 1, "outcome": "ok", "acquired": true, "count": 1}
{"t": 1200, "type": "hold_begin", "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": 1}
{"t": 2000000, "type": "data_loss", "node": "node0", "reason": "restart", "keys": ["L"]}
{"t": 3000000, "type": "invoke", "id": 2, "thread": "c2/t0", "owner": "u2:0", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 3100000, "type": "exec", "node": "node0", "seq": 1, "conn": "c2", "command": "EVAL", "script": "rlock_acquire", "op": 2, "keys": ["L"], "reply": null}
{"t": 10000000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "unlock"}
{"t": 20000000, "type": "complete", "id": 2, "outcome": "unknown", "error": "command timed out"}
)";
  const PropertyResult r = lin(kSingle, text);
  EXPECT_EQ(r.verdict, Verdict::kViolation);
  EXPECT_NE(r.explanation.text.find("node0 lost L at 2.000 s (restart)"), std::string::npos) << r.explanation.text;
  EXPECT_NE(r.explanation.text.find("c2/t0 acquired L at 3.100 s while c1/t0 still believed it held it"), std::string::npos)
      << r.explanation.text;
}

// A write→read downgrade by c1, then the write watchdog's renewal that finds no write hold.
std::string downgrade(const char* renewed) {
  return std::string(R"({"t": 0, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "RW", "op": "lock", "mode": "write", "lease_ms": -1}
{"t": 400, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 400, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1:0", "lock": "RW", "op": "lock", "mode": "read", "lease_ms": -1}
{"t": 800, "type": "complete", "id": 2, "outcome": "ok", "acquired": true, "count": 1}
{"t": 1000000, "type": "invoke", "id": 3, "thread": "c1/t0", "owner": "u1:0", "lock": "RW", "op": "unlock", "mode": "write"}
{"t": 1000400, "type": "complete", "id": 3, "outcome": "ok", "released": true, "count": 0}
{"t": 10000000, "type": "invoke", "id": 4, "thread": "c1/t0", "owner": "u1:0", "lock": "RW", "op": "renew", "mode": "write", "lease_ms": 30000}
{"t": 10000400, "type": "complete", "id": 4, "outcome": "ok", "renewed": )") + renewed + R"(}
{"t": 12000000, "type": "invoke", "id": 5, "thread": "c2/t0", "owner": "u2:0", "lock": "RW", "op": "lock", "mode": "read", "lease_ms": -1}
{"t": 12000400, "type": "complete", "id": 5, "outcome": "ok", "acquired": true, "count": 1}
)";
}

TEST(LinearizabilityRegression, AWriteRenewalAfterADowngradeLeavesTheReadHold) {
  const char* header = R"({"lockstep_history": 1, "lock_kind": "rwlock", "nodes": ["node0"]})";
  const PropertyResult r = lin(header, downgrade("false"));
  EXPECT_EQ(r.verdict, Verdict::kOk) << r.reason;
  // A read renewal that found nothing says the key (and the read hold) is gone: before its 30 s
  // lease, that is an early lapse.
  std::string read = downgrade("false");
  read.replace(read.find(R"("op": "renew", "mode": "write")"), 30, R"("op": "renew", "mode": "read" )");
  EXPECT_EQ(lin(header, read).verdict, Verdict::kViolation);
}

// set-nx-px style: c1's unlock finds its key gone (released=false) at `unlock_t_us`.
std::string simple_release_false(int64_t unlock_t_us) {
  const std::string t = std::to_string(unlock_t_us);
  return R"({"t": 0, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 2000}
{"t": 100, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": )" + t + R"(, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "unlock"}
{"t": )" + std::to_string(unlock_t_us + 100) + R"(, "type": "complete", "id": 2, "outcome": "ok", "released": false}
)";
}

TEST(LinearizabilityRegression, ANonReentrantUnlockThatReleasedNothingMeansTheHoldLapsed) {
  const char* simple = R"({"lockstep_history": 1, "lock_kind": "simple", "nodes": ["node0"]})";
  EXPECT_EQ(lin(simple, simple_release_false(3000000)).verdict, Verdict::kOk);       // after the lease
  EXPECT_EQ(lin(simple, simple_release_false(1000000)).verdict, Verdict::kViolation);  // inside it
  // On a quorum lock a partial release has an unknown effect: never an early lapse.
  const char* quorum = R"({"lockstep_history": 1, "lock_kind": "simple", "algorithm": "redlock-spec", "nodes": ["node0", "node1", "node2"], "quorum": 2})";
  EXPECT_EQ(lin(quorum, simple_release_false(1000000)).verdict, Verdict::kOk);
}


// Issue 14: a history converted from another tool can say "no lease" (lease_ms: null); c1 never
// releases, c2 takes the lock over at 40 s.
std::string never_released(const char* lease) {
  return std::string(R"({"t": 0, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "lock", "lease_ms": )") +
         lease + R"(}
{"t": 100, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 40000000, "type": "invoke", "id": 2, "thread": "c2/t0", "owner": "u2", "lock": "L", "op": "lock", "lease_ms": 10000}
{"t": 40000100, "type": "complete", "id": 2, "outcome": "ok", "acquired": true}
)";
}

TEST(LinearizabilityRegression, ANullLeaseNeverLapses) {
  const PropertyResult none = lin(kSingle, never_released("null"));
  EXPECT_EQ(none.verdict, Verdict::kViolation);
  // Said as such, not as a lapse time 142 years on (the stand-in lease of a grant without one).
  // The call's two ends are 100 µs apart: they print in microseconds, not as "40.000 s → 40.000 s".
  EXPECT_NE(none.reason.find("c2/t0's lock (#2, 40.000000 s → 40.000100 s) was granted while c1/t0 (owner u1) held it"),
            std::string::npos) << none.reason;
  EXPECT_NE(none.reason.find("its grant has no lease, so it never lapses by itself"), std::string::npos) << none.reason;
  // A history in microseconds (another tool's ticks): the grant that began the hold reads in
  // microseconds beside the call it is compared with, not as "returned at 0.000 s".
  const PropertyResult ticks = lin(kSingle, R"({"t": 10, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "lock", "lease_ms": null}
{"t": 20, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 30, "type": "invoke", "id": 2, "thread": "c2/t0", "owner": "u2", "lock": "L", "op": "lock", "lease_ms": null}
{"t": 40, "type": "complete", "id": 2, "outcome": "ok", "acquired": true}
)");
  EXPECT_NE(ticks.reason.find("c2/t0's lock (#2, 0.000030 s → 0.000040 s) was granted while c1/t0 (owner u1) held it in every "
                              "order of the operations: its hold began with its lock (#1), returned at 0.000020 s"),
            std::string::npos) << ticks.reason;
  // -1 is the watchdog's default lease (30 s): the takeover at 40 s is legal.
  EXPECT_EQ(lin(kSingle, never_released("-1")).verdict, Verdict::kOk);
  // -2 is no marker: it is refused like any other negative duration.
  const std::string text = std::string(kSingle) + "\n" + never_released("-2");
  Result<History> h = parse_history_text(text, "<test>");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("lease_ms"), std::string::npos) << h.status().message();
}

TEST(MutualExclusionRegression, AHistoryWithoutHoldsIsNotApplicable) {
  const std::string text = std::string(kSingle) + "\n" + never_released("null") +
                           R"({"t": 900000000, "type": "end", "complete": true})" + "\n";
  Result<History> h = parse_history_text(text, "<test>");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(check_mutual_exclusion(h.value(), CheckOptions{}).verdict, Verdict::kNotApplicable);
}

// The other way round: holds alone (another tool's intervals) leave nothing to linearize; and a
// history where no property finds its events says that nothing was checked, instead of "ok".
TEST(LinearizabilityRegression, AHistoryWithoutOperationsIsNotApplicable) {
  const std::string holds = std::string(kSingle) + "\n" + R"({"t": 0, "type": "hold_begin", "thread": "c1", "lock": "L"}
{"t": 50, "type": "hold_end", "thread": "c1", "lock": "L", "reason": "unlock"}
{"t": 80, "type": "end"}
)";
  Result<History> h = parse_history_text(holds, "<test>");
  ASSERT_TRUE(h.ok()) << h.status().message();
  const CheckResult r = check_history(h.value());
  EXPECT_EQ(r.property("linearizability").verdict, Verdict::kNotApplicable);
  EXPECT_EQ(r.property("mutual_exclusion").verdict, Verdict::kOk);
  EXPECT_EQ(r.overall(), Verdict::kOk);

  Result<History> empty = parse_history_text(std::string(kSingle) + "\n" + R"({"t": 5, "type": "end"})" + "\n", "<test>");
  ASSERT_TRUE(empty.ok());
  const CheckResult nothing = check_history(empty.value());
  EXPECT_EQ(nothing.overall(), Verdict::kNotApplicable);
  EXPECT_EQ(nothing.exit_code(), 0);
  EXPECT_EQ(nothing.to_json()["verdict"], "not_applicable");
  EXPECT_NE(nothing.to_text().find("nothing was checked"), std::string::npos) << nothing.to_text();
}

// A log of operations alone (another tool's) does not say who believed they held the lock: c1's
// grant without a lease is never released and c2 waits, as it should. Liveness used to call that
// a stuck waiter "while no other owner believed it held it".
TEST(LivenessRegression, OperationsWithoutHoldsAreNotApplicable) {
  const std::string text = R"({"lockstep_history": 1, "lock_kind": "reentrant", "liveness_bound_ms": 1000}
{"t": 0, "type": "invoke", "id": 1, "thread": "c1", "lock": "L", "op": "lock", "lease_ms": null}
{"t": 10, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 40, "type": "invoke", "id": 2, "thread": "c2", "lock": "L", "op": "lock", "lease_ms": 5000}
{"t": 9000000, "type": "end"}
)";
  Result<History> h = parse_history_text(text, "<test>");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(check_history(h.value()).property("liveness").verdict, Verdict::kNotApplicable);
  // With the hold recorded, the same history is judged (and c1's hold keeps c2 waiting: ok).
  std::string with_hold = text;
  with_hold.insert(with_hold.find("{\"t\": 40"), R"({"t": 10, "type": "hold_begin", "thread": "c1", "lock": "L", "op": 1})" "\n");
  Result<History> held = parse_history_text(with_hold, "<test>");
  ASSERT_TRUE(held.ok()) << held.status().message();
  EXPECT_EQ(check_history(held.value()).property("liveness").verdict, Verdict::kOk);
}

// Issue 14: the explanation names the holder that was in the way, not an owner the search had
// granted ahead. c3 waits (its call is still open) while c1 holds; c2's tryLock fails.
TEST(LinearizabilityRegression, TheStoryNamesTheBelievedHolder) {
  const std::string lines = R"({"t": 0, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 100, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 100, "type": "hold_begin", "thread": "c1/t0", "owner": "u1", "lock": "L", "op": 1}
{"t": 200, "type": "invoke", "id": 2, "thread": "c3/t0", "owner": "u3", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 1000000, "type": "invoke", "id": 3, "thread": "c2/t0", "owner": "u2", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 1000100, "type": "complete", "id": 3, "outcome": "ok", "acquired": true}
{"t": 1000100, "type": "hold_begin", "thread": "c2/t0", "owner": "u2", "lock": "L", "op": 3}
)";
  const PropertyResult r = lin(kSingle, lines);
  ASSERT_EQ(r.verdict, Verdict::kViolation);
  EXPECT_NE(r.explanation.text.find("c1/t0 held L from"), std::string::npos) << r.explanation.text;
  EXPECT_EQ(r.explanation.text.find(".."), std::string::npos) << r.explanation.text;
}


// One event per master, at t0_us, t0_us + 1, ...: `rest` follows `"node": "nodeN"`.
std::string on_each_node(int64_t t0_us, const std::string& type, const std::string& rest) {
  std::string out;
  for (int n = 0; n < 3; n++) {
    out += R"({"t": )" + std::to_string(t0_us + n) + R"(, "type": ")" + type + R"(", "node": "node)" +
           std::to_string(n) + "\"" + rest + "}\n";
  }
  return out;
}

// Issue 9: c1 takes L on three masters (SET NX, validity 9 s) and releases it at 1 s; c2 takes
// it at 2 s and its keys expire at 3 s. The expiry is c2's key's, not c1's: c1 held a live
// quorum for its whole hold.
TEST(QuorumRegression, AKeyDeathAfterTheHoldersReleaseIsNotItsDeath) {
  std::string text = R"({"lockstep_history": 1, "lock_kind": "simple", "algorithm": "redlock-spec", "nodes": ["node0", "node1", "node2"], "quorum": 2}
{"t": 0, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "lock", "lease_ms": 10000}
)";
  text += on_each_node(100, "exec", R"(, "seq": 1, "conn": "c1", "command": "SET", "op": 1, "args": ["L", "v1", "NX", "PX", "10000"], "reply": {"ok": "OK"})");
  text += R"({"t": 200, "type": "complete", "id": 1, "outcome": "ok", "acquired": true, "validity_ms": 9000}
{"t": 200, "type": "hold_begin", "thread": "c1/t0", "owner": "u1", "lock": "L", "op": 1}
{"t": 1000000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "unlock"}
{"t": 1000000, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "unlock"}
)";
  text += on_each_node(1000100, "exec", R"(, "seq": 2, "conn": "c1", "command": "EVAL", "script": "redlock_release", "op": 2, "keys": ["L"], "reply": 1)");
  text += R"({"t": 1000200, "type": "complete", "id": 2, "outcome": "ok", "released": true, "count": 0}
{"t": 2000000, "type": "invoke", "id": 3, "thread": "c2/t0", "owner": "u2", "lock": "L", "op": "lock", "lease_ms": 1000}
)";
  text += on_each_node(2000100, "exec", R"(, "seq": 3, "conn": "c2", "command": "SET", "op": 3, "args": ["L", "v2", "NX", "PX", "1000"], "reply": {"ok": "OK"})");
  text += R"({"t": 2000200, "type": "complete", "id": 3, "outcome": "ok", "acquired": true, "validity_ms": 900}
{"t": 2000200, "type": "hold_begin", "thread": "c2/t0", "owner": "u2", "lock": "L", "op": 3}
{"t": 2500000, "type": "hold_end", "thread": "c2/t0", "lock": "L", "reason": "crash"}
)";
  text += on_each_node(3000100, "expire", R"(, "key": "L")");
  text += R"({"t": 9000000, "type": "end", "complete": true})" "\n";
  Result<History> h = parse_history_text(text, "<test>");
  ASSERT_TRUE(h.ok()) << h.status().message();
  const PropertyResult r = check_quorum(h.value(), CheckOptions{});
  EXPECT_EQ(r.verdict, Verdict::kOk) << r.reason;
  // Without c1's release the expiry at 3 s would end c1's keys inside its 9 s validity.
  const std::string kept = text.substr(0, text.find(R"({"t": 1000100)")) + text.substr(text.find(R"({"t": 1000200, "type": "complete")"));
  Result<History> k = parse_history_text(kept, "<test>");
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(check_quorum(k.value(), CheckOptions{}).verdict, Verdict::kViolation);
}


// Found exploring redlock-spec (seed 872 of 1,000): a retry's SET queued on a paused node was
// granted 24 s after the client had declared the lock with two other nodes. That grant was never
// part of the quorum the client counted, yet it was counted as a live key at the declaration: a
// quorum lost to a restart inside the validity was hidden (3 "live" keys, 1 lost), and in the
// seed's own history the explanation named one death six times, "1 of its 8 live key(s)".
TEST(QuorumRegression, AGrantAfterTheDeclarationIsNotPartOfTheQuorum) {
  // node0's grant (and the release of that attempt) at `node0_t_us`.
  auto history = [](int64_t node0_t_us) {
    const std::string node0 = "{\"t\": " + std::to_string(node0_t_us) +
                              R"(, "type": "exec", "node": "node0", "seq": 1, "conn": "c1", "command": "SET", "op": 1, "args": ["L", "v1", "NX", "PX", "10000"], "reply": {"ok": "OK"}})" "\n";
    const bool late = node0_t_us > 3000000;
    return std::string(R"({"lockstep_history": 1, "lock_kind": "simple", "algorithm": "redlock-spec", "nodes": ["node0", "node1", "node2"], "quorum": 2}
{"t": 0, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "try_lock", "lease_ms": 10000}
)") + (late ? "" : node0) +
           R"({"t": 100, "type": "exec", "node": "node1", "seq": 1, "conn": "c1", "command": "SET", "op": 1, "args": ["L", "v2", "NX", "PX", "10000"], "reply": {"ok": "OK"}}
{"t": 100, "type": "exec", "node": "node2", "seq": 1, "conn": "c1", "command": "SET", "op": 1, "args": ["L", "v2", "NX", "PX", "10000"], "reply": {"ok": "OK"}}
{"t": 200, "type": "complete", "id": 1, "outcome": "ok", "acquired": true, "validity_ms": 9000}
{"t": 200, "type": "hold_begin", "thread": "c1/t0", "owner": "u1", "lock": "L", "op": 1}
{"t": 3000000, "type": "data_loss", "node": "node2", "reason": "restart", "keys": ["L"]}
)" + (late ? node0 + R"({"t": 5000000, "type": "exec", "node": "node0", "seq": 2, "conn": "c1", "command": "EVAL", "script": "redlock_release", "keys": ["L"], "args": ["v1"], "reply": 1})" "\n"
                   : "") +
           R"({"t": 8000000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "unlock"}
{"t": 9000000, "type": "end", "complete": true}
)";
  };
  Result<History> h = parse_history_text(history(5000000), "<test>");
  ASSERT_TRUE(h.ok()) << h.status().message();
  const PropertyResult r = check_quorum(h.value(), CheckOptions{});
  EXPECT_EQ(r.verdict, Verdict::kViolation) << r.reason;
  EXPECT_NE(r.explanation.text.find("lost its quorum at 3.000 s: node2 lost its key at 3.000 s (restart), leaving 1 of its "
                                    "2 live key(s), below the quorum of 2"),
            std::string::npos)
      << r.explanation.text;
  EXPECT_EQ(r.explanation.text.find("node0"), std::string::npos) << r.explanation.text;
  // Granted before the declaration, node0's key is part of the quorum, which then survives node2's loss.
  Result<History> early = parse_history_text(history(50), "<test>");
  ASSERT_TRUE(early.ok()) << early.status().message();
  EXPECT_EQ(check_quorum(early.value(), CheckOptions{}).verdict, Verdict::kOk);
}

// Issue 9: two locks fence one resource, each with its own token counter. L1's token 7 after
// L2's token 40 is no regression: only tokens of the same lock compare.
TEST(FencingRegression, TokensOfDifferentLocksDoNotCompare) {
  auto history = [](int64_t second_l1_token) {
    return std::string(kSingle) + "\n" +
           R"({"t": 100, "type": "write", "thread": "c1/t0", "owner": "u1", "lock": "L1", "resource": "R", "token": 5, "fenced": true, "accepted": true}
{"t": 200, "type": "write", "thread": "c2/t0", "owner": "u2", "lock": "L2", "resource": "R", "token": 40, "fenced": true, "accepted": true}
{"t": 300, "type": "write", "thread": "c1/t0", "owner": "u1", "lock": "L1", "resource": "R", "token": )" +
           std::to_string(second_l1_token) + R"(, "fenced": true, "accepted": true}
{"t": 900000, "type": "end", "complete": true}
)";
  };
  Result<History> ok = parse_history_text(history(7), "<test>");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(check_fencing(ok.value(), CheckOptions{}).verdict, Verdict::kOk);
  // Within L1 a lower token is a regression.
  Result<History> bad = parse_history_text(history(3), "<test>");
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(check_fencing(bad.value(), CheckOptions{}).verdict, Verdict::kViolation);
}

// Issue 9: script_invariants read the fair lock's timeout key as a sorted set without looking at
// its type: a key of another type is itself the broken invariant, named as such.
TEST(ScriptInvariantsRegression, AKeyOfTheWrongTypeIsNamed) {
  const std::string text = R"({"lockstep_history": 1, "lock_kind": "reentrant", "fair": true, "nodes": ["node0"]}
{"t": 100, "type": "state", "node": "node0", "seq": 1, "key": "redisson_lock_queue:{L}", "value": {"type": "list", "strings": ["u1:1"]}}
{"t": 100, "type": "state", "node": "node0", "seq": 1, "key": "redisson_lock_timeout:{L}", "value": {"type": "hash", "strings": ["u1:1", "5000"]}}
{"t": 900000, "type": "end", "complete": true}
)";
  Result<History> h = parse_history_text(text, "<test>");
  ASSERT_TRUE(h.ok()) << h.status().message();
  const PropertyResult r = check_script_invariants(h.value(), CheckOptions{});
  EXPECT_EQ(r.verdict, Verdict::kViolation);
  EXPECT_NE(r.reason.find("holds a hash, not a sorted set"), std::string::npos) << r.reason;
}


// Issue 9 (found by tests/ground_truth): a RedLock history in which nothing was acquired has no
// quorum to count: ok, not "unknown". With a granted acquisition and no per-node executions the
// history cannot say which nodes granted it: unknown.
TEST(QuorumRegression, NoAcquisitionMeansNothingToCountButAGrantWithoutExecsIsUnknown) {
  const std::string header =
      R"({"lockstep_history": 1, "lock_kind": "redlock", "nodes": ["node0", "node1", "node2"], "quorum": 2})" "\n";
  const std::string end = R"({"t": 9000000, "type": "end", "complete": true})" "\n";
  Result<History> none = parse_history_text(header + kFailedTryOnFreeLock + end, "<test>");
  ASSERT_TRUE(none.ok()) << none.status().message();
  const PropertyResult ok = check_quorum(none.value(), CheckOptions{});
  EXPECT_EQ(ok.verdict, Verdict::kOk) << ok.reason;
  const std::string granted = R"({"t": 1000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 10000}
{"t": 2000, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
)";
  Result<History> g = parse_history_text(header + granted + end, "<test>");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(check_quorum(g.value(), CheckOptions{}).verdict, Verdict::kUnknown);
}

// Issue 9 (found by tests/ground_truth): a read-write lock history in which no script ran (the
// threads only slept) has no key state to judge: ok. A script that ran without its state
// recorded leaves the property unable to decide: unknown.
TEST(ScriptInvariantsRegression, NoScriptRanIsOkButAScriptWithoutStatesIsUnknown) {
  const std::string header = R"({"lockstep_history": 1, "lock_kind": "rwlock", "nodes": ["node0"]})" "\n";
  const std::string end = R"({"t": 9000000, "type": "end", "complete": true})" "\n";
  Result<History> idle = parse_history_text(header + end, "<test>");
  ASSERT_TRUE(idle.ok()) << idle.status().message();
  EXPECT_EQ(check_script_invariants(idle.value(), CheckOptions{}).verdict, Verdict::kOk);
  const std::string exec =
      R"({"t": 100, "type": "exec", "node": "node0", "seq": 1, "conn": "c1", "command": "EVAL", "script": "rw_read_acquire", "keys": ["L"], "reply": null})" "\n";
  Result<History> ran = parse_history_text(header + exec + end, "<test>");
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  EXPECT_EQ(check_script_invariants(ran.value(), CheckOptions{}).verdict, Verdict::kUnknown);
  // Lock calls but no exec event at all: another tool's log without the server side. That no
  // script ran cannot be told from it (it said ok: "no lock script ran").
  const std::string call = R"({"t": 100, "type": "invoke", "id": 1, "thread": "c1", "lock": "L", "op": "lock", "mode": "read", "lease_ms": 1000}
{"t": 200, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
)";
  Result<History> calls = parse_history_text(header + call + end, "<test>");
  ASSERT_TRUE(calls.ok()) << calls.status().message();
  EXPECT_EQ(check_script_invariants(calls.value(), CheckOptions{}).verdict, Verdict::kNotApplicable);
}


// Issue 15's run of tests/ground_truth (1,500 cases): a fair-lock history with no acquisition at
// all (the script only force-unlocked, and the replay without force unlocks only slept) has no
// grants to order: ok. An acquisition without exec events leaves the order unknown.
TEST(FairnessRegression, NoAcquisitionIsOkButAGrantWithoutExecsIsUnknown) {
  const std::string header = R"({"lockstep_history": 1, "lock_kind": "reentrant", "fair": true, "nodes": ["node0"]})" "\n";
  const std::string end = R"({"t": 9000000, "type": "end", "complete": true})" "\n";
  Result<History> idle = parse_history_text(header + end, "<test>");
  ASSERT_TRUE(idle.ok()) << idle.status().message();
  EXPECT_EQ(check_fairness(idle.value(), CheckOptions{}).verdict, Verdict::kOk);
  const std::string granted = R"({"t": 1000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": 10000}
{"t": 2000, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
)";
  Result<History> g = parse_history_text(header + granted + end, "<test>");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(check_fairness(g.value(), CheckOptions{}).verdict, Verdict::kUnknown);
}


// Found by exploring the derived profiles with every property on (issue 13): two liveness false
// alarms about renewals after an unlock.
//  - set-nx-px: a renewal renewed on the new master, and a re-sent attempt ran much later on the
//    demoted one (answering 0): the renewal took effect at its successful run, not its last.
//  - redlock-spec: a paused master ran its queue when it resumed — the renewals the client had
//    sent before its unlock, then the unlock: on that node the renewals came before the unlock.
std::string renewal_history(const std::string& lock_kind, const std::string& nodes, const std::string& body) {
  return R"({"lockstep_history": 1, "lock_kind": ")" + lock_kind + R"(", "nodes": )" + nodes +
         R"(, "liveness_bound_ms": 60000})" "\n" + body + R"({"t": 150000000, "type": "end", "complete": true})" "\n";
}

const char* kHeld = R"({"t": 1000, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "lock", "lease_ms": -1}
{"t": 2000, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 2000, "type": "hold_begin", "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": 1}
)";

TEST(LivenessRegression, ARenewalTookEffectAtItsSuccessfulRunNotALateFailedOne) {
  const std::string body = std::string(kHeld) + R"({"t": 10000000, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "renew", "lease_ms": 30000}
{"t": 10000100, "type": "exec", "node": "node1", "seq": 5, "conn": "c1", "command": "EVAL", "script": "renew", "op": 2, "keys": ["L"], "reply": 1}
{"t": 10000200, "type": "complete", "id": 2, "outcome": "ok", "renewed": true}
{"t": 20000000, "type": "invoke", "id": 3, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "unlock"}
{"t": 20000000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "unlock"}
{"t": 20000100, "type": "exec", "node": "node1", "seq": 6, "conn": "c1", "command": "EVAL", "script": "unlock", "op": 3, "keys": ["L"], "reply": 1}
{"t": 20000200, "type": "complete", "id": 3, "outcome": "ok", "released": true}
{"t": 40000000, "type": "exec", "node": "node0", "seq": 9, "conn": "c1", "command": "EVAL", "script": "renew", "op": 2, "keys": ["L"], "reply": 0}
)";
  Result<History> h = parse_history_text(renewal_history("simple", R"(["node0", "node1"])", body), "<test>");
  ASSERT_TRUE(h.ok()) << h.status().message();
  const PropertyResult r = check_liveness(h.value(), CheckOptions{});
  EXPECT_EQ(r.verdict, Verdict::kOk) << r.reason;
}

// The redlock case, and the same runs with node0 running the unlock first and node1 running a
// re-sent extension after the unlock: two keys of three re-armed for an owner that released — a
// zombie that keeps the lock from any quorum.
std::string paused_master(bool unlock_first) {
  const std::string n0_renew_seq = unlock_first ? "12" : "10";
  const std::string n0_unlock_seq = unlock_first ? "10" : "11";
  return std::string(kHeld) + R"({"t": 96000000, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "renew", "lease_ms": 30000}
{"t": 96000100, "type": "exec", "node": "node1", "seq": 5, "conn": "c1", "command": "EVAL", "script": "extend", "op": 2, "keys": ["L"], "reply": 1}
{"t": 96000100, "type": "exec", "node": "node2", "seq": 5, "conn": "c1", "command": "EVAL", "script": "extend", "op": 2, "keys": ["L"], "reply": 1}
{"t": 96050000, "type": "complete", "id": 2, "outcome": "ok", "renewed": true}
{"t": 109000000, "type": "invoke", "id": 3, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "unlock"}
{"t": 109000000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "unlock"}
{"t": 109000100, "type": "exec", "node": "node1", "seq": 6, "conn": "c1", "command": "EVAL", "script": "release", "op": 3, "keys": ["L"], "reply": 1}
{"t": 109000100, "type": "exec", "node": "node2", "seq": 6, "conn": "c1", "command": "EVAL", "script": "release", "op": 3, "keys": ["L"], "reply": 1}
{"t": 109050000, "type": "complete", "id": 3, "outcome": "ok", "released": true}
)" + (unlock_first ? R"({"t": 114000000, "type": "exec", "node": "node0", "seq": )" + n0_unlock_seq + R"(, "conn": "c1", "command": "EVAL", "script": "release", "op": 3, "keys": ["L"], "reply": 0}
{"t": 114000000, "type": "exec", "node": "node0", "seq": )" + n0_renew_seq + R"(, "conn": "c1", "command": "EVAL", "script": "extend", "op": 2, "keys": ["L"], "reply": 1}
{"t": 115000000, "type": "exec", "node": "node1", "seq": 7, "conn": "c1", "command": "EVAL", "script": "extend", "op": 2, "keys": ["L"], "reply": 1}
)"
                                      : R"({"t": 114000000, "type": "exec", "node": "node0", "seq": )" + n0_renew_seq + R"(, "conn": "c1", "command": "EVAL", "script": "extend", "op": 2, "keys": ["L"], "reply": 1}
{"t": 114000000, "type": "exec", "node": "node0", "seq": )" + n0_unlock_seq + R"(, "conn": "c1", "command": "EVAL", "script": "release", "op": 3, "keys": ["L"], "reply": 1}
)");
}

TEST(LivenessRegression, OnEachNodeARenewalBeforeTheUnlockIsTheLocksOwn) {
  const std::string nodes = R"(["node0", "node1", "node2"], "quorum": 2)";
  Result<History> before = parse_history_text(renewal_history("redlock", nodes, paused_master(false)), "<test>");
  ASSERT_TRUE(before.ok()) << before.status().message();
  const PropertyResult ok = check_liveness(before.value(), CheckOptions{});
  EXPECT_EQ(ok.verdict, Verdict::kOk) << ok.reason;
  Result<History> after = parse_history_text(renewal_history("redlock", nodes, paused_master(true)), "<test>");
  ASSERT_TRUE(after.ok()) << after.status().message();
  const PropertyResult zombie = check_liveness(after.value(), CheckOptions{});
  EXPECT_EQ(zombie.verdict, Verdict::kViolation) << zombie.reason;
  EXPECT_NE(zombie.reason.find("kept alive by a renewal"), std::string::npos) << zombie.reason;
}


// Also found by exploring redlock-spec's derived profile: its extension answered "not renewed"
// because two of three masters were paused (no quorum), while the keys were all still there —
// an availability outcome, not an impossible operation; and a paused master, resumed after the
// hold was lost, ran a queued extension: one key of three re-armed, the lock still free for a
// quorum of the others.
TEST(QuorumRegression, AFailedExtensionAndAMinorityLateRenewalAreNotViolations) {
  const std::string header =
      R"({"lockstep_history": 1, "lock_kind": "redlock", "nodes": ["node0", "node1", "node2"], "quorum": 2, "liveness_bound_ms": 60000})" "\n";
  const std::string body = std::string(kHeld) + R"({"t": 10000000, "type": "invoke", "id": 2, "thread": "c1/t0", "owner": "u1:0", "lock": "L", "op": "renew", "lease_ms": 30000}
{"t": 10000100, "type": "exec", "node": "node2", "seq": 5, "conn": "c1", "command": "EVAL", "script": "extend", "op": 2, "keys": ["L"], "reply": 1}
{"t": 10050000, "type": "complete", "id": 2, "outcome": "ok", "renewed": false}
{"t": 10050000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "lost"}
{"t": 40000000, "type": "exec", "node": "node0", "seq": 9, "conn": "c1", "command": "EVAL", "script": "extend", "op": 2, "keys": ["L"], "reply": 1}
{"t": 150000000, "type": "end", "complete": true}
)";
  Result<History> h = parse_history_text(header + body, "<test>");
  ASSERT_TRUE(h.ok()) << h.status().message();
  const PropertyResult lin = check_linearizability(h.value(), CheckOptions{});
  EXPECT_EQ(lin.verdict, Verdict::kOk) << lin.reason;
  const PropertyResult live = check_liveness(h.value(), CheckOptions{});
  EXPECT_EQ(live.verdict, Verdict::kOk) << live.reason;
}


// Refutations without a search: a hold the history proves lasted, and another owner's grant
// inside it. c1 takes the write lock with a 2 ms lease; c2's read is granted at 5–6 ms, after that
// lease could have run out; but c1's unlock at 10 ms still released the write hold, and no
// acquisition of c1 came between, so the hold was there all along.
const char* kRw = R"({"lockstep_history": 1, "lock_kind": "rwlock", "nodes": ["node0"], "drift_tolerance_us": 0})";
std::string write_read_unlock(const std::string& between) {
  return R"({"t": 0, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "lock", "mode": "write", "lease_ms": 2}
{"t": 1000, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 5000, "type": "invoke", "id": 2, "thread": "c2/t0", "owner": "u2", "lock": "L", "op": "lock", "mode": "read", "lease_ms": 1}
{"t": 6000, "type": "complete", "id": 2, "outcome": "ok", "acquired": true}
)" + between + R"({"t": 10000, "type": "invoke", "id": 3, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "unlock", "mode": "write"}
{"t": 11000, "type": "complete", "id": 3, "outcome": "ok", "released": true}
)";
}

TEST(CertainHolds, AGrantInsideAHoldItsOwnersUnlockStillReleasedIsRefuted) {
  const PropertyResult r = lin(kRw, write_read_unlock(""));
  ASSERT_EQ(r.verdict, Verdict::kViolation) << r.reason;
  EXPECT_EQ(r.reason,
            "lock L is not linearizable: c2/t0's lock (#2, 0.005 s → 0.006 s) and c1/t0's unlock (#3, invoked at "
            "0.010 s, released: true) cannot both have taken effect: the grant needs the hold (write) of c1/t0 (owner "
            "u1) gone, the unlock needs it still there, and c1/t0 made no acquisition in between (its hold began with "
            "its lock (#1), returned at 0.001 s)");
  EXPECT_EQ(r.counterexample.at("holder_op").at("id"), 1);
  EXPECT_EQ(r.explanation.facts.at("held_until_us"), 10000);
}

// The same, but c1 made a call of unknown outcome in between: its hold may have lapsed (2 ms), the
// read been granted, and the lost lock (granted once c2's 1 ms lease ran out) made the hold its
// unlock released. Legal: no certainty, and the search finds that order.
TEST(CertainHolds, AnUnknownAcquisitionOfTheHolderInBetweenLeavesItToTheSearch) {
  const PropertyResult r = lin(kRw, write_read_unlock(
      R"({"t": 7000, "type": "invoke", "id": 4, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "lock", "mode": "write", "lease_ms": 2}
{"t": 8000, "type": "complete", "id": 4, "outcome": "unknown"}
)"));
  EXPECT_EQ(r.verdict, Verdict::kOk) << r.reason;
}

// A force_unlock may end any hold, lease or not: c1's hold without a lease is then not certain,
// and c2's later grant is legal.
TEST(CertainHolds, AForceUnlockEndsTheCertainty) {
  const std::string lines = R"({"t": 0, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "lock", "lease_ms": null}
{"t": 1000, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 3000, "type": "invoke", "id": 2, "thread": "c3/t0", "owner": "u3", "lock": "L", "op": "force_unlock"}
{"t": 4000, "type": "complete", "id": 2, "outcome": "ok", "released": true}
{"t": 5000, "type": "invoke", "id": 3, "thread": "c2/t0", "owner": "u2", "lock": "L", "op": "lock", "lease_ms": 10000}
{"t": 6000, "type": "complete", "id": 3, "outcome": "ok", "acquired": true}
)";
  EXPECT_EQ(lin(kSingle, lines).verdict, Verdict::kOk);
  // Without the force_unlock, c2's grant is refuted by c1's hold, which has no lease.
  const std::string without = lines.substr(0, lines.find("{\"t\": 3000")) + lines.substr(lines.find("{\"t\": 5000"));
  const PropertyResult r = lin(kSingle, without);
  ASSERT_EQ(r.verdict, Verdict::kViolation) << r.reason;
  EXPECT_NE(r.reason.find("its grant has no lease, so it never lapses by itself"), std::string::npos) << r.reason;
}

// The holder's own renewal that found nothing, while its lease and belief protected the hold.
TEST(CertainHolds, ARenewalThatFoundTheHoldGoneInsideItsLeaseIsRefuted) {
  const std::string lines = R"({"t": 0, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "lock", "lease_ms": 30000}
{"t": 1000, "type": "complete", "id": 1, "outcome": "ok", "acquired": true}
{"t": 1000, "type": "hold_begin", "thread": "c1/t0", "owner": "u1", "lock": "L", "op": 1}
{"t": 2000, "type": "invoke", "id": 2, "thread": "c1/watchdog", "owner": "u1", "lock": "L", "op": "renew", "lease_ms": 30000}
{"t": 3000, "type": "complete", "id": 2, "outcome": "ok", "renewed": false}
{"t": 3000, "type": "hold_end", "thread": "c1/t0", "lock": "L", "reason": "lost"}
)";
  const PropertyResult r = lin(kSingle, lines);
  ASSERT_EQ(r.verdict, Verdict::kViolation) << r.reason;
  // The renewal's return and the hold's protection end read alike in milliseconds: both print in
  // microseconds (the protection lasts through the instant the owner learned of the loss).
  EXPECT_NE(r.reason.find("c1/watchdog's renew (#2, 0.002 s → 0.003000 s) found its hold gone while it still held it"),
            std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("no step the lock allows could end that hold before 0.003001 s"), std::string::npos) << r.reason;
}


// c1's lock ran twice at the same instant (its first reply lost, the re-sent script re-entered);
// c2 is granted at 5 ms, inside c1's 10 s lease. The search used to place the first run (a
// phantom: a grant nobody saw) after the call's own run, as a fresh grant after an unseen lapse,
// whose hold protects nobody, and accept c2's grant. A call's earlier runs come before its own.
TEST(LinearizabilityRegression, ACallsEarlierRunsComeBeforeItsOwnRunAtTheSameInstant) {
  const std::string text = std::string(kSingle) + "\n" +
      R"({"t": 0, "type": "invoke", "id": 1, "thread": "c1/t0", "owner": "u1", "lock": "L", "op": "lock", "lease_ms": 10000}
{"t": 1000, "type": "exec", "node": "node0", "seq": 1, "conn": "c1", "command": "EVALSHA", "script": "acquire", "op": 1, "keys": ["L"], "reply": null}
{"t": 1000, "type": "exec", "node": "node0", "seq": 2, "conn": "c1", "command": "EVALSHA", "script": "acquire", "op": 1, "keys": ["L"], "reply": null}
{"t": 2000, "type": "complete", "id": 1, "outcome": "ok", "acquired": true, "count": 1}
{"t": 2000, "type": "hold_begin", "thread": "c1/t0", "owner": "u1", "lock": "L", "op": 1}
{"t": 5000, "type": "invoke", "id": 2, "thread": "c2/t0", "owner": "u2", "lock": "L", "op": "lock", "lease_ms": 10000}
{"t": 5500, "type": "exec", "node": "node0", "seq": 3, "conn": "c2", "command": "EVALSHA", "script": "acquire", "op": 2, "keys": ["L"], "reply": null}
{"t": 6000, "type": "complete", "id": 2, "outcome": "ok", "acquired": true, "count": 1}
{"t": 900000000, "type": "end", "complete": true}
)";
  Result<History> h = parse_history_text(text, "<test>");
  ASSERT_TRUE(h.ok()) << h.status().message();
  CheckOptions options;
  options.certain_holds = false;  // the search's own verdict
  const PropertyResult r = check_linearizability(h.value(), options);
  ASSERT_EQ(r.verdict, Verdict::kViolation) << r.reason;
  EXPECT_NE(r.reason.find("held by c1/t0 (owner u1), whose lease cannot lapse before 10.001 s"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace lockstep::checker
