// Bug classes (bench B6): the library's edge cases, their causes proven by replay, classified.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "harness/explore/bug_class.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep::explore {
namespace {

using json = nlohmann::json;

// The class of the first violation of the library scenario `rel` at its own seed.
std::string class_of(const std::string& rel) {
  const std::string path = std::string(LOCKSTEP_SOURCE_DIR) + "/" + rel;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const json doc = json::parse(text.str());
  Result<scenario::Scenario> s = scenario::parse_scenario_text(text.str(), path);
  EXPECT_TRUE(s.ok()) << s.status().message();
  Result<scenario::RunReport> r = scenario::run_scenario(s.value(), scenario::RunOptions{});
  EXPECT_TRUE(r.ok());
  std::string property;
  for (const checker::PropertyResult& p : r.value().check.properties) {
    if (p.verdict == checker::Verdict::kViolation && property.empty()) property = p.name;
  }
  EXPECT_FALSE(property.empty()) << rel << " violated nothing";
  Result<Cause> c = prove_cause(doc, s.value(), s.value().seed, property, CounterfactualOptions{});
  EXPECT_TRUE(c.ok()) << c.status().message();
  return bug_class(s.value(), r.value().result.at("faults"), c.value());
}

TEST(BugClass, TheEdgeCasesAreNamedByTheirCause) {
  EXPECT_EQ(class_of("scenarios/edge/redisson-lock-watchdog-pause.json"), "holder-pause");
  EXPECT_EQ(class_of("scenarios/edge/redisson-lock-failover-before-replication.json"), "failover-before-replication");
  EXPECT_EQ(class_of("scenarios/edge/redisson-lock-short-lease.json"), "lease-shorter-than-work");
  // The story needs both: c1 cut from two masters, then a third restarting empty.
  EXPECT_EQ(class_of("scenarios/edge/redisson-redlock-restart-no-persistence.json"), "network+redlock-restart");
  // The library's RedLock GC pauses are work inside the hold: no fault is needed.
  EXPECT_EQ(class_of("scenarios/edge/redisson-redlock-gc-pause-after-acquisition.json"), "lease-shorter-than-work");
  // So is the spec's.
  EXPECT_EQ(class_of("scenarios/edge/redlock-spec-gc-pause-after-acquisition.json"), "lease-shorter-than-work");
  EXPECT_EQ(class_of("scenarios/edge/redisson-fair-lock-dead-waiter-current.json"), "fair-dead-waiter");
}

TEST(BugClass, AnUnprovenCauseIsSaidSo) {
  scenario::Scenario s;
  s.algorithm = "redisson-lock";
  Cause c;
  c.property = "mutual_exclusion";
  c.cause = {2};
  c.sufficient = false;
  EXPECT_EQ(bug_class(s, json::array(), c), "unproven");
  c.sufficient = true;
  s.node_names = {"node0", "node1"};
  const json faults = json::array({{{"fault", 2}, {"kind", "crash"}, {"target", "node0"}},
                                   {{"fault", 3}, {"kind", "drop"}, {"target", "c1->node0"}}});
  EXPECT_EQ(bug_class(s, faults, c), "restart-without-persistence");
  c.cause = {2, 3};
  EXPECT_EQ(bug_class(s, faults, c), "network+restart-without-persistence");
  s.algorithm = "redlock-spec";
  c.cause = {2};
  EXPECT_EQ(bug_class(s, faults, c), "redlock-restart");
  const json pause = json::array({{{"fault", 2}, {"kind", "pause"}, {"target", "c1"}}});
  EXPECT_EQ(bug_class(s, pause, c), "redlock-gc-pause");
  s.algorithm = "set-nx-px";
  EXPECT_EQ(bug_class(s, pause, c), "holder-pause");
}

}  // namespace
}  // namespace lockstep::explore
