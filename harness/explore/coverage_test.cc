// Coverage of runs and explorations (docs/coverage.md): what the library's edge cases reach, the
// shape of the JSON, its round trip, and that an exploration's coverage is the sum of its seeds'.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "algorithms/algorithm.h"
#include "harness/explore/explore.h"
#include "harness/scenario/coverage_report.h"
#include "harness/scenario/library.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep::scenario {
namespace {

using json = nlohmann::json;

Scenario load(const std::string& rel) {
  Result<Scenario> s = load_scenario(std::string(LOCKSTEP_SOURCE_DIR) + "/" + rel);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.value();
}

json run_coverage(const Scenario& s, uint64_t seed) {
  RunOptions o;
  o.seed = seed;
  Result<RunReport> r = run_scenario(s, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.value().result.at("coverage");
}

uint64_t state_hits(const json& c, const std::string& name) {
  for (const json& p : c["states"]) {
    if (p["name"] == name) return p["hits"].get<uint64_t>();
  }
  ADD_FAILURE() << "no client state " << name;
  return 0;
}

// The hits of the line of `script` whose code is `code`.
uint64_t line_hits(const json& c, const std::string& script, const std::string& code) {
  for (const json& s : c["scripts"]) {
    if (s["name"] != script) continue;
    for (const json& l : s["lines"]) {
      if (l["code"] == code) return l["hits"].get<uint64_t>();
    }
  }
  ADD_FAILURE() << "no line `" << code << "` in " << script;
  return 0;
}

// The scenario's point, in coverage: the node renewed the lease, but no renewal's reply reached
// the client, whose watchdog saw only errors and stopped.
TEST(CoverageTest, TheClassicRenewalTimeoutRenewsOnTheNodeButTheClientSeesOnlyErrors) {
  const json c = run_coverage(load("scenarios/edge/redisson-lock-renewal-timeout-classic.json"), 1);
  EXPECT_GT(state_hits(c, "renewal_error"), 0u);
  EXPECT_GT(state_hits(c, "command_timed_out"), 0u);
  EXPECT_EQ(state_hits(c, "renewed"), 0u);
  EXPECT_GT(line_hits(c, "rlock_renew", "return 1;"), 0u);
  // Every declared state is listed, reached or not; totals agree with the lists.
  EXPECT_EQ(c["client_states"]["total"].get<size_t>(), c["states"].size());
  uint64_t reached = 0;
  for (const json& s : c["scripts"]) reached += s["lines_reached"].get<uint64_t>();
  EXPECT_EQ(c["script_lines"]["reached"].get<uint64_t>(), reached);
  EXPECT_LT(reached, c["script_lines"]["total"].get<uint64_t>());
}

TEST(CoverageTest, TheFairLockDeadWaiterReachesTheStaleWaiterEviction) {
  const json c = run_coverage(load("scenarios/edge/redisson-fair-lock-dead-waiter-classic.json"), 1);
  EXPECT_GT(line_hits(c, "fair_acquire", "redis.call('zrem', KEYS[3], firstThreadId2);"), 0u);
  EXPECT_GT(state_hits(c, "woken_by_ttl"), 0u);
  // The scripts listed are the ones this lock sends with its options (seed 002's fair lock).
  std::vector<std::string> names;
  for (const json& s : c["scripts"]) names.push_back(s["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"fair_acquire", "fair_try_acquire", "fair_unlock", "rlock_renew",
                                             "fair_acquire_failed", "fair_force_unlock"}));
}

TEST(CoverageTest, RoundTripsThroughJsonAndRejectsMalformedInputWithThePath) {
  const Scenario s = load("scenarios/edge/redisson-lock-watchdog-pause.json");
  const json c = run_coverage(s, 1);
  Result<kernel::Coverage> back = coverage_from_json(json::parse(c.dump()), "result.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(coverage_json(back.value(), s), json::parse(c.dump()));
  json bad = c;
  bad["scripts"][0]["lines"][1]["hits"] = -3;
  Result<kernel::Coverage> r = coverage_from_json(bad, "x.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x.json: /coverage/scripts/0/lines/1"), std::string::npos) << r.status().message();
  EXPECT_FALSE(coverage_from_json(json::array(), "x.json").ok());
  EXPECT_TRUE(coverage_from_json(nullptr, "x.json").ok());  // absent: nothing counted
  EXPECT_FALSE(coverage_from_counts_json({{"scripts", {{"a", {{0, 1}}}}}, {"states", json::object()}}, "w").ok());
}

TEST(CoverageTest, AnExplorationsCoverageIsTheSumOfItsSeedsWhateverTheJobs) {
  const Scenario s = load("scenarios/edge/redisson-lock-renewal-timeout-current.json");
  json sum = coverage_json(kernel::Coverage{}, s);
  for (uint64_t seed = 3; seed < 9; ++seed) {
    Result<kernel::Coverage> c = coverage_from_json(run_coverage(s, seed), "run");
    ASSERT_TRUE(c.ok());
    add_coverage(sum, c.value());
  }
  for (int jobs : {1, 2}) {
    explore::ExploreOptions o;
    o.range = explore::SeedRange{3, 6};
    o.jobs = jobs;
    Result<explore::ExploreSummary> e = explore::run_explore(s, o);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(e.value().coverage, sum) << "jobs " << jobs;
    EXPECT_NE(e.value().to_text(5).find("coverage: "), std::string::npos);
  }
  EXPECT_GT(sum["script_lines"]["reached"].get<uint64_t>(), 0u);
}

// Every script a library scenario's run sends is one its algorithm declares for its options
// (AlgorithmInfo::scripts): coverage lists only declared scripts, so a script missing from the
// declaration would be run but never shown.
TEST(CoverageTest, EveryScriptALibraryRunSendsIsDeclared) {
  for (const std::string& file : scenario_files(std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios")) {
    Result<Scenario> s = load_scenario(file);
    ASSERT_TRUE(s.ok()) << s.status().message();
    const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(s.value().algorithm);
    ASSERT_NE(info, nullptr) << file;
    std::set<std::string> declared;
    for (const runtime::Script* script : info->scripts(s.value().algorithm_options)) declared.insert(script->name);
    Result<RunReport> r = run_scenario(s.value(), RunOptions{});
    ASSERT_TRUE(r.ok()) << file << ": " << r.status().message();
    for (const auto& [name, hits] : r.value().coverage.scripts()) {
      EXPECT_TRUE(declared.count(name) == 1) << file << " sent " << name << ", which " << s.value().algorithm
                                             << " does not declare for these options";
    }
  }
}

}  // namespace
}  // namespace lockstep::scenario
