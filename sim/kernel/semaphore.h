// SimSemaphore: a counting semaphore for the coroutines of one client process, timed by the
// process's local clock (Redisson's lock-entry latch: released by pub/sub listeners, awaited by
// waiting threads with a TTL-bounded timeout).
//
// Permits go to waiters in FIFO order. A release with no waiter keeps the permit (as
// java.util.concurrent.Semaphore does), so a later try_acquire returns at once.
#ifndef LOCKSTEP_SIM_KERNEL_SEMAPHORE_H_
#define LOCKSTEP_SIM_KERNEL_SEMAPHORE_H_

#include <cstddef>
#include <vector>

#include "runtime/runtime.h"
#include "sim/kernel/coro_process.h"

namespace lockstep::kernel {

class SimSemaphore : public runtime::Semaphore {
 public:
  static constexpr int64_t kMaxPermits = int64_t{1} << 40;

  SimSemaphore(CoroProcess& process, int64_t permits);
  void release(int64_t permits = 1) override;
  Task<bool> try_acquire(int64_t timeout_ms) override;
  int64_t available() const override { return permits_; }
  size_t waiters() const { return waiters_.size() - head_; }

 private:
  void drop_stale_waiters();
  int64_t deadline_us(int64_t timeout_ms) const;  // on the process's local clock

  CoroProcess& process_;
  int64_t permits_;
  // FIFO of waiters: waiters_[head_..] are queued. A vector with a head index rather than a
  // std::deque, whose first element alone costs a 512-byte block: a client has two semaphores
  // per lock it waits on, and B5 counts bytes per client.
  std::vector<WaitRef> waiters_;
  size_t head_ = 0;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_SEMAPHORE_H_
