#include "algorithms/redisson/lock_pubsub.h"

#include <algorithm>
#include <utility>

#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {
namespace {

// Counts a coroutine as waiting for as long as it is suspended (and if its frame is destroyed).
class WaiterGuard {
 public:
  explicit WaiterGuard(int64_t& count) : count_(count) { ++count_; }
  ~WaiterGuard() {
    --count_;
    LS_ASSERT(count_ >= 0);
  }
  WaiterGuard(const WaiterGuard&) = delete;
  WaiterGuard& operator=(const WaiterGuard&) = delete;

 private:
  int64_t& count_;
};

}  // namespace

LockEntry::LockEntry(Runtime& rt, std::string channel)
    : channel_(std::move(channel)),
      latch_(rt.new_semaphore(0)),
      phase_changed_(rt.new_semaphore(0)) {
  LS_ASSERT(!channel_.empty());
  LS_ASSERT(latch_ != nullptr && phase_changed_ != nullptr);
}

Task<bool> LockEntry::wait_latch(int64_t timeout_ms) {
  LS_ASSERT(timeout_ms >= -1);
  WaiterGuard guard(latch_waiters_);
  const bool woken = co_await latch_->try_acquire(timeout_ms);
  co_return woken;
}

Task<bool> LockEntry::wait_phase_change(int64_t timeout_ms) {
  LS_ASSERT(timeout_ms >= -1);
  WaiterGuard guard(phase_waiters_);
  const bool changed = co_await phase_changed_->try_acquire(timeout_ms);
  co_return changed;
}

void LockEntry::set_phase(Phase phase) {
  LS_ASSERT(phase != phase_);
  phase_ = phase;
  if (phase_waiters_ > 0) phase_changed_->release(phase_waiters_);
}

void LockEntry::on_message(std::string_view channel, std::string_view message) {
  LS_ASSERT(channel == channel_);
  if (message == kUnlockMessage) {
    latch_->release(1);
  } else if (message == kReadUnlockMessage && latch_waiters_ > 0) {
    latch_->release(latch_waiters_);
  }
}

LockPubSub::LockPubSub(Runtime& rt, size_t endpoint) : rt_(rt), endpoint_(endpoint) {
  LS_ASSERT(endpoint_ < rt_.endpoints());
}

std::vector<std::shared_ptr<LockEntry>>::iterator LockPubSub::find(std::string_view channel) {
  return std::lower_bound(entries_.begin(), entries_.end(), channel,
                          [](const std::shared_ptr<LockEntry>& e, std::string_view c) {
                            return std::string_view(e->channel_) < c;
                          });
}

std::shared_ptr<LockEntry> LockPubSub::acquire_entry(const std::string& channel) {
  auto it = find(channel);
  if (it == entries_.end() || (*it)->channel_ != channel) {
    it = entries_.insert(it, std::make_shared<LockEntry>(rt_, channel));
  }
  std::shared_ptr<LockEntry> entry = *it;
  ++entry->refs_;
  if (entry->phase_ == LockEntry::Phase::kIdle) start_subscribe(entry);
  LS_ASSERT(entry->refs_ > 0);
  return entry;
}

Task<bool> LockPubSub::await_subscribed(const std::shared_ptr<LockEntry>& entry, int64_t timeout_ms) {
  LS_ASSERT(entry != nullptr && entry->refs_ > 0);
  const int64_t deadline_ms = timeout_ms < 0 ? INT64_MAX : rt_.now_ms() + timeout_ms;
  const int64_t failures = entry->subscribe_failures_;
  for (int i = 0; i < kMaxPhaseWaits; ++i) {
    if (entry->phase_ == LockEntry::Phase::kActive) co_return true;
    if (entry->subscribe_failures_ != failures) co_return false;
    const int64_t remaining_ms = timeout_ms < 0 ? -1 : deadline_ms - rt_.now_ms();
    if (timeout_ms >= 0 && remaining_ms <= 0) co_return false;
    co_await entry->wait_phase_change(remaining_ms);
  }
  co_return false;
}

void LockPubSub::release_entry(const std::shared_ptr<LockEntry>& entry) {
  LS_ASSERT(entry != nullptr);
  LS_ASSERT(entry->refs_ > 0);
  if (--entry->refs_ > 0) return;
  if (entry->phase_ == LockEntry::Phase::kActive) {
    start_unsubscribe(entry);
  } else {
    forget_if_idle(entry);
  }
}

void LockPubSub::start_subscribe(const std::shared_ptr<LockEntry>& entry) {
  LS_ASSERT(entry->phase_ == LockEntry::Phase::kIdle);
  entry->set_phase(LockEntry::Phase::kSubscribing);
  rt_.spawn(subscribe_task(entry));
}

Task<void> LockPubSub::subscribe_task(std::shared_ptr<LockEntry> entry) {
  CallResult r = co_await rt_.pubsub(endpoint_).subscribe(entry->channel_, entry.get());
  LS_ASSERT(entry->phase_ == LockEntry::Phase::kSubscribing);
  if (!r.ok() || r.reply.is_error()) {
    // Redisson's subscription timeout: the waiters give up; the half-made subscription goes.
    ++entry->subscribe_failures_;
    start_unsubscribe(entry);
    co_return;
  }
  entry->set_phase(LockEntry::Phase::kActive);
  if (entry->refs_ == 0) start_unsubscribe(entry);
}

void LockPubSub::start_unsubscribe(const std::shared_ptr<LockEntry>& entry) {
  LS_ASSERT(entry->phase_ == LockEntry::Phase::kActive ||
            entry->phase_ == LockEntry::Phase::kSubscribing);
  entry->set_phase(LockEntry::Phase::kUnsubscribing);
  // The listener is detached now (messages from here on are not this entry's); the UNSUBSCRIBE
  // itself goes out when the task runs.
  Task<CallResult> call = rt_.pubsub(endpoint_).unsubscribe(entry->channel_);
  rt_.spawn(unsubscribe_task(entry, std::move(call)));
}

Task<void> LockPubSub::unsubscribe_task(std::shared_ptr<LockEntry> entry, Task<CallResult> call) {
  co_await call;
  LS_ASSERT(entry->phase_ == LockEntry::Phase::kUnsubscribing);
  entry->set_phase(LockEntry::Phase::kIdle);
  if (entry->refs_ > 0) {
    start_subscribe(entry);
  } else {
    forget_if_idle(entry);
  }
}

void LockPubSub::forget_if_idle(const std::shared_ptr<LockEntry>& entry) {
  if (entry->phase_ != LockEntry::Phase::kIdle || entry->refs_ > 0) return;
  if (entry->latch_waiters_ > 0 || entry->phase_waiters_ > 0) return;
  auto it = find(entry->channel_);
  if (it != entries_.end() && *it == entry) entries_.erase(it);
}

}  // namespace lockstep::algorithms::redisson
