#include "algorithms/redisson/watchdog.h"

#include <algorithm>

#include "algorithms/algorithm.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {

Watchdog::Watchdog(Runtime& rt, const RedissonOptions& options) : rt_(rt), options_(options) {
  LS_ASSERT(rt_.options().lock_watchdog_timeout_ms >= 3);
  LS_ASSERT(!entries_);
}

void Watchdog::schedule(size_t endpoint, const std::string& lock, const Thread& thread,
                        Renewer* renewer) {
  LS_ASSERT(renewer != nullptr);
  LS_ASSERT(endpoint < rt_.endpoints());
  std::shared_ptr<Entry>& slot = entries_.for_write()[Key{endpoint, lock}];
  if (slot == nullptr) {
    slot = std::make_shared<Entry>();
    slot->endpoint = endpoint;
    slot->lock = lock;
    slot->renewer = renewer;
    slot->threads.emplace_back(&thread, 1);
    slot->task = rt_.spawn(run(slot));
    return;
  }
  auto it = std::find_if(slot->threads.begin(), slot->threads.end(),
                         [&](const auto& t) { return t.first == &thread; });
  if (it == slot->threads.end()) {
    slot->threads.emplace_back(&thread, 1);
  } else {
    ++it->second;
  }
}

void Watchdog::cancel(size_t endpoint, const std::string& lock, const Thread* thread) {
  if (!entries_) return;
  auto found = entries_->find(Key{endpoint, lock});
  if (found == entries_->end()) return;
  std::shared_ptr<Entry> entry = found->second;
  if (thread != nullptr) {
    auto it = std::find_if(entry->threads.begin(), entry->threads.end(),
                           [&](const auto& t) { return t.first == thread; });
    if (it != entry->threads.end() && --it->second == 0) entry->threads.erase(it);
    if (!entry->threads.empty()) return;
  }
  drop(entry);
}

void Watchdog::drop(const std::shared_ptr<Entry>& entry) {
  LS_ASSERT(entry != nullptr);
  if (!entries_) return;
  auto found = entries_->find(Key{entry->endpoint, entry->lock});
  if (found == entries_->end() || found->second != entry) return;  // already replaced
  entries_->erase(found);
  entry->cancelled = true;
  // A sleeping task is stopped at once; one waiting for a renewal's reply stops after it.
  if (!entry->in_flight) rt_.cancel(entry->task);
}

bool Watchdog::active(size_t endpoint, const std::string& lock) const {
  return entries_.get().count(Key{endpoint, lock}) > 0;
}

int64_t Watchdog::count(size_t endpoint, const std::string& lock, const Thread& thread) const {
  const auto& entries = entries_.get();
  auto found = entries.find(Key{endpoint, lock});
  if (found == entries.end()) return 0;
  for (const auto& [t, n] : found->second->threads) {
    if (t == &thread) return n;
  }
  return 0;
}

Task<void> Watchdog::run(std::shared_ptr<Entry> entry) {
  const int64_t lease_ms = rt_.options().lock_watchdog_timeout_ms;
  const int64_t period_ms = std::max<int64_t>(1, lease_ms / 3);
  for (int64_t round = 0; round < kMaxRounds; ++round) {
    co_await rt_.sleep_ms(period_ms);
    if (entry->cancelled || entry->threads.empty()) co_return;
    const Thread* first = entry->threads.front().first;
    std::vector<const Thread*> threads;
    for (const auto& [t, n] : entry->threads) threads.push_back(t);
    OpRecord rec;
    rec.thread = first;
    rec.lock = entry->lock;
    rec.op = history::OpKind::kRenew;
    rec.mode = entry->renewer->renew_mode();
    rec.lease_ms = lease_ms;
    const int64_t op = rt_.begin_op(rec);
    entry->in_flight = true;
    RenewReply r = co_await entry->renewer->renew(entry->endpoint, entry->lock, first,
                                                  std::move(threads), lease_ms, op);
    entry->in_flight = false;
    OpResult res;
    res.outcome = r.outcome;
    res.error = r.error;
    if (r.outcome == Outcome::kOk) res.renewed = r.renewed ? 1 : 0;
    rt_.end_op(op, res);
    if (entry->cancelled) co_return;
    if (r.outcome != Outcome::kOk) {
      rt_.cover(coverage::kRenewalError);
      // Classic Redisson logs "Can't update lock ... expiration" and removes the entry.
      if (options_.watchdog_after_failure == WatchdogAfterFailure::kStop) {
        entry->in_flight = true;  // this task is ending on its own: do not cancel it
        drop(entry);
        co_return;
      }
      continue;
    }
    rt_.cover(r.renewed ? coverage::kRenewed : coverage::kRenewalLost);
    if (!r.renewed) {
      entry->in_flight = true;
      drop(entry);
      co_return;
    }
  }
}

}  // namespace lockstep::algorithms::redisson
