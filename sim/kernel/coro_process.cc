#include "sim/kernel/coro_process.h"

#include <utility>

#include "sim/core/assert.h"

namespace lockstep::kernel {
namespace {

// Coroutine work payload: [45] kCoroBit, [44] 1 = start root / 0 = resume wait,
// [43..20] generation (low 24 bits), [19..0] index. Wait-timeout timer tags use the same layout.
constexpr uint64_t kStartBit = uint64_t{1} << 44;
constexpr uint32_t kIndexBits = 20;
constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
constexpr uint64_t kGenMask = (uint64_t{1} << 24) - 1;

enum SlotState : uint8_t { kFree = 0, kWaiting = 1, kCompleted = 2 };

uint64_t pack(uint32_t index, uint32_t gen) {
  LS_ASSERT(index <= kIndexMask);
  return (static_cast<uint64_t>(gen & kGenMask) << kIndexBits) | index;
}
uint32_t index_of(uint64_t packed) { return static_cast<uint32_t>(packed & kIndexMask); }
uint32_t gen_of(uint64_t packed) { return static_cast<uint32_t>((packed >> kIndexBits) & kGenMask); }

}  // namespace

CoroProcess::CoroProcess(EventLoop& loop, ProcessId id, std::string name, LocalClock clock)
    : Process(loop, id, std::move(name), clock) {
  LS_ASSERT(slots_.empty());
  LS_ASSERT(roots_.empty());
}

CoroProcess::~CoroProcess() {
  // Frames first: their awaiters cancel waits in slots_, which must still exist.
  destroy_all_roots();
  LS_ASSERT(resume_depth_ == 0);
}

void CoroProcess::destroy_all_roots() {
  LS_ASSERT(!inside_coroutine());
  for (uint32_t i = 0; i < roots_.size(); ++i) {
    if (roots_[i].live) destroy_root(i);
  }
  to_reap_.clear();
  LS_ASSERT(roots_alive_ == 0);
}

RootId CoroProcess::spawn(Task<void> task) {
  LS_ASSERT(up());
  LS_ASSERT(task.valid() && !task.done());
  uint32_t index;
  if (!free_roots_.empty()) {
    index = free_roots_.back();
    free_roots_.pop_back();
  } else {
    LS_ASSERT(roots_.size() < kMaxRoots);
    index = static_cast<uint32_t>(roots_.size());
    roots_.emplace_back();
  }
  Root& root = roots_[index];
  LS_ASSERT(!root.live);
  root.task = std::move(task);
  root.task.make_root(this, index);
  root.live = true;
  ++roots_alive_;
  post(kCoroBit | kStartBit | pack(index, root.gen));
  return RootId{index, root.gen};
}

bool CoroProcess::alive(RootId id) const {
  if (!id.valid() || id.index >= roots_.size()) return false;
  const Root& root = roots_[id.index];
  return root.live && root.gen == id.gen;
}

void CoroProcess::cancel(RootId id) {
  if (!alive(id)) return;
  if (inside_coroutine()) {
    to_reap_.push_back(id);  // may be the running root: destroy once it has suspended
  } else {
    destroy_root(id.index);
  }
}

void CoroProcess::root_finished(uint32_t root_index) {
  LS_ASSERT(root_index < roots_.size());
  LS_ASSERT(roots_[root_index].live);
  to_reap_.push_back(RootId{root_index, roots_[root_index].gen});
}

void CoroProcess::destroy_root(uint32_t index) {
  LS_ASSERT(index < roots_.size());
  Root& root = roots_[index];
  LS_ASSERT(root.live);
  root.live = false;
  ++root.gen;
  --roots_alive_;
  root.task.reset();
  free_roots_.push_back(index);
}

void CoroProcess::reap() {
  LS_ASSERT(resume_depth_ == 0);
  // Destroying a frame may not add to to_reap_ (no coroutine runs), so a plain loop is enough.
  for (size_t i = 0; i < to_reap_.size(); ++i) {
    if (alive(to_reap_[i])) destroy_root(to_reap_[i].index);
  }
  to_reap_.clear();
}

void CoroProcess::resume_top(std::coroutine_handle<> h) {
  LS_ASSERT(resume_depth_ == 0);
  LS_ASSERT(up() && !paused());
  ++resume_depth_;
  h.resume();
  --resume_depth_;
  if (!to_reap_.empty()) reap();
}

WaitRef CoroProcess::open_wait(std::coroutine_handle<> h, int32_t* result) {
  LS_ASSERT(up());
  LS_ASSERT(result != nullptr);
  uint32_t index;
  if (!free_slots_.empty()) {
    index = free_slots_.back();
    free_slots_.pop_back();
  } else {
    LS_ASSERT(slots_.size() < kMaxWaits);
    index = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& slot = slots_[index];
  LS_ASSERT(slot.state == kFree);
  slot.handle = h;
  slot.result = result;
  slot.state = kWaiting;
  ++waits_open_;
  return WaitRef{index, slot.gen};
}

void CoroProcess::free_slot(uint32_t index) {
  Slot& slot = slots_[index];
  LS_ASSERT(slot.state != kFree);
  slot.state = kFree;
  slot.handle = {};
  slot.result = nullptr;
  ++slot.gen;
  --waits_open_;
  free_slots_.push_back(index);
}

bool CoroProcess::finish_wait(WaitRef ref, int32_t result) {
  if (!ref.valid() || ref.index >= slots_.size()) return false;
  Slot& slot = slots_[ref.index];
  if (slot.gen != ref.gen || slot.state != kWaiting) return false;
  *slot.result = result;
  slot.state = kCompleted;
  return true;
}

bool CoroProcess::complete_wait(WaitRef ref, int32_t result) {
  if (!finish_wait(ref, result)) return false;
  post(kCoroBit | pack(ref.index, ref.gen));
  return true;
}

bool CoroProcess::complete_wait_inline(WaitRef ref, int32_t result) {
  LS_ASSERT(!inside_coroutine());
  if (!finish_wait(ref, result)) return false;
  std::coroutine_handle<> h = slots_[ref.index].handle;
  free_slot(ref.index);
  resume_top(h);
  return true;
}

bool CoroProcess::wait_open(WaitRef ref) const {
  if (!ref.valid() || ref.index >= slots_.size()) return false;
  const Slot& slot = slots_[ref.index];
  return slot.gen == ref.gen && slot.state == kWaiting;
}

void CoroProcess::cancel_wait(WaitRef ref) {
  if (!ref.valid() || ref.index >= slots_.size()) return;
  Slot& slot = slots_[ref.index];
  if (slot.gen != ref.gen || slot.state == kFree) return;
  free_slot(ref.index);
}

void CoroProcess::add_wait_timeout(WaitRef ref, int64_t deadline_local_us) {
  LS_ASSERT(ref.valid());
  LS_ASSERT(deadline_local_us != kNoDeadline);
  add_timer(deadline_local_us, kCoroBit | pack(ref.index, ref.gen));
}

void CoroProcess::handle_work(uint64_t payload) {
  if ((payload & kCoroBit) == 0) {
    handle_message(payload);
    return;
  }
  const uint32_t index = index_of(payload);
  const uint32_t gen = gen_of(payload);
  if (payload & kStartBit) {
    if (index >= roots_.size() || !roots_[index].live || (roots_[index].gen & kGenMask) != gen) {
      return;  // cancelled before it started
    }
    resume_top(roots_[index].task.handle());
    return;
  }
  if (index >= slots_.size()) return;
  Slot& slot = slots_[index];
  if ((slot.gen & kGenMask) != gen || slot.state != kCompleted) return;  // cancelled meanwhile
  std::coroutine_handle<> h = slot.handle;
  free_slot(index);
  resume_top(h);
}

void CoroProcess::handle_timer(uint64_t tag) {
  if ((tag & kCoroBit) == 0) {
    handle_other_timer(tag);
    return;
  }
  const uint32_t index = index_of(tag);
  if (index >= slots_.size()) return;
  const Slot& slot = slots_[index];
  if ((slot.gen & kGenMask) != gen_of(tag) || slot.state != kWaiting) return;  // stale timer
  complete_wait_inline(WaitRef{index, slot.gen}, kWaitTimedOut);
}

bool CoroProcess::timer_live(uint64_t tag) const {
  if ((tag & kCoroBit) == 0) return other_timer_live(tag);
  const uint32_t index = index_of(tag);
  if (index >= slots_.size()) return false;
  const Slot& slot = slots_[index];
  return (slot.gen & kGenMask) == gen_of(tag) && slot.state == kWaiting;
}

void CoroProcess::drop_work(uint64_t payload) {
  if ((payload & kCoroBit) == 0) drop_message(payload);
}

void CoroProcess::on_crash() {
  destroy_all_roots();
  // Awaiters cancelled their waits while their frames were destroyed.
  LS_ASSERT(waits_open_ == 0);
  after_crash();
}

}  // namespace lockstep::kernel
