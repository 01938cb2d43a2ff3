// LockPubSub: Redisson's lock entries — per channel, one subscription shared by the waiting
// threads of a client, with the semaphore ("latch") they block on.
//
// A thread that found the lock taken joins the channel's entry (acquire_entry); the first one
// sends SUBSCRIBE, later ones share it. Each waits for the subscription to be confirmed
// (await_subscribed), then alternates between retrying the lock and blocking on the latch for
// at most the lock's TTL. The listener turns messages into permits exactly as LockPubSub does:
// UNLOCK_MESSAGE (0) releases one permit (a permit nobody takes stays, as in
// java.util.concurrent.Semaphore), READ_UNLOCK_MESSAGE (1) releases one per waiting thread.
// When the last thread leaves (release_entry) the client sends UNSUBSCRIBE; a new subscriber
// arriving meanwhile waits for that to finish and subscribes again, so the server never ends up
// with a SUBSCRIBE overtaken by an older UNSUBSCRIBE.
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_LOCK_PUBSUB_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_LOCK_PUBSUB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/algorithm.h"

namespace lockstep::algorithms::redisson {

inline constexpr std::string_view kUnlockMessage = "0";
inline constexpr std::string_view kReadUnlockMessage = "1";

class LockPubSub;

// One channel's entry (RedissonLockEntry). Shared by the threads waiting on that channel.
class LockEntry : public MessageListener {
 public:
  enum class Phase : uint8_t { kIdle, kSubscribing, kActive, kUnsubscribing };

  LockEntry(Runtime& rt, std::string channel);

  const std::string& channel() const { return channel_; }
  Phase phase() const { return phase_; }
  int64_t refs() const { return refs_; }
  int64_t latch_waiters() const { return latch_waiters_; }
  int64_t latch_permits() const { return latch_->available(); }

  // Blocks on the latch for up to timeout_ms (-1: until a permit comes). True if woken.
  Task<bool> wait_latch(int64_t timeout_ms);

  void on_message(std::string_view channel, std::string_view message) override;

 private:
  friend class LockPubSub;
  // Blocks until the phase changes (or timeout_ms passes). True if it changed.
  Task<bool> wait_phase_change(int64_t timeout_ms);
  void set_phase(Phase phase);

  std::string channel_;
  Phase phase_ = Phase::kIdle;
  int64_t refs_ = 0;
  int64_t subscribe_failures_ = 0;
  std::unique_ptr<Semaphore> latch_;
  int64_t latch_waiters_ = 0;
  std::unique_ptr<Semaphore> phase_changed_;
  int64_t phase_waiters_ = 0;
};

// All entries of one client on one endpoint.
class LockPubSub {
 public:
  // Bounds how often one await_subscribed re-checks after phase changes.
  static constexpr int kMaxPhaseWaits = 1000;

  LockPubSub(Runtime& rt, size_t endpoint);

  // Joins the channel's entry, subscribing if nobody is. Every call must be matched by one
  // release_entry().
  std::shared_ptr<LockEntry> acquire_entry(const std::string& channel);
  // Waits up to timeout_ms (-1: forever) for the entry's subscription to be confirmed. False if
  // the time ran out or the SUBSCRIBE failed (Redisson's subscription timeout). REQUIRES: the
  // caller's `entry` lives while the wait can run (a reference: no copy in the caller's frame).
  Task<bool> await_subscribed(const std::shared_ptr<LockEntry>& entry, int64_t timeout_ms);
  // Leaves the entry; the last one out unsubscribes.
  void release_entry(const std::shared_ptr<LockEntry>& entry);

  size_t entries() const { return entries_.size(); }

 private:
  void start_subscribe(const std::shared_ptr<LockEntry>& entry);
  void start_unsubscribe(const std::shared_ptr<LockEntry>& entry);
  Task<void> subscribe_task(std::shared_ptr<LockEntry> entry);
  Task<void> unsubscribe_task(std::shared_ptr<LockEntry> entry, Task<CallResult> call);
  void forget_if_idle(const std::shared_ptr<LockEntry>& entry);

  Runtime& rt_;
  size_t endpoint_;
  // Sorted by channel name; keeps its entries alive. A vector, not a map: a client waits on a
  // channel or two (B5 counts bytes per client).
  std::vector<std::shared_ptr<LockEntry>> entries_;
  std::vector<std::shared_ptr<LockEntry>>::iterator find(std::string_view channel);
};

}  // namespace lockstep::algorithms::redisson

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_LOCK_PUBSUB_H_
