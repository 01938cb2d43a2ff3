// Causes proven by replay: the harmless early fault is not the cause; the watchdog pause is; a
// violation without faults is the algorithm itself; a budget that runs out says so.
#include "harness/explore/counterfactual.h"

#include <gtest/gtest.h>

#include "harness/scenario/parse.h"

namespace lockstep::explore {
namespace {

using nlohmann::json;

// c1 holds L (lease 30 s, watchdog); a partition of c2 at 0.1 s heals at once (harmless); c1 is
// paused for 35 s from 2 s, so its key expires and c2 takes L while c1 still believes it holds.
json pause_story(bool with_early_partition) {
  json doc = json::parse(R"({
    "name": "counterfactual-pause", "seed": 1, "duration_ms": 60000,
    "algorithm": {"name": "redisson-lock"},
    "clients": {"count": 2},
    "workload": {"script": [
      {"threads": "c1", "steps": [{"op": "lock", "lock": "L", "then": [{"op": "hold", "ms": 40000}, {"op": "unlock", "lock": "L"}]}]},
      {"threads": "c2", "steps": [{"op": "lock", "lock": "L", "at_ms": 1000, "then": [{"op": "hold", "ms": 100}, {"op": "unlock", "lock": "L"}]}]}]},
    "faults": {"schedule": [{"kind": "pause", "at_ms": 2000, "target": "c1", "duration_ms": 35000}]},
    "expect": {"verdict": "violation", "property": "mutual_exclusion"}
  })");
  if (with_early_partition) {
    doc["faults"]["schedule"].insert(doc["faults"]["schedule"].begin(),
                                     json{{"kind", "partition"}, {"at_ms", 100}, {"groups", {{"c2"}, {"node0"}}}, {"duration_ms", 50}});
  }
  return doc;
}

scenario::Scenario parse(const json& doc) {
  Result<scenario::Scenario> s = scenario::parse_scenario_text(doc.dump(), "story.json");
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.status().message());
  return s.ok() ? s.value() : scenario::Scenario{};
}

TEST(Counterfactual, TheHarmlessEarlyFaultIsNotTheCause) {
  const json doc = pause_story(true);
  Result<Cause> c = prove_cause(doc, parse(doc), 1, "mutual_exclusion", CounterfactualOptions{});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c.value().algorithm_itself);
  EXPECT_TRUE(c.value().sufficient);
  EXPECT_EQ(c.value().cause, std::vector<int64_t>{2});  // the pause, not the partition (#1)
  EXPECT_EQ(c.value().necessary, std::vector<int64_t>{2});
  EXPECT_NE(c.value().text.find("without fault #2 (pause c1 at 2.000 s) the violation does not happen; with it alone it does"),
            std::string::npos)
      << c.value().text;
  // The replays: none; without #1 (= only #2, so the sufficiency run is not repeated); without #2.
  ASSERT_EQ(c.value().replays.size(), 3u);
  EXPECT_FALSE(c.value().replays[0].violated);
  EXPECT_EQ(c.value().replays[1].kept, std::vector<int64_t>{2});
  EXPECT_TRUE(c.value().replays[1].violated);
  EXPECT_EQ(c.value().replays[2].kept, std::vector<int64_t>{1});
  EXPECT_FALSE(c.value().replays[2].violated);
}

// A fault on an event lands when the event comes, not at `at_ms`: the cause names the event and
// says `at_ms` only armed it.
TEST(Counterfactual, AFaultOnAnEventIsNamedByItsEvent) {
  json doc = pause_story(false);
  doc["faults"]["schedule"][0]["at_ms"] = 0;
  doc["faults"]["schedule"][0]["on"] = "granted";
  Result<Cause> c = prove_cause(doc, parse(doc), 1, "mutual_exclusion", CounterfactualOptions{});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().cause, std::vector<int64_t>{1});
  EXPECT_NE(c.value().text.find("without fault #1 (pause c1 on granted, armed at 0.000 s) the violation does not happen"),
            std::string::npos)
      << c.value().text;
}

TEST(Counterfactual, WithoutFaultsItIsTheAlgorithmItself) {
  json doc = pause_story(false);
  doc.erase("faults");
  doc["algorithm"] = {{"name", "setnx-naive"}};
  // c1's 100 ms lease runs out while it holds for a second: c2 takes the lock at 0.5 s. No
  // fault is needed for that overlap.
  doc["workload"] = json::parse(R"({"script": [
      {"threads": "c1", "steps": [{"op": "lock", "lock": "L", "lease_ms": 100, "then": [{"op": "hold", "ms": 1000}, {"op": "unlock", "lock": "L"}]}]},
      {"threads": "c2", "steps": [{"op": "lock", "lock": "L", "at_ms": 500, "then": [{"op": "hold", "ms": 100}, {"op": "unlock", "lock": "L"}]}]}]})");
  const scenario::Scenario s = parse(doc);
  Result<Cause> c = prove_cause(doc, s, 1, "mutual_exclusion", CounterfactualOptions{});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c.value().algorithm_itself);
  EXPECT_TRUE(c.value().cause.empty());
  EXPECT_NE(c.value().text.find("the algorithm itself"), std::string::npos) << c.value().text;
}

TEST(Counterfactual, ABudgetThatRunsOutSaysSo) {
  const json doc = pause_story(true);
  CounterfactualOptions o;
  o.max_replays = 2;
  Result<Cause> c = prove_cause(doc, parse(doc), 1, "mutual_exclusion", o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c.value().exhausted);
  EXPECT_FALSE(c.value().sufficient);
  EXPECT_NE(c.value().text.find("replay budget (2 runs) ran out"), std::string::npos) << c.value().text;
}

}  // namespace
}  // namespace lockstep::explore
