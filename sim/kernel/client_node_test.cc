// Client <-> node through the network: calls, timeouts, retries, pauses, clocks, pub/sub,
// crashes and node restarts with each persistence mode.
#include <gtest/gtest.h>

#include "sim/kernel/semaphore.h"
#include "sim/kernel/testing/test_world.h"

namespace lockstep::kernel {
namespace {

using testing::TestWorld;
using Args = std::vector<std::string>;

struct Result {
  TimeUs t;
  runtime::CallResult r;
};

// Sends `argv` from client `c` at true time t (through a root task) and stores the result.
void call_at(TestWorld& w, size_t c, TimeUs t, Args argv, std::vector<Result>* out,
             runtime::CallOptions opts = {}) {
  w.at(t, [&w, c, argv, out, opts] {
    ClientProcess& p = *w.clients[c];
    p.CoroProcess::spawn([](ClientProcess& p, Args argv, std::vector<Result>* out,
                            runtime::CallOptions opts) -> Task<void> {
      runtime::CallResult r = co_await p.conn(0).call(argv, opts);
      out->push_back(Result{p.now(), std::move(r)});
    }(p, argv, out, opts));
  });
}

TestWorld::Options one_node() {
  TestWorld::Options o;
  o.client.retry_attempts = 0;
  return o;
}

TEST(ClientNodeTest, ACallRoundTripsAndIsRecordedAsExec) {
  TestWorld w(one_node());
  std::vector<Result> got;
  call_at(w, 0, 1000, {"SET", "k", "v"}, &got);
  w.run_until(1'000'000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].t, 2000);  // 500 us each way
  EXPECT_TRUE(got[0].r.ok());
  EXPECT_EQ(got[0].r.reply, redis::Reply::ok());
  auto execs = w.lines("exec");
  ASSERT_EQ(execs.size(), 1u);
  EXPECT_EQ(execs[0]["t"], 1500);
  EXPECT_EQ(execs[0]["seq"], 1);
  EXPECT_EQ(execs[0]["local_ms"], 1);
  EXPECT_EQ(execs[0]["conn"], "c1");
  EXPECT_EQ(execs[0]["command"], "SET");
  EXPECT_EQ(execs[0]["reply"]["ok"], "OK");
}

TEST(ClientNodeTest, APartitionMakesACommandTimeOutAfterTheClientTimeout) {
  TestWorld w(one_node());
  std::vector<Result> got;
  w.at(500, [&] { w.net->add_partition({{0}, {1}}, false); });
  call_at(w, 0, 1000, {"GET", "k"}, &got);
  w.run_until(10'000'000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].t, 1000 + 3'000'000);
  EXPECT_FALSE(got[0].r.ok());
  EXPECT_EQ(got[0].r.attempts, 1);
  EXPECT_TRUE(w.lines("exec").empty());
}

TEST(ClientNodeTest, TimedOutAttemptsMayHaveExecutedAndLateRepliesAreIgnored) {
  TestWorld::Options o;
  o.client.retry_attempts = 2;
  o.client.timeout_ms = 100;
  o.client.retry_interval_ms = 50;
  TestWorld w(o);
  std::vector<Result> got;
  // Replies (node0 -> c1) take an extra second: every attempt executes, none is answered in time.
  w.at(0, [&] { w.net->add_delay(LinkFilter{LinkFilter::Kind::kDirected, 0, 1}, 1'000'000); });
  call_at(w, 0, 10, {"INCR", "n"}, &got);
  w.run_until(10'000'000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_FALSE(got[0].r.ok());
  EXPECT_EQ(got[0].r.attempts, 3);
  // Attempts at 10, 150010 and 300010 us; the last times out at 400010 us.
  EXPECT_EQ(got[0].t, 400'010);
  auto execs = w.lines("exec");
  ASSERT_EQ(execs.size(), 3u);
  EXPECT_EQ(execs[2]["reply"], 3);
}

TEST(ClientNodeTest, ARetryAfterALostRequestSucceeds) {
  TestWorld::Options o;
  o.client.retry_attempts = 2;
  o.client.timeout_ms = 100;
  o.client.retry_interval_ms = 50;
  TestWorld w(o);
  std::vector<Result> got;
  WindowId d = 0;
  w.at(0, [&] { d = w.net->add_drop(LinkFilter{}, 1'000'000); });
  call_at(w, 0, 10, {"INCR", "n"}, &got);
  w.at(20, [&] { w.net->remove(d); });
  w.run_until(10'000'000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].r.ok());
  EXPECT_EQ(got[0].r.attempts, 2);
  EXPECT_EQ(got[0].t, 151'010);
  EXPECT_EQ(got[0].r.reply, redis::Reply::integer_of(1));
  EXPECT_EQ(w.lines("exec").size(), 1u);
}

TEST(ClientNodeTest, APausedClientSendsNothingDuringThePause) {
  TestWorld w(one_node());
  w.at(0, [&] {
    ClientProcess& p = *w.clients[0];
    p.CoroProcess::spawn([](ClientProcess& p) -> Task<void> {
      for (int i = 0; i < 60; ++i) {
        Args argv = {"INCR", "n"};
        co_await p.conn(0).call(argv);
        co_await p.sleep_ms(1000);
      }
    }(p));
  });
  w.at(10'000'000, [&] { w.clients[0]->pause(); });
  w.at(45'000'000, [&] { w.clients[0]->resume(); });
  w.run_until(60'000'000);
  std::vector<int64_t> sent;
  for (auto& e : w.lines("exec")) sent.push_back(e["t"].get<int64_t>() - 500);
  for (int64_t t : sent) EXPECT_FALSE(t > 10'000'000 && t < 45'000'000) << t;
  // The sleep that was due during the pause ends at the resume: the next command is sent then.
  EXPECT_NE(std::find(sent.begin(), sent.end(), 45'000'000), sent.end());
}

TEST(ClientNodeTest, ANodeClockJumpOfFortySecondsExpiresAThirtySecondKeyAtOnce) {
  TestWorld w(one_node());
  std::vector<Result> got;
  call_at(w, 0, 1'000'000, {"SET", "L", "tok", "PX", "30000"}, &got);
  w.at(5'000'000, [&] { w.nodes[0]->clock_jump(40'000'000); });
  w.run_until(60'000'000);
  auto exp = w.lines("expire");
  ASSERT_EQ(exp.size(), 1u);
  EXPECT_EQ(exp[0]["t"], 5'000'000);
  EXPECT_EQ(exp[0]["key"], "L");
  EXPECT_EQ(exp[0]["local_ms"], 45'000);
}

TEST(ClientNodeTest, AClientClockJumpShortensItsTimeout) {
  TestWorld w(one_node());
  std::vector<Result> got;
  w.at(500, [&] { w.net->add_partition({{0}, {1}}, false); });
  call_at(w, 0, 1000, {"GET", "k"}, &got);
  w.at(1'001'000, [&] { w.clients[0]->clock_jump(1'500'000); });
  w.run_until(10'000'000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].t, 1'501'000);  // 3 s of local time reached 1.5 s early
}

TEST(ClientNodeTest, PubSubDeliversToSubscribersAndACrashDropsTheSubscription) {
  TestWorld::Options o = one_node();
  o.clients = 2;
  TestWorld w(o);
  struct Listener : runtime::MessageListener {
    std::vector<std::string> got;
    void on_message(std::string_view ch, std::string_view m) override {
      got.push_back(std::string(ch) + "=" + std::string(m));
    }
  } listener;
  w.at(0, [&] {
    ClientProcess& p = *w.clients[1];
    p.CoroProcess::spawn([](ClientProcess& p, Listener* l) -> Task<void> {
      co_await p.pubsub(0).subscribe("ch", l);
    }(p, &listener));
  });
  std::vector<Result> got;
  call_at(w, 0, 10'000, {"PUBLISH", "ch", "0"}, &got);
  w.at(20'000, [&] { w.clients[1]->crash_client(); });
  call_at(w, 0, 30'000, {"PUBLISH", "ch", "1"}, &got);
  w.run_until(100'000);
  EXPECT_EQ(listener.got, (std::vector<std::string>{"ch=0"}));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].r.reply, redis::Reply::integer_of(1));
  EXPECT_EQ(got[1].r.reply, redis::Reply::integer_of(0));
  auto pubs = w.lines("publish");
  ASSERT_EQ(pubs.size(), 2u);
  EXPECT_EQ(pubs[0]["receivers"], 1);
  EXPECT_EQ(pubs[1]["receivers"], 0);
  auto del = w.lines("deliver");
  ASSERT_EQ(del.size(), 1u);
  EXPECT_EQ(del[0]["thread"], "c2");
  EXPECT_EQ(del[0]["t"], 11'000);
}

struct RestartCase {
  Persistence mode;
  bool keeps_first;   // SET at t=1 s survives a crash at t=1.5 s?
};

class RestartTest : public ::testing::TestWithParam<RestartCase> {};

TEST_P(RestartTest, ARestartKeepsWhatThePersistenceModeKept) {
  TestWorld::Options o = one_node();
  o.node.persistence = GetParam().mode;
  o.node.rdb_interval_ms = 1000;
  TestWorld w(o);
  std::vector<Result> got;
  call_at(w, 0, 1'000'000, {"SET", "L", "tok"}, &got);
  w.at(1'500'000, [&] { w.cluster->crash(w.nodes[0].get()); });
  w.at(2'000'000, [&] { w.cluster->restart(w.nodes[0].get()); });
  w.run_until(3'000'000);
  EXPECT_EQ(w.value(0, "L").has_value(), GetParam().keeps_first);
  auto loss = w.lines("data_loss");
  if (GetParam().keeps_first) {
    EXPECT_TRUE(loss.empty());
  } else {
    ASSERT_EQ(loss.size(), 1u);
    EXPECT_EQ(loss[0]["reason"], "restart");
    EXPECT_EQ(loss[0]["keys"], nlohmann::json({"L"}));
  }
  auto node = w.lines("node");
  ASSERT_EQ(node.size(), 2u);
  EXPECT_EQ(node[0]["event"], "crashed");
  EXPECT_EQ(node[1]["event"], "restarted");
}

INSTANTIATE_TEST_SUITE_P(Modes, RestartTest,
                         ::testing::Values(RestartCase{Persistence::kNone, false},
                                           RestartCase{Persistence::kAofAlways, true},
                                           // fsync at local 1 s ran before the SET executed
                                           RestartCase{Persistence::kAofEverysec, false},
                                           RestartCase{Persistence::kRdb, false}));

TEST(ClientNodeTest, AofEverysecKeepsWritesOlderThanTheLastFsync) {
  TestWorld::Options o = one_node();
  o.node.persistence = Persistence::kAofEverysec;
  TestWorld w(o);
  std::vector<Result> got;
  call_at(w, 0, 1'200'000, {"SET", "A", "1"}, &got);  // fsynced at local 2 s
  call_at(w, 0, 2'200'000, {"SET", "B", "1"}, &got);  // lost: crash before the 3 s fsync
  w.at(2'900'000, [&] { w.cluster->crash(w.nodes[0].get()); });
  w.at(4'000'000, [&] { w.cluster->restart(w.nodes[0].get()); });
  w.run_until(5'000'000);
  EXPECT_TRUE(w.value(0, "A").has_value());
  EXPECT_FALSE(w.value(0, "B").has_value());
}

TEST(ClientNodeTest, CommandsToACrashedNodeTimeOut) {
  TestWorld w(one_node());
  std::vector<Result> got;
  w.at(100, [&] { w.cluster->crash(w.nodes[0].get()); });
  call_at(w, 0, 1000, {"GET", "k"}, &got);
  w.at(1'000'000, [&] { w.cluster->restart(w.nodes[0].get()); });
  call_at(w, 0, 4'000'000, {"GET", "k"}, &got);
  w.run_until(10'000'000);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got[0].r.ok());
  EXPECT_TRUE(got[1].r.ok());
  EXPECT_EQ(got[1].r.reply, redis::Reply::nil());
}

TEST(ClientNodeTest, LoseReplyExecutesTheCommandButTheClientTimesOut) {
  TestWorld w(one_node());
  std::vector<Result> got;
  bool exhausted = false;
  w.at(0, [&] { w.net->add_lose_reply(w.clients[0]->id(), "set", 1, [&] { exhausted = true; }); });
  call_at(w, 0, 1000, {"GET", "k"}, &got);        // not matched: answered
  call_at(w, 0, 2000, {"SET", "k", "v"}, &got);   // executed, reply lost
  call_at(w, 0, 5'000'000, {"SET", "k", "w"}, &got);  // the fault is used up: answered
  w.run_until(10'000'000);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(got[0].r.ok());
  EXPECT_FALSE(got[1].r.ok());
  EXPECT_EQ(got[1].t, 2000 + 3'000'000);
  EXPECT_TRUE(got[2].r.ok());
  EXPECT_TRUE(exhausted);
  EXPECT_EQ(w.lines("exec").size(), 3u);
  EXPECT_EQ(w.value(0, "k"), "w");
}

Task<void> acquire_into(SimSemaphore& s, ClientProcess& p, int64_t timeout_ms,
                        std::vector<std::string>* log, std::string name) {
  const bool ok = co_await s.try_acquire(timeout_ms);
  log->push_back(std::to_string(p.now()) + " " + name + (ok ? " got" : " timeout"));
}

TEST(ClientNodeTest, SemaphoreWaitersAreServedInOrderAndTimeOutOnTheLocalClock) {
  TestWorld w(one_node());
  ClientProcess& p = *w.clients[0];
  SimSemaphore sem(p, 0);
  std::vector<std::string> log;
  w.at(0, [&] {
    p.CoroProcess::spawn(acquire_into(sem, p, 100, &log, "a"));
    p.CoroProcess::spawn(acquire_into(sem, p, 10, &log, "b"));
    p.CoroProcess::spawn(acquire_into(sem, p, -1, &log, "c"));
  });
  w.at(50'000, [&] { sem.release(2); });
  w.at(60'000, [&] { p.CoroProcess::spawn(acquire_into(sem, p, 0, &log, "d")); });
  w.run_until(1'000'000);
  EXPECT_EQ(log, (std::vector<std::string>{"10000 b timeout", "50000 a got", "50000 c got",
                                           "60000 d timeout"}));
}


// A queue that never empties while permits trickle in one at a time (the consumed prefix is
// compacted now and then): waiters are still served strictly in arrival order, and none is lost.
TEST(ClientNodeTest, SemaphoreKeepsFifoOrderThroughALongNeverEmptyingQueue) {
  TestWorld w(one_node());
  ClientProcess& p = *w.clients[0];
  SimSemaphore sem(p, 0);
  std::vector<std::string> log;
  constexpr int kWaiters = 200;
  for (int i = 0; i < kWaiters; ++i) {
    // Waiter i arrives at i ms; one permit comes at i ms + 0.5 ms from i = 2 on, so two are
    // always queued.
    w.at(i * 1000, [&, i] { p.CoroProcess::spawn(acquire_into(sem, p, -1, &log, std::to_string(i))); });
    if (i >= 2) w.at(i * 1000 + 500, [&] { sem.release(1); });
  }
  w.at(kWaiters * 1000, [&] { sem.release(2); });
  w.run_until(1'000'000);
  ASSERT_EQ(log.size(), static_cast<size_t>(kWaiters));
  for (int i = 0; i < kWaiters; ++i) {
    EXPECT_EQ(log[i].substr(log[i].find(' ') + 1), std::to_string(i) + " got") << i;
  }
  EXPECT_EQ(sem.waiters(), 0u);
}

}  // namespace
}  // namespace lockstep::kernel
