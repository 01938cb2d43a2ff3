// Process: one simulated machine process — a Redis node or a client — with its own local clock.
//
// Everything a process does runs through two doors: work posted to it (a network delivery, the
// resumption of one of its coroutines) and timers it set on its local clock. The process
// decides whether the work may run now:
//  - paused (stop-the-world: GC, SIGSTOP, a VM stall): nothing runs. Posted work waits in an
//    inbox; timers due during the pause wait too. On resume the inbox runs first, in arrival
//    order, then the due timers, in deadline order.
//  - crashed: nothing runs and nothing is kept: the inbox, the timers and the events already in
//    flight are discarded (an epoch number in every event makes the stale ones harmless).
// A timer fires when the process's local clock reaches its deadline. When the clock changes
// (a jump, a new offset or drift) the pending timers are re-timed at once, so a clock that jumps
// forward 40 s fires every timer due in those 40 s immediately.
//
// Subclasses (NodeProcess, ClientProcess) say what work and timers mean.
#ifndef LOCKSTEP_SIM_KERNEL_PROCESS_H_
#define LOCKSTEP_SIM_KERNEL_PROCESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/kernel/event_loop.h"
#include "sim/kernel/local_clock.h"

namespace lockstep::kernel {

using ProcessId = uint32_t;

class Process : public EventHandler {
 public:
  // Work payloads and timer tags use at most this many bits.
  static constexpr int kPayloadBits = 46;
  static constexpr uint64_t kMaxPayload = (uint64_t{1} << kPayloadBits) - 1;
  // A paused process queues at most this much work; more is a runaway scenario.
  static constexpr size_t kMaxInbox = 4'000'000;

  Process(EventLoop& loop, ProcessId id, std::string name, LocalClock clock);
  ~Process() override;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  ProcessId id() const { return id_; }
  const std::string& name() const { return name_; }
  EventLoop& loop() const { return loop_; }
  TimeUs now() const { return loop_.now(); }
  // The local clock now, in microseconds and in milliseconds (floored).
  int64_t local_us() const { return clock_.local_us(loop_.now()); }
  int64_t local_ms() const { return us_to_ms_floor(local_us()); }
  const LocalClock& clock() const { return clock_; }

  // Runs handle_timer(tag) once the local clock reads >= deadline_local_us (and the process is
  // up and not paused). Timers with equal deadlines fire in the order they were added.
  // REQUIRES: up(); tag <= kMaxPayload.
  void add_timer(int64_t deadline_local_us, uint64_t tag);
  size_t timers_pending() const { return timers_.size(); }

  // Runs handle_work(payload) in this process now (post) or at true time t (post_at), subject
  // to pause and crash. REQUIRES: payload <= kMaxPayload; t >= now.
  void post(uint64_t payload) { post_at(loop_.now(), payload); }
  void post_at(TimeUs t, uint64_t payload);

  // A delivery from the network at the current time: runs handle_work(payload) unless the
  // message was sent to an older incarnation (sent_epoch) or the process is down; queued while
  // paused.
  void deliver(uint64_t payload, uint32_t sent_epoch);

  // Stop-the-world. Pauses nest: the process runs again when every pause has ended.
  void pause();
  // REQUIRES: paused().
  void resume();
  bool paused() const { return pause_depth_ > 0; }

  bool up() const { return !crashed_; }
  // Kills the process: timers, inbox and in-flight work are discarded, on_crash() runs.
  // REQUIRES: up().
  void crash();
  // Brings a crashed process back with empty timers; on_restart() runs. Pauses are independent
  // of crashes: a pause that began before the crash still holds after the restart.
  // REQUIRES: !up().
  void restart();
  // Incremented by every crash: a message or event from an older epoch is stale.
  uint32_t epoch() const { return epoch_; }
  // A copy of epoch() that crash() keeps up to date (the network's dense array of incarnations,
  // read for every message sent without touching the destination process). May be null.
  void mirror_epoch_to(uint32_t* slot) {
    epoch_mirror_ = slot;
    if (slot != nullptr) *slot = epoch_;
  }

  // Clock faults, effective now. Pending timers are re-timed.
  void clock_jump(int64_t delta_us);
  void clock_set_offset(int64_t offset_us);
  void clock_set_drift(int64_t drift_ppm);

  void on_event(uint64_t arg) final;

 protected:
  virtual void handle_work(uint64_t payload) = 0;
  virtual void handle_timer(uint64_t tag) = 0;
  // False for a timer that can no longer do anything (its wait already ended): such timers are
  // discarded when they reach the front instead of costing an event each.
  virtual bool timer_live(uint64_t tag) const { return true; }
  // Work discarded by a crash (so a subclass can free what the payload refers to).
  virtual void drop_work(uint64_t payload) {}
  virtual void on_crash() {}
  virtual void on_restart() {}

 private:
  struct Timer {
    int64_t deadline_local_us;
    uint64_t seq;
    uint64_t tag;
  };
  static bool timer_later(const Timer& a, const Timer& b) {
    return a.deadline_local_us != b.deadline_local_us ? a.deadline_local_us > b.deadline_local_us
                                                       : a.seq > b.seq;
  }
  uint64_t encode(uint64_t kind, uint64_t payload) const;
  void accept_work(uint64_t payload, bool stale);
  void arm_wake();
  void drop_dead_timers();
  void compact_timers();
  void fire_one_timer();
  void after_clock_change();

  EventLoop& loop_;
  const std::string name_;
  LocalClock clock_;
  std::vector<Timer> timers_;  // min-heap by (deadline, seq)
  std::vector<uint64_t> inbox_;
  uint64_t timer_seq_ = 0;
  LoopTimer wake_;               // the one wake-up event for the earliest timer
  uint64_t wake_gen_ = 0;       // the generation of the armed wake event
  TimeUs wake_at_ = kTimeNever;  // when that wake event fires (kTimeNever: none armed)
  uint32_t pause_depth_ = 0;
  uint32_t epoch_ = 0;
  uint32_t* epoch_mirror_ = nullptr;
  const ProcessId id_;  // beside crashed_: no padding (B5 counts bytes per client)
  bool crashed_ = false;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_PROCESS_H_
