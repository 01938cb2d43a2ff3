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
#include <vector>

#include "sim/core/status.h"
#include "sim/core/time.h"

namespace lockstep::kernel {

// Anything that can receive an event. Implementations decode `arg` themselves.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void on_event(uint64_t arg) = 0;
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

  // Runs events in order until none is left, the next one is later than `end`, stop() was called,
  // or `max_events` events have run in total. Returns an error only when the event budget ran
  // out while events due before `end` were still pending. now() is `end` afterwards unless stopped.
  Status run_until(TimeUs end, uint64_t max_events);

  // Makes run_until return after the current event.
  void stop() { stopped_ = true; }

  uint64_t events_run() const { return events_run_; }
  size_t pending() const { return heap_.size(); }
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

  std::vector<Event> heap_;
  TimeUs now_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t events_run_ = 0;
  size_t peak_pending_ = 0;
  bool stopped_ = false;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_EVENT_LOOP_H_
