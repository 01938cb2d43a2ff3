// ThreadInterrupts: Java's Thread.interrupt() and Future.cancel() reaching one client's
// application threads (the `interrupt` and `cancel` faults; docs/algorithms.md "Interrupts"),
// shared by the simulated client process and the live client.
//
// A thread's interrupt lands in one of two ways: if the thread is in an interruptible wait, the
// wait ends at once; otherwise it stays pending until the thread's next interruptible wait (which
// then ends at once) or until the algorithm takes it. A cancel reaches only a pending tryLock
// call (call_started(cancellable)); at any other moment it does nothing.
//
// The host runs coroutines and waits: it provides
//   runtime::TaskId spawn(runtime::Task<void>), void cancel(runtime::TaskId),
//   bool wait_open(WaitRef) const, complete_wait(WaitRef, int32_t), and
//   an awaitable `host.open_ended_wait(on_open)`: a wait without deadline, `on_open(WaitRef)`
//   called once it is open, resuming with the result complete_wait gave it.
#ifndef LOCKSTEP_SIM_KERNEL_THREAD_INTERRUPTS_H_
#define LOCKSTEP_SIM_KERNEL_THREAD_INTERRUPTS_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/runtime.h"
#include "sim/core/assert.h"
#include "sim/core/on_demand.h"
#include "sim/kernel/coro_process.h"

namespace lockstep::kernel {

template <typename Host>
class ThreadInterrupts {
 public:
  explicit ThreadInterrupts(Host& host) : host_(host) {}

  // Interrupts must be allowed before the run starts for them to end waits (it makes
  // interruptible waits cost a root task); without them every call here is a no-op.
  void allow() { possible_ = true; }
  bool possible() const { return possible_; }

  // `wait`, made so that an interrupt or cancel of thread `index` ends it at once: the result is
  // then false and *interrupted says which (else kNone).
  runtime::Task<bool> interruptible(uint32_t index, runtime::Task<bool> wait, runtime::Interrupt* interrupted) {
    *interrupted = runtime::Interrupt::kNone;
    if (!possible_) return wait;
    return interruptible_wait(index, std::move(wait), interrupted);
  }

  // The pending interrupt of thread `index`, taken (the algorithm saw it after a command it could
  // not abandon).
  runtime::Interrupt take(uint32_t index) {
    if (!possible_) return runtime::Interrupt::kNone;
    return std::exchange(state(index).pending, runtime::Interrupt::kNone);
  }

  // Thread.interrupt() / Future.cancel() of thread `index`. REQUIRES: allowed.
  void interrupt(uint32_t index, runtime::Interrupt kind) {
    LS_ASSERT(possible_ && kind != runtime::Interrupt::kNone);
    State& ti = state(index);
    if (kind == runtime::Interrupt::kCancel && !ti.cancellable) return;  // no future to cancel
    if (ti.wait.valid() && host_.wait_open(ti.wait)) {
      ti.woke = kind;
      host_.complete_wait(ti.wait, kWaitInterrupted);
      ti.wait = WaitRef{};
      return;
    }
    ti.pending = kind;
  }

  void call_started(uint32_t index, bool cancellable) {
    if (possible_) state(index).cancellable = cancellable;
  }
  void call_ended(uint32_t index) {
    if (!possible_) return;
    State& ti = state(index);
    ti.cancellable = false;
    if (ti.pending == runtime::Interrupt::kCancel) ti.pending = runtime::Interrupt::kNone;
  }

  // The threads are gone (a crash), and their interrupt status with them.
  void clear() { states_.reset(); }

 private:
  static constexpr uint32_t kMaxThreads = 1u << 20;
  struct State {
    runtime::Interrupt pending = runtime::Interrupt::kNone;
    runtime::Interrupt woke = runtime::Interrupt::kNone;  // what ended `wait`
    WaitRef wait;  // the interruptible wait it is in, if any
    bool cancellable = false;
  };
  // What the root running an interruptible wait hands back to the waiting thread.
  struct Shared {
    bool signalled = false;
    WaitRef ref;  // the thread's wait, completed when the inner wait ends
  };

  State& state(uint32_t index) {
    LS_ASSERT(index < kMaxThreads);
    std::vector<State>& states = states_.for_write();
    if (states.size() <= index) states.resize(index + 1);
    return states[index];
  }

  static runtime::Task<void> run_wait(Host* host, runtime::Task<bool> wait, std::shared_ptr<Shared> shared) {
    shared->signalled = co_await std::move(wait);
    host->complete_wait(shared->ref, kWaitSignalled);
  }

  // The inner wait runs as a root of its own, so that an interrupt can end the thread's wait at
  // once and destroy the inner one (its awaiters leave their semaphores and timers as a crash
  // makes them do).
  runtime::Task<bool> interruptible_wait(uint32_t index, runtime::Task<bool> wait, runtime::Interrupt* interrupted) {
    if (State& ti = state(index); ti.pending != runtime::Interrupt::kNone) {
      *interrupted = std::exchange(ti.pending, runtime::Interrupt::kNone);
      co_return false;
    }
    auto shared = std::make_shared<Shared>();
    const runtime::TaskId root = host_.spawn(run_wait(&host_, std::move(wait), shared));
    const int32_t result = co_await host_.open_ended_wait([this, &shared, index](WaitRef ref) {
      shared->ref = ref;
      state(index).wait = ref;
    });
    State& ti = state(index);
    ti.wait = WaitRef{};
    if (result == kWaitInterrupted) {
      host_.cancel(root);
      *interrupted = std::exchange(ti.woke, runtime::Interrupt::kNone);
      LS_ASSERT(*interrupted != runtime::Interrupt::kNone);
      co_return false;
    }
    LS_ASSERT(result == kWaitSignalled);
    co_return shared->signalled;
  }

  Host& host_;
  bool possible_ = false;
  // By thread index, grown on first use; allocated only in runs with interrupts.
  OnDemand<std::vector<State>> states_;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_THREAD_INTERRUPTS_H_
