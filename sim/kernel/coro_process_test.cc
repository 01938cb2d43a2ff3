#include "sim/kernel/coro_process.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace lockstep::kernel {
namespace {

class TestProcess : public CoroProcess {
 public:
  using CoroProcess::CoroProcess;
  std::vector<std::string> log;
  void note(const std::string& s) { log.push_back(std::to_string(now()) + " " + s); }

 protected:
  void handle_message(uint64_t) override {}
};

struct At : EventHandler {
  std::vector<std::function<void()>> fns;
  void on_event(uint64_t i) override { fns[i](); }
  void schedule(EventLoop& loop, TimeUs t, std::function<void()> f) {
    fns.push_back(std::move(f));
    loop.at(t, this, fns.size() - 1);
  }
};

Task<int> sleep_and_add(TestProcess& p, int64_t ms, int x) {
  co_await sleep_until(p, p.local_us() + ms * 1000);
  co_return x + 1;
}

Task<void> worker(TestProcess& p, std::string name) {
  p.note(name + " start");
  const int v = co_await sleep_and_add(p, 10, 41);
  p.note(name + " got " + std::to_string(v));
  co_await sleep_and_add(p, 5, 0);
  p.note(name + " done");
}

TEST(CoroProcessTest, NestedTasksSleepOnTheLocalClockAndReturnValues) {
  EventLoop loop;
  TestProcess p(loop, 0, "c1", LocalClock());
  p.spawn(worker(p, "a"));
  p.spawn(worker(p, "b"));
  ASSERT_TRUE(loop.run_until(1'000'000, 1000).ok());
  EXPECT_EQ(p.log, (std::vector<std::string>{"0 a start", "0 b start", "10000 a got 42",
                                             "10000 b got 42", "15000 a done", "15000 b done"}));
  EXPECT_EQ(p.roots_alive(), 0u);
  EXPECT_EQ(p.waits_open(), 0u);
}

// A one-shot event: completes every waiter filed with it.
struct Signal {
  std::vector<WaitRef> waiters;
  auto wait(TestProcess& p, int64_t deadline) {
    return WaitFor(p, deadline, [this](WaitRef r) { waiters.push_back(r); });
  }
  void fire(TestProcess& p) {
    for (WaitRef r : waiters) p.complete_wait(r, kWaitSignalled);
    waiters.clear();
  }
};

Task<void> waiter(TestProcess& p, Signal& s, int64_t timeout_ms) {
  const int32_t r = co_await s.wait(p, p.local_us() + timeout_ms * 1000);
  p.note(r == kWaitSignalled ? "signalled" : "timed out");
}

TEST(CoroProcessTest, AWaitEndsAtTheFirstOfSignalAndTimeout) {
  EventLoop loop;
  At at;
  TestProcess p(loop, 0, "c1", LocalClock());
  Signal s;
  p.spawn(waiter(p, s, 100));  // signalled at 50 ms
  p.spawn(waiter(p, s, 20));   // times out at 20 ms, before the signal
  at.schedule(loop, 50'000, [&] { s.fire(p); });
  ASSERT_TRUE(loop.run_until(1'000'000, 1000).ok());
  EXPECT_EQ(p.log, (std::vector<std::string>{"20000 timed out", "50000 signalled"}));
  EXPECT_EQ(p.waits_open(), 0u);
}

TEST(CoroProcessTest, APausedProcessRunsNothingUntilItResumes) {
  EventLoop loop;
  At at;
  TestProcess p(loop, 0, "c1", LocalClock());
  Signal s;
  p.spawn(worker(p, "a"));  // would finish its first sleep at 10 ms
  p.spawn(waiter(p, s, 1000));
  at.schedule(loop, 5'000, [&] { p.pause(); });
  at.schedule(loop, 6'000, [&] { s.fire(p); });  // resumption queued during the pause
  at.schedule(loop, 35'000, [&] { p.resume(); });
  ASSERT_TRUE(loop.run_until(1'000'000, 1000).ok());
  EXPECT_EQ(p.log, (std::vector<std::string>{"0 a start", "35000 signalled", "35000 a got 42",
                                             "40000 a done"}));
}

struct Tracker {
  int* destroyed;
  ~Tracker() { ++*destroyed; }
};

Task<void> forever(TestProcess& p, int* destroyed) {
  Tracker t{destroyed};
  for (int i = 0; i < 1000; ++i) co_await sleep_and_add(p, 1000, i);
}

TEST(CoroProcessTest, CrashDestroysEveryFrameAndCancelsItsWaits) {
  EventLoop loop;
  At at;
  TestProcess p(loop, 0, "c1", LocalClock());
  int destroyed = 0;
  p.spawn(forever(p, &destroyed));
  p.spawn(forever(p, &destroyed));
  at.schedule(loop, 2'500'000, [&] { p.crash(); });
  ASSERT_TRUE(loop.run_until(100'000'000, 1000).ok());
  EXPECT_EQ(destroyed, 2);
  EXPECT_EQ(p.roots_alive(), 0u);
  EXPECT_EQ(p.waits_open(), 0u);
  EXPECT_EQ(p.timers_pending(), 0u);
}

Task<void> canceller(TestProcess& p, RootId* victim) {
  co_await sleep_until(p, p.local_us() + 1500);
  p.cancel(*victim);
  p.note("cancelled");
}

TEST(CoroProcessTest, CancelDestroysAnotherRootFromInsideACoroutine) {
  EventLoop loop;
  TestProcess p(loop, 0, "c1", LocalClock());
  int destroyed = 0;
  RootId victim = p.spawn(forever(p, &destroyed));
  p.spawn(canceller(p, &victim));
  ASSERT_TRUE(loop.run_until(100'000, 1000).ok());
  EXPECT_EQ(destroyed, 1);
  EXPECT_FALSE(p.alive(victim));
  EXPECT_EQ(p.log, (std::vector<std::string>{"1500 cancelled"}));
  EXPECT_EQ(p.waits_open(), 0u);
}

Task<void> self_cancel(TestProcess& p, RootId* self) {
  co_await sleep_until(p, p.local_us() + 10);
  p.cancel(*self);  // deferred until this coroutine suspends
  p.note("still running");
  co_await sleep_until(p, p.local_us() + 10);
  p.note("never");
}

TEST(CoroProcessTest, ARootMayCancelItselfAndStopsAtItsNextSuspension) {
  EventLoop loop;
  TestProcess p(loop, 0, "c1", LocalClock());
  RootId self;
  self = p.spawn(self_cancel(p, &self));
  ASSERT_TRUE(loop.run_until(100'000, 1000).ok());
  EXPECT_EQ(p.log, (std::vector<std::string>{"10 still running"}));
  EXPECT_EQ(p.roots_alive(), 0u);
}

}  // namespace
}  // namespace lockstep::kernel
