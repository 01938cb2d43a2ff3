#include "sim/kernel/semaphore.h"

#include "sim/core/assert.h"

namespace lockstep::kernel {

SimSemaphore::SimSemaphore(CoroProcess& process, int64_t permits)
    : process_(process), permits_(permits) {
  LS_ASSERT(permits >= 0);
  LS_ASSERT(permits <= kMaxPermits);
}

void SimSemaphore::release(int64_t permits) {
  LS_ASSERT(permits >= 0);
  LS_ASSERT(permits_ <= kMaxPermits - permits);
  permits_ += permits;
  while (permits_ > 0 && head_ < waiters_.size()) {
    const WaitRef ref = waiters_[head_++];
    if (process_.complete_wait(ref, kWaitSignalled)) --permits_;
  }
  if (head_ == waiters_.size()) {
    waiters_.clear();
    head_ = 0;
  } else if (head_ >= 16 && 2 * head_ >= waiters_.size()) {
    // A queue that never empties: drop the consumed prefix now and then (amortised O(1)).
    waiters_.erase(waiters_.begin(), waiters_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  LS_ASSERT(head_ <= waiters_.size());
}

void SimSemaphore::drop_stale_waiters() {
  // Waiters that timed out stay queued until a release skips them; keep the queue bounded.
  if (waiters() < 64) return;
  std::vector<WaitRef> live;
  for (size_t i = head_; i < waiters_.size(); ++i) {
    if (process_.wait_open(waiters_[i])) live.push_back(waiters_[i]);
  }
  waiters_.swap(live);
  head_ = 0;
}

Task<bool> SimSemaphore::try_acquire(int64_t timeout_ms) {
  if (permits_ > 0) {
    --permits_;
    co_return true;
  }
  if (timeout_ms == 0) co_return false;
  drop_stale_waiters();
  // No locals across the wait: every waiting thread keeps this frame (B5).
  co_return co_await WaitFor(process_, deadline_us(timeout_ms),
                             [this](WaitRef ref) { waiters_.push_back(ref); }) == kWaitSignalled;
}

int64_t SimSemaphore::deadline_us(int64_t timeout_ms) const {
  return timeout_ms < 0 ? CoroProcess::kNoDeadline : process_.local_us() + ms_to_us(timeout_ms);
}

}  // namespace lockstep::kernel
