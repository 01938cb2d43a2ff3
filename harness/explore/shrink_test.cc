#include "harness/explore/shrink.h"

#include <gtest/gtest.h>

#include <regex>

#include "harness/explore/derived_profile.h"
#include "harness/explore/materialize.h"
#include "harness/scenario/faults.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep::explore {
namespace {

using json = nlohmann::json;

// The known core: c1 takes L with the watchdog (3 s) and is paused long enough for the key to
// expire; c2, waiting on L, takes it while c1 still believes it holds it. Everything about c3
// (its work on lock M, the faults aimed at it, the random profile that only targets it) is
// noise the shrinker must remove.
const char* kCoreWithNoise = R"({
  "name": "shrink-core", "duration_ms": 20000,
  "algorithm": {"name": "set-nx-px", "options": {"retry_delay_ms": 20}},
  "network": {"latency": 500},
  "clients": [{"name": "c1", "options": {"lock_watchdog_timeout_ms": 3000}},
              {"name": "c2", "options": {"lock_watchdog_timeout_ms": 3000}},
              {"name": "c3", "threads": 2, "options": {"lock_watchdog_timeout_ms": 3000}}],
  "workload": {"script": [
    {"threads": "c1", "steps": [{"op": "lock", "lock": "L", "at_ms": 1000,
                                 "then": [{"op": "hold", "ms": 15000}, {"op": "unlock", "lock": "L"}]}]},
    {"threads": "c2", "steps": [{"op": "lock", "lock": "L", "at_ms": 1500,
                                 "then": [{"op": "hold", "ms": 1000}, {"op": "unlock", "lock": "L"}]}]},
    {"threads": "c3", "steps": [{"op": "repeat", "times": 4, "steps": [
        {"op": "lock", "lock": "M", "lease_ms": 800, "then": [{"op": "hold", "ms": 100}, {"op": "unlock", "lock": "M"}]},
        {"op": "sleep", "ms": 200}]}]}]},
  "faults": {
    "schedule": [
      {"kind": "delay", "at_ms": 500, "target": "c3", "extra_ms": 50, "duration_ms": 1000},
      {"kind": "pause", "at_ms": 2000, "target": "c1", "duration_ms": 10000},
      {"kind": "pause", "at_ms": 4000, "target": "c3", "duration_ms": 300}],
    "random": {"window_ms": [0, 10000], "swarm": false, "kinds": [
      {"kind": "pause", "count": [1, 2], "targets": ["c3"], "duration_ms": [100, 500]},
      {"kind": "clock_jump", "count": 1, "targets": ["c3"], "delta_ms": [-200, 200]}]}},
  "checks": {"properties": ["mutual_exclusion"]}
})";

scenario::Scenario parse(const json& doc, const std::string& file = "core.json") {
  Result<scenario::Scenario> s = scenario::parse_scenario_text(doc.dump(), file);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.status().message());
  return s.value();
}

scenario::RunReport run(const scenario::Scenario& s, uint64_t seed) {
  scenario::RunOptions o;
  o.seed = seed;
  Result<scenario::RunReport> r = scenario::run_scenario(s, o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.status().message());
  return r.value();
}

// The history without the faults' "origin" parameter (the one thing materialising changes).
std::string without_origins(const std::string& history) {
  static const std::regex origin(R"(,?"origin":"[^"]*")");
  std::string out = std::regex_replace(history, origin, "");
  return std::regex_replace(out, std::regex(R"(\{,)"), "{");
}

TEST(MaterializeTest, TheFixedScheduleReplaysTheSeedExactly) {
  json doc = json::parse(kCoreWithNoise);
  // Clock jumps in clock specs move into the schedule too.
  doc["clients"][1]["clock"] = {{"jumps", {{{"at_ms", 3000}, {"delta_ms", 100}}}}};
  const scenario::Scenario s = parse(doc);
  for (uint64_t seed : {1, 2, 3, 77}) {
    const json m = materialize_faults(doc, s, seed);
    EXPECT_FALSE(m["faults"].contains("random"));
    EXPECT_EQ(m["seed"], seed);
    EXPECT_FALSE(m["clients"][1]["clock"].contains("jumps"));
    const scenario::Scenario ms = parse(m);
    ASSERT_TRUE(!ms.random.has_value());
    EXPECT_EQ(ms.schedule.size(), s.schedule.size() + scenario::draw_random_faults(s, seed, 1).size());
    const std::string a = run(s, seed).history;
    const std::string b = run(ms, seed).history;
    ASSERT_FALSE(a.empty());
    EXPECT_NE(a, b) << "only the origins differ";
    EXPECT_EQ(without_origins(a), without_origins(b)) << "seed " << seed;
  }
}

// A generated workload written out as a script replays the seed exactly: the same history, but
// for the header (which names the workload's kind nowhere else than the scenario it embeds).
TEST(MaterializeTest, TheGeneratedWorkloadAsAScriptReplaysTheSeedExactly) {
  for (const char* algorithm : {"redisson-lock", "redisson-rwlock", "redisson-fenced-lock"}) {
    json doc = json::parse(R"({
      "name": "gen", "duration_ms": 20000,
      "clients": [{"name": "c1", "threads": 2}, {"name": "c2"}],
      "workload": {"generator": {"ops_per_thread": 6, "locks": ["L", "M"], "acquire": "mixed",
                                 "wait_ms": [0, 300], "lease_ms": [-1, 1500], "hold_ms": [10, 900],
                                 "lease_swarm": {"percent": 40, "lease_ms": 700},
                                 "think_ms": [0, 300], "start_ms": [0, 500], "read_percent": 40,
                                 "write": {"resource": "R", "fenced": true}}},
      "faults": {"random": {"window_ms": [0, 15000], "kinds": [
        {"kind": "pause", "count": [0, 2], "duration_ms": [100, 3000]},
        {"kind": "partition", "count": [0, 1], "duration_ms": [100, 3000]},
        {"kind": "lose_reply", "count": [0, 1], "replies": [1, 2]}]}}})");
    doc["algorithm"] = {{"name", algorithm}};
    if (std::string(algorithm) != "redisson-rwlock") doc["workload"]["generator"].erase("read_percent");
    const scenario::Scenario s = parse(doc);
    int swarm_seeds = 0;  // seeds whose leases came from the lease swarm: written out as such
    for (uint64_t seed : {1, 2, 3, 4, 5}) {
      const json fixed = materialize_faults(doc, s, seed);
      const scenario::Scenario fs = parse(fixed);
      const std::string a = run(fs, seed).history;
      const std::optional<json> scripted = materialize_workload(fixed, fs, seed, a);
      ASSERT_TRUE(scripted.has_value());
      EXPECT_FALSE((*scripted)["workload"].contains("generator"));
      const std::string b = run(parse(*scripted), seed).history;
      auto body = [](const std::string& h) { return h.substr(h.find('\n')); };  // past the header
      ASSERT_GT(a.size(), 1000u);
      EXPECT_EQ(body(a), body(b)) << algorithm << " seed " << seed;
      swarm_seeds += a.find("\"lease_ms\": 700") != std::string::npos;
    }
    EXPECT_GT(swarm_seeds, 0) << algorithm;
    EXPECT_LT(swarm_seeds, 5) << algorithm;
  }
  // Not for scripts, nor while random faults remain to be drawn.
  const json script = json::parse(kCoreWithNoise);
  const scenario::Scenario ss = parse(script);
  EXPECT_FALSE(materialize_workload(script, ss, 1, "").has_value());
}

TEST(MaterializeTest, FaultsRoundTripThroughTheScheduleFormat) {
  const char* kinds = R"({
    "name": "all-kinds", "duration_ms": 60000, "algorithm": {"name": "set-nx-px"},
    "topology": {"kind": "replicated", "replicas": 1},
    "clients": {"count": 2},
    "workload": {"script": [{"threads": "all", "steps": [{"op": "sleep", "ms": 1}]}]},
    "faults": {"schedule": [
      {"kind": "delay", "at_ms": 1, "target": {"between": ["c1", "node0"]}, "extra_ms": 5, "duration_ms": 10},
      {"kind": "drop", "at_ms": 2, "target": {"from": "c1", "to": "node1"}, "rate_ppm": 5000},
      {"kind": "drop", "at_ms": 2, "target": "all", "duration_ms": 3},
      {"kind": "partition", "at_ms": 3, "groups": [["c1"], ["node0", "c2"]], "one_way": true, "duration_ms": 7},
      {"kind": "pause", "at_ms": 4, "target": "node1", "duration_ms": 8},
      {"kind": "crash", "at_ms": 5, "target": "node1", "restart_after_ms": 9},
      {"kind": "crash", "at_ms": 5, "target": "c2"},
      {"kind": "restart", "at_ms": 6, "target": "node1"},
      {"kind": "clock_offset", "at_ms": 7, "target": "c1", "offset_ms": -40, "duration_ms": 11},
      {"kind": "clock_drift", "at_ms": 8, "target": "node0", "drift_ppm": 300},
      {"kind": "clock_jump", "at_ms": 9, "target": "node0", "delta_ms": -70},
      {"kind": "failover", "at_ms": 10, "target": "node0", "promote": "node1"},
      {"kind": "replication_lag", "at_ms": 11, "target": "node1", "extra_ms": 12, "duration_ms": 13},
      {"kind": "lose_reply", "at_ms": 12, "target": "c1", "match": "EVAL", "replies": 2, "duration_ms": 14}]}
  })";
  const json doc = json::parse(kinds);
  const scenario::Scenario s = parse(doc);
  for (size_t i = 0; i < s.schedule.size(); ++i) {
    json entry = fault_to_json(s.schedule[i]);
    // The parser fills defaults (rate_ppm, one_way false); compare what it parses back into.
    json d = doc;
    d["faults"]["schedule"][i] = entry;
    const scenario::Scenario back = parse(d);
    EXPECT_EQ(scenario::fault_params_json(back.schedule[i]), scenario::fault_params_json(s.schedule[i])) << entry.dump();
    EXPECT_EQ(scenario::fault_target(back.schedule[i]), scenario::fault_target(s.schedule[i])) << entry.dump();
    EXPECT_EQ(back.schedule[i].at_ms, s.schedule[i].at_ms);
  }
}

TEST(ShrinkTest, ShrinksToTheKnownCore) {
  const json doc = json::parse(kCoreWithNoise);
  const scenario::Scenario s = parse(doc);
  ASSERT_EQ(run(s, 5).check.property("mutual_exclusion").verdict, checker::Verdict::kViolation);
  ShrinkOptions o;
  o.max_runs = 300;
  Result<ShrinkResult> r = shrink_failure(doc, s, 5, "mutual_exclusion", o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ShrinkResult& sh = r.value();
  ASSERT_TRUE(sh.reproduced);
  const json& out = sh.scenario;
  SCOPED_TRACE(out.dump(2));
  // One fault: c1's pause, now just long enough (the 3 s watchdog lease must lapse).
  ASSERT_EQ(out["faults"]["schedule"].size(), 1u);
  const json& pause = out["faults"]["schedule"][0];
  EXPECT_EQ(pause["kind"], "pause");
  EXPECT_EQ(pause["target"], "c1");
  EXPECT_LT(pause["duration_ms"].get<int64_t>(), 10000);
  EXPECT_GT(pause["duration_ms"].get<int64_t>(), 1000);
  // Two clients, one thread each; c3 and its work are gone.
  ASSERT_EQ(out["clients"].size(), 2u);
  EXPECT_EQ(out["clients"][0]["name"], "c1");
  EXPECT_EQ(out["clients"][1]["name"], "c2");
  EXPECT_EQ(out["workload"]["script"].size(), 2u);
  EXPECT_EQ(out.dump().find("\"M\""), std::string::npos);
  EXPECT_FALSE(out["faults"].contains("random"));
  EXPECT_EQ(out["seed"], 5);
  EXPECT_LT(out["duration_ms"].get<int64_t>(), 20000);
  EXPECT_EQ(sh.after.faults, 1);
  EXPECT_EQ(sh.after.clients, 2);
  EXPECT_LT(sh.after.operations, sh.before.operations);
  EXPECT_GT(sh.before.faults, 3);  // the schedule plus the drawn ones
  EXPECT_LE(sh.runs, o.max_runs);
  EXPECT_FALSE(sh.log.empty());
  // The file is a valid scenario that still fails the same way under its own seed.
  const scenario::Scenario back = parse(out, "shrunk.json");
  EXPECT_EQ(run(back, back.seed).check.property("mutual_exclusion").verdict, checker::Verdict::kViolation);
  // Deterministic: the same input shrinks to the same bytes.
  Result<ShrinkResult> again = shrink_failure(doc, s, 5, "mutual_exclusion", o);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().scenario.dump(), out.dump());
  EXPECT_EQ(again.value().runs, sh.runs);
}

// A generated workload shrinks like a script: it is written out as the script it ran, then
// clients, threads and operations go. The classic case: a lease (100 ms) shorter than the work
// (200-400 ms): a lock taken with a lease has no watchdog; two clients are enough to show it.
TEST(ShrinkTest, AGeneratedWorkloadShrinksToAFewClientsAndOperations) {
  const json doc = json::parse(R"({
    "name": "short-lease-generated", "duration_ms": 10000,
    "algorithm": {"name": "redisson-lock"},
    "clients": {"count": 4, "threads": 2},
    "workload": {"generator": {"ops_per_thread": 8, "locks": ["L"], "acquire": "try_lock",
                               "wait_ms": [2000], "lease_ms": [100], "hold_ms": [200, 400],
                               "think_ms": [0, 100]}}})");
  const scenario::Scenario s = parse(doc);
  ASSERT_EQ(run(s, 3).check.property("mutual_exclusion").verdict, checker::Verdict::kViolation);
  ShrinkOptions o;
  o.max_runs = 300;
  Result<ShrinkResult> r = shrink_failure(doc, s, 3, "mutual_exclusion", o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ShrinkResult& sh = r.value();
  ASSERT_TRUE(sh.reproduced);
  const json& out = sh.scenario;
  SCOPED_TRACE(out.dump(2));
  EXPECT_FALSE(out["workload"].contains("generator"));
  ASSERT_TRUE(out["workload"].contains("script"));
  ASSERT_FALSE(sh.log.empty());
  EXPECT_EQ(sh.log.front().rfind("/workload: the generator written out", 0), 0u) << sh.log.front();
  EXPECT_EQ(sh.before.clients, 4);
  EXPECT_EQ(sh.before.threads, 8);
  EXPECT_LE(sh.after.clients, 2);
  EXPECT_LE(sh.after.threads, 2);
  EXPECT_LE(sh.after.operations, 6);
  EXPECT_LT(sh.after.operations * 5, sh.before.operations);
  const scenario::Scenario back = parse(out, "shrunk.json");
  EXPECT_EQ(run(back, back.seed).check.property("mutual_exclusion").verdict, checker::Verdict::kViolation);
}

TEST(ShrinkTest, PicksTheFailingSeedWithTheFewestDrawnFaults) {
  const json doc = json::parse(kCoreWithNoise);
  const scenario::Scenario s = parse(doc);
  ASSERT_TRUE(s.random.has_value());
  std::vector<SeedResult> failures;
  size_t fewest = SIZE_MAX;
  uint64_t expected = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SeedResult f;
    f.seed = seed;
    f.violated = {seed % 3 == 0 ? "liveness" : "mutual_exclusion"};
    failures.push_back(f);
    const size_t n = scenario::draw_random_faults(s, seed, 1).size();
    if (seed % 3 != 0 && n < fewest) {
      fewest = n;
      expected = seed;
    }
  }
  EXPECT_EQ(pick_seed_to_shrink(failures, s, "mutual_exclusion", 1), expected);
  // Different seeds really draw different numbers of faults here, so the choice is not the first.
  size_t most = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) most = std::max(most, scenario::draw_random_faults(s, seed, 1).size());
  EXPECT_LT(fewest, most);
  EXPECT_EQ(pick_seed_to_shrink(failures, s, "fencing", 42), 42u);  // no failure of that property
}

TEST(ShrinkTest, StopsAtTheRunLimit) {
  const json doc = json::parse(kCoreWithNoise);
  const scenario::Scenario s = parse(doc);
  ShrinkOptions o;
  o.max_runs = 4;
  Result<ShrinkResult> r = shrink_failure(doc, s, 5, "mutual_exclusion", o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.value().reproduced);
  EXPECT_TRUE(r.value().exhausted);
  EXPECT_EQ(r.value().runs, 4);
  // Whatever it reached still fails.
  const scenario::Scenario back = parse(r.value().scenario, "shrunk.json");
  EXPECT_EQ(run(back, 5).check.property("mutual_exclusion").verdict, checker::Verdict::kViolation);
}

TEST(ShrinkTest, SaysSoWhenTheFailureDoesNotReproduce) {
  json doc = json::parse(kCoreWithNoise);
  const scenario::Scenario s = parse(doc);
  // Ask to keep a property this scenario never violates.
  Result<ShrinkResult> r = shrink_failure(doc, s, 5, "fencing", ShrinkOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.value().reproduced);
  EXPECT_EQ(r.value().runs, 1);
  EXPECT_FALSE(r.value().scenario["faults"].contains("random"));  // still the materialised file
}

// A failure that needs its faults stays that failure: the shrinker does not trade a holder's
// pause for a lease shortened below the work (which fails by itself), and the clients the story
// does not need go (the count form is written as the list it stands for, so the others keep
// their names and random streams). Seed 58 of redisson-lock's derived profile: a pause of the
// holder's client past the lease.
TEST(ShrinkTest, AFailureThatNeedsFaultsKeepsNeedingThemAndIdleClientsGo) {
  Result<json> doc = derive_profile("redisson-lock", json::object());
  ASSERT_TRUE(doc.ok());
  Result<scenario::Scenario> s = scenario::parse_scenario_text(doc.value().dump(), "derived.json");
  ASSERT_TRUE(s.ok());
  ShrinkOptions o;
  o.max_runs = 200;
  Result<ShrinkResult> r = shrink_failure(doc.value(), s.value(), 58, "mutual_exclusion", o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r.value().reproduced);
  EXPECT_EQ(r.value().before.clients, 4);
  EXPECT_LE(r.value().after.clients, 3);
  ASSERT_GE(r.value().after.faults, 1);
  const json& shrunk = r.value().scenario;
  ASSERT_TRUE(shrunk["clients"].is_array());
  bool pause = false;
  for (const json& f : shrunk["faults"]["schedule"]) pause |= f["kind"] == "pause";
  EXPECT_TRUE(pause) << shrunk["faults"].dump();
  // The cause was proven first, and its shape is what every smaller variant had to keep.
  bool said = false;
  for (const std::string& line : r.value().log) said |= line.find("cause's faults (pause on a client;") != std::string::npos;
  EXPECT_TRUE(said);
  // The shrunk file replays its violation, and without its faults it does not fail.
  for (bool with_faults : {true, false}) {
    json variant = shrunk;
    if (!with_faults) variant["faults"] = {{"schedule", json::array()}};
    Result<scenario::Scenario> v = scenario::parse_scenario_text(variant.dump(), "shrunk.json");
    ASSERT_TRUE(v.ok()) << v.status().message();
    scenario::RunOptions ro;
    ro.seed = 58;
    Result<scenario::RunReport> run = scenario::run_scenario(v.value(), ro);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run.value().check.property("mutual_exclusion").verdict == checker::Verdict::kViolation, with_faults);
  }
}

// A client the failure does not need goes even when a partition names it: the partition's
// groups lose the removed client instead of making every smaller candidate invalid. c1's
// renewals are cut off by a partition that lists every other process, c3 among them.
TEST(ShrinkTest, AClientNamedByAPartitionCanGo) {
  json doc = json::parse(kCoreWithNoise);
  doc["faults"] = {{"schedule", json::array({{{"kind", "partition"},
                                              {"at_ms", 2000},
                                              {"duration_ms", 10000},
                                              {"groups", {{"c1"}, {"node0", "c2", "c3"}}}}})}};
  const scenario::Scenario s = parse(doc);
  ASSERT_EQ(run(s, 5).check.property("mutual_exclusion").verdict, checker::Verdict::kViolation);
  Result<ShrinkResult> r = shrink_failure(doc, s, 5, "mutual_exclusion", ShrinkOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r.value().reproduced);
  const json& shrunk = r.value().scenario;
  ASSERT_EQ(shrunk["faults"]["schedule"].size(), 1u) << shrunk["faults"].dump();
  const json& groups = shrunk["faults"]["schedule"][0]["groups"];
  EXPECT_EQ(shrunk["clients"].size(), 2u) << shrunk["clients"].dump();
  EXPECT_EQ(groups.dump().find("c3"), std::string::npos) << groups.dump();
  EXPECT_EQ(run(parse(shrunk, "shrunk.json"), 5).check.property("mutual_exclusion").verdict,
            checker::Verdict::kViolation);
}

}  // namespace
}  // namespace lockstep::explore
