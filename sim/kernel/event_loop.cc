#include "sim/kernel/event_loop.h"

#include <algorithm>
#include <string>

#include "sim/core/assert.h"

namespace lockstep::kernel {

void EventLoop::at(TimeUs t, EventHandler* handler, uint64_t arg) {
  LS_ASSERT(handler != nullptr);
  LS_ASSERT(t >= now_);
  heap_.push_back(Event{t, next_seq_++, handler, arg});
  std::push_heap(heap_.begin(), heap_.end(), later);
  peak_pending_ = std::max(peak_pending_, heap_.size());
}

void EventLoop::after(int64_t delay_us, EventHandler* handler, uint64_t arg) {
  LS_ASSERT(delay_us >= 0);
  LS_ASSERT(now_ <= kTimeNever - delay_us);
  at(now_ + delay_us, handler, arg);
}

Status EventLoop::run_until(TimeUs end, uint64_t max_events) {
  LS_ASSERT(end >= now_);
  stopped_ = false;
  while (!heap_.empty() && !stopped_) {
    if (heap_.front().t > end) break;
    if (events_run_ >= max_events) {
      return Status::error("the run exceeded its budget of " + std::to_string(max_events) +
                           " events at t=" + std::to_string(now_) +
                           " us (raise limits.max_events, or look for a client that never waits)");
    }
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Event e = heap_.back();
    heap_.pop_back();
    LS_ASSERT(e.t >= now_);
    now_ = e.t;
    ++events_run_;
    e.handler->on_event(e.arg);
  }
  if (!stopped_) now_ = std::max(now_, end);
  return Status::ok_status();
}

}  // namespace lockstep::kernel
