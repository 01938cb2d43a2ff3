// Master + replicas: the replication stream, WAIT, partitions and failover.
#include <gtest/gtest.h>

#include "sim/kernel/testing/test_world.h"

namespace lockstep::kernel {
namespace {

using testing::TestWorld;
using Args = std::vector<std::string>;

struct Result {
  TimeUs t;
  runtime::CallResult r;
};

void call_at(TestWorld& w, TimeUs t, Args argv, std::vector<Result>* out) {
  w.at(t, [&w, argv, out] {
    ClientProcess& p = *w.clients[0];
    p.CoroProcess::spawn([](ClientProcess& p, Args argv, std::vector<Result>* out) -> Task<void> {
      runtime::CallResult r = co_await p.conn(0).call(argv);
      out->push_back(Result{p.now(), std::move(r)});
    }(p, argv, out));
  });
}

TestWorld::Options replicated(size_t replicas) {
  TestWorld::Options o;
  o.shard_sizes = {1 + replicas};
  o.client.retry_attempts = 0;
  o.replication_lag = LatencyDist::fixed(10'000);  // 10 ms
  return o;
}

TEST(ReplicationTest, WritesReachReplicasAfterTheLag) {
  TestWorld w(replicated(2));
  std::vector<Result> got;
  call_at(w, 0, {"SET", "L", "tok"}, &got);
  w.at(10'400, [&] { EXPECT_FALSE(w.value(1, "L").has_value()); });
  w.run_until(100'000);
  EXPECT_EQ(w.value(1, "L"), "tok");
  EXPECT_EQ(w.value(2, "L"), "tok");
  EXPECT_EQ(w.nodes[1]->offset(), 1u);
  EXPECT_EQ(w.nodes[0]->offset(), 1u);
}

TEST(ReplicationTest, WaitAnswersWithTheReplicasThatAcknowledged) {
  TestWorld w(replicated(2));
  std::vector<Result> got;
  call_at(w, 0, {"SET", "L", "tok"}, &got);
  call_at(w, 0, {"WAIT", "2", "1000"}, &got);
  w.at(0, [&] { w.net->add_partition({{0}, {2}}, false); });  // node2 gets nothing
  w.run_until(5'000'000);
  ASSERT_EQ(got.size(), 2u);
  // WAIT executed at 500 us; node1 acked at 500 + 10000 + 500 us; node2 never: timeout 1 s.
  EXPECT_EQ(got[1].r.reply, redis::Reply::integer_of(1));
  EXPECT_EQ(got[1].t, 500 + 1'000'000 + 500);
}

TEST(ReplicationTest, WaitReturnsAsSoonAsEnoughReplicasAcknowledge) {
  TestWorld w(replicated(1));
  std::vector<Result> got;
  call_at(w, 0, {"SET", "L", "tok"}, &got);
  call_at(w, 0, {"WAIT", "1", "0"}, &got);
  w.run_until(5'000'000);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].r.reply, redis::Reply::integer_of(1));
  EXPECT_EQ(got[1].t, 500 + 10'000 + 500 + 500);
}

TEST(ReplicationTest, APartitionedReplicaCatchesUpFromTheBacklogWhenItHeals) {
  TestWorld w(replicated(1));
  w.net->add_heal_listener([&] { w.nodes[0]->flush_backlogs(); });
  std::vector<Result> got;
  WindowId p = 0;
  w.at(0, [&] { p = w.net->add_partition({{0}, {1}}, false); });
  call_at(w, 100, {"SET", "L", "tok"}, &got);
  w.at(1'000'000, [&] {
    EXPECT_FALSE(w.value(1, "L").has_value());
    w.net->remove(p);
  });
  w.run_until(2'000'000);
  EXPECT_EQ(w.value(1, "L"), "tok");
}

TEST(ReplicationTest, FailoverBeforeReplicationLosesTheKeyOnTheNewMaster) {
  TestWorld w(replicated(1));
  std::vector<Result> got;
  call_at(w, 0, {"SET", "L", "tok"}, &got);  // executes at 500 us, reaches node1 at 10.5 ms
  w.at(1'000, [&] { w.cluster->crash(w.nodes[0].get()); });
  w.at(2'000, [&] { w.cluster->failover(0); });
  call_at(w, 3'000, {"GET", "L"}, &got);
  w.run_until(1'000'000);
  EXPECT_EQ(w.cluster->master(0), w.nodes[1].get());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].r.reply, redis::Reply::nil());
  auto loss = w.lines("data_loss");
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_EQ(loss[0]["node"], "node1");
  EXPECT_EQ(loss[0]["reason"], "failover");
  EXPECT_EQ(loss[0]["keys"], nlohmann::json({"L"}));
  auto node = w.lines("node");
  ASSERT_EQ(node.size(), 2u);
  EXPECT_EQ(node[1]["event"], "promoted");
  EXPECT_EQ(node[1]["node"], "node1");
}

TEST(ReplicationTest, AutomaticFailoverAfterTheDetectionDelayAndTheOldMasterComesBackDemoted) {
  TestWorld::Options o = replicated(1);
  o.failover_detection_ms = 5000;
  TestWorld w(o);
  std::vector<Result> got;
  call_at(w, 0, {"SET", "L", "tok"}, &got);
  w.at(1'000'000, [&] { w.cluster->crash(w.nodes[0].get()); });
  w.at(20'000'000, [&] { w.cluster->restart(w.nodes[0].get()); });
  call_at(w, 21'000'000, {"SET", "M", "x"}, &got);
  w.run_until(30'000'000);
  EXPECT_EQ(w.cluster->master(0), w.nodes[1].get());
  auto node = w.lines("node");
  ASSERT_EQ(node.size(), 4u);
  EXPECT_EQ(node[1]["event"], "promoted");
  EXPECT_EQ(node[1]["t"], 6'000'000);
  EXPECT_EQ(node[2]["event"], "restarted");
  EXPECT_EQ(node[3]["event"], "demoted");
  EXPECT_TRUE(w.lines("data_loss").empty());  // the key had been replicated
  EXPECT_EQ(w.value(0, "M"), "x");            // the old master now follows node1
  EXPECT_EQ(w.value(0, "L"), "tok");
}

TEST(ReplicationTest, NoFailoverIfTheMasterReturnsWithinTheDetectionDelay) {
  TestWorld::Options o = replicated(1);
  o.failover_detection_ms = 5000;
  TestWorld w(o);
  w.at(1'000'000, [&] { w.cluster->pause(w.nodes[0].get()); });
  w.at(4'000'000, [&] { w.cluster->resume(w.nodes[0].get()); });
  w.run_until(30'000'000);
  EXPECT_EQ(w.cluster->master(0), w.nodes[0].get());
}

TEST(ReplicationTest, AMasterRestartedWithoutPersistenceEmptiesItsReplicas) {
  TestWorld w(replicated(1));
  std::vector<Result> got;
  call_at(w, 0, {"SET", "L", "tok"}, &got);
  w.at(1'000'000, [&] { w.cluster->crash(w.nodes[0].get()); });
  w.at(2'000'000, [&] { w.cluster->restart(w.nodes[0].get()); });
  w.run_until(3'000'000);
  EXPECT_FALSE(w.value(0, "L").has_value());
  EXPECT_FALSE(w.value(1, "L").has_value());
}

TEST(ReplicationTest, ReplicationLagFaultSlowsTheStream) {
  TestWorld w(replicated(1));
  std::vector<Result> got;
  w.at(0, [&] { w.net->add_replication_lag(w.nodes[1]->id(), 2'000'000); });
  call_at(w, 100, {"SET", "L", "tok"}, &got);
  w.at(2'000'000, [&] { EXPECT_FALSE(w.value(1, "L").has_value()); });
  w.run_until(3'000'000);
  EXPECT_EQ(w.value(1, "L"), "tok");
}

}  // namespace
}  // namespace lockstep::kernel
