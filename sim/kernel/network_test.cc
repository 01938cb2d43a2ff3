#include "sim/kernel/network.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <functional>
#include <vector>

namespace lockstep::kernel {
namespace {

// Logs (arrival time, message id) for everything delivered to it.
class Sink : public Process {
 public:
  Sink(EventLoop& loop, ProcessId id, Network& net) : Process(loop, id, "p" + std::to_string(id), LocalClock()), net_(net) {}
  std::vector<std::pair<TimeUs, uint64_t>> got;

 protected:
  void handle_work(uint64_t slot) override {
    got.emplace_back(now(), net_.msg(static_cast<uint32_t>(slot)).id);
    net_.release(static_cast<uint32_t>(slot));
  }
  void handle_timer(uint64_t) override {}
  void drop_work(uint64_t slot) override { net_.release(static_cast<uint32_t>(slot)); }

 private:
  Network& net_;
};

struct At : EventHandler {
  std::vector<std::function<void()>> fns;
  void on_event(uint64_t i) override { fns[i](); }
  void schedule(EventLoop& loop, TimeUs t, std::function<void()> f) {
    fns.push_back(std::move(f));
    loop.at(t, this, fns.size() - 1);
  }
};

struct World {
  EventLoop loop;
  Network net{loop, Rng(7)};
  Sink a{loop, 0, net};
  Sink b{loop, 1, net};
  Sink c{loop, 2, net};
  At at;
  World() {
    net.add_process(&a);
    net.add_process(&b);
    net.add_process(&c);
  }
  bool send(ConnId conn, bool up, uint64_t id, MsgKind kind = MsgKind::kRequest) {
    uint32_t slot = net.alloc();
    net.msg(slot).id = id;
    net.msg(slot).kind = kind;
    return net.send(conn, up, slot);
  }
};

TEST(NetworkTest, ConnectionsAreNamedFromTheirProcesses) {
  World w;
  const ConnId cmd = w.net.connect(0, 1, "p0/cmd@p1", ConnName::kClient, 0);
  const ConnId pubsub = w.net.connect(0, 1, "p0/pubsub@p1", ConnName::kPubSub, 0);
  const ConnId stream = w.net.connect(1, 2, "p1->p2", ConnName::kToServer, 0);
  EXPECT_EQ(w.net.name(cmd), "p0");
  EXPECT_EQ(w.net.name(pubsub), "p0/pubsub");
  EXPECT_EQ(w.net.name(stream), "p1->p2");
}

TEST(NetworkTest, FixedLatencyDeliversAfterExactlyThatLong) {
  World w;
  w.net.set_default_link(LinkSpec{LatencyDist::fixed(300), 0});
  ConnId c = w.net.connect(0, 1, "a->b", ConnName::kToServer, 0);
  w.at.schedule(w.loop, 1000, [&] { w.send(c, true, 1); });
  w.at.schedule(w.loop, 1000, [&] { w.send(c, false, 2); });
  ASSERT_TRUE(w.loop.run_until(10'000, 100).ok());
  EXPECT_EQ(w.b.got, (std::vector<std::pair<TimeUs, uint64_t>>{{1300, 1}}));
  EXPECT_EQ(w.a.got, (std::vector<std::pair<TimeUs, uint64_t>>{{1300, 2}}));
  EXPECT_EQ(w.net.in_flight(), 0u);
}

TEST(NetworkTest, AChannelNeverReordersEvenWithRandomLatency) {
  World w;
  w.net.set_default_link(LinkSpec{LatencyDist::uniform(0, 10'000), 0});
  ConnId c = w.net.connect(0, 1, "a->b", ConnName::kToServer, 0);
  for (uint64_t i = 0; i < 200; ++i) {
    w.at.schedule(w.loop, static_cast<TimeUs>(i * 100), [&w, c, i] { w.send(c, true, i); });
  }
  ASSERT_TRUE(w.loop.run_until(1'000'000, 10'000).ok());
  ASSERT_EQ(w.b.got.size(), 200u);
  for (uint64_t i = 0; i < 200; ++i) EXPECT_EQ(w.b.got[i].second, i);
}

TEST(NetworkTest, LossRateOfOneMillionPpmLosesEverythingButCloses) {
  World w;
  w.net.set_default_link(LinkSpec{LatencyDist::fixed(100), 1'000'000});
  ConnId c = w.net.connect(0, 1, "a->b", ConnName::kToServer, 0);
  EXPECT_FALSE(w.send(c, true, 1));
  EXPECT_TRUE(w.send(c, true, 2, MsgKind::kClose));
  ASSERT_TRUE(w.loop.run_until(10'000, 100).ok());
  EXPECT_EQ(w.b.got, (std::vector<std::pair<TimeUs, uint64_t>>{{100, 2}}));
  EXPECT_EQ(w.net.messages_lost(), 1u);
}

TEST(NetworkTest, PartitionsBlockAcrossGroupsOneWayOnlyOneDirectionAndHeal) {
  World w;
  w.net.set_default_link(LinkSpec{LatencyDist::fixed(100), 0});
  ConnId ab = w.net.connect(0, 1, "a->b", ConnName::kToServer, 0);
  ConnId ac = w.net.connect(0, 2, "a->c", ConnName::kToServer, 0);
  WindowId p = w.net.add_partition({{0}, {1}}, false);  // c is in no group: unaffected
  EXPECT_FALSE(w.send(ab, true, 1));
  EXPECT_FALSE(w.send(ab, false, 2));
  EXPECT_TRUE(w.send(ac, true, 3));
  w.net.remove(p);
  WindowId q = w.net.add_partition({{0}, {1}}, true);  // a -> b blocked only
  EXPECT_FALSE(w.send(ab, true, 4));
  EXPECT_TRUE(w.send(ab, false, 5));
  w.net.remove(q);
  EXPECT_TRUE(w.send(ab, true, 6));
  ASSERT_TRUE(w.loop.run_until(10'000, 100).ok());
  EXPECT_EQ(w.b.got, (std::vector<std::pair<TimeUs, uint64_t>>{{100, 6}}));
  EXPECT_EQ(w.a.got, (std::vector<std::pair<TimeUs, uint64_t>>{{100, 5}}));
  EXPECT_EQ(w.c.got, (std::vector<std::pair<TimeUs, uint64_t>>{{100, 3}}));
}

TEST(NetworkTest, AMessageInFlightWhenAPartitionStartsIsLost) {
  World w;
  w.net.set_default_link(LinkSpec{LatencyDist::fixed(1000), 0});
  ConnId ab = w.net.connect(0, 1, "a->b", ConnName::kToServer, 0);
  EXPECT_TRUE(w.send(ab, true, 1));
  w.at.schedule(w.loop, 500, [&] { w.net.add_partition({{0}, {1}}, false); });
  ASSERT_TRUE(w.loop.run_until(10'000, 100).ok());
  EXPECT_TRUE(w.b.got.empty());
}

TEST(NetworkTest, DelayWindowsAddLatencyWithoutReordering) {
  World w;
  w.net.set_default_link(LinkSpec{LatencyDist::fixed(100), 0});
  ConnId ab = w.net.connect(0, 1, "a->b", ConnName::kToServer, 0);
  WindowId d = w.net.add_delay(LinkFilter{LinkFilter::Kind::kDirected, 0, 1}, 90'000'000);
  EXPECT_TRUE(w.send(ab, true, 1));  // arrives after 90 s
  w.net.remove(d);
  EXPECT_TRUE(w.send(ab, true, 2));  // would arrive at 100 us, but may not overtake #1
  EXPECT_TRUE(w.send(ab, false, 3));  // the other direction is unaffected
  ASSERT_TRUE(w.loop.run_until(100'000'000, 100).ok());
  EXPECT_EQ(w.b.got, (std::vector<std::pair<TimeUs, uint64_t>>{{90'000'100, 1}, {90'000'100, 2}}));
  EXPECT_EQ(w.a.got, (std::vector<std::pair<TimeUs, uint64_t>>{{100, 3}}));
}

TEST(NetworkTest, MessagesToACrashedOrRestartedProcessAreDropped) {
  World w;
  w.net.set_default_link(LinkSpec{LatencyDist::fixed(1000), 0});
  ConnId ab = w.net.connect(0, 1, "a->b", ConnName::kToServer, 0);
  EXPECT_TRUE(w.send(ab, true, 1));
  w.at.schedule(w.loop, 100, [&] { w.b.crash(); });
  w.at.schedule(w.loop, 200, [&] { w.b.restart(); });
  w.at.schedule(w.loop, 300, [&] { w.send(ab, true, 2); });
  ASSERT_TRUE(w.loop.run_until(10'000, 100).ok());
  EXPECT_EQ(w.b.got, (std::vector<std::pair<TimeUs, uint64_t>>{{1300, 2}}));
  EXPECT_EQ(w.net.in_flight(), 0u);
}

RC_GTEST_PROP(NetworkProp, EveryChannelIsFifoUnderRandomDelaysAndLoss,
              (uint64_t seed, std::vector<std::pair<uint8_t, uint16_t>> sends)) {
  World w;
  w.net.set_default_link(LinkSpec{LatencyDist::uniform(0, 5000), 100'000});
  ConnId ab = w.net.connect(0, 1, "a->b", ConnName::kToServer, 0);
  Rng r(seed);
  uint64_t id = 0;
  TimeUs t = 0;
  for (auto [delay_on, gap] : sends) {
    t += gap;  // ids are sent in increasing order
    const bool with_delay = delay_on % 3 == 0;
    const int64_t extra = r.between(0, 20'000);
    w.at.schedule(w.loop, t, [&w, ab, id, with_delay, extra] {
      WindowId d = with_delay ? w.net.add_delay(LinkFilter{}, extra) : 0;
      w.send(ab, true, id);
      if (with_delay) w.net.remove(d);
    });
    ++id;
  }
  RC_ASSERT(w.loop.run_until(100'000'000, 1'000'000).ok());
  for (size_t i = 1; i < w.b.got.size(); ++i) {
    RC_ASSERT(w.b.got[i - 1].second < w.b.got[i].second);
    RC_ASSERT(w.b.got[i - 1].first <= w.b.got[i].first);
  }
}

}  // namespace
}  // namespace lockstep::kernel
