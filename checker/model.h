// Sequential specifications of the lock kinds, for the linearizability checker.
//
// A Model is pure (Porcupine style): init() gives the state of a lock nobody holds, step() applies
// one operation at a linearization time and says whether the operation's observed result is
// legal there, equal()/hash() compare states for the search cache, describe() renders a state.
//
// The state is the set of holders of one lock (owner, hold counts, lease) and the highest fencing
// token granted. Kinds: reentrant (RLock, fair lock, fenced lock, Redisson's RedLock: one owner,
// a hold count); simple (non-reentrant: an acquire by the holder itself fails); rwlock (seed 004:
// readers share; a writer excludes everyone else; write→read reentry by the same owner is
// allowed, read→write is not).
//
// Leases. Every grant, reentry, renewal or partial unlock by holder h at time τ restarts h's
// lease; h may lapse (its key expire) only at a time ≥ τ + lease − tolerance (`lapse_at_us`).
// Lapses are not operations: step() lets a holder lapse lazily, exactly when the operation's
// observed result needs it gone (another owner's grant, a renewal or unlock that found nothing),
// and moves the linearization time forward to the lapse time if needed. Earliest linearization
// times dominate (every lease bound only gets looser), so the caller always passes the earliest
// time the operation can take effect and step() reports the time it actually used.
#ifndef LOCKSTEP_CHECKER_MODEL_H_
#define LOCKSTEP_CHECKER_MODEL_H_

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "checker/history.h"

namespace lockstep::checker {

struct Holder {
  Sym owner = kNoSym;
  int32_t count = 0;       // exclusive or write hold count
  int32_t read_count = 0;  // rwlock read holds
  int64_t lease_us = 0;    // the lease of the last grant, reused by partial unlocks
  TimeUs lapse_at_us = 0;  // the earliest true time this hold may lapse
  int64_t token = kAbsent;
};

// The state of one lock. Holders are sorted by owner, so equal states compare equal.
struct LockState {
  std::vector<Holder> holders;
  int64_t max_token = kAbsent;
};

// What the history says about one operation beyond the operation itself (step()'s hints).
struct StepHints {
  // An acquisition by an owner that already holds: 0 a reentry, 1 a fresh grant after its
  // earlier hold lapsed unseen (see Model::variants).
  int variant = 0;
  // The acquisition was granted on the server more often than the client saw (a re-sent lock
  // script whose first reply was lost; docs/checker.md): its recorded count is the client's
  // belief, not the server's, and is not compared.
  bool unseen_grants = false;
  // An unlock that ended its owner's belief in the lock (the owner's hold ended while it ran).
  // When the server still counts a hold afterwards (a grant the client never saw re-entered
  // the lock), the client reports released=true for a hold that is now orphaned: nobody
  // believes in it, so it stays without protecting anyone (Beliefs).
  bool ends_belief = false;
};

// When each owner believed it held each lock: the leases the model enforces protect a holder only
// then (docs/checker.md, "Leases and time"). A hold nobody believes in — a grant whose reply was
// lost, a hold the client already released, crashed with or lost — may lapse at any time without
// harming anyone; a lapse that does harm someone is a mutual-exclusion violation too.
class Beliefs {
 public:
  // Adds [from, to) for (owner, lock); intervals may overlap.
  void add(Sym owner, Sym lock, TimeUs from, TimeUs to);
  // Sorts and merges. REQUIRES: called once, after every add().
  void seal();
  // The end of the belief interval of (owner, lock) containing `t`, `t` itself when the owner
  // did not believe at t (also when it never held `lock` while others did), or kTimeNever when
  // nobody's hold of `lock` was recorded (a history without holds: every lease binds).
  TimeUs protected_until(Sym owner, Sym lock, TimeUs t) const;
  // Whether a belief interval of (owner, lock) ends within [from, to].
  bool ends_within(Sym owner, Sym lock, TimeUs from, TimeUs to) const;

 private:
  // (owner, lock) as one key; looked up for every lapse the search considers. Never iterated
  // into output (seal() sorts each list in place), so the unordered map is deterministic.
  static uint64_t key(Sym owner, Sym lock) { return static_cast<uint64_t>(owner) << 32 | lock; }
  std::unordered_map<uint64_t, std::vector<std::pair<TimeUs, TimeUs>>> intervals_;
  std::vector<bool> held_;  // indexed by lock: whether anyone's hold of it was recorded
};

// How step() treats the operation's recorded result.
enum class Effect : uint8_t {
  kObserved,    // outcome ok: the recorded result must match
  kAssumedDone  // outcome unknown, in the branch where it took effect: results are unconstrained
};

class Model {
 public:
  // `fair`: an acquisition may fail while the lock is free (waiters queued ahead). `quorum`: a
  // lock over several masters (RedLock) — an acquisition may fail while the lock is free (masters
  // unreachable, a split vote: availability, not safety), and an unlock that released fewer
  // than a quorum has an unknown effect.
  Model(LockKind kind, int64_t tolerance_us, bool fair, bool quorum, const SymbolTable* syms);

  // Leases protect a holder only while its owner believed it held the lock (Beliefs). Without
  // this call every lease binds. REQUIRES: `beliefs` outlives the model.
  void set_beliefs(const Beliefs* beliefs) { beliefs_ = beliefs; }

  // Messages name an owner by its thread ("c1/t0 (owner 3f2a…:1)") once told which thread each
  // owner belongs to; owners are otherwise opaque client ids.
  void set_owner_threads(std::map<Sym, Sym> owner_threads) { owner_threads_ = std::move(owner_threads); }
  // The thread `owner` belongs to, or kNoSym when no one said.
  Sym thread_of(Sym owner) const {
    const auto it = owner_threads_.find(owner);
    return it == owner_threads_.end() ? kNoSym : it->second;
  }

  // An owner as messages name it (set_owner_threads).
  std::string owner(Sym sym) const;

  LockKind kind() const { return kind_; }
  int64_t tolerance_us() const { return tolerance_us_; }
  // Whether a hold of mode `held` (at least one of it) by `owner` blocks the grant `wanted`.
  bool blocks(Sym owner, Mode held, const Operation& wanted) const;
  // The mode an operation takes or gives back (kExclusive except on a read-write lock).
  Mode mode_of(const Operation& op) const;

  LockState init() const { return LockState{}; }
  // Applies `op` at the earliest time `*at_us` (updated if lapses push it later, never past
  // `limit_us`, the latest time the op may take effect). Returns false when the op's result is
  // illegal in `state` by then; `*why` (if not null) then says why, naming owners via `syms`.
  // `hints` carry what the history says about `op` beyond the operation (StepHints).
  bool step(const LockState& state, const Operation& op, Effect effect, TimeUs limit_us,
            TimeUs* at_us, LockState* next, std::string* why, const StepHints& hints = {}) const;
  // The number of ways `op` may take effect in `state` (1 or 2). An acquisition by an owner that
  // already holds may be a reentry (variant 0) or, when its earlier hold has lapsed unseen (an
  // unknown acquisition that took effect, a lost unlock), a fresh grant (variant 1).
  int variants(const LockState& state, const Operation& op) const;
  // The lock's key expired on its node at `t`: every hold of `lock` ends then, if the model lets
  // each of them lapse by `t` (its lease, and its owner's belief). Returns false, and changes
  // nothing, when some hold may not lapse yet.
  bool key_expired(LockState& state, Sym lock, TimeUs t) const;
  // Whether `op` (an unlock or a renewal), with its observed result, can only take effect while
  // its owner holds the lock: its step fails in every state where the owner holds nothing (such
  // a step looks at the owner's own hold alone). False for other kinds of operation.
  bool needs_own_hold(const Operation& op, const StepHints& hints) const;
  static bool equal(const LockState& a, const LockState& b);
  static uint64_t hash(const LockState& state);
  std::string describe(const LockState& state, const SymbolTable& syms) const;

 private:
  bool acquire(LockState& s, const Operation& op, Effect effect, TimeUs limit_us, TimeUs* at_us,
               std::string* why, bool lapse_own, bool unseen_grants) const;
  bool try_fail(const LockState& s, const Operation& op, std::string* why) const;
  bool release(LockState& s, const Operation& op, Effect effect, TimeUs limit_us, TimeUs* at_us,
               std::string* why, bool ends_belief) const;
  bool force_release(LockState& s, const Operation& op, TimeUs limit_us, TimeUs* at_us,
                     std::string* why) const;
  bool renew(LockState& s, const Operation& op, TimeUs limit_us, TimeUs* at_us,
             std::string* why) const;
  // Whether holder `h` blocks a grant of `mode` to `owner`.
  bool conflicts(const Holder& h, Sym owner, Mode mode) const;
  // Lets every holder matching `pred` lapse, moving *at_us to the latest lapse time; false (and
  // nothing changed) when that would pass `limit_us`.
  template <typename Pred>
  // `self`: the owner whose own acquisition needs its earlier hold gone; that hold is judged by
  // the owner's belief just before, not by the belief the new grant starts. `asker`: the owner
  // of the operation, for the reason only (its own hold is "its own hold", as for `self`).
  bool lapse(LockState& s, Pred pred, Sym lock, TimeUs limit_us, TimeUs* at_us, std::string* why,
             Sym self = kNoSym, Sym asker = kNoSym) const;
  std::string owner(Sym sym, const SymbolTable& syms) const;

  LockKind kind_;
  int64_t tolerance_us_;
  bool fair_;
  bool quorum_;
  const SymbolTable* syms_;
  std::map<Sym, Sym> owner_threads_;  // owner -> the thread it belongs to, for messages
  const Beliefs* beliefs_ = nullptr;
  // The earliest time ≥ at that holder `h` of the lock `lock` may lapse.
  TimeUs may_lapse_at(const Holder& h, Sym lock, TimeUs at) const;
};

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_MODEL_H_
