// CoroProcess: a process that runs coroutines — the base of every simulated client.
//
// Its roots are Tasks started with spawn(): application threads and background tasks (the
// watchdog). A coroutine blocks by opening a wait (a slot naming its handle) and, optionally, a
// timeout on the process's local clock; whoever completes the wait — a reply from the network, a
// semaphore release, the timer — decides the result. The resumption itself is work posted to the
// process, so it obeys pause and crash like everything else: a paused client's threads, watchdog
// and listeners all stand still. A crash destroys every root frame (their awaiters cancel their
// waits), which is exactly "the threads and the watchdog stop".
//
// Slots carry a generation number, so a late completion (a reply after the timeout, a timer after
// the reply) finds the generation changed and does nothing.
#ifndef LOCKSTEP_SIM_KERNEL_CORO_PROCESS_H_
#define LOCKSTEP_SIM_KERNEL_CORO_PROCESS_H_

#include <coroutine>
#include <cstdint>
#include <vector>

#include "runtime/task.h"
#include "sim/kernel/process.h"

namespace lockstep::kernel {

// Kernel code runs the runtime's coroutines.
using runtime::RootListener;
using runtime::Task;

// A reference to one wait of one coroutine. Stale references are harmless.
struct WaitRef {
  uint32_t index = UINT32_MAX;
  uint32_t gen = 0;
  bool valid() const { return index != UINT32_MAX; }
};

// What a wait ended with.
enum WaitResult : int32_t {
  kWaitTimedOut = 0,
  kWaitSignalled = 1,
  kWaitClosed = 2,  // the thing waited on went away (a connection closed)
  kWaitInterrupted = 3,  // the waiting thread was interrupted (ClientProcess::interruptible)
};

// A root task's identity.
struct RootId {
  uint32_t index = UINT32_MAX;
  uint32_t gen = 0;
  bool valid() const { return index != UINT32_MAX; }
};

class CoroProcess : public Process, public RootListener {
 public:
  // Bounds on what one process may hold at once (runaway protection).
  static constexpr uint32_t kMaxWaits = 1u << 20;
  static constexpr uint32_t kMaxRoots = 1u << 20;
  static constexpr int64_t kNoDeadline = INT64_MAX;

  CoroProcess(EventLoop& loop, ProcessId id, std::string name, LocalClock clock);
  ~CoroProcess() override;

  // Starts `task` as a root, now (subject to pause). REQUIRES: up(); task valid, not started.
  RootId spawn(Task<void> task);
  // Destroys a root's frame after the current coroutine step. Unknown or finished ids are ignored.
  void cancel(RootId id);
  bool alive(RootId id) const;
  size_t roots_alive() const { return roots_alive_; }

  // Opens a wait for coroutine `h`; the result is stored in *result when it completes.
  // REQUIRES: up(); called from the coroutine's await_suspend.
  WaitRef open_wait(std::coroutine_handle<> h, int32_t* result);
  // Completes a wait now if it is still open. The coroutine is resumed by work posted to the
  // process (never inline), so this is safe to call from inside another coroutine.
  // Returns false for a stale reference.
  bool complete_wait(WaitRef ref, int32_t result);
  // Same, but resumes the coroutine before returning. REQUIRES: not called from inside a
  // coroutine of this process (only from top-level handlers: deliveries, timers).
  bool complete_wait_inline(WaitRef ref, int32_t result);
  // True while the wait is open (not yet completed, cancelled or resumed).
  bool wait_open(WaitRef ref) const;
  // Closes a wait without resuming it (its awaiter is being destroyed).
  void cancel_wait(WaitRef ref);
  // Completes the wait with kWaitTimedOut when the local clock reaches deadline_local_us.
  void add_wait_timeout(WaitRef ref, int64_t deadline_local_us);
  size_t waits_open() const { return waits_open_; }

  void root_finished(uint32_t root_index) override;

 protected:
  // Work payloads with this bit clear belong to the subclass (handle_message).
  static constexpr uint64_t kCoroBit = uint64_t{1} << 45;

  virtual void handle_message(uint64_t payload) = 0;
  virtual void drop_message(uint64_t payload) {}
  virtual void handle_other_timer(uint64_t tag) {}
  virtual bool other_timer_live(uint64_t tag) const { return true; }
  // Runs after every root has been destroyed by a crash.
  virtual void after_crash() {}

  // Destroys every root frame now. Subclass destructors call it first, while the objects the
  // awaiters deregister from (connections, semaphores) still exist.
  void destroy_all_roots();

  // Resumes a coroutine from a top-level handler and then frees finished or cancelled roots.
  void resume_top(std::coroutine_handle<> h);
  bool inside_coroutine() const { return resume_depth_ > 0; }

 private:
  struct Slot {
    std::coroutine_handle<> handle;
    int32_t* result = nullptr;
    uint32_t gen = 0;
    uint8_t state = 0;  // kFree, kWaiting, kCompleted
  };
  struct Root {
    Task<void> task;
    uint32_t gen = 0;
    bool live = false;
  };

  void handle_work(uint64_t payload) final;
  void handle_timer(uint64_t tag) final;
  bool timer_live(uint64_t tag) const final;
  void drop_work(uint64_t payload) final;
  void on_crash() final;
  bool finish_wait(WaitRef ref, int32_t result);
  void free_slot(uint32_t index);
  void reap();
  void destroy_root(uint32_t index);

  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<Root> roots_;
  std::vector<uint32_t> free_roots_;
  std::vector<RootId> to_reap_;
  uint32_t waits_open_ = 0;   // <= kMaxWaits
  uint32_t roots_alive_ = 0;  // <= kMaxRoots
  uint32_t resume_depth_ = 0;
};

// `co_await WaitFor(process, deadline, on_suspend)`: opens a wait, arms the optional local
// deadline, hands the WaitRef to on_suspend (which files it where the completer will find it),
// and yields the WaitResult. Destroying the suspended coroutine cancels the wait.
template <typename OnSuspend>
class WaitFor {
 public:
  WaitFor(CoroProcess& process, int64_t deadline_local_us, OnSuspend on_suspend)
      : process_(process), deadline_local_us_(deadline_local_us), on_suspend_(on_suspend) {}
  WaitFor(const WaitFor&) = delete;
  WaitFor& operator=(const WaitFor&) = delete;
  ~WaitFor() {
    if (ref_.valid()) process_.cancel_wait(ref_);
  }

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    ref_ = process_.open_wait(h, &result_);
    if (deadline_local_us_ != CoroProcess::kNoDeadline) {
      process_.add_wait_timeout(ref_, deadline_local_us_);
    }
    on_suspend_(ref_);
  }
  int32_t await_resume() {
    ref_ = WaitRef{};  // the slot was freed before resumption
    return result_;
  }

 private:
  CoroProcess& process_;
  const int64_t deadline_local_us_;
  OnSuspend on_suspend_;
  WaitRef ref_;
  int32_t result_ = kWaitTimedOut;
};

// Suspends the calling coroutine until the process's local clock reads deadline_local_us.
inline auto sleep_until(CoroProcess& process, int64_t deadline_local_us) {
  return WaitFor(process, deadline_local_us, [](WaitRef) {});
}

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_CORO_PROCESS_H_
