#include "sim/kernel/process.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace lockstep::kernel {
namespace {

// Records what ran, when (true time) and what it was.
class RecordingProcess : public Process {
 public:
  using Process::Process;
  struct Entry {
    TimeUs t;
    std::string what;
    bool operator==(const Entry&) const = default;
  };
  std::vector<Entry> log;
  std::vector<uint64_t> dropped;
  std::set<uint64_t> dead_timers;  // timers whose wait ended already

 protected:
  void handle_work(uint64_t p) override { log.push_back({now(), "work" + std::to_string(p)}); }
  void handle_timer(uint64_t tag) override {
    log.push_back({now(), "timer" + std::to_string(tag)});
  }
  void drop_work(uint64_t p) override { dropped.push_back(p); }
  bool timer_live(uint64_t tag) const override { return !dead_timers.contains(tag); }
};

// Runs a callback at a given true time (faults in these tests).
struct At : EventHandler {
  std::vector<std::function<void()>> fns;
  void on_event(uint64_t i) override { fns[i](); }
  void schedule(EventLoop& loop, TimeUs t, std::function<void()> f) {
    fns.push_back(std::move(f));
    loop.at(t, this, fns.size() - 1);
  }
};

using E = RecordingProcess::Entry;

TEST(ProcessTest, TimersFireByTheLocalClockInDeadlineOrder) {
  EventLoop loop;
  RecordingProcess p(loop, 0, "c1", LocalClock(2'000, 0));  // local = true + 2 ms
  p.add_timer(12'000, 1);
  p.add_timer(5'000, 2);
  p.add_timer(12'000, 3);
  ASSERT_TRUE(loop.run_until(1'000'000, 100).ok());
  EXPECT_EQ(p.log, (std::vector<E>{{3'000, "timer2"}, {10'000, "timer1"}, {10'000, "timer3"}}));
}

// A call's timeout timer outlives the call when the reply comes first: the heap must not keep
// every such timer until its deadline (B5: a waiting client's heap), and the live ones must still
// fire in deadline order.
TEST(ProcessTest, DeadTimersDoNotAccumulateAndLiveOnesStillFireInOrder) {
  EventLoop loop;
  RecordingProcess p(loop, 0, "c1", LocalClock());
  p.add_timer(50'000, 1'000'001);
  p.add_timer(40'000, 1'000'002);
  for (uint64_t tag = 1; tag <= 10'000; ++tag) {
    p.add_timer(3'000'000 + static_cast<int64_t>(tag), tag);  // a 3 s command timeout...
    p.dead_timers.insert(tag);                                 // ...whose reply came at once
    ASSERT_LE(p.timers_pending(), 8u) << "after timer " << tag;
  }
  ASSERT_TRUE(loop.run_until(10'000'000, 100).ok());
  EXPECT_EQ(p.log, (std::vector<E>{{40'000, "timer1000002"}, {50'000, "timer1000001"}}));
}

TEST(ProcessTest, AForwardJumpFiresPendingTimersAtOnce) {
  EventLoop loop;
  At at;
  RecordingProcess p(loop, 0, "node0", LocalClock());
  p.add_timer(30'000'000, 7);  // a 30 s TTL, say
  at.schedule(loop, 1'000'000, [&] { p.clock_jump(40'000'000); });
  ASSERT_TRUE(loop.run_until(60'000'000, 100).ok());
  EXPECT_EQ(p.log, (std::vector<E>{{1'000'000, "timer7"}}));
}

TEST(ProcessTest, ABackwardJumpDelaysPendingTimers) {
  EventLoop loop;
  At at;
  RecordingProcess p(loop, 0, "c1", LocalClock());
  p.add_timer(10'000'000, 1);
  at.schedule(loop, 2'000'000, [&] { p.clock_jump(-5'000'000); });
  ASSERT_TRUE(loop.run_until(60'000'000, 100).ok());
  EXPECT_EQ(p.log, (std::vector<E>{{15'000'000, "timer1"}}));
}

TEST(ProcessTest, DriftChangeRetimesTimers) {
  EventLoop loop;
  At at;
  RecordingProcess p(loop, 0, "c1", LocalClock());
  p.add_timer(2'000'000, 1);
  // From t=1 s the clock runs 50% fast, so the remaining local second takes 2/3 s.
  at.schedule(loop, 1'000'000, [&] { p.clock_set_drift(500'000); });
  ASSERT_TRUE(loop.run_until(10'000'000, 100).ok());
  EXPECT_EQ(p.log, (std::vector<E>{{1'666'667, "timer1"}}));
}

TEST(ProcessTest, PauseQueuesWorkAndTimersUntilResumeThenRunsThemInOrder) {
  EventLoop loop;
  At at;
  RecordingProcess p(loop, 0, "c1", LocalClock());
  p.add_timer(20'000, 1);
  at.schedule(loop, 10'000, [&] { p.pause(); });
  p.post_at(15'000, 100);
  p.post_at(25'000, 101);
  at.schedule(loop, 45'000, [&] { p.resume(); });
  p.post_at(50'000, 102);
  ASSERT_TRUE(loop.run_until(100'000, 100).ok());
  EXPECT_EQ(p.log, (std::vector<E>{{45'000, "work100"},
                                   {45'000, "work101"},
                                   {45'000, "timer1"},
                                   {50'000, "work102"}}));
}

TEST(ProcessTest, NestedPausesResumeOnlyWhenAllEnded) {
  EventLoop loop;
  At at;
  RecordingProcess p(loop, 0, "c1", LocalClock());
  at.schedule(loop, 10, [&] { p.pause(); });
  at.schedule(loop, 20, [&] { p.pause(); });
  at.schedule(loop, 30, [&] { p.resume(); });
  p.post_at(35, 1);
  at.schedule(loop, 40, [&] { p.resume(); });
  ASSERT_TRUE(loop.run_until(100, 100).ok());
  EXPECT_EQ(p.log, (std::vector<E>{{40, "work1"}}));
}

TEST(ProcessTest, CrashDiscardsTimersInboxAndInFlightWork) {
  EventLoop loop;
  At at;
  RecordingProcess p(loop, 0, "node0", LocalClock());
  p.add_timer(50'000, 1);
  at.schedule(loop, 5'000, [&] { p.pause(); });
  p.post_at(6'000, 10);                          // queued in the inbox
  at.schedule(loop, 7'000, [&] { p.crash(); });  // drops it
  p.post_at(8'000, 11);                          // in flight: dropped on arrival
  at.schedule(loop, 9'000, [&] { p.restart(); });
  at.schedule(loop, 9'500, [&] { p.resume(); });
  at.schedule(loop, 10'000, [&] { p.post(12); });  // new epoch: runs
  ASSERT_TRUE(loop.run_until(100'000, 100).ok());
  EXPECT_EQ(p.log, (std::vector<E>{{10'000, "work12"}}));
  EXPECT_EQ(p.dropped, (std::vector<uint64_t>{10, 11}));
  EXPECT_EQ(p.epoch(), 1u);
}

TEST(ProcessTest, RestartedProcessIsStillPausedUntilThePauseEnds) {
  EventLoop loop;
  At at;
  RecordingProcess p(loop, 0, "node0", LocalClock());
  at.schedule(loop, 1, [&] { p.pause(); });
  at.schedule(loop, 2, [&] { p.crash(); });
  at.schedule(loop, 3, [&] { p.restart(); });
  at.schedule(loop, 4, [&] { p.post(5); });  // sent to the new incarnation
  at.schedule(loop, 10, [&] { p.resume(); });
  ASSERT_TRUE(loop.run_until(100, 100).ok());
  EXPECT_EQ(p.log, (std::vector<E>{{10, "work5"}}));
}

}  // namespace
}  // namespace lockstep::kernel
