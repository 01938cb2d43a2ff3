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
  while (permits_ > 0 && !waiters_.empty()) {
    const WaitRef ref = waiters_.front();
    waiters_.pop_front();
    if (process_.complete_wait(ref, kWaitSignalled)) --permits_;
  }
}

void SimSemaphore::drop_stale_waiters() {
  // Waiters that timed out stay queued until a release skips them; keep the queue bounded.
  if (waiters_.size() < 64) return;
  std::deque<WaitRef> live;
  for (const WaitRef& r : waiters_) {
    if (process_.wait_open(r)) live.push_back(r);
  }
  waiters_.swap(live);
}

Task<bool> SimSemaphore::try_acquire(int64_t timeout_ms) {
  if (permits_ > 0) {
    --permits_;
    co_return true;
  }
  if (timeout_ms == 0) co_return false;
  drop_stale_waiters();
  const int64_t deadline = timeout_ms < 0 ? CoroProcess::kNoDeadline
                                          : process_.local_us() + ms_to_us(timeout_ms);
  const int32_t r =
      co_await WaitFor(process_, deadline, [this](WaitRef ref) { waiters_.push_back(ref); });
  co_return r == kWaitSignalled;
}

}  // namespace lockstep::kernel
