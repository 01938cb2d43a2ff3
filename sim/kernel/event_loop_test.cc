#include "sim/kernel/event_loop.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

namespace lockstep::kernel {
namespace {

struct Recorder : EventHandler {
  EventLoop* loop = nullptr;
  std::vector<std::pair<TimeUs, uint64_t>> seen;
  void on_event(uint64_t arg) override { seen.emplace_back(loop->now(), arg); }
};

TEST(EventLoopTest, RunsInTimeOrderAndBreaksTiesByScheduleOrder) {
  EventLoop loop;
  Recorder r;
  r.loop = &loop;
  loop.at(30, &r, 1);
  loop.at(10, &r, 2);
  loop.at(30, &r, 3);
  loop.at(10, &r, 4);
  loop.at(20, &r, 5);
  ASSERT_TRUE(loop.run_until(100, 1000).ok());
  const std::vector<std::pair<TimeUs, uint64_t>> expected = {
      {10, 2}, {10, 4}, {20, 5}, {30, 1}, {30, 3}};
  EXPECT_EQ(r.seen, expected);
  EXPECT_EQ(loop.now(), 100);
  EXPECT_EQ(loop.events_run(), 5u);
}

// The prefetch hint goes to the next event's handler, with that event's argument, while the
// current event runs; only to the handler given to prefetch_for, and it changes no order.
struct Hinted : Recorder {
  mutable std::vector<std::pair<uint64_t, size_t>> hints;  // (arg, events seen when hinted)
  void prefetch(uint64_t arg) const override { hints.emplace_back(arg, seen.size()); }
};

TEST(EventLoopTest, PrefetchHintsTheNextEventOfTheGivenHandler) {
  EventLoop loop;
  Hinted hinted;
  hinted.loop = &loop;
  Recorder other;
  other.loop = &loop;
  loop.prefetch_for(&hinted);
  loop.at(10, &hinted, 1);
  loop.at(20, &other, 2);
  loop.at(30, &hinted, 3);
  loop.at(40, &hinted, 4);
  ASSERT_TRUE(loop.run_until(100, 1000).ok());
  // Event 1 is hinted by nobody (nothing ran before it); 3 while 2 runs, 4 while 3 runs: each
  // before the event it comes with (the handler had seen only event 1 both times).
  const std::vector<std::pair<uint64_t, size_t>> expected = {{3, 1}, {4, 1}};
  EXPECT_EQ(hinted.hints, expected);
  EXPECT_EQ(hinted.seen.size(), 3u);
  EXPECT_EQ(other.seen.size(), 1u);
}

TEST(EventLoopTest, StopsAtEndAndKeepsLaterEvents) {
  EventLoop loop;
  Recorder r;
  r.loop = &loop;
  loop.at(5, &r, 1);
  loop.at(50, &r, 2);
  ASSERT_TRUE(loop.run_until(49, 1000).ok());
  EXPECT_EQ(r.seen.size(), 1u);
  EXPECT_EQ(loop.pending(), 1u);
  EXPECT_EQ(loop.now(), 49);
  ASSERT_TRUE(loop.run_until(50, 1000).ok());
  EXPECT_EQ(r.seen.size(), 2u);
}

// An event that always schedules another one at the same instant never lets time advance.
struct Runaway : EventHandler {
  EventLoop* loop = nullptr;
  void on_event(uint64_t) override { loop->at(loop->now(), this, 0); }
};

TEST(EventLoopTest, EventBudgetEndsARunawayRunWithAnError) {
  EventLoop loop;
  Runaway r;
  r.loop = &loop;
  loop.at(7, &r, 0);
  Status s = loop.run_until(1000, 100);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("budget of 100 events"), std::string::npos);
  EXPECT_NE(s.message().find("t=7"), std::string::npos);
}

TEST(EventLoopTest, MovableTimersFireOnceAtTheirLatestTimeInSequenceOrder) {
  EventLoop loop;
  Recorder r;
  r.loop = &loop;
  LoopTimer a, b;
  loop.at(10, &r, 1);
  loop.arm(a, 50, &r, 100);
  loop.arm(b, 10, &r, 200);  // same time as event 1, scheduled after it
  loop.arm(a, 5, &r, 101);   // moved earlier: fires once, with its new argument
  loop.at(10, &r, 2);
  loop.arm(b, 30, &r, 201);  // moved later: now after event 2
  LoopTimer c;
  loop.arm(c, 20, &r, 300);
  loop.disarm(c);
  EXPECT_EQ(loop.pending(), 4u);
  ASSERT_TRUE(loop.run_until(100, 100).ok());
  const std::vector<std::pair<TimeUs, uint64_t>> expected = {{5, 101}, {10, 1}, {10, 2}, {30, 201}};
  EXPECT_EQ(r.seen, expected);
  EXPECT_FALSE(a.armed());
  EXPECT_FALSE(c.armed());
}

RC_GTEST_PROP(EventLoopProp, MovableTimersKeepHeapOrder, (std::vector<std::pair<uint8_t, uint8_t>> ops)) {
  EventLoop loop;
  Recorder r;
  r.loop = &loop;
  std::vector<LoopTimer> timers(8);
  std::vector<TimeUs> last(8, -1);
  for (auto [which, t] : ops) {
    const size_t i = which % timers.size();
    if (t % 5 == 0) {
      loop.disarm(timers[i]);
      last[i] = -1;
    } else {
      loop.arm(timers[i], t, &r, i);
      last[i] = t;
    }
  }
  RC_ASSERT(loop.run_until(1000, 10000).ok());
  size_t armed = 0;
  for (TimeUs t : last) armed += t >= 0 ? 1 : 0;
  RC_ASSERT(r.seen.size() == armed);
  for (size_t k = 1; k < r.seen.size(); ++k) RC_ASSERT(r.seen[k - 1].first <= r.seen[k].first);
  for (const auto& [t, i] : r.seen) RC_ASSERT(last[i] == t);
}

RC_GTEST_PROP(EventLoopProp, OrderIsByTimeThenInsertion, (std::vector<uint8_t> times)) {
  EventLoop loop;
  Recorder r;
  r.loop = &loop;
  for (size_t i = 0; i < times.size(); ++i) loop.at(times[i], &r, i);
  RC_ASSERT(loop.run_until(1000, 100000).ok());
  RC_ASSERT(r.seen.size() == times.size());
  for (size_t i = 1; i < r.seen.size(); ++i) {
    const auto& a = r.seen[i - 1];
    const auto& b = r.seen[i];
    RC_ASSERT(a.first <= b.first);
    if (a.first == b.first) RC_ASSERT(a.second < b.second);
  }
}

// Events that schedule more events as they run, against a reference queue (a std::set ordered by
// time, then scheduling order): the heap must pop the same sequence however pushes and pops mix.
RC_GTEST_PROP(EventLoopProp, InterleavedSchedulingMatchesASortedQueue, (std::vector<uint8_t> plan)) {
  struct Spawner : EventHandler {
    EventLoop* loop = nullptr;
    const std::vector<uint8_t>* plan = nullptr;
    size_t cursor = 0;
    uint64_t next_id = 0;
    std::vector<std::pair<TimeUs, uint64_t>> seen;
    void on_event(uint64_t arg) override {
      seen.emplace_back(loop->now(), arg);
      // Each byte of the plan is one child (delay = byte / 4) until a byte divisible by 4.
      while (cursor < plan->size()) {
        const uint8_t b = (*plan)[cursor++];
        if (b % 4 == 0) break;
        loop->after(b / 4, this, next_id++);
      }
    }
  };
  EventLoop loop;
  Spawner sp;
  sp.loop = &loop;
  sp.plan = &plan;
  for (int i = 0; i < 3; ++i) loop.at(i, &sp, sp.next_id++);
  RC_ASSERT(loop.run_until(100000, 1000000).ok());

  // The reference: the same plan run on a sorted set of (time, seq, id).
  std::set<std::tuple<TimeUs, uint64_t, uint64_t>> queue;
  uint64_t seq = 0, next_id = 0;
  for (int i = 0; i < 3; ++i) queue.emplace(i, seq++, next_id++);
  size_t cursor = 0;
  std::vector<std::pair<TimeUs, uint64_t>> expected;
  while (!queue.empty()) {
    const auto [t, unused_seq, id] = *queue.begin();
    queue.erase(queue.begin());
    expected.emplace_back(t, id);
    while (cursor < plan.size()) {
      const uint8_t b = plan[cursor++];
      if (b % 4 == 0) break;
      queue.emplace(t + b / 4, seq++, next_id++);
    }
  }
  RC_ASSERT(sp.seen == expected);
}

}  // namespace
}  // namespace lockstep::kernel
