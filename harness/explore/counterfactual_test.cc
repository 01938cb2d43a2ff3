// Causes proven by replay: the harmless early fault is not the cause; the watchdog pause is; a
// violation without faults is the algorithm itself; a budget that runs out says so.
#include "harness/explore/counterfactual.h"

#include <gtest/gtest.h>

#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

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

// Two locks: c3 outlives its 100 ms lease on K with no fault at all, while L is broken by c1's
// pause. The violation on L needs the pause; a violation of any lock does not.
json two_locks() {
  json doc = pause_story(false);
  doc["clients"]["count"] = 4;
  doc["workload"]["script"].push_back(json::parse(
      R"({"threads": "c3", "steps": [{"op": "lock", "lock": "K", "lease_ms": 100, "then": [{"op": "hold", "ms": 1000}, {"op": "unlock", "lock": "K"}]}]})"));
  doc["workload"]["script"].push_back(json::parse(
      R"({"threads": "c4", "steps": [{"op": "lock", "lock": "K", "at_ms": 500, "then": [{"op": "hold", "ms": 100}, {"op": "unlock", "lock": "K"}]}]})"));
  return doc;
}

TEST(Counterfactual, TheViolationIsOnTheSameLock) {
  const json doc = two_locks();
  const scenario::Scenario s = parse(doc);
  Result<Cause> any = prove_cause(doc, s, 1, "mutual_exclusion", CounterfactualOptions{});
  ASSERT_TRUE(any.ok()) << any.status().message();
  EXPECT_TRUE(any.value().algorithm_itself) << any.value().text;  // K breaks without faults
  CounterfactualOptions on_l;
  on_l.lock = "L";
  Result<Cause> c = prove_cause(doc, s, 1, "mutual_exclusion", on_l);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c.value().algorithm_itself);
  EXPECT_EQ(c.value().cause, std::vector<int64_t>{1});
  EXPECT_NE(c.value().text.find("without fault #1 (pause c1 at 2.000 s) the violation on L does not happen; with it alone it does"),
            std::string::npos)
      << c.value().text;
}

// One lock breaking twice: c1 and c2 overlap because c1 is paused past its watchdog's lease, and
// later c3 and c4 overlap by design (c3's lease of 100 ms, held 1 s). Over the lock, the
// violation happens without faults ("the algorithm itself", though not this overlap); as the
// overlap of its two holders, the pause is proven (redsync seed 61).
TEST(Counterfactual, TheOverlapIsOfTheSameTwoHolders) {
  json doc = pause_story(false);
  doc["clients"]["count"] = 4;
  doc["workload"]["script"].push_back(json::parse(
      R"({"threads": "c3", "steps": [{"op": "lock", "lock": "L", "at_ms": 50000, "lease_ms": 100, "then": [{"op": "hold", "ms": 1000}, {"op": "unlock", "lock": "L"}]}]})"));
  doc["workload"]["script"].push_back(json::parse(
      R"({"threads": "c4", "steps": [{"op": "lock", "lock": "L", "at_ms": 50500, "then": [{"op": "hold", "ms": 100}, {"op": "unlock", "lock": "L"}]}]})"));
  const scenario::Scenario s = parse(doc);
  Result<scenario::RunReport> run = scenario::run_scenario(s, {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  const checker::PropertyResult& me = run.value().check.property("mutual_exclusion");
  ASSERT_EQ(me.verdict, checker::Verdict::kViolation);
  EXPECT_EQ(me.details.value("overlaps", 0), 2) << me.reason;
  EXPECT_EQ(violated_holders(me), (std::vector<std::string>{"c1/t0", "c2/t0"}));
  CounterfactualOptions on_l;
  on_l.lock = "L";
  Result<Cause> lock_only = prove_cause(doc, s, 1, "mutual_exclusion", on_l);
  ASSERT_TRUE(lock_only.ok()) << lock_only.status().message();
  EXPECT_TRUE(lock_only.value().algorithm_itself) << lock_only.value().text;  // c3 and c4, by design
  CounterfactualOptions these = on_l;
  these.holders = violated_holders(me);
  Result<Cause> c = prove_cause(doc, s, 1, "mutual_exclusion", these);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c.value().algorithm_itself);
  EXPECT_EQ(c.value().cause, std::vector<int64_t>{1});
  EXPECT_NE(c.value().text.find("without fault #1 (pause c1 at 2.000 s) the overlap of c1/t0 and c2/t0 on L does not happen"),
            std::string::npos)
      << c.value().text;
  // The story names the pause; the proof over the lock says the algorithm itself, and the second
  // proof, over the two holders, bears the story out.
  checker::PropertyResult told = me;
  told.explanation.facts = {{"first_inevitable", {{"event", "fault"}, {"fault", 1}}}};
  Cause over_lock = lock_only.value();
  compare_with_story(told, &over_lock);
  EXPECT_FALSE(over_lock.story_agrees);
  prove_story_on_overlap(doc, s, 1, told, on_l, &over_lock);
  EXPECT_TRUE(over_lock.overlap_proven);
  EXPECT_TRUE(over_lock.overlap_agrees);
  EXPECT_NE(over_lock.text.find("was not needed; but the overlap of c1/t0 and c2/t0, which the story tells, needs fault #1: "
                                "verified by replay: without fault #1"),
            std::string::npos)
      << over_lock.text;
  EXPECT_EQ(over_lock.to_json()["story"]["overlap_agrees"], true);
  checker::PropertyResult other;
  other.name = "linearizability";
  other.counterexample = me.counterexample;
  EXPECT_TRUE(violated_holders(other).empty());  // only a mutual_exclusion overlap has two holders
}

// The story's first inevitable event against the proof: agreeing, a fault the violation did not
// need, and no fault where the violation needs one.
TEST(Counterfactual, TheStoryIsComparedWithTheProof) {
  checker::PropertyResult p;
  p.name = "mutual_exclusion";
  p.counterexample = {{"first", {{"lock", "L"}}}, {"second", {{"lock", "L"}}}};
  EXPECT_EQ(violated_lock(p), "L");
  auto story_naming = [&](json first_inevitable) {
    checker::PropertyResult named = p;
    named.explanation.facts = {{"first_inevitable", std::move(first_inevitable)}};
    return named;
  };
  Cause proven;
  proven.sufficient = true;
  proven.cause = {2};
  proven.necessary = {2};
  proven.text = "verified by replay: …";
  Cause c = proven;
  compare_with_story(story_naming({{"event", "fault"}, {"fault", 2}}), &c);
  EXPECT_TRUE(c.has_story);
  EXPECT_TRUE(c.story_agrees);
  EXPECT_EQ(c.text, proven.text);
  c = proven;
  compare_with_story(story_naming({{"event", "fault"}, {"fault", 1}}), &c);
  EXPECT_FALSE(c.story_agrees);
  EXPECT_NE(c.text.find("the story's first inevitable event, fault #1, is not in that cause"), std::string::npos) << c.text;
  c = proven;
  compare_with_story(story_naming(nullptr), &c);
  EXPECT_FALSE(c.story_agrees);
  EXPECT_NE(c.text.find("the story named no fault as its first inevitable event, but the violation needs this one"),
            std::string::npos) << c.text;
  Cause itself;
  itself.algorithm_itself = true;
  compare_with_story(story_naming({{"event", "fault"}, {"fault", 3}}), &itself);
  EXPECT_FALSE(itself.story_agrees);
  EXPECT_EQ(itself.to_json()["story"]["first_inevitable_fault"], 3);
  EXPECT_NE(itself.text.find("so the story's first inevitable event, fault #3, was not needed"), std::string::npos) << itself.text;
  Cause unproven;  // the budget ran out: nothing to compare with
  unproven.exhausted = true;
  compare_with_story(story_naming(nullptr), &unproven);
  EXPECT_FALSE(unproven.has_story);
  EXPECT_FALSE(unproven.to_json().contains("story"));
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
