// Watchdog: Redisson's lock renewal — EXPIRATION_RENEWAL_MAP and its timer tasks (seeds 001,
// 003 and 004).
//
// Per client, one entry per lock (Redisson's entryName "<uuid>:<name>"), holding the ids of the
// threads that acquired it without a lease — counted, so a reentrant acquisition adds one and
// an unlock removes one (Redisson's ExpirationEntry.addThreadId / removeThreadId) — and one
// renewal task. The task sleeps lockWatchdogTimeout/3 of local time, renews the lock for the
// entry's first thread with the script of the lock type that created the entry, and then:
// reschedules on 1; drops the entry on 0 (the lock is no longer held); on an error or a timeout
// stops for good (classic, <= 3.43) or reschedules (current, >= 3.44). The next period starts
// when the renewal's reply arrives, as Redisson schedules it from the reply's callback.
//
// An unlock cancels with its thread id (the entry goes when its last thread is removed); a
// forceUnlock cancels the whole entry. A cancel while a renewal is in flight lets that command
// finish (its history operation completes) and then stops.
//
// Note: the read and write locks of one read-write lock share an entry, as in Redisson, whose
// two lock objects have the same entryName; the renewal uses the creating object's script.
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_WATCHDOG_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_WATCHDOG_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/redisson/redisson_options.h"
#include "sim/core/on_demand.h"

namespace lockstep::algorithms::redisson {

struct RenewReply {
  Outcome outcome = Outcome::kOk;  // kUnknown: timed out; kFail: an error reply
  bool renewed = false;            // the script returned 1 (true)
  std::string error;
};

// A lock type's renewal (renewExpirationAsync).
class Renewer {
 public:
  virtual ~Renewer() = default;
  // Renews `lock` on `endpoint` for `first` (the entry's first thread); `threads` are all the
  // entry's threads, for renewals that cover several (read locks, own-only).
  virtual Task<RenewReply> renew(size_t endpoint, std::string lock, const Thread* first,
                                 std::vector<const Thread*> threads, int64_t lease_ms,
                                 int64_t op) = 0;
  // The mode recorded for the renew operation.
  virtual LockMode renew_mode() const = 0;
};

class Watchdog {
 public:
  // Bounds one entry's renewals (100 years of 10 s periods: never reached in a run).
  static constexpr int64_t kMaxRounds = int64_t{1} << 40;

  Watchdog(Runtime& rt, const RedissonOptions& options);

  // scheduleExpirationRenewal(threadId): adds the thread to the lock's entry, creating the entry
  // and its task if there is none. REQUIRES: renewer outlives the entry.
  void schedule(size_t endpoint, const std::string& lock, const Thread& thread, Renewer* renewer);
  // cancelExpirationRenewal(threadId): removes one count of the thread (all threads if nullptr);
  // the entry and its task go when no thread remains.
  void cancel(size_t endpoint, const std::string& lock, const Thread* thread);

  // For tests: whether the lock has an entry, and its thread count for `thread`.
  bool active(size_t endpoint, const std::string& lock) const;
  int64_t count(size_t endpoint, const std::string& lock, const Thread& thread) const;
  size_t entries() const { return entries_.get().size(); }

 private:
  struct Entry {
    size_t endpoint = 0;
    std::string lock;
    Renewer* renewer = nullptr;
    std::vector<std::pair<const Thread*, int64_t>> threads;  // insertion order, with counts
    TaskId task;
    bool cancelled = false;
    bool in_flight = false;
  };
  using Key = std::pair<size_t, std::string>;

  Task<void> run(std::shared_ptr<Entry> entry);
  void drop(const std::shared_ptr<Entry>& entry);

  Runtime& rt_;
  const RedissonOptions& options_;
  // Allocated by the first schedule(): most clients in a crowd never hold a lock.
  OnDemand<std::map<Key, std::shared_ptr<Entry>>> entries_;
};

}  // namespace lockstep::algorithms::redisson

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_WATCHDOG_H_
