#include "sim/kernel/event_loop.h"

#include <algorithm>
#include <string>

#include "sim/core/assert.h"

namespace lockstep::kernel {

void EventLoop::at(TimeUs t, EventHandler* handler, uint64_t arg) {
  LS_ASSERT(handler != nullptr);
  LS_ASSERT(t >= now_);
  event_push(Event{t, next_seq_++, handler, arg});
  peak_pending_ = std::max(peak_pending_, heap_.size());
}

void EventLoop::after(int64_t delay_us, EventHandler* handler, uint64_t arg) {
  LS_ASSERT(delay_us >= 0);
  LS_ASSERT(now_ <= kTimeNever - delay_us);
  at(now_ + delay_us, handler, arg);
}

void EventLoop::arm(LoopTimer& timer, TimeUs t, EventHandler* handler, uint64_t arg) {
  LS_ASSERT(handler != nullptr);
  LS_ASSERT(t >= now_);
  timer.t = t;
  timer.seq = next_seq_++;
  timer.handler = handler;
  timer.arg = arg;
  if (!timer.armed()) {
    LS_ASSERT(timers_.size() < LoopTimer::kIdle);
    timer.index = static_cast<uint32_t>(timers_.size());
    timers_.push_back(&timer);
  }
  // A moved timer may need to go either way; one of the two sifts does nothing.
  timer_sift_up(timer.index);
  timer_sift_down(timer.index);
  peak_pending_ = std::max(peak_pending_, pending());
}

void EventLoop::disarm(LoopTimer& timer) {
  if (timer.armed()) timer_remove(timer.index);
  LS_ASSERT(!timer.armed());
}

void EventLoop::timer_swap(uint32_t a, uint32_t b) {
  std::swap(timers_[a], timers_[b]);
  timers_[a]->index = a;
  timers_[b]->index = b;
}

void EventLoop::timer_sift_up(uint32_t i) {
  LS_ASSERT(i < timers_.size());
  while (i > 0) {
    const uint32_t parent = (i - 1) / 2;
    if (!timer_less(timers_[i], timers_[parent])) break;
    timer_swap(i, parent);
    i = parent;
  }
}

void EventLoop::timer_sift_down(uint32_t i) {
  const uint32_t n = static_cast<uint32_t>(timers_.size());
  LS_ASSERT(i < n);
  for (;;) {
    uint32_t least = i;
    const uint32_t l = 2 * i + 1;
    const uint32_t r = l + 1;
    if (l < n && timer_less(timers_[l], timers_[least])) least = l;
    if (r < n && timer_less(timers_[r], timers_[least])) least = r;
    if (least == i) return;
    timer_swap(i, least);
    i = least;
  }
}

void EventLoop::timer_remove(uint32_t i) {
  LS_ASSERT(i < timers_.size());
  const uint32_t last = static_cast<uint32_t>(timers_.size() - 1);
  LoopTimer* gone = timers_[i];
  if (i != last) timer_swap(i, last);
  timers_.pop_back();
  gone->index = LoopTimer::kIdle;
  if (i < timers_.size()) {
    timer_sift_up(i);
    timer_sift_down(i);
  }
}

void EventLoop::event_push(const Event& e) {
  size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!later(heap_[parent], e)) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

EventLoop::Event EventLoop::event_pop() {
  LS_ASSERT(!heap_.empty());
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return top;
  size_t i = 0;
  for (;;) {
    const size_t first = i * kArity + 1;
    if (first >= n) break;
    size_t best = first;
    const size_t end = std::min(first + kArity, n);
    for (size_t c = first + 1; c < end; ++c) {
      if (later(heap_[best], heap_[c])) best = c;
    }
    if (!later(last, heap_[best])) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
  return top;
}

bool EventLoop::timer_first() const {
  if (timers_.empty()) return false;
  if (heap_.empty()) return true;
  const Event& e = heap_.front();
  const LoopTimer* t = timers_.front();
  return t->t != e.t ? t->t < e.t : t->seq < e.seq;
}

Status EventLoop::run_until(TimeUs end, uint64_t max_events) {
  LS_ASSERT(end >= now_);
  if (!failure_.empty()) return Status::error(failure_);
  stopped_ = false;
  while ((!heap_.empty() || !timers_.empty()) && !stopped_) {
    const bool timer = timer_first();
    if ((timer ? timers_.front()->t : heap_.front().t) > end) break;
    if (events_run_ >= max_events) {
      return Status::error("the run exceeded its budget of " + std::to_string(max_events) +
                           " events at t=" + std::to_string(now_) +
                           " us (raise limits.max_events, or look for a client that never waits)");
    }
    EventHandler* handler;
    uint64_t arg;
    TimeUs t;
    if (timer) {
      LoopTimer* lt = timers_.front();
      t = lt->t;
      handler = lt->handler;
      arg = lt->arg;
      timer_remove(0);  // the handler may re-arm it
    } else {
      const Event e = event_pop();
      t = e.t;
      handler = e.handler;
      arg = e.arg;
    }
    LS_ASSERT(t >= now_);
    now_ = t;
    ++events_run_;
    if (prefetcher_ != nullptr && !heap_.empty() && heap_.front().handler == prefetcher_) {
      prefetcher_->prefetch(heap_.front().arg);
    }
    handler->on_event(arg);
  }
  if (!failure_.empty()) return Status::error(failure_);
  if (!stopped_) now_ = std::max(now_, end);
  return Status::ok_status();
}

}  // namespace lockstep::kernel
