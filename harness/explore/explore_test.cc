#include "harness/explore/explore.h"

#include <gtest/gtest.h>

#include "harness/scenario/parse.h"

namespace lockstep::explore {
namespace {

// Two clients on one lock with short leases under a random profile of pauses and clock jumps:
// some seeds violate mutual exclusion, most do not.
const char* kFlaky = R"({
  "name": "explore-flaky", "duration_ms": 20000,
  "algorithm": {"name": "set-nx-px", "options": {"retry_delay_ms": 20}},
  "network": {"latency": {"kind": "uniform", "min_us": 100, "max_us": 2000}},
  "clients": {"count": 3},
  "workload": {"generator": {"ops_per_thread": 10, "locks": ["L"], "lease_ms": [1000],
                             "hold_ms": [50, 400], "think_ms": [0, 100], "wait_ms": [5000]}},
  "faults": {"random": {"window_ms": [0, 4000], "kinds": [
    {"kind": "pause", "count": [0, 1], "duration_ms": [100, 3000]},
    {"kind": "clock_jump", "count": [0, 1], "delta_ms": [-2000, 2000]}]}},
  "checks": {"properties": ["mutual_exclusion"]}
})";

scenario::Scenario parse(const char* text) {
  Result<scenario::Scenario> s = scenario::parse_scenario_text(text, "flaky.json");
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.status().message());
  return s.value();
}

ExploreSummary explore(const scenario::Scenario& s, SeedRange r, Shard shard, int jobs) {
  ExploreOptions o;
  o.range = r;
  o.shard = shard;
  o.jobs = jobs;
  Result<ExploreSummary> sum = run_explore(s, o);
  EXPECT_TRUE(sum.ok()) << (sum.ok() ? "" : sum.status().message());
  return sum.value();
}

TEST(ExploreTest, TheSummaryIsTheSameBytesWithOneOrTwoJobs) {
  const scenario::Scenario s = parse(kFlaky);
  const SeedRange r{1, 24};
  const ExploreSummary one = explore(s, r, Shard{}, 1);
  const ExploreSummary two = explore(s, r, Shard{}, 2);
  EXPECT_EQ(one.to_json().dump(2), two.to_json().dump(2));
  EXPECT_EQ(one.to_text(10), two.to_text(10));
  EXPECT_EQ(one.seeds_run, 24u);
  // The scenario is meant to be flaky: some seeds fail, some pass (else the test proves little).
  EXPECT_GT(one.failures_total, 0u);
  EXPECT_LT(one.failures_total, 24u);
  EXPECT_EQ(one.exit_code(), 1);
  EXPECT_EQ(one.violations.at("mutual_exclusion"), one.failures_total);
  for (size_t i = 1; i < one.failures.size(); ++i) EXPECT_LT(one.failures[i - 1].seed, one.failures[i].seed);
  EXPECT_EQ(one.failures[0].replay, "lockstep run flaky.json --seed " + std::to_string(one.failures[0].seed));
  EXPECT_NE(one.failures[0].explanation.find("mutual_exclusion"), std::string::npos);
}

// A seed that violates several properties keeps each one's story, in report order: the first as
// `explanation`, the others in `more_explanations`, and the summary reads them back.
TEST(ExploreTest, EveryViolatedPropertysStoryIsKept) {
  std::string text = kFlaky;
  const std::string one = R"("properties": ["mutual_exclusion"])";
  text.replace(text.find(one), one.size(), R"("properties": ["mutual_exclusion", "linearizability"])");
  const scenario::Scenario s = parse(text.c_str());
  const ExploreSummary sum = explore(s, SeedRange{1, 24}, Shard{}, 2);
  size_t both = 0;
  for (const SeedResult& r : sum.failures) {
    ASSERT_EQ(r.more_explanations.size() + 1, r.violated.size() + r.unknown.size()) << r.seed;
    if (r.violated.size() < 2) continue;
    ++both;
    EXPECT_EQ(r.explanation.rfind(r.violated[0] + ": ", 0), 0u) << r.explanation;
    EXPECT_EQ(r.more_explanations[0].rfind(r.violated[1] + ": ", 0), 0u) << r.more_explanations[0];
  }
  EXPECT_GT(both, 0u) << "no seed violated both properties: the test proves nothing";
  Result<ExploreSummary> back = ExploreSummary::from_json(sum.to_json(), "explore.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back.value().to_json().dump(2), sum.to_json().dump(2));
}

// Every checkpoint is a stopped run's summary of the seeds folded so far; resuming the last one
// (the rest of the seeds, merged in) gives the uninterrupted run's summary, byte for byte.
TEST(ExploreTest, EachCheckpointResumesIntoTheWholeRun) {
  const scenario::Scenario s = parse(kFlaky);
  const SeedRange r{3, 20};
  const ExploreSummary whole = explore(s, r, Shard{}, 1);
  ExploreOptions o;
  o.range = r;
  o.jobs = 2;
  int due = 0;
  o.checkpoint_due = [&due] { return ++due % 3 == 0; };  // after every third seed
  std::vector<ExploreSummary> checkpoints;
  o.checkpoint = [&checkpoints](const ExploreSummary& c) { checkpoints.push_back(c); };
  Result<ExploreSummary> run = run_explore(s, o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run.value().to_json().dump(2), whole.to_json().dump(2));  // checkpoints change nothing
  ASSERT_EQ(checkpoints.size(), 6u);
  uint64_t before = 0;
  for (const ExploreSummary& c : checkpoints) {
    EXPECT_TRUE(c.interrupted);
    EXPECT_EQ(c.planned.first, r.first);
    EXPECT_EQ(c.planned.count, r.count);
    const uint64_t done = c.slices.empty() ? 0 : c.slices[0].count;
    EXPECT_GE(done, before);  // the folded prefix only grows
    before = done;
    EXPECT_EQ(c.seeds_run, done);
    // Through JSON, as `explore --resume` reads it, then the rest of the seeds.
    Result<ExploreSummary> back = ExploreSummary::from_json(c.to_json(), "explore.json");
    ASSERT_TRUE(back.ok()) << back.status().message();
    ExploreOptions rest;
    rest.range = r;
    rest.jobs = 1;
    rest.only = SeedRange{r.first + done, r.count - done};
    Result<ExploreSummary> tail = run_explore(s, rest);
    ASSERT_TRUE(tail.ok()) << tail.status().message();
    Result<ExploreSummary> merged = merge_summaries({back.value(), tail.value()}, {"explore.json", "this run"});
    ASSERT_TRUE(merged.ok()) << merged.status().message();
    EXPECT_EQ(merged.value().to_json().dump(2), whole.to_json().dump(2)) << "checkpoint after " << done << " seeds";
  }
}

TEST(ExploreTest, ShardsMergeIntoTheWholeRun) {
  const scenario::Scenario s = parse(kFlaky);
  const SeedRange r{5, 17};
  const ExploreSummary whole = explore(s, r, Shard{}, 2);
  std::vector<ExploreSummary> parts;
  std::vector<std::string> files;
  for (uint64_t i : {3, 1, 2}) {  // any order
    // Round-trip through JSON, as a CI job would hand the files over.
    Result<ExploreSummary> back = ExploreSummary::from_json(explore(s, r, Shard{i, 3}, 1).to_json(), "part.json");
    ASSERT_TRUE(back.ok()) << back.status().message();
    parts.push_back(back.value());
    files.push_back("part" + std::to_string(i) + ".json");
  }
  Result<ExploreSummary> merged = merge_summaries(parts, files);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  // The three adjacent shards join into one slice: the merged summary is the unsharded run's,
  // byte for byte (issue 14: what explore --resume relies on).
  ASSERT_EQ(merged.value().slices.size(), 1u);
  EXPECT_EQ(merged.value().slices[0].first, 5u);
  EXPECT_EQ(merged.value().slices[0].end(), 22u);
  EXPECT_EQ(whole.to_json().dump(2), merged.value().to_json().dump(2));
  // The same shard twice is refused.
  parts.push_back(parts[0]);
  files.push_back("again.json");
  Result<ExploreSummary> twice = merge_summaries(parts, files);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("overlap"), std::string::npos) << twice.status().message();
}

TEST(ExploreTest, MergeRefusesSummariesOfAnotherExploration) {
  const scenario::Scenario s = parse(kFlaky);
  ExploreSummary a = explore(s, SeedRange{1, 4}, Shard{1, 2}, 1);
  ExploreSummary b = explore(s, SeedRange{1, 5}, Shard{2, 2}, 1);
  Result<ExploreSummary> m = merge_summaries({a, b}, {"a.json", "b.json"});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("b.json"), std::string::npos) << m.status().message();
}

TEST(ExploreTest, FromJsonNamesTheFileOnBadInput) {
  Result<ExploreSummary> r = ExploreSummary::from_json(nlohmann::json::parse(R"({"x": 1})"), "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("bad.json: ", 0), 0u);
  Result<ExploreSummary> r2 = ExploreSummary::from_json(nlohmann::json::parse(R"({"lockstep_explore": 1, "scenario": 3})"), "bad.json");
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().message().rfind("bad.json: ", 0), 0u);
}

TEST(ExploreTest, JUnitHasOneCasePerSeedWithReplayAndExplanation) {
  const scenario::Scenario s = parse(kFlaky);
  const ExploreSummary sum = explore(s, SeedRange{1, 12}, Shard{}, 2);
  const JUnitSuite suite = junit_suite(sum);
  ASSERT_EQ(suite.cases.size(), 12u);
  size_t failed = 0;
  for (const JUnitCase& c : suite.cases) {
    if (c.kind == JUnitCase::Kind::kPass) continue;
    ++failed;
    EXPECT_EQ(c.kind, JUnitCase::Kind::kFailure);
    EXPECT_NE(c.text.find("replay: lockstep run flaky.json --seed "), std::string::npos);
    EXPECT_NE(c.text.find("mutual_exclusion"), std::string::npos);
  }
  EXPECT_EQ(failed, sum.failures_total);
  EXPECT_EQ(suite.cases[0].name, "seed 1");
}

TEST(ExploreTest, AnExpectedViolationIsNotAFailure) {
  nlohmann::json j = nlohmann::json::parse(kFlaky);
  j["expect"] = {{"verdict", "violation"}, {"property", "mutual_exclusion"}};
  Result<scenario::Scenario> s = scenario::parse_scenario_text(j.dump(), "flaky.json");
  ASSERT_TRUE(s.ok());
  const ExploreSummary sum = explore(s.value(), SeedRange{1, 12}, Shard{}, 2);
  // Seeds that violate are now as expected, those that do not are failures ("did not happen").
  EXPECT_EQ(sum.failures_total, sum.seeds_run - sum.violations.at("mutual_exclusion"));
  uint64_t seed = 0;
  std::string property;
  EXPECT_FALSE(sum.shrink_target(seed, property)) << "nothing unexpected to shrink";
}

}  // namespace
}  // namespace lockstep::explore
