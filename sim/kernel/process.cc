#include "sim/kernel/process.h"

#include <algorithm>
#include <utility>

#include "sim/core/assert.h"

namespace lockstep::kernel {
namespace {

// Event argument layout: [63..62] kind, [61..46] epoch (low 16 bits), [45..0] payload.
constexpr uint64_t kKindWork = 0;
constexpr uint64_t kKindWake = 1;
constexpr uint64_t kEpochMask = 0xffff;

uint64_t kind_of(uint64_t arg) { return arg >> 62; }
uint64_t epoch_of(uint64_t arg) { return (arg >> Process::kPayloadBits) & kEpochMask; }
uint64_t payload_of(uint64_t arg) { return arg & Process::kMaxPayload; }

}  // namespace

Process::Process(EventLoop& loop, ProcessId id, std::string name, LocalClock clock)
    : loop_(loop), name_(std::move(name)), clock_(clock), id_(id) {
  LS_ASSERT(!name_.empty());
  LS_ASSERT(timers_.empty());
}

Process::~Process() { loop_.disarm(wake_); }

uint64_t Process::encode(uint64_t kind, uint64_t payload) const {
  LS_ASSERT(payload <= kMaxPayload);
  LS_ASSERT(kind <= 3);
  return (kind << 62) | ((epoch_ & kEpochMask) << kPayloadBits) | payload;
}

void Process::add_timer(int64_t deadline_local_us, uint64_t tag) {
  LS_ASSERT(up());
  LS_ASSERT(tag <= kMaxPayload);
  if (timers_.size() == timers_.capacity()) compact_timers();
  timers_.push_back(Timer{deadline_local_us, timer_seq_++, tag});
  std::push_heap(timers_.begin(), timers_.end(), timer_later);
  // Only a new earliest timer can move the wake-up earlier.
  if (timers_.front().seq == timer_seq_ - 1) arm_wake();
}

void Process::drop_dead_timers() {
  // Bounded by the heap's size: each iteration removes one timer.
  while (!timers_.empty() && !timer_live(timers_.front().tag)) {
    std::pop_heap(timers_.begin(), timers_.end(), timer_later);
    timers_.pop_back();
  }
}

// A dead timer leaves the heap only when it reaches the front, so a process whose waits end
// early (a reply before its timeout) would keep growing the heap with them. Before the heap
// grows, the dead are dropped; if at least half are live it grows anyway, so each timer is
// moved O(1) times on average. (deadline, seq) is a total order: the pops are the same.
void Process::compact_timers() {
  std::erase_if(timers_, [this](const Timer& t) { return !timer_live(t.tag); });
  std::make_heap(timers_.begin(), timers_.end(), timer_later);
  if (timers_.size() > timers_.capacity() / 2) timers_.reserve(std::max<size_t>(2, timers_.capacity() * 2));
}

void Process::arm_wake() {
  LS_ASSERT(wake_gen_ < kMaxPayload);
  drop_dead_timers();
  if (crashed_ || paused() || timers_.empty()) {
    ++wake_gen_;
    wake_at_ = kTimeNever;
    loop_.disarm(wake_);
    return;
  }
  const TimeUs t = clock_.true_time_at(timers_.front().deadline_local_us, loop_.now());
  if (t == wake_at_ && wake_.armed()) return;  // the armed wake already fires then
  ++wake_gen_;
  wake_at_ = t;
  if (t == kTimeNever) {
    loop_.disarm(wake_);
    return;
  }
  loop_.arm(wake_, t, this, encode(kKindWake, wake_gen_));
}

void Process::post_at(TimeUs t, uint64_t payload) {
  LS_ASSERT(payload <= kMaxPayload);
  LS_ASSERT(t >= loop_.now());
  loop_.at(t, this, encode(kKindWork, payload));
}

void Process::on_event(uint64_t arg) {
  const uint64_t payload = payload_of(arg);
  const bool stale = crashed_ || epoch_of(arg) != (epoch_ & kEpochMask);
  if (kind_of(arg) == kKindWake) {
    if (stale || payload != wake_gen_) return;
    wake_at_ = kTimeNever;
    if (!paused()) fire_one_timer();
    return;
  }
  LS_ASSERT(kind_of(arg) == kKindWork);
  accept_work(payload, stale);
}

void Process::deliver(uint64_t payload, uint32_t sent_epoch) {
  LS_ASSERT(payload <= kMaxPayload);
  accept_work(payload, crashed_ || sent_epoch != epoch_);
}

void Process::accept_work(uint64_t payload, bool stale) {
  if (stale) {
    drop_work(payload);
  } else if (paused()) {
    LS_ASSERT(inbox_.size() < kMaxInbox);
    inbox_.push_back(payload);
  } else {
    handle_work(payload);
  }
}

void Process::fire_one_timer() {
  LS_ASSERT(!paused());
  LS_ASSERT(up());
  if (!timers_.empty() && timers_.front().deadline_local_us <= local_us()) {
    std::pop_heap(timers_.begin(), timers_.end(), timer_later);
    const uint64_t tag = timers_.back().tag;
    timers_.pop_back();
    handle_timer(tag);
  }
  // handle_timer may have crashed or paused nothing (faults come from events), but it may have
  // added timers; re-arm for whatever is earliest now.
  if (up()) arm_wake();
}

void Process::pause() {
  LS_ASSERT(pause_depth_ < 1'000'000);
  ++pause_depth_;
  if (pause_depth_ == 1) arm_wake();  // invalidates the live wake event
  LS_ASSERT(paused());
}

void Process::resume() {
  LS_ASSERT(paused());
  --pause_depth_;
  if (paused() || crashed_) return;
  // Queued work first, in arrival order; handle_work may post more, which goes to the loop.
  std::vector<uint64_t> queued;
  queued.swap(inbox_);
  for (size_t i = 0; i < queued.size(); ++i) {
    // Faults arrive as events, so nothing can pause or crash the process inside this loop.
    LS_ASSERT(!crashed_);
    LS_ASSERT(!paused());
    handle_work(queued[i]);
  }
  arm_wake();
}

void Process::crash() {
  LS_ASSERT(up());
  crashed_ = true;
  ++epoch_;
  if (epoch_mirror_ != nullptr) *epoch_mirror_ = epoch_;
  timers_.clear();
  std::vector<uint64_t> queued;
  queued.swap(inbox_);
  for (uint64_t payload : queued) drop_work(payload);
  arm_wake();
  on_crash();
  LS_ASSERT(!up());
}

void Process::restart() {
  LS_ASSERT(!up());
  LS_ASSERT(timers_.empty());
  crashed_ = false;
  // A pause that spans the crash still holds: the process comes back paused until it ends.
  on_restart();
  arm_wake();
}

void Process::after_clock_change() {
  LS_ASSERT(clock_.version() > 0);
  // Force a recomputation even if the wake time happens to be unchanged.
  wake_at_ = kTimeNever;
  arm_wake();
}

void Process::clock_jump(int64_t delta_us) {
  clock_.jump(loop_.now(), delta_us);
  after_clock_change();
}

void Process::clock_set_offset(int64_t offset_us) {
  clock_.set_offset(loop_.now(), offset_us);
  after_clock_change();
}

void Process::clock_set_drift(int64_t drift_ppm) {
  clock_.set_drift(loop_.now(), drift_ppm);
  after_clock_change();
}

}  // namespace lockstep::kernel
