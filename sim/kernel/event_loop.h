// EventLoop: the single-threaded scheduler at the heart of every simulated run.
//
// Events are ordered by (true time, sequence number): two events due at the same microsecond run
// in the order they were scheduled, which makes every run a pure function of its inputs. An
// event is four words (time, sequence, handler, argument) and carries no allocation; the handler
// is a long-lived object (a process, the network) that decodes the argument itself. A run has a
// bound on the number of events it may execute, so a runaway scenario ends with a clear error
// instead of a hang.
#ifndef LOCKSTEP_SIM_KERNEL_EVENT_LOOP_H_
#define LOCKSTEP_SIM_KERNEL_EVENT_LOOP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/status.h"
#include "sim/core/time.h"

namespace lockstep::kernel {

// Anything that can receive an event. Implementations decode `arg` themselves.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void on_event(uint64_t arg) = 0;
  // Starts loading into the cache what on_event(arg) will read first. The loop calls it for the
  // next event of a handler given to EventLoop::prefetch_for while it runs the current one, so
  // that the next event's cache misses overlap this one's work. Changes nothing else.
  virtual void prefetch(uint64_t arg) const {}
};

// A movable event: at most one pending occurrence, which arm() schedules or moves. Processes use
// one for their timer wake-ups, so re-timing timers (a new earliest deadline, a clock jump) never
// leaves superseded events behind in the queue. The owner keeps it alive while it is armed.
struct LoopTimer {
  static constexpr uint32_t kIdle = UINT32_MAX;
  TimeUs t = 0;
  uint64_t seq = 0;
  EventHandler* handler = nullptr;
  uint64_t arg = 0;
  uint32_t index = kIdle;  // position in the loop's timer heap, kIdle when not armed
  bool armed() const { return index != kIdle; }
};

class EventLoop {
 public:
  EventLoop() = default;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // The true time of the event being run (or of the last one run).
  TimeUs now() const { return now_; }

  // Schedules handler->on_event(arg) at true time `t`.
  // REQUIRES: t >= now(); handler outlives the event.
  void at(TimeUs t, EventHandler* handler, uint64_t arg);
  // Same as at(now() + delay_us, ...). REQUIRES: delay_us >= 0.
  void after(int64_t delay_us, EventHandler* handler, uint64_t arg);

  // Schedules `timer` to fire handler->on_event(arg) at `t`, moving it if it is already armed.
  // It takes a new sequence number, as if scheduled now. REQUIRES: t >= now().
  void arm(LoopTimer& timer, TimeUs t, EventHandler* handler, uint64_t arg);
  // Unschedules `timer` if it is armed.
  void disarm(LoopTimer& timer);

  // Runs events in order until none is left, the next one is later than `end`, stop() was called,
  // or `max_events` events have run in total. Returns an error only when the event budget ran
  // out while events due before `end` were still pending. now() is `end` afterwards unless stopped.
  Status run_until(TimeUs end, uint64_t max_events);

  // Before each event, run_until calls handler->prefetch(arg) for the event at the head of the
  // event queue when it is this handler's (the network's deliveries: the destination process of
  // one of 10,000 clients is rarely in the cache). Armed timers are not looked at: a timer due
  // first only makes the hint early. REQUIRES: `handler` outlives the loop's runs.
  void prefetch_for(const EventHandler* handler) { prefetcher_ = handler; }

  // Makes run_until return after the current event.
  void stop() { stopped_ = true; }
  // Makes run_until return after the current event with an error (the first one given wins):
  // a lock client's own code failed (runtime::Runtime::fail). The run cannot go on.
  void fail(std::string message) {
    if (failure_.empty()) failure_ = message.empty() ? "the run failed" : std::move(message);
    stopped_ = true;
  }
  const std::string& failure() const { return failure_; }

  uint64_t events_run() const { return events_run_; }
  size_t pending() const { return heap_.size() + timers_.size(); }
  size_t peak_pending() const { return peak_pending_; }

 private:
  struct Event {
    TimeUs t;
    uint64_t seq;
    EventHandler* handler;
    uint64_t arg;
  };
  static bool later(const Event& a, const Event& b) {
    return a.t != b.t ? a.t > b.t : a.seq > b.seq;
  }

  // The event queue is a 4-ary min-heap: half the levels of a binary heap, and a node's children
  // share cache lines, which matters once the queue outgrows the cache (B7's 10,000 clients).
  // (t, seq) is a total order, so the events come out in the same order as from any heap.
  static constexpr size_t kArity = 4;
  void event_push(const Event& e);
  Event event_pop();
  bool timer_first() const;
  void timer_swap(uint32_t a, uint32_t b);
  void timer_sift_up(uint32_t i);
  void timer_sift_down(uint32_t i);
  void timer_remove(uint32_t i);
  static bool timer_less(const LoopTimer* a, const LoopTimer* b) {
    return a->t != b->t ? a->t < b->t : a->seq < b->seq;
  }

  std::vector<Event> heap_;
  std::vector<LoopTimer*> timers_;  // indexed min-heap of armed timers
  TimeUs now_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t events_run_ = 0;
  size_t peak_pending_ = 0;
  bool stopped_ = false;
  const EventHandler* prefetcher_ = nullptr;
  std::string failure_;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_EVENT_LOOP_H_
