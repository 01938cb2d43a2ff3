// The classic edge cases against these algorithms, through the scenario runner, each with the
// verdict the algorithm's documented behaviour implies: a paused watchdog holder, a lease shorter
// than the work, a failover before replication, RedLock with a master restarted without
// persistence, a GC pause during and after a RedLock acquisition (where the spec's validity check
// and Redisson's missing one part ways).
#include <gtest/gtest.h>

#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep::algorithms {
namespace {

using nlohmann::json;

scenario::RunReport run(const json& s) {
  Result<scenario::Scenario> sc = scenario::parse_scenario_text(s.dump(), s["name"].get<std::string>() + ".json");
  EXPECT_TRUE(sc.ok()) << sc.status().message();
  Result<scenario::RunReport> r = scenario::run_scenario(sc.value(), scenario::RunOptions{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.value();
}

checker::Verdict verdict(const scenario::RunReport& r, const std::string& property) {
  return r.check.property(property).verdict;
}

// Client c1 takes L and works `work_ms`; c2 asks for L from `c2_at_ms` on.
json two_clients(const std::string& name, const std::string& algorithm, int64_t lease_ms,
                 int64_t work_ms, int64_t c2_at_ms) {
  json lock1 = {{"op", "lock"}, {"lock", "L"}, {"lease_ms", lease_ms},
                {"then", {{{"op", "hold"}, {"ms", work_ms}}, {{"op", "unlock"}, {"lock", "L"}}}}};
  json lock2 = {{"op", "lock"}, {"lock", "L"}, {"lease_ms", lease_ms}, {"at_ms", c2_at_ms},
                {"then", {{{"op", "hold"}, {"ms", 100}}, {{"op", "unlock"}, {"lock", "L"}}}}};
  return {{"name", name},
          {"duration_ms", 120000},
          {"algorithm", {{"name", algorithm}}},
          {"clients", {{"count", 2}}},
          {"workload", {{"script", {{{"threads", "c1"}, {"steps", {lock1}}},
                                    {{"threads", "c2"}, {"steps", {lock2}}}}}}}};
}

TEST(EdgeCasesTest, AWatchdogHolderPausedLongerThanTheLeaseLosesTheLock) {
  json s = two_clients("watchdog-pause", "redisson-lock", -1, 60'000, 1000);
  s["faults"] = {{"schedule", {{{"kind", "pause"}, {"at_ms", 2000}, {"target", "c1"}, {"duration_ms", 35000}}}}};
  scenario::RunReport r = run(s);
  EXPECT_EQ(verdict(r, "mutual_exclusion"), checker::Verdict::kViolation);
  // Without the pause, the watchdog keeps it for the whole minute of work.
  s.erase("faults");
  EXPECT_EQ(verdict(run(s), "mutual_exclusion"), checker::Verdict::kOk);
}

TEST(EdgeCasesTest, AnExplicitLeaseShorterThanTheWorkOverlaps) {
  for (const char* algorithm : {"redisson-lock", "redisson-fair-lock", "redisson-fenced-lock"}) {
    scenario::RunReport r = run(two_clients("short-lease", algorithm, 5000, 20'000, 1000));
    EXPECT_EQ(verdict(r, "mutual_exclusion"), checker::Verdict::kViolation) << algorithm;
  }
}

TEST(EdgeCasesTest, AFailoverBeforeReplicationGrantsTheLockTwice) {
  for (const char* profile : {"classic", "current"}) {
    json s = two_clients("failover", "redisson-lock", -1, 20'000, 1000);
    s["algorithm"]["options"] = {{"profile", profile}};
    s["topology"] = {{"kind", "replicated"}, {"replicas", 1}, {"replication_lag", 5'000'000}};
    // The lock reaches the replica 5 s (5,000,000 µs) after it was written; the master dies at
    // 0.5 s and the replica is promoted at 0.6 s without it.
    s["faults"] = {{"schedule", {{{"kind", "crash"}, {"at_ms", 500}, {"target", "node0"}},
                                 {{"kind", "failover"}, {"at_ms", 600}, {"target", "node0"}}}}};
    scenario::RunReport r = run(s);
    if (std::string(profile) == "classic") {
      EXPECT_EQ(verdict(r, "mutual_exclusion"), checker::Verdict::kViolation) << profile;
    } else {
      // WAIT after the acquire script: the replica never acknowledged, NoSyncedSlavesException.
      EXPECT_NE(r.history.find("NoSyncedSlavesException"), std::string::npos) << profile;
    }
  }
}

json redlock(const std::string& name, const std::string& algorithm, int64_t lease_ms,
             int64_t work_ms) {
  json s = two_clients(name, algorithm, lease_ms, work_ms, 1000);
  s["topology"] = {{"kind", "independent"}, {"masters", 3}};
  return s;
}

TEST(EdgeCasesTest, RedLockWithMastersRestartedWithoutPersistence) {
  for (const char* algorithm : {"redisson-redlock", "redlock-spec"}) {
    json s = redlock("redlock-restart", algorithm, 30'000, 20'000);
    // c1 holds all three masters; node1 and node2 crash and come back empty (no persistence);
    // c2 then takes node1 and node2 — a quorum — while c1 still believes it holds the lock.
    s["faults"] = {{"schedule", {{{"kind", "crash"}, {"at_ms", 500}, {"target", "node1"}, {"restart_after_ms", 100}},
                                 {{"kind", "crash"}, {"at_ms", 500}, {"target", "node2"}, {"restart_after_ms", 100}}}}};
    scenario::RunReport r = run(s);
    EXPECT_EQ(verdict(r, "mutual_exclusion"), checker::Verdict::kViolation) << algorithm;
    EXPECT_EQ(verdict(r, "quorum"), checker::Verdict::kViolation) << algorithm;
  }
}

TEST(EdgeCasesTest, AGcPauseDuringRedLockAcquisitionFoolsRedissonButNotTheSpec) {
  for (const char* algorithm : {"redisson-redlock", "redlock-spec"}) {
    // c1's last request (to node2, 1 s away) is in flight when c1 freezes for 35 s — longer
    // than the 30 s keys. c2 takes the lock at 32 s and keeps it 20 s; c1 wakes at 36.5 s and
    // reads its last reply. Redisson's RedLock (tryLock(): no budget, and no validity check)
    // declares success; the spec's client finds elapsed > TTL and gives up.
    json s = redlock("redlock-gc-during", algorithm, -1, 100);
    s["network"] = {{"links", {{{"from", "c1"}, {"to", "node2"}, {"latency", 1'000'000}}}}};
    s["workload"]["script"][0]["steps"][0] = {
        {"op", "try_lock"}, {"lock", "L"}, {"wait_ms", 0},
        {"then", {{{"op", "hold"}, {"ms", 100}}, {{"op", "unlock"}, {"lock", "L"}}}}};
    s["workload"]["script"][1]["steps"][0]["at_ms"] = 32'000;
    s["workload"]["script"][1]["steps"][0]["then"][0]["ms"] = 20'000;
    s["faults"] = {{"schedule", {{{"kind", "pause"}, {"at_ms", 1500}, {"target", "c1"}, {"duration_ms", 35'000}}}}};
    if (std::string(algorithm) == "redlock-spec") {
      s["algorithm"]["options"] = {{"node_timeout_ms", 5000}};
    }
    scenario::RunReport r = run(s);
    if (std::string(algorithm) == "redlock-spec") {
      EXPECT_EQ(verdict(r, "mutual_exclusion"), checker::Verdict::kOk) << algorithm;
    } else {
      EXPECT_EQ(verdict(r, "mutual_exclusion"), checker::Verdict::kViolation) << algorithm;
    }
  }
}

TEST(EdgeCasesTest, AGcPauseAfterRedLockAcquisitionBreaksBoth) {
  for (const char* algorithm : {"redisson-redlock", "redlock-spec"}) {
    json s = redlock("redlock-gc-after", algorithm, 5000, 10'000);
    s["faults"] = {{"schedule", {{{"kind", "pause"}, {"at_ms", 100}, {"target", "c1"}, {"duration_ms", 8000}}}}};
    scenario::RunReport r = run(s);
    EXPECT_EQ(verdict(r, "mutual_exclusion"), checker::Verdict::kViolation) << algorithm;
  }
}

// Raw steps (scenarios/edge/raw-*.json): an operator's command, not the algorithm, breaks the
// lock, and the explanation says which command. Without the command the same run is fine.
TEST(EdgeCasesTest, AnOperatorsRawCommandIsNamedAsWhatBrokeTheLock) {
  json del = two_clients("operator-del", "redisson-lock", -1, 10'000, 3000);
  del["clients"] = {{"count", 3}};
  del["workload"]["script"].push_back({{"threads", "c3"}, {"steps", {{{"op", "command"}, {"argv", {"DEL", "L"}}, {"at_ms", 2000}}}}});
  scenario::RunReport r = run(del);
  ASSERT_EQ(verdict(r, "mutual_exclusion"), checker::Verdict::kViolation);
  EXPECT_NE(r.check.property("mutual_exclusion").explanation.text.find(
                "No fault, expiry or loss explains it: c3 sent DEL L at 2.000 s, a command outside the lock's operations."),
            std::string::npos)
      << r.check.property("mutual_exclusion").explanation.text;
  del["workload"]["script"][2]["steps"][0]["argv"] = {"GET", "L"};  // a read changes nothing
  EXPECT_EQ(verdict(run(del), "mutual_exclusion"), checker::Verdict::kOk);

  json persist = two_clients("operator-persist", "redisson-lock", 5000, 3000, 1500);
  persist["clients"] = {{"count", 3}};
  persist["workload"]["script"].push_back({{"threads", "c3"}, {"steps", {{{"op", "command"}, {"argv", {"PERSIST", "L"}}, {"at_ms", 1000}}}}});
  persist["faults"] = {{"schedule", {{{"kind", "crash"}, {"at_ms", 2000}, {"target", "c1"}}}}};
  persist["checks"] = {{"liveness_bound_ms", 20000}};
  r = run(persist);
  ASSERT_EQ(verdict(r, "liveness"), checker::Verdict::kViolation);
  EXPECT_NE(r.check.property("liveness").explanation.text.find(
                "and c3's PERSIST at 1.000 s removed its expiry (a command outside the lock's operations)"),
            std::string::npos)
      << r.check.property("liveness").explanation.text;
  persist["workload"]["script"].erase(2);  // without the PERSIST the 5 s lease frees the lock
  EXPECT_EQ(verdict(run(persist), "liveness"), checker::Verdict::kOk);
}

}  // namespace
}  // namespace lockstep::algorithms
