#include "checker/model.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/core/rng.h"

namespace lockstep::checker {
namespace {

Holder* find_holder(LockState& s, Sym owner) {
  for (Holder& h : s.holders) {
    if (h.owner == owner) return &h;
  }
  return nullptr;
}

Holder& add_holder(LockState& s, Sym owner) {
  auto it = std::lower_bound(s.holders.begin(), s.holders.end(), owner,
                             [](const Holder& h, Sym o) { return h.owner < o; });
  LS_ASSERT(it == s.holders.end() || it->owner != owner);
  it = s.holders.insert(it, Holder{});
  it->owner = owner;
  return *it;
}

void remove_empty(LockState& s) {
  std::erase_if(s.holders, [](const Holder& h) { return h.count == 0 && h.read_count == 0; });
}

}  // namespace

void Beliefs::add(Sym owner, Sym lock, TimeUs from, TimeUs to) {
  LS_ASSERT(from <= to);
  intervals_[key(owner, lock)].emplace_back(from, to);
  if (held_.size() <= lock) held_.resize(lock + 1);
  held_[lock] = true;
}

void Beliefs::seal() {
  for (auto& [key, list] : intervals_) {
    std::sort(list.begin(), list.end());
    std::vector<std::pair<TimeUs, TimeUs>> merged;
    for (const auto& iv : list) {
      if (!merged.empty() && iv.first <= merged.back().second) {
        merged.back().second = std::max(merged.back().second, iv.second);
      } else {
        merged.push_back(iv);
      }
    }
    list = std::move(merged);
  }
}

TimeUs Beliefs::protected_until(Sym owner, Sym lock, TimeUs t) const {
  const auto it = intervals_.find(key(owner, lock));
  if (it == intervals_.end()) {
    // An owner that never believed it held a lock others were recorded holding: its grants (a
    // reply lost, a re-send that then answered otherwise) protect nobody. Without any recorded
    // hold of the lock, nothing says who believed what, and every lease binds.
    return lock < held_.size() && held_[lock] ? t : kTimeNever;
  }
  const auto& list = it->second;
  // The last interval starting at or before t.
  auto iv = std::upper_bound(list.begin(), list.end(), std::pair<TimeUs, TimeUs>{t, kTimeNever});
  if (iv == list.begin()) return t;
  --iv;
  return t < iv->second ? iv->second : t;
}

bool Beliefs::ends_within(Sym owner, Sym lock, TimeUs from, TimeUs to) const {
  const auto it = intervals_.find(key(owner, lock));
  if (it == intervals_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](const auto& iv) { return iv.second >= from && iv.second <= to; });
}

Model::Model(LockKind kind, int64_t tolerance_us, bool fair, bool quorum, const SymbolTable* syms)
    : kind_(kind), tolerance_us_(tolerance_us), fair_(fair), quorum_(quorum), syms_(syms) {
  LS_ASSERT(tolerance_us >= 0);
  LS_ASSERT(syms != nullptr);
}

std::string Model::owner(Sym sym) const { return owner(sym, *syms_); }

std::string Model::owner(Sym sym, const SymbolTable& syms) const {
  const Sym thread = thread_of(sym);
  if (thread == kNoSym || thread == sym) return std::string(syms.name(sym));
  return std::string(syms.name(thread)) + " (owner " + std::string(syms.name(sym)) + ")";
}

Mode Model::mode_of(const Operation& op) const {
  if (kind_ != LockKind::kRwlock) return Mode::kExclusive;
  return op.mode == Mode::kRead ? Mode::kRead : Mode::kWrite;
}

bool Model::conflicts(const Holder& h, Sym owner, Mode mode) const {
  if (kind_ == LockKind::kSimple) return true;  // not reentrant: even the holder itself
  if (kind_ != LockKind::kRwlock) return h.owner != owner;
  if (h.owner == owner) {
    // Seed 004: write→read reentry is allowed, read→write is not.
    return mode == Mode::kWrite && h.count == 0 && h.read_count > 0;
  }
  return mode == Mode::kWrite || h.count > 0;
}

bool Model::blocks(Sym owner, Mode held, const Operation& wanted) const {
  Holder h;
  h.owner = owner;
  (held == Mode::kRead ? h.read_count : h.count) = 1;
  return conflicts(h, wanted.owner, mode_of(wanted));
}

TimeUs Model::may_lapse_at(const Holder& h, Sym lock, TimeUs at) const {
  if (beliefs_ == nullptr || h.lapse_at_us <= at) return std::max(at, h.lapse_at_us);
  return std::max(at, std::min(h.lapse_at_us, beliefs_->protected_until(h.owner, lock, at)));
}

template <typename Pred>
bool Model::lapse(LockState& s, Pred pred, Sym lock, TimeUs limit_us, TimeUs* at_us, std::string* why,
                  Sym self, Sym asker) const {
  TimeUs at = *at_us;
  const Holder* latest = nullptr;
  TimeUs latest_at = 0;
  for (const Holder& h : s.holders) {
    if (!pred(h)) continue;
    const TimeUs h_at = h.owner == self && *at_us > 0 ? std::max(*at_us, may_lapse_at(h, lock, *at_us - 1))
                                                      : may_lapse_at(h, lock, *at_us);
    if (h_at > at) {
      at = h_at;
      latest = &h;
      latest_at = h_at;
    }
  }
  if (at > limit_us) {
    if (why) {
      // The operation's own owner's hold (a renewal that found it gone, a re-acquisition that
      // needs it lapsed) is "its own hold", not another holder's.
      const bool own = latest->owner == self || latest->owner == asker;
      const std::string held = own ? "its own hold was still there" : "held by " + owner(latest->owner);
      const std::string after = " (after " + format_time_beside(limit_us, {latest_at}) + ", the latest time the operation can take effect)";
      if (latest->lease_us >= kNoLeaseUs) {
        *why = held + (own ? ": its grant has no lease" : ", whose grant has no lease") + ": it never lapses by itself";
      } else if (latest_at < latest->lapse_at_us) {
        // The owner's belief, not the lease, ends the protection first (docs/checker.md, "Leases
        // protect believers"): say both, so the lease's own end is not misread.
        *why = held + (own ? ": its lease (until " : ", whose lease (until ") + format_time(latest->lapse_at_us) +
               (own ? ") binds while it believed it held the lock: until " : ") binds while its owner believed it held the lock: until ") +
               format_time_beside(latest_at, {limit_us}) + after;
      } else {
        *why = held + (own ? ": its lease cannot lapse before " : ", whose lease cannot lapse before ") +
               format_time_beside(latest_at, {limit_us}) + after;
      }
    }
    return false;
  }
  std::erase_if(s.holders, pred);
  *at_us = at;
  return true;
}

bool Model::acquire(LockState& s, const Operation& op, Effect effect, TimeUs limit_us,
                    TimeUs* at_us, std::string* why, bool lapse_own, bool unseen_grants) const {
  const Mode mode = mode_of(op);
  auto blocks = [&](const Holder& h) {
    return conflicts(h, op.owner, mode) || (lapse_own && h.owner == op.owner);
  };
  if (!lapse(s, blocks, op.lock, limit_us, at_us, why, op.owner)) return false;
  Holder* h = find_holder(s, op.owner);
  const bool fresh = h == nullptr;
  if (fresh) h = &add_holder(s, op.owner);
  int32_t& count = mode == Mode::kRead ? h->read_count : h->count;
  ++count;
  h->lease_us = op.effective_lease_us();
  h->lapse_at_us = std::max<TimeUs>(0, *at_us + h->lease_us - tolerance_us_);
  // A grant nobody saw (a lost reply, an unknown outcome) protects nobody: its owner does not
  // believe it holds the lock, so the hold may lapse at once without harming anyone. A later
  // observed reentry re-arms the lease from then.
  if (effect != Effect::kObserved && fresh) h->lapse_at_us = 0;
  if (effect != Effect::kObserved) return true;
  // A recorded count is the client's own bookkeeping: below the server's it is an orphaned
  // reentry the client never learned of (a grant it did not see); above it, the client believes
  // in holds that cannot exist.
  if (op.count >= 0 && !unseen_grants && op.count > count) {
    if (why) *why = "recorded hold count " + std::to_string(op.count) + ", but it is " + std::to_string(count);
    return false;
  }
  if (op.token != kAbsent) {
    const int64_t floor = fresh ? s.max_token : h->token;
    if (floor != kAbsent && (fresh ? op.token <= floor : op.token < floor)) {
      if (why) *why = "fencing token " + std::to_string(op.token) + " is not above " + std::to_string(floor) + ", already granted";
      return false;
    }
    h->token = op.token;
    s.max_token = std::max(s.max_token, op.token);
  }
  return true;
}

bool Model::try_fail(const LockState& s, const Operation& op, std::string* why) const {
  if (fair_ || quorum_) return true;  // waiters queued ahead (fair lock), no quorum (RedLock)
  const Mode mode = mode_of(op);
  for (const Holder& h : s.holders) {
    if (conflicts(h, op.owner, mode)) return true;
  }
  if (why) {
    // Only the caller's own hold was there: a re-entry it was allowed (a node that lost it
    // answered from an older value, `explore --algorithm redisson-lock` seed 80016).
    const bool own = !s.holders.empty() && std::all_of(s.holders.begin(), s.holders.end(),
                                                        [&](const Holder& h) { return h.owner == op.owner; });
    *why = std::string(own ? "the acquisition failed although only its own hold was there, which it may re-enter ("
                           : "the acquisition failed although nothing blocked it (") +
           describe(s, *syms_) + ")";
  }
  return false;
}

bool Model::release(LockState& s, const Operation& op, Effect effect, TimeUs limit_us,
                    TimeUs* at_us, std::string* why, bool ends_belief) const {
  const Mode mode = mode_of(op);
  Holder* own = find_holder(s, op.owner);
  const int32_t own_count = own == nullptr ? 0 : (mode == Mode::kRead ? own->read_count : own->count);
  if (effect == Effect::kObserved && op.released == Tri::kFalse && own_count <= 1 && kind_ != LockKind::kRwlock) {
    // An unlock that released nothing although the owner's last hold count was its own: the
    // owner's key was gone (expired, lost to a restart or failover) — its hold had lapsed — or,
    // on a quorum lock, gone from too many masters, a partial release with an unknown effect
    // (docs/checker.md). Only a lapse is judged, by the lease and the owner's belief.
    if (quorum_) {
      std::erase_if(s.holders, [&](const Holder& x) { return x.owner == op.owner; });
      return true;
    }
    return lapse(s, [&](const Holder& x) { return x.owner == op.owner; }, op.lock, limit_us, at_us, why, kNoSym, op.owner);
  }
  Holder* h = find_holder(s, op.owner);
  int32_t* count = h == nullptr ? nullptr : (mode == Mode::kRead ? &h->read_count : &h->count);
  if (count == nullptr || *count == 0) {
    if (why) *why = owner(op.owner) + " does not hold it (" + describe(s, *syms_) + ")";
    return false;
  }
  --*count;
  // The client believes it released; a count the server still keeps is orphaned (StepHints).
  const bool orphaned = ends_belief && *count > 0 && op.released == Tri::kTrue;
  if (effect == Effect::kObserved && !orphaned) {
    if (op.released != Tri::kAbsent && (op.released == Tri::kTrue) != (*count == 0)) {
      if (why) *why = std::string("recorded released=") + (op.released == Tri::kTrue ? "true" : "false") +
                      ", but the hold count is now " + std::to_string(*count);
      return false;
    }
    if (op.count >= 0 && op.count > *count) {
      if (why) *why = "recorded hold count " + std::to_string(op.count) + ", but it is " + std::to_string(*count);
      return false;
    }
  }
  remove_empty(s);
  return true;
}

bool Model::force_release(LockState& s, const Operation& op, TimeUs limit_us, TimeUs* at_us,
                          std::string* why) const {
  if (op.released == Tri::kTrue && s.holders.empty()) {
    if (why) *why = "force_unlock reported a lock that existed, but nobody held it";
    return false;
  }
  if (op.released == Tri::kFalse) {
    return lapse(s, [](const Holder&) { return true; }, op.lock, limit_us, at_us, why);
  }
  s.holders.clear();
  return true;
}

bool Model::renew(LockState& s, const Operation& op, TimeUs limit_us, TimeUs* at_us,
                  std::string* why) const {
  Holder* h = find_holder(s, op.owner);
  if (op.renewed == Tri::kTrue) {
    // A quorum lock's watchdog renews the sub-locks it holds on each master, also while the
    // acquisition as a whole is still running; the quorum property judges the per-node keys.
    if (h == nullptr && quorum_) return true;
    if (h == nullptr) {
      if (why) *why = "renewed, but " + owner(op.owner) + " does not hold it (" + describe(s, *syms_) + ")";
      return false;
    }
    h->lapse_at_us = std::max<TimeUs>(0, *at_us + op.effective_lease_us() - tolerance_us_);
    return true;
  }
  if (op.renewed == Tri::kFalse && h != nullptr) {
    // A quorum lock's extension fails when it reaches fewer than a quorum of masters (paused,
    // cut off): an availability outcome, like an acquisition without a quorum — the keys may
    // all still be there. The quorum property judges the per-node keys.
    if (quorum_) return true;
    // A read-write lock's renewal looks for the hold of its own mode: a write watchdog that
    // outlived a write→read downgrade finds no write hold and renews nothing, while the read
    // hold (and the key) stay.
    if (kind_ == LockKind::kRwlock && (op.mode == Mode::kRead ? h->read_count : h->count) == 0) return true;
    return lapse(s, [&](const Holder& x) { return x.owner == op.owner; }, op.lock, limit_us, at_us, why, kNoSym, op.owner);
  }
  return true;
}

int Model::variants(const LockState& state, const Operation& op) const {
  if (!op.is_acquire() || kind_ == LockKind::kSimple) return 1;
  if (op.outcome == Outcome::kOk && op.acquired != Tri::kTrue) return 1;
  for (const Holder& h : state.holders) {
    if (h.owner == op.owner) return 2;
  }
  return 1;
}

bool Model::needs_own_hold(const Operation& op, const StepHints& hints) const {
  if (op.kind != OpKind::kUnlock && op.kind != OpKind::kRenew) return false;
  if (op.outcome != Outcome::kOk) return false;
  // release() and renew() read and change the caller's own holder only, so the empty lock
  // stands for every state without one.
  LockState next;
  TimeUs at = 0;
  return !step(init(), op, Effect::kObserved, kTimeNever, &at, &next, nullptr, hints);
}

bool Model::key_expired(LockState& state, Sym lock, TimeUs t) const {
  TimeUs at = t;
  return lapse(state, [](const Holder&) { return true; }, lock, t, &at, nullptr);
}

bool Model::step(const LockState& state, const Operation& op, Effect effect, TimeUs limit_us,
                 TimeUs* at_us, LockState* next, std::string* why, const StepHints& hints) const {
  LS_ASSERT(next != nullptr && at_us != nullptr);
  LS_ASSERT(effect == Effect::kAssumedDone || op.outcome == Outcome::kOk);
  *next = state;
  switch (op.kind) {
    case OpKind::kLock:
    case OpKind::kTryLock:
      if (effect == Effect::kObserved && op.acquired == Tri::kFalse) return try_fail(*next, op, why);
      return acquire(*next, op, effect, limit_us, at_us, why, hints.variant == 1, hints.unseen_grants);
    case OpKind::kUnlock:
      // A partial unlock re-arms the lease from the time it took effect (the script's pexpire);
      // the rwlock's read unlock recomputes it from the remaining holds, so it keeps theirs.
      if (!release(*next, op, effect, limit_us, at_us, why, hints.ends_belief)) return false;
      if (Holder* h = find_holder(*next, op.owner); h && kind_ != LockKind::kRwlock) {
        h->lapse_at_us = std::max<TimeUs>(0, *at_us + h->lease_us - tolerance_us_);
      }
      return true;
    case OpKind::kForceUnlock:
      return force_release(*next, op, limit_us, at_us, why);
    case OpKind::kRenew:
      return effect == Effect::kAssumedDone || renew(*next, op, limit_us, at_us, why);
  }
  return false;
}

bool Model::equal(const LockState& a, const LockState& b) {
  if (a.max_token != b.max_token || a.holders.size() != b.holders.size()) return false;
  for (size_t i = 0; i < a.holders.size(); ++i) {
    const Holder& x = a.holders[i];
    const Holder& y = b.holders[i];
    if (x.owner != y.owner || x.count != y.count || x.read_count != y.read_count ||
        x.lease_us != y.lease_us || x.lapse_at_us != y.lapse_at_us || x.token != y.token) {
      return false;
    }
  }
  return true;
}

uint64_t Model::hash(const LockState& state) {
  uint64_t h = mix64(static_cast<uint64_t>(state.max_token) ^ 0x5bd1e995ULL);
  for (const Holder& x : state.holders) {
    h = mix64(h ^ x.owner);
    h = mix64(h ^ (static_cast<uint64_t>(x.count) << 32 | static_cast<uint32_t>(x.read_count)));
    h = mix64(h ^ static_cast<uint64_t>(x.lapse_at_us));
    h = mix64(h ^ static_cast<uint64_t>(x.lease_us) ^ (static_cast<uint64_t>(x.token) << 1));
  }
  return h;
}

std::string Model::describe(const LockState& state, const SymbolTable& syms) const {
  if (state.holders.empty()) return "free";
  std::string out;
  for (const Holder& h : state.holders) {
    if (!out.empty()) out += "; ";
    out += "held by " + owner(h.owner, syms) + " (";
    if (kind_ == LockKind::kRwlock) {
      out += "write×" + std::to_string(h.count) + ", read×" + std::to_string(h.read_count);
    } else {
      out += "count " + std::to_string(h.count);
    }
    if (h.token != kAbsent) out += ", token " + std::to_string(h.token);
    // A hold without a lease never lapses (its lapse time is only far away, not a time to print);
    // one whose owner never saw the grant protects nobody and may lapse at once.
    if (h.lease_us >= kNoLeaseUs) {
      out += ", no lease)";
    } else if (h.lapse_at_us == 0) {
      out += ", may lapse at any time)";
    } else {
      out += ", may lapse from " + format_time(h.lapse_at_us) + ")";
    }
  }
  return out;
}

}  // namespace lockstep::checker
