// One scenario per fault kind (scenarios/kernel/*.json), run through the whole pipeline with the
// real Redis model, each checked against its exact expected timeline.
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

Ran run(const std::string& name) { return testing::run_library("kernel", name); }

TEST(FaultTimelineTest, ClockJumpOnANodeExpiresAThirtySecondKeyAtOnce) {
  Ran r = run("clock-jump-node");
  auto exp = r.of("expire");
  ASSERT_EQ(exp.size(), 1u);
  EXPECT_EQ(t_of(exp[0]), 5'000'000);
  EXPECT_EQ(exp[0]["local_ms"], 45'000);
  auto holds = r.of("hold_begin");
  ASSERT_EQ(holds.size(), 2u);
  EXPECT_EQ(t_of(holds[1]), 6'001'000);  // c2, while c1 holds until 21 s
  EXPECT_EQ(r.report.verdict, "violation");
}

TEST(FaultTimelineTest, APausedClientSendsNothingDuringThePause) {
  Ran r = run("pause-client");
  for (const json& e : r.of("exec", "conn", "c1")) {
    EXPECT_FALSE(t_of(e) > 2'000'000 && t_of(e) < 37'000'000) << e.dump();
  }
  auto unlock = r.of("invoke", "op", "unlock");
  ASSERT_EQ(unlock.size(), 2u);
  EXPECT_EQ(unlock[1]["thread"], "c1/t0");
  EXPECT_EQ(t_of(unlock[1]), 37'000'000);  // its 5 s hold ended during the pause: runs at resume
  auto c2 = r.of("hold_begin", "thread", "c2/t0");
  ASSERT_EQ(c2.size(), 1u);
  EXPECT_GT(t_of(c2[0]), 31'000'000);  // after the 30 s lease, while c1 is still paused
  EXPECT_LT(t_of(c2[0]), 37'000'000);
}

TEST(FaultTimelineTest, APartitionMakesACommandTimeOutAfterTheClientTimeout) {
  Ran r = run("partition-timeout");
  auto done = r.of("complete");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(t_of(done[0]), 5'000'000);  // invoked at 2 s, timeout 3 s
  EXPECT_EQ(done[0]["outcome"], "unknown");
  EXPECT_TRUE(r.of("exec").empty());
  auto f = r.of("fault");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0]["phase"], "start");
  EXPECT_EQ(t_of(f[1]), 11'000'000);
}

TEST(FaultTimelineTest, AOneWayPartitionLosesRepliesButTheCommandRuns) {
  Ran r = run("partition-one-way");
  auto c2 = r.of("exec", "conn", "c2");
  ASSERT_EQ(c2.size(), 1u);  // executed...
  EXPECT_EQ(c2[0]["reply"]["ok"], "OK");
  auto done = r.of("complete", "id", 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0]["outcome"], "unknown");  // ...but c2 never heard back
  EXPECT_EQ(r.of("complete", "id", 2)[0]["acquired"], false);  // c1 is locked out by it
  EXPECT_EQ(r.of("complete", "id", 3)[0]["acquired"], true);   // until the 5 s lease ends
}

TEST(FaultTimelineTest, ARestartWithoutPersistenceLosesTheKey) {
  Ran r = run("restart-no-persistence");
  auto loss = r.of("data_loss");
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_EQ(t_of(loss[0]), 3'000'000);
  EXPECT_EQ(loss[0]["reason"], "restart");
  EXPECT_EQ(loss[0]["keys"], json({"L"}));
  EXPECT_EQ(r.of("hold_begin").size(), 2u);
}

TEST(FaultTimelineTest, AofAlwaysKeepsTheKeyAcrossARestart) {
  Ran r = run("restart-aof-always");
  EXPECT_TRUE(r.of("data_loss").empty());
  EXPECT_EQ(r.of("hold_begin").size(), 1u);
  auto c2 = r.of("complete", "id", 2);
  ASSERT_EQ(c2.size(), 1u);
  EXPECT_EQ(c2[0]["acquired"], false);
  auto nodes = r.of("node");
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1]["event"], "restarted");
  EXPECT_EQ(t_of(nodes[1]), 3'000'000);
}

TEST(FaultTimelineTest, AFailoverBeforeReplicationLosesTheKeyOnTheNewMaster) {
  Ran r = run("failover-before-replication");
  auto loss = r.of("data_loss");
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_EQ(loss[0]["node"], "node1");
  EXPECT_EQ(loss[0]["reason"], "failover");
  EXPECT_EQ(t_of(loss[0]), 1'010'000);
  auto f = r.of("fault", "kind", "failover");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]["params"]["promoted"], "node1");
  auto c2 = r.of("exec", "conn", "c2");
  ASSERT_FALSE(c2.empty());
  EXPECT_EQ(c2[0]["node"], "node1");  // clients were redirected
  EXPECT_EQ(r.report.verdict, "violation");
}

TEST(FaultTimelineTest, ReplicationLagMakesAnAutomaticFailoverLoseTheKey) {
  Ran r = run("replication-lag");
  auto promoted = r.of("node", "event", "promoted");
  ASSERT_EQ(promoted.size(), 1u);
  EXPECT_EQ(t_of(promoted[0]), 3'000'000);  // crash at 2 s + 1 s detection
  auto loss = r.of("data_loss");
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_EQ(loss[0]["keys"], json({"L"}));
}

TEST(FaultTimelineTest, DelayAddsLatencyForMessagesSentInTheWindow) {
  Ran r = run("delay");
  auto e = r.of("exec");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(t_of(e[0]), 3'500'500);
  EXPECT_EQ(t_of(r.of("complete")[0]), 3'501'000);
}

TEST(FaultTimelineTest, DropLosesTheRequestAndTheClientRetries) {
  Ran r = run("drop");
  auto e = r.of("exec");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(t_of(e[0]), 2'300'500);  // 1.2 s + 1 s timeout + 100 ms interval + 0.5 ms
  EXPECT_EQ(r.of("complete")[0]["acquired"], true);
}

TEST(FaultTimelineTest, APausedNodeExecutesQueuedRequestsWhenItResumes) {
  Ran r = run("pause-node");
  auto e = r.of("exec");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(t_of(e[0]), 6'000'000);
  EXPECT_EQ(t_of(r.of("complete")[0]), 6'000'500);
}

TEST(FaultTimelineTest, ACrashedClientsHoldEndsAndItsRenewalsStop) {
  Ran r = run("crash-client");
  auto end = r.of("hold_end", "reason", "crash");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(t_of(end[0]), 15'000'000);
  for (const json& e : r.of("exec", "conn", "c1")) EXPECT_LT(t_of(e), 15'000'000);
  auto renew = r.of("invoke", "op", "renew");
  ASSERT_EQ(renew.size(), 1u);  // at 11 s; the one due at 21 s never happens
  auto exp = r.of("expire");
  ASSERT_EQ(exp.size(), 1u);
  EXPECT_GT(t_of(exp[0]), 41'000'000);  // last renewal at 11.0015 s + 30 s
  EXPECT_LT(t_of(exp[0]), 41'200'000);
  EXPECT_EQ(r.of("hold_begin", "thread", "c2/t0").size(), 1u);
}

TEST(FaultTimelineTest, ClockOffsetMovesAClientsTimedSteps) {
  Ran r = run("clock-offset-client");
  auto inv = r.of("invoke");
  ASSERT_EQ(inv.size(), 2u);
  EXPECT_EQ(t_of(inv[0]), 5'000'000);
  EXPECT_EQ(t_of(inv[1]), 17'000'000);
}

TEST(FaultTimelineTest, ClockDriftMakesAClientsClockRunFast) {
  Ran r = run("clock-drift-client");
  auto inv = r.of("invoke");
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_EQ(t_of(inv[0]), 6'000'000);
}

TEST(FaultTimelineTest, LoseReplyExecutesTheCommandAndTheRetryFindsItsOwnKey) {
  Ran r = run("lose-reply");
  auto c1 = r.of("exec", "conn", "c1");
  ASSERT_EQ(c1.size(), 2u);
  EXPECT_EQ(c1[0]["reply"]["ok"], "OK");
  EXPECT_TRUE(c1[1]["reply"].is_null());
  EXPECT_EQ(t_of(c1[1]), 2'100'500);
  auto f = r.of("fault");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1]["phase"], "end");
  EXPECT_EQ(t_of(f[1]), 1'000'500);
  EXPECT_EQ(r.of("complete", "id", 1)[0]["acquired"], false);
  EXPECT_EQ(r.of("complete", "id", 2)[0]["acquired"], false);
}

TEST(FaultTimelineTest, AFaultOnAnEventLandsWhenTheEventHappens) {
  Ran r = run("pause-on-grant");
  // c1's lock() returns after c3's 2 s hold, at a time nobody wrote down: the pause starts then.
  auto c1 = r.of("hold_begin", "thread", "c1/t0");
  ASSERT_EQ(c1.size(), 1u);
  auto pause = r.of("fault", "kind", "pause");
  ASSERT_EQ(pause.size(), 2u);  // start and end
  EXPECT_GT(t_of(c1[0]), 2'000'000);
  EXPECT_EQ(t_of(pause[0]), t_of(c1[0]));
  EXPECT_EQ(pause[0]["params"]["on"], "granted");
  EXPECT_EQ(t_of(pause[1]), t_of(c1[0]) + 35'000'000);
  EXPECT_EQ(r.report.verdict, "violation");
}

TEST(FaultTimelineTest, FaultsAreRecordedBeforeTheirEffects) {
  Ran r = run("crash-client");
  size_t fault = 0, hold_end = 0;
  for (size_t i = 0; i < r.lines.size(); ++i) {
    if (r.lines[i].value("type", "") == "fault") fault = i;
    if (r.lines[i].value("reason", "") == "crash") hold_end = i;
  }
  EXPECT_LT(fault, hold_end);
}

}  // namespace
}  // namespace lockstep::scenario

namespace lockstep::scenario {
namespace {

// Regression (issue 9): a client's clock offset set in the scenario left no trace in the history,
// so no explanation could cite it. The header now says which processes start with a skewed clock.
TEST(FaultTimelineTest, TheHeaderNamesTheClocksTheScenarioSkews) {
  const std::string text = R"({"name": "clock-header", "duration_ms": 2000, "algorithm": {"name": "set-nx-px"},
    "clients": [{"name": "c1", "clock": {"offset_ms": 500, "drift_ppm": 100}}, {"name": "c2"}],
    "workload": {"script": [{"threads": "c1", "steps": [{"op": "lock", "lock": "L", "then": [{"op": "unlock", "lock": "L"}]}]}]}})";
  Result<Scenario> s = parse_scenario_text(text, "clock-header.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<RunReport> r = run_scenario(s.value(), RunOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const nlohmann::json header = nlohmann::json::parse(r.value().history.substr(0, r.value().history.find('\n')));
  ASSERT_TRUE(header.contains("clocks")) << header.dump();
  EXPECT_EQ(header["clocks"], nlohmann::json::parse(R"({"c1": {"offset_ms": 500, "drift_ppm": 100}})"));
}

}  // namespace
}  // namespace lockstep::scenario
