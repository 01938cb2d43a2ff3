// Property 2, lease-aware linearizability against the sequential models of model.h.
//
// Per lock (P-compositionality: locks are independent objects), first the cheap witness: where
// the history logged which node executed which operation's script and when (`exec` events with
// `op`), replay the operations in that order, each at its execution time, in linear time. If the
// replay is legal the lock is linearizable. Otherwise (or without execs) the Wing–Gong/Lowe
// search: a depth-first search over which pending operation takes effect next, with operations
// whose deadline is earliest tried first, unknown outcomes tried both ways, and a cache of
// visited (linearized set, model state, time) fingerprints. The search runs twice at most: first
// lazily, trying an unknown-outcome op only where it lets the most urgent op take effect at once
// (a witness found so is a linearization like any other), then, only if that finds none, in full.
// A budget of states per lock, shared by both, turns a blow-up into `unknown`.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "checker/check.h"
#include "checker/explain.h"
#include "checker/model.h"
#include "checker/properties.h"
#include "sim/core/assert.h"
#include "sim/core/rng.h"

namespace lockstep::checker {
namespace {

// One operation as the search sees it.
struct LinOp {
  uint32_t op = 0;              // index into History::ops
  TimeUs invoke_t = 0;
  TimeUs deadline_t = kTimeNever;  // complete time for observed ops; never for unknown ones
  bool required = true;         // must take effect: observed (outcome ok), or a phantom
  // A run the client did not see (add_phantoms): pinned to its exec time, with results nobody
  // observed; required for an unseen grant, optional for another call's earlier run. `exec` is
  // its index into History::execs.
  bool phantom = false;
  uint32_t exec = 0;
  bool unseen_grants = false;    // an acquisition with phantoms: its recorded count is a belief
  bool ends_belief = false;      // an unlock that ended its owner's hold (StepHints)

  Effect effect() const { return required && !phantom ? Effect::kObserved : Effect::kAssumedDone; }
  StepHints hints(int variant) const { return StepHints{variant, unseen_grants, ends_belief}; }
};

// The exec events of each operation (by index into History::ops), in history order; empty when
// the history logged no execs with op ids.
using ExecsOf = ExecsByOp;

// The runs of an acquisition that granted the lock, in order.
std::vector<uint32_t> granting_execs(const History& h, std::span<const uint32_t> execs) {
  std::vector<uint32_t> out;
  for (uint32_t e : execs) {
    if (exec_granted(h, h.execs[e])) out.push_back(e);
  }
  return out;
}

// Adds the runs of operation `index` that the client did not see as phantoms: operations pinned
// to their exec times whose results nobody observed. A client re-sends a call whose reply was
// lost or late, so a run before the last may have taken effect unseen:
//  - an acquisition's earlier grants (the re-sent script re-entered the lock or, once the unseen
//    hold lapsed, took it afresh) certainly did: they are required; so is its last grant when
//    the call did not report success;
//  - any other call's earlier runs (an unlock's first run that released before its retry found
//    the lock free and failed with IllegalMonitorStateException, or decremented it once more)
//    may have: they are optional.
// Returns whether it added a grant the client did not see.
bool add_phantoms(const History& h, uint32_t index, std::span<const uint32_t> execs, std::vector<LinOp>* out) {
  const Operation& op = h.ops[index];
  auto add = [&](uint32_t exec, bool required) {
    const Exec& e = h.execs[exec];
    LinOp p{index, e.t, e.t, required};
    p.phantom = true;
    p.exec = exec;
    out->push_back(p);
  };
  if (!op.is_acquire()) {
    if (execs.empty()) return false;
    // A run is a re-send when the same node ran the call again later (a quorum lock's unlock
    // runs once on every master). Only a run of the same command (and script) as the call's last
    // can have done what the call does: not an EVALSHA the node answered NOSCRIPT without
    // running anything, nor the SCRIPT LOAD a client sends before trying again.
    const Exec& last = h.execs[execs.back()];
    for (size_t k = 0; k + 1 < execs.size(); ++k) {
      const Exec& run = h.execs[execs[k]];
      if (run.command != last.command || run.script != last.script || run.reply == ReplyKind::kNoScript) continue;
      const bool rerun = std::any_of(execs.begin() + static_cast<ptrdiff_t>(k) + 1, execs.end(),
                                     [&](uint32_t later) { return h.execs[later].node == run.node; });
      if (rerun) add(execs[k], false);
    }
    return false;
  }
  const std::vector<uint32_t> grants = granting_execs(h, execs);
  const bool last_seen = op.outcome == Outcome::kOk && op.acquired != Tri::kFalse;
  const size_t unseen = grants.size() - (last_seen && !grants.empty() ? 1 : 0);
  for (size_t k = 0; k < unseen; ++k) add(grants[k], true);
  return unseen > 0;
}

// When each owner believed it held each lock: from the grant of the acquisition that began a
// hold (its last granting exec; the invoke when no execs were logged) to the hold's end.
Beliefs beliefs_of(const History& h, const ExecsOf& execs_of) {
  Beliefs out;
  const Sym lost = h.syms.find("lost");
  for (const Hold& hold : h.holds) {
    TimeUs from = hold.begin_t;
    const int64_t index = hold.op_id == kAbsent ? -1 : h.op_index(hold.op_id);
    if (index >= 0) {
      from = std::min(from, h.ops[index].invoke_t);
      const std::vector<uint32_t> grants =
          execs_of.empty() ? std::vector<uint32_t>{} : granting_execs(h, execs_of[index]);
      if (!grants.empty()) from = std::min(hold.begin_t, h.execs[grants.back()].t);
    }
    // A hold that ended because its client noticed the loss (a renewal that found nothing) was
    // believed until that very observation, which therefore still finds it protected.
    TimeUs to = hold.end_t;
    if (to != kTimeNever && hold.end_reason == lost) ++to;
    out.add(hold.owner, hold.lock, from, to);
  }
  out.seal();
  return out;
}

// Builds the operations of one lock that the model must account for, in invoke order.
// `pin_unknown`: the history's exec events are trusted as the record of every run on a node, so
// an unknown-outcome operation took effect, if at all, where its runs say (docs/checker.md).
std::vector<LinOp> lin_ops(const History& h, const std::vector<uint32_t>& indices, int64_t unknown_window_ms,
                           const ExecsOf& execs_of, const Beliefs& beliefs, bool pin_unknown) {
  std::vector<LinOp> out;
  out.reserve(indices.size());
  std::map<Sym, TimeUs> thread_done;  // thread → when its last call (not a renewal) returned
  for (uint32_t i : indices) {
    const Operation& op = h.ops[i];
    LinOp x{i, op.invoke_t, op.complete_t, true};
    // A thread's calls follow one another: a call invoked at the very instant the previous one
    // returned still comes after it (a watchdog's renewals run beside the thread's calls).
    if (op.kind != OpKind::kRenew) {
      const auto [it, fresh] = thread_done.emplace(op.thread, op.complete_t);
      if (!fresh) {
        if (x.invoke_t <= it->second && it->second < x.deadline_t) x.invoke_t = it->second + 1;
        it->second = op.complete_t;
      }
    }
    // A re-sent call's earlier runs (phantoms) may have taken effect whatever the last run did.
    // On a quorum lock a round that fails undoes its grants (with unlocks of no op) and tries
    // again, so an earlier grant there was taken back.
    if (op.kind != OpKind::kRenew && !execs_of.empty() && !(op.is_acquire() && h.header.quorum_lock())) {
      x.unseen_grants = add_phantoms(h, i, execs_of[i], &out);
    }
    if (op.outcome == Outcome::kFail && !is_timeout_error(h, op)) continue;  // the last run had no effect
    if (op.outcome != Outcome::kOk) {
      // May have taken effect or not. An unknown renewal is skipped: taking effect would only
      // extend a lease, which never makes a history more legal.
      if (op.kind == OpKind::kRenew) continue;
      x.required = false;
      x.deadline_t = unknown_window_ms < 0 ? kTimeNever : op.invoke_t + unknown_window_ms * kUsPerMs;
      // An acquisition whose script's reply the history cannot read (run_grant) is not pinned:
      // it may have taken effect or not, as the client saw it.
      const bool quorum_acquire = op.is_acquire() && h.header.quorum_lock();
      const bool unreadable = !execs_of.empty() && op.is_acquire() && !quorum_acquire &&
                              std::any_of(execs_of[i].begin(), execs_of[i].end(),
                                          [&](uint32_t e) { return run_grant(h, h.execs[e]) == RunGrant::kUnreadable; });
      if (pin_unknown && !execs_of.empty() && !unreadable) {
        // It never reached a node; or it is an acquisition whose grants are phantoms (above)
        // and whose other runs found the lock taken and changed nothing; or it took effect, if
        // at all, at one of its runs: the last one (the earlier ones are phantoms), or on a
        // quorum lock between its first and its last.
        const std::span<const uint32_t> runs = execs_of[i];
        if (runs.empty() || (op.is_acquire() && !quorum_acquire)) continue;
        x.invoke_t = h.execs[quorum_acquire ? runs.front() : runs.back()].t;
        x.deadline_t = h.execs[runs.back()].t;
      }
    }
    x.ends_belief = op.kind == OpKind::kUnlock && beliefs.ends_within(op.owner, op.lock, op.invoke_t, op.complete_t);
    // An observed acquisition took effect when a node answered it, not before: at its last grant
    // (or, when it did not acquire, its last attempt). Its lease protects its owner from then on
    // (Beliefs), so it may not be placed earlier.
    if (op.is_acquire() && x.required && !execs_of.empty() && !execs_of[i].empty()) {
      const std::vector<uint32_t> grants = granting_execs(h, execs_of[i]);
      const uint32_t e = op.acquired == Tri::kFalse || grants.empty() ? execs_of[i].back() : grants.back();
      x.invoke_t = std::clamp(h.execs[e].t, op.invoke_t, op.complete_t);
    }
    out.push_back(x);
  }
  // The search walks the ops in invoke order; a phantom is invoked at its exec time.
  std::stable_sort(out.begin(), out.end(), [](const LinOp& a, const LinOp& b) { return a.invoke_t < b.invoke_t; });
  return out;
}

// A hold the history proves existed throughout an interval, whatever the order of the
// operations: owner `owner` held `mode` on (from, until) in every legal linearization.
struct CertainHold {
  Sym owner = kNoSym;
  Mode mode = Mode::kExclusive;
  TimeUs from = 0, until = 0;
  uint32_t acquire = 0;  // index into the lin ops: the observed grant that began it
  int64_t proof = -1;    // the owner's next call, which needed the hold still there; -1: its lease
};

// An observed operation that no order can explain: inside `hold`, another owner's grant that the
// hold blocks, or the holder's own renewal that found nothing.
struct CertainConflict {
  CertainHold hold;
  uint32_t blocked = 0;  // index into the lin ops
};

// The hold that began with the observed grant ops[a] lasted at least until `until` (> the grant's
// return) in every legal order when either
//  - need: the owner's next call (renewals aside) is an observed unlock that needed its own hold
//    (Model::needs_own_hold: one that released) and no acquisition of the owner can come
//    between: an owner holding nothing gets a hold only from its own acquisitions;
//  - lease: before `until` nothing may end it: the lease (from the earliest time the grant or a
//    renewal of the owner can take effect) and the owner's belief protect it, no call of the
//    owner can take effect in between, nor any force_unlock.
// Both need every earlier call of the owner to have taken effect before this grant could.
std::vector<CertainHold> certain_holds(const History& h, const Model& model, const std::vector<LinOp>& ops,
                                       const Beliefs& beliefs) {
  struct Group {  // one operation of the owner: its own lin op and its phantoms
    TimeUs lo = kTimeNever, hi = 0;
    int64_t main = -1;
  };
  struct OwnerCalls {
    std::vector<Group> groups;
    std::map<uint32_t, size_t> group_of;  // History::ops index -> groups index
    std::vector<uint32_t> renewals;       // lin op indices, in invoke order
  };
  std::map<Sym, OwnerCalls> owners;
  std::vector<uint32_t> forces;  // force_unlocks, of anyone: they end every hold
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const Operation& op = h.ops[ops[i].op];
    OwnerCalls& mine = owners[op.owner];
    if (op.kind == OpKind::kRenew) {
      if (!ops[i].phantom) mine.renewals.push_back(i);
      continue;
    }
    if (op.kind == OpKind::kForceUnlock) forces.push_back(i);
    const auto [it, fresh] = mine.group_of.emplace(ops[i].op, mine.groups.size());
    if (fresh) mine.groups.emplace_back();
    Group& g = mine.groups[it->second];
    g.lo = std::min(g.lo, ops[i].invoke_t);
    g.hi = std::max(g.hi, ops[i].deadline_t);
    if (!ops[i].phantom) g.main = i;
  }
  std::vector<CertainHold> out;
  for (auto& [owner, mine] : owners) {
    std::vector<Group>& groups = mine.groups;
    std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.lo < b.lo; });
    TimeUs earlier_hi = INT64_MIN;  // the latest any earlier call of the owner may take effect
    for (size_t k = 0; k < groups.size(); earlier_hi = std::max(earlier_hi, groups[k].hi), ++k) {
      if (groups[k].main < 0) continue;
      const uint32_t a = static_cast<uint32_t>(groups[k].main);
      const LinOp& grant = ops[a];
      const Operation& op = h.ops[grant.op];
      if (!grant.required || !op.is_acquire() || op.acquired != Tri::kTrue || earlier_hi >= grant.invoke_t) continue;
      const TimeUs from = grant.deadline_t;
      const Group* next = k + 1 < groups.size() ? &groups[k + 1] : nullptr;
      CertainHold hold{owner, model.mode_of(op), from, from, a, -1};
      if (next != nullptr && next->main >= 0) {
        const LinOp& call = ops[static_cast<size_t>(next->main)];
        const bool alone = k + 2 >= groups.size() || groups[k + 2].lo > call.deadline_t;
        if (call.required && !call.phantom && alone && model.needs_own_hold(h.ops[call.op], call.hints(0))) {
          hold.until = next->lo;
          hold.proof = next->main;
        }
      }
      // The lease: every grant, reentry or renewal restarts it from when it takes effect.
      const int64_t lease_us = op.effective_lease_us();
      TimeUs by_lease = lease_us >= kNoLeaseUs ? kTimeNever : std::max<TimeUs>(0, grant.invoke_t + lease_us - model.tolerance_us());
      for (uint32_t r : mine.renewals) {
        if (ops[r].invoke_t >= by_lease) break;
        const Operation& renewal = h.ops[ops[r].op];
        if (ops[r].deadline_t < grant.invoke_t || renewal.renewed == Tri::kFalse) continue;
        const int64_t renew_us = renewal.effective_lease_us();
        if (renew_us < kNoLeaseUs) by_lease = std::min(by_lease, std::max<TimeUs>(0, ops[r].invoke_t + renew_us - model.tolerance_us()));
      }
      by_lease = std::min(by_lease, beliefs.protected_until(owner, op.lock, from + 1));
      if (next != nullptr) by_lease = std::min(by_lease, next->lo);
      for (uint32_t f : forces) {
        if (ops[f].deadline_t >= grant.invoke_t) by_lease = std::min(by_lease, ops[f].invoke_t);
      }
      if (by_lease > hold.until) {
        hold.until = by_lease;
        hold.proof = -1;
      }
      if (hold.until > from + 1) out.push_back(hold);
    }
  }
  return out;
}

// The first observed operation (in invoke order) that a certain hold makes impossible.
std::optional<CertainConflict> find_certain_conflict(const History& h, const Model& model, const std::vector<LinOp>& ops,
                                                     const Beliefs& beliefs) {
  if (h.header.quorum_lock()) return std::nullopt;  // a quorum lock's calls may have partial effects
  std::vector<CertainHold> holds = certain_holds(h, model, ops, beliefs);
  if (holds.empty()) return std::nullopt;
  std::optional<CertainConflict> best;
  const auto consider = [&](const CertainHold& hold, uint32_t blocked) {
    if (!best || blocked < best->blocked) best = CertainConflict{hold, blocked};
  };
  // The holder's own renewal that found nothing: its lease and belief, or its later call, say the
  // hold was there (of the renewal's mode, on a read-write lock).
  std::map<Sym, std::vector<uint32_t>> lost_renewals;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const Operation& op = h.ops[ops[i].op];
    if (op.kind == OpKind::kRenew && ops[i].required && !ops[i].phantom && op.renewed == Tri::kFalse) {
      lost_renewals[op.owner].push_back(i);
    }
  }
  for (const CertainHold& hold : holds) {
    const auto it = lost_renewals.find(hold.owner);
    if (it == lost_renewals.end()) continue;
    for (uint32_t r : it->second) {
      const Operation& op = h.ops[ops[r].op];
      if (ops[r].invoke_t > hold.from && ops[r].deadline_t < hold.until && model.mode_of(op) == hold.mode) consider(hold, r);
    }
  }
  // Another owner's grant inside a hold that blocks it. A sweep in invoke order over the holds
  // begun by then, latest end first.
  std::vector<uint32_t> grants;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const Operation& op = h.ops[ops[i].op];
    if (ops[i].required && !ops[i].phantom && op.is_acquire() && op.acquired == Tri::kTrue) grants.push_back(i);
  }
  std::stable_sort(holds.begin(), holds.end(), [](const CertainHold& a, const CertainHold& b) { return a.from < b.from; });
  std::multimap<TimeUs, size_t> open;  // until -> holds index
  size_t next_hold = 0;
  for (uint32_t g : grants) {
    const LinOp& x = ops[g];
    const Operation& op = h.ops[x.op];
    for (; next_hold < holds.size() && holds[next_hold].from < x.invoke_t; ++next_hold) {
      open.emplace(holds[next_hold].until, next_hold);
    }
    for (auto it = open.rbegin(); it != open.rend() && it->first > x.deadline_t; ++it) {
      const CertainHold& hold = holds[it->second];
      if (hold.owner != op.owner && model.blocks(hold.owner, hold.mode, op)) {
        consider(hold, g);
        break;
      }
    }
  }
  return best;
}

struct Fingerprint {
  uint64_t a, b;
  bool operator==(const Fingerprint& o) const { return a == o.a && b == o.b; }
};
struct FingerprintHash {
  size_t operator()(const Fingerprint& f) const { return static_cast<size_t>(f.a); }
};

// Where the search got deepest, for the report.
struct Deepest {
  int64_t linearized = -1;
  std::string state;
  int64_t stuck_op = -1;  // index into ops of the most urgent op that could not take effect
  std::string why;
  TimeUs now = 0;
  TimeUs latest = kTimeNever;  // the latest time the stuck op could take effect (a phantom: its run)
  LockState model_state;
};

class Search {
 public:
  enum class Answer { kLinearizable, kNotLinearizable, kBudget };

  // `lazy`: an incomplete search that tries an unknown-outcome op only right where it lets the
  // most urgent op take effect. Below each wrong turn the full search tries every subset of the
  // pending unknown ops in every order (2^20 branches for 20 lost replies) before it backtracks;
  // the lazy one backtracks at once. Its kLinearizable is a witness; its kNotLinearizable proves
  // nothing. REQUIRES: `ops` outlives the search.
  Search(const History& h, const Model& model, const std::vector<LinOp>& ops, int64_t budget, bool lazy)
      : h_(h), model_(model), ops_(ops), budget_(budget), lazy_(lazy) {}
  Answer run();
  int64_t states() const { return states_; }
  const Deepest& deepest() const { return deepest_; }

 private:
  struct Frame {
    LockState state;
    TimeUs now = 0;
    uint64_t set_a = 0, set_b = 0;
    int32_t via = -1;        // the op applied to reach this frame
    int64_t done = 0;        // required ops linearized
    std::vector<uint32_t> cands;
    uint32_t next = 0;
    bool optional_added = false;
    bool first_failed = false;  // the most urgent candidate could not take effect here
    TimeUs limit = kTimeNever;
    // Optional ops whose deadline `now` has passed are dead: they can no longer take effect, so
    // the search drops them from the pending set (and counts them done in the fingerprint, so a
    // path that applied one meets the path that did not). by_deadline_[0, dead_upto) are dead or
    // done here; `killed` are the ones this frame dropped.
    uint32_t dead_upto = 0;
    std::vector<uint32_t> killed;
  };
  void link_all();
  void take(uint32_t i);     // removes a pending op (linearized or dead)
  void restore(uint32_t i);  // undoes the last take()
  void unlink(uint32_t i);
  void relink(uint32_t i);
  void fill_required(Frame& f);
  void fill_optional(Frame& f);
  void add_variants(Frame& f, size_t from);
  bool try_candidate(Frame& f, uint32_t c, Frame* child);
  bool enables(const Frame& f, uint32_t optional_code) const;
  void index_owners();
  // Whether a step that took `from` to `to` at `at`, applying op `c`, leads nowhere: it ended
  // the hold of an owner one of whose pending calls must still find its own hold (an unlock
  // that released, a renewal that renewed) while none of its pending acquisitions can come
  // first to make a new one. `*why` (if not null) says which.
  bool ends_a_needed_hold(const LockState& from, const LockState& to, uint32_t c, TimeUs at, std::string* why) const;
  // Records that the frame's most urgent op `x` could not take effect by `limit`, if no deeper
  // point was recorded.
  void note_stuck(const Frame& f, const LinOp& x, TimeUs limit, std::string why);

  const History& h_;
  const Model& model_;
  const std::vector<LinOp>& ops_;  // the caller's; both passes search the same ops
  int64_t budget_;
  bool lazy_;
  int64_t states_ = 0;
  int64_t required_total_ = 0;
  // Doubly linked lists (by index; ops_.size() is the head sentinel) of pending ops.
  std::vector<uint32_t> next_, prev_;
  uint32_t req_head_ = 0, opt_head_ = 0;
  std::vector<uint64_t> zob_a_, zob_b_;
  std::vector<uint32_t> by_deadline_;  // optional ops with a deadline, earliest first
  std::vector<bool> pending_;
  // A phantom is an earlier run of its call: it takes effect before the call's own run, also at
  // the same instant. Per phantom the index of its call's own lin op (-1: none, it failed); per
  // call the number of its required phantoms still pending.
  std::vector<int32_t> call_of_phantom_;
  std::vector<uint32_t> phantoms_pending_;
  // Interchangeable optional ops share a class (-1: none): unknown calls of one owner that the
  // model cannot tell apart and that may take effect at any time after their invoke. Of those
  // invoked by now only the earliest is tried (applying another gives the same state and leaves
  // a pending set that is no more flexible).
  std::vector<int32_t> sym_class_;
  std::vector<uint32_t> class_stamp_;  // per class: the fill_optional call that last saw it
  uint32_t fill_count_ = 0;
  void classify();
  std::unordered_set<Fingerprint, FingerprintHash> visited_;
  Deepest deepest_;
  // Per owner (by holder owner): its acquisitions, as indices into ops_ — those with a deadline
  // in invoke order beside the running maximum of their deadlines, the others apart — and its
  // calls that need its own hold (Model::needs_own_hold), by deadline. Looked up, never iterated.
  struct OwnerOps {
    std::vector<uint32_t> acquisitions;
    std::vector<TimeUs> latest_deadline;  // of acquisitions[0..k]
    std::vector<uint32_t> unbounded_acquisitions;
    std::vector<uint32_t> needing_hold;
  };
  std::unordered_map<Sym, OwnerOps> owner_ops_;
};

void Search::link_all() {
  const uint32_t n = static_cast<uint32_t>(ops_.size());
  next_.assign(n + 2, 0);
  prev_.assign(n + 2, 0);
  req_head_ = n;
  opt_head_ = n + 1;
  uint32_t last_req = req_head_, last_opt = opt_head_;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t& last = ops_[i].required ? last_req : last_opt;
    next_[last] = i;
    prev_[i] = last;
    last = i;
    required_total_ += ops_[i].required;
  }
  next_[last_req] = n + 2;  // end marker
  next_[last_opt] = n + 2;
  pending_.assign(n, true);
  classify();
  for (uint32_t i = 0; i < n; ++i) {
    if (!ops_[i].required && ops_[i].deadline_t != kTimeNever) by_deadline_.push_back(i);
  }
  std::stable_sort(by_deadline_.begin(), by_deadline_.end(),
                   [&](uint32_t a, uint32_t b) { return ops_[a].deadline_t < ops_[b].deadline_t; });
  index_owners();
  std::map<uint32_t, int32_t> call_index;  // History::ops index -> its own lin op
  for (uint32_t i = 0; i < n; ++i) {
    if (!ops_[i].phantom) call_index.emplace(ops_[i].op, static_cast<int32_t>(i));
  }
  call_of_phantom_.assign(n, -1);
  phantoms_pending_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    if (!ops_[i].phantom) continue;
    const auto it = call_index.find(ops_[i].op);
    if (it == call_index.end()) continue;
    call_of_phantom_[i] = it->second;
    if (ops_[i].required) ++phantoms_pending_[it->second];
  }
  zob_a_.resize(n);
  zob_b_.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    zob_a_[i] = mix64(i * 2 + 0x9e37ULL);
    zob_b_[i] = mix64(i * 2 + 1 + 0x7f4aULL);
  }
}

void Search::take(uint32_t i) {
  unlink(i);
  pending_[i] = false;
  if (ops_[i].phantom && ops_[i].required && call_of_phantom_[i] >= 0) --phantoms_pending_[call_of_phantom_[i]];
}

void Search::restore(uint32_t i) {
  relink(i);
  pending_[i] = true;
  if (ops_[i].phantom && ops_[i].required && call_of_phantom_[i] >= 0) ++phantoms_pending_[call_of_phantom_[i]];
}

void Search::unlink(uint32_t i) {
  next_[prev_[i]] = next_[i];
  if (next_[i] < ops_.size()) prev_[next_[i]] = prev_[i];
}

void Search::relink(uint32_t i) {
  next_[prev_[i]] = i;
  if (next_[i] < ops_.size()) prev_[next_[i]] = i;
}

// Candidates among required ops: those invoked no later than the earliest pending deadline,
// earliest deadline first. `limit` is that deadline: no op may take effect after it.
void Search::fill_required(Frame& f) {
  const uint32_t end = static_cast<uint32_t>(ops_.size()) + 2;
  TimeUs min_deadline = kTimeNever;
  for (uint32_t i = next_[req_head_]; i != end && ops_[i].invoke_t <= min_deadline; i = next_[i]) {
    f.cands.push_back(i);
    min_deadline = std::min(min_deadline, ops_[i].deadline_t);
  }
  std::erase_if(f.cands, [&](uint32_t i) { return ops_[i].invoke_t > min_deadline; });
  std::stable_sort(f.cands.begin(), f.cands.end(), [&](uint32_t a, uint32_t b) {
    return ops_[a].deadline_t < ops_[b].deadline_t;
  });
  if (lazy_) {
    // The lazy pass looks for a witness along one path: a holder's pending unlock taking effect
    // first only frees the lock for the others, where granting them first would lapse the hold
    // the unlock still needs (the full pass keeps the deadline order, which its report reads).
    std::stable_partition(f.cands.begin(), f.cands.end(), [&](uint32_t i) {
      const Operation& op = h_.ops[ops_[i].op];
      return !ops_[i].phantom && op.kind == OpKind::kUnlock &&
             std::any_of(f.state.holders.begin(), f.state.holders.end(), [&](const Holder& x) { return x.owner == op.owner; });
    });
  }
  add_variants(f, 0);
  f.limit = min_deadline;
}

// Rewrites cands[from..] as (op << 1 | variant), adding variant 1 where the model has two ways.
void Search::add_variants(Frame& f, size_t from) {
  std::vector<uint32_t> out(f.cands.begin(), f.cands.begin() + static_cast<ptrdiff_t>(from));
  for (size_t k = from; k < f.cands.size(); ++k) {
    const uint32_t i = f.cands[k];
    out.push_back(i << 1);
    if (model_.variants(f.state, h_.ops[ops_[i].op]) > 1) out.push_back(i << 1 | 1);
  }
  f.cands = std::move(out);
}

void Search::classify() {
  using Key = std::tuple<OpKind, Sym, Mode, int64_t, int64_t, Outcome, Tri, Tri, Tri, int32_t, bool, bool>;
  std::map<Key, int32_t> classes;
  sym_class_.assign(ops_.size(), -1);
  for (uint32_t i = 0; i < ops_.size(); ++i) {
    const LinOp& x = ops_[i];
    if (x.required || x.phantom || x.deadline_t != kTimeNever) continue;
    const Operation& op = h_.ops[x.op];
    const Key key{op.kind, op.owner, op.mode, op.effective_lease_us(), op.token, op.outcome,
                  op.acquired, op.released, op.renewed, op.count, x.unseen_grants, x.ends_belief};
    sym_class_[i] = classes.emplace(key, static_cast<int32_t>(classes.size())).first->second;
  }
  class_stamp_.assign(classes.size(), 0);
}

void Search::index_owners() {
  owner_ops_.clear();
  for (uint32_t i = 0; i < ops_.size(); ++i) {
    const LinOp& x = ops_[i];
    const Operation& op = h_.ops[x.op];
    OwnerOps& mine = owner_ops_[op.owner];
    if (op.is_acquire() && x.deadline_t == kTimeNever) {
      mine.unbounded_acquisitions.push_back(i);
    } else if (op.is_acquire()) {
      mine.latest_deadline.push_back(std::max(x.deadline_t, mine.acquisitions.empty() ? 0 : mine.latest_deadline.back()));
      mine.acquisitions.push_back(i);
    } else if (x.required && !x.phantom && model_.needs_own_hold(op, x.hints(0))) {
      mine.needing_hold.push_back(i);
    }
  }
  for (auto& [owner, mine] : owner_ops_) {
    std::stable_sort(mine.needing_hold.begin(), mine.needing_hold.end(),
                     [&](uint32_t a, uint32_t b) { return ops_[a].deadline_t < ops_[b].deadline_t; });
  }
}

bool Search::ends_a_needed_hold(const LockState& from, const LockState& to, uint32_t c, TimeUs at,
                                std::string* why) const {
  for (const Holder& gone : from.holders) {
    if (std::any_of(to.holders.begin(), to.holders.end(), [&](const Holder& x) { return x.owner == gone.owner; })) {
      continue;
    }
    const auto it = owner_ops_.find(gone.owner);
    if (it == owner_ops_.end()) continue;
    const OwnerOps& mine = it->second;
    // The pending call that needs the hold soonest (one due before `at` fails by itself).
    const auto first = std::partition_point(mine.needing_hold.begin(), mine.needing_hold.end(),
                                            [&](uint32_t n) { return ops_[n].deadline_t < at; });
    const auto need = std::find_if(first, mine.needing_hold.end(), [&](uint32_t n) { return n != c && pending_[n]; });
    if (need == mine.needing_hold.end()) continue;
    // Once an owner holds nothing only its own acquisitions give it a hold again (no other step
    // adds a holder). One taking effect in [at, its deadline] may precede the call due by `due`
    // (and then every later one).
    const TimeUs due = ops_[*need].deadline_t;
    const auto rescues = [&](uint32_t a) {
      return a != c && pending_[a] && std::max(at, ops_[a].invoke_t) <= std::min(ops_[a].deadline_t, due);
    };
    if (std::any_of(mine.unbounded_acquisitions.begin(), mine.unbounded_acquisitions.end(), rescues)) continue;
    size_t k = std::partition_point(mine.acquisitions.begin(), mine.acquisitions.end(),
                                    [&](uint32_t a) { return ops_[a].invoke_t <= due; }) - mine.acquisitions.begin();
    bool rescued = false;
    while (k > 0 && mine.latest_deadline[k - 1] >= at && !rescued) rescued = rescues(mine.acquisitions[--k]);
    if (rescued) continue;
    if (why) {
      const Operation& op = h_.ops[ops_[*need].op];
      *why = "it would end the hold of " + model_.owner(gone.owner) + " by " + format_time(at) + ", whose " +
             op_kind_name(op.kind) + " (#" + std::to_string(op.id) + ", " + format_span(op.invoke_t, op.complete_t) + ") still " + (op.kind == OpKind::kUnlock ? "released it" : "renewed it") +
             " afterwards";
    }
    return true;
  }
  return false;
}

// Inserts, at the frame's cursor, the unknown-outcome ops that may take effect now, the most
// recently invoked first.
void Search::fill_optional(Frame& f) {
  const uint32_t end = static_cast<uint32_t>(ops_.size()) + 2;
  Frame tmp;
  ++fill_count_;
  for (uint32_t i = next_[opt_head_]; i != end && ops_[i].invoke_t <= f.limit; i = next_[i]) {
    const int32_t k = sym_class_[i];
    if (k >= 0 && ops_[i].invoke_t <= f.now) {
      if (class_stamp_[k] == fill_count_) continue;  // an earlier one of its class is pending
      class_stamp_[k] = fill_count_;
    }
    tmp.cands.push_back(i);
  }
  std::reverse(tmp.cands.begin(), tmp.cands.end());
  tmp.state = f.state;
  add_variants(tmp, 0);
  if (lazy_) std::erase_if(tmp.cands, [&](uint32_t code) { return !enables(f, code); });
  f.cands.insert(f.cands.begin() + f.next, tmp.cands.begin(), tmp.cands.end());
  f.optional_added = true;
}

// Whether the optional op `optional_code` (op << 1 | variant), taking effect now, lets the frame's
// most urgent op take effect right after it.
bool Search::enables(const Frame& f, uint32_t optional_code) const {
  const LinOp& o = ops_[optional_code >> 1];
  TimeUs at = std::max(f.now, o.invoke_t);
  const TimeUs limit = std::min(f.limit, o.deadline_t);
  LockState mid, after;
  if (at > limit || !model_.step(f.state, h_.ops[o.op], o.effect(), limit, &at, &mid, nullptr,
                                 o.hints(static_cast<int>(optional_code & 1)))) {
    return false;
  }
  const uint32_t urgent = f.cands.front() >> 1;
  const LinOp& x = ops_[urgent];
  const Operation& op = h_.ops[x.op];
  const TimeUs x_limit = std::min(f.limit, x.deadline_t);
  for (int variant = 0; variant < model_.variants(mid, op); ++variant) {
    TimeUs x_at = std::max(at, x.invoke_t);
    if (x_at <= x_limit && model_.step(mid, op, x.effect(), x_limit, &x_at, &after, nullptr, x.hints(variant))) {
      return true;
    }
  }
  return false;
}

void Search::note_stuck(const Frame& f, const LinOp& x, TimeUs limit, std::string why) {
  if (f.done < deepest_.linearized) return;
  deepest_.linearized = f.done;
  deepest_.stuck_op = x.op;
  deepest_.why = std::move(why);
  deepest_.now = f.now;
  deepest_.latest = limit;
  deepest_.model_state = f.state;
}

bool Search::try_candidate(Frame& f, uint32_t code, Frame* child) {
  const uint32_t c = code >> 1;
  const LinOp& x = ops_[c];
  const Operation& op = h_.ops[x.op];
  TimeUs at = std::max(f.now, x.invoke_t);
  std::string why;
  const bool urgent = x.required && (f.cands.front() >> 1) == c;
  const TimeUs limit = std::min(f.limit, x.deadline_t);
  if (at > limit) return false;
  // A call's earlier runs come before its own run: not after it, nor it before a required one.
  if (x.phantom ? call_of_phantom_[c] >= 0 && !pending_[call_of_phantom_[c]] : phantoms_pending_[c] > 0) return false;
  if (!model_.step(f.state, op, x.effect(), limit, &at, &child->state, urgent ? &why : nullptr,
                   x.hints(static_cast<int>(code & 1)))) {
    if (urgent) note_stuck(f, x, limit, std::move(why));
    return false;
  }
  if (child->state.holders.size() < f.state.holders.size() + 1 &&
      ends_a_needed_hold(f.state, child->state, c, at, urgent ? &why : nullptr)) {
    if (urgent) note_stuck(f, x, limit, std::move(why));
    return false;
  }
  child->now = at;
  child->set_a = f.set_a ^ zob_a_[c];
  child->set_b = f.set_b ^ zob_b_[c];
  child->dead_upto = f.dead_upto;
  while (child->dead_upto < by_deadline_.size() && ops_[by_deadline_[child->dead_upto]].deadline_t < at) {
    const uint32_t i = by_deadline_[child->dead_upto++];
    if (i == c || !pending_[i]) continue;
    child->killed.push_back(i);
    child->set_a ^= zob_a_[i];
    child->set_b ^= zob_b_[i];
  }
  const uint64_t sh = Model::hash(child->state);
  const Fingerprint key{child->set_a ^ mix64(sh ^ static_cast<uint64_t>(at)),
                        child->set_b ^ mix64(sh + 0x632be59bd9b4e019ULL * static_cast<uint64_t>(at + 1))};
  if (!visited_.insert(key).second) return false;
  child->via = static_cast<int32_t>(c);
  child->done = f.done + (x.required ? 1 : 0);
  return true;
}

Search::Answer Search::run() {
  link_all();
  std::vector<Frame> stack;
  stack.reserve(std::min<size_t>(ops_.size() + 1, 1 << 20));
  stack.emplace_back();
  stack.back().state = model_.init();
  fill_required(stack.back());
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.done == required_total_) return Answer::kLinearizable;
    // When the most urgent op cannot take effect now, an unknown op that took effect unseen is
    // the likeliest explanation (a lost reply): try those before reordering the observed ops.
    if (f.next == std::min<size_t>(1, f.cands.size()) && !f.optional_added && (!lazy_ || f.first_failed)) {
      fill_optional(f);
    }
    if (f.next == f.cands.size()) {
      for (auto it = f.killed.rbegin(); it != f.killed.rend(); ++it) restore(*it);
      if (f.via >= 0) restore(static_cast<uint32_t>(f.via));
      stack.pop_back();
      continue;
    }
    const uint32_t code = f.cands[f.next++];
    const uint32_t c = code >> 1;
    Frame child;
    // The budget counts every transition tried, so it bounds the work, not just the depth.
    if (++states_ > budget_) return Answer::kBudget;
    if (!try_candidate(f, code, &child)) {
      if (f.next == 1) f.first_failed = true;
      continue;
    }
    take(c);
    for (uint32_t i : child.killed) take(i);
    stack.push_back(std::move(child));
    fill_required(stack.back());
  }
  return Answer::kNotLinearizable;
}

// The execution-order witness: each op at the time its script ran on a node. Returns true when
// that order is a legal linearization; otherwise `*why` says why it could not be used.
bool verify_exec_order(const History& h, const Model& model, const std::vector<LinOp>& ops,
                       const ExecsOf& execs_of, const std::vector<uint32_t>& key_expiries, std::string* why) {
  struct Point {
    TimeUs t;
    int64_t seq;
    uint32_t lin;  // kExpiry: the lock's key expired on its node
  };
  constexpr uint32_t kExpiry = UINT32_MAX;
  std::vector<Point> points;
  points.reserve(ops.size());
  // Where the points' scripts ran: whether all on one node, and which.
  Sym node = kNoSym;
  bool one_node = true;
  const auto ran_on = [&](Sym n) {
    if (node == kNoSym) node = n;
    one_node = one_node && n == node;
  };
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const Operation& op = h.ops[ops[i].op];
    if (ops[i].phantom) {
      const Exec& e = h.execs[ops[i].exec];
      points.push_back({e.t, e.seq, i});
      ran_on(e.node);
      continue;
    }
    const std::span<const uint32_t> ex = execs_of[ops[i].op];
    if (ex.empty()) {
      if (ops[i].required) {
        *why = "operation " + std::to_string(op.id) + " has no exec event";
        return false;
      }
      continue;  // never reached a node: it had no effect
    }
    // An acquisition at its last grant (a lock script's later runs, e.g. a PEXPIRE, change no
    // ownership), else at its last attempt; any other call at its last run (its earlier runs are
    // phantoms of their own).
    const std::vector<uint32_t> grants = op.is_acquire() ? granting_execs(h, ex) : std::vector<uint32_t>{};
    const Exec& e = h.execs[grants.empty() ? ex.back() : grants.back()];
    points.push_back({e.t, e.seq, i});
    ran_on(e.node);
  }
  // A lock that lived on one node (not a quorum lock): the node's expiries of the lock's key end
  // every hold the model lets lapse by then. A grant its owner never saw and its client never
  // renewed is gone at the expiry, so a later acquisition by the same owner is a fresh grant,
  // not a reentry. Before an exec of the same instant: Redis expires a key as a command finds it.
  const Sym lock = ops.empty() ? kNoSym : h.ops[ops.front().op].lock;
  if (node != kNoSym && one_node && !h.header.quorum_lock()) {
    for (uint32_t i : key_expiries) {
      const Expire& x = h.expires[i];
      if (x.node == node) points.push_back({x.t, INT64_MIN, kExpiry});
    }
  }
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    return a.t != b.t ? a.t < b.t : a.seq < b.seq;
  });
  LockState state = model.init();
  LockState next;
  for (const Point& p : points) {
    if (p.lin == kExpiry) {
      model.key_expired(state, lock, p.t);  // a hold that may not lapse yet stays (the ops judge it)
      continue;
    }
    const LinOp& x = ops[p.lin];
    const Operation& op = h.ops[x.op];
    TimeUs at = p.t;
    std::string step_why;
    if (model.step(state, op, x.effect(), p.t, &at, &next, &step_why, x.hints(0))) {
      state = std::move(next);
    } else if (x.required) {
      *why = call_name(h, op) + " at its execution time " + format_time(p.t) + ": " + step_why;
      return false;
    }
    // An unknown op whose precondition failed when its script ran (an acquisition that found the
    // lock held, an unlock by a non-holder) did nothing: the scripts change nothing then.
  }
  return true;
}

nlohmann::json op_json(const History& h, const Operation& op) {
  nlohmann::json j = {{"id", op.id}, {"thread", h.str(op.thread)}, {"op", op_kind_name(op.kind)},
                      {"lock", h.str(op.lock)}, {"invoke_us", op.invoke_t}, {"outcome", outcome_name(op.outcome)},
                      {"line", op.invoke_line}};
  j["complete_us"] = op.complete_t == kTimeNever ? nlohmann::json(nullptr) : nlohmann::json(op.complete_t);
  if (op.mode != Mode::kExclusive) j["mode"] = mode_name(op.mode);
  if (op.acquired != Tri::kAbsent) j["acquired"] = op.acquired == Tri::kTrue;
  if (op.released != Tri::kAbsent) j["released"] = op.released == Tri::kTrue;
  if (op.renewed != Tri::kAbsent) j["renewed"] = op.renewed == Tri::kTrue;
  if (op.count >= 0) j["count"] = op.count;
  if (op.token != kAbsent) j["token"] = op.token;
  return j;
}

// The recorded hold of `owner` on `lock` that was believed at `t`, or nullptr.
const Hold* believed_hold(const History& h, Sym owner, Sym lock, TimeUs t) {
  for (const Hold& hold : h.holds) {
    if (hold.lock == lock && hold.owner == owner && hold.begin_t <= t && t < hold.end_t) return &hold;
  }
  return nullptr;
}

// Why a fencing token went down: the server lost the lock's keys (its token counter among them)
// before `op` was granted — a restart without persistence, a failover before replication.
std::string token_story(const History& h, const Operation& op) {
  std::string text;
  for (const DataLoss& d : h.data_losses) {
    if (d.t > op.complete_t) break;
    for (uint32_t i = 0; i < d.keys_count; ++i) {
      const std::string_view key = h.str(h.key_pool[d.keys_begin + i]);
      if (!key_of_lock(key, h.str(op.lock))) continue;
      text += (text.empty() ? "" : "; ") + std::string(h.str(d.node)) + " lost " + std::string(key) + " at " +
              format_time(d.t) + " (" + std::string(h.str(d.reason)) + ")";
    }
  }
  if (text.empty()) return "No recorded data loss explains the lower token.";
  return "The token counter started again: " + text + ".";
}

// The last run of `op` (its exec event with the latest time before it completed; a replicas'
// WAIT is not a run), if any.
std::optional<Exec> last_run(const History& h, const Operation& op) {
  std::optional<Exec> run;
  for (const Exec& x : h.execs) {
    if (x.t > op.complete_t) break;
    if (x.op_id == op.id && !is_replica_wait(h, x)) run = x;
  }
  return run;
}

// Appends `lead` (what `op`'s run met on its node), then the fault that made the node lose its
// latest writes (`loss`) and a replication lag that had kept that replica behind, and names the
// fault as the first inevitable event. Its facts go under `facts_key`.
void append_loss_story(const History& h, const Operation& op, const Exec& run, const DataLoss& loss, std::string text,
                       const char* facts_key, Explanation* e) {
  const std::string node(h.str(run.node));
  const std::string loss_text = key_brought_back_text(h, loss, op.lock);
  nlohmann::json facts = {{"node", node},
                          {"key", h.str(op.lock)},
                          {"run_t_us", run.t},
                          {"data_loss_t_us", loss.t},
                          {"reason", h.str(loss.reason)}};
  std::string first_inevitable = loss_text.substr(0, loss_text.find(", which"));
  for (const FaultEvent& f : h.faults) {
    if (f.t != loss.t || f.phase == FaultPhase::kEnd) continue;
    if (!f.is(FaultKind::kFailover) && !f.is(FaultKind::kRestart) && !f.is(FaultKind::kCrash)) continue;
    first_inevitable = std::string(h.str(f.kind)) + " on " + std::string(h.str(f.target)) + " at " + format_time(f.t) +
                       " (fault #" + std::to_string(f.fault) + ")";
    text += "; " + first_inevitable;
    facts["fault"] = f.fault;
    break;
  }
  // A replica that lagged is why it had not seen the release.
  for (const FaultEvent& f : h.faults) {
    if (f.t > loss.t) break;
    if (!f.is(FaultKind::kReplicationLag) || f.phase != FaultPhase::kStart || f.target != run.node) continue;
    const int64_t duration_ms = f.param(h.syms, "duration_ms");
    if (duration_ms != kAbsent && f.t + duration_ms * kUsPerMs < loss.t) continue;
    text += ", while replication to " + node + " lagged (fault #" + std::to_string(f.fault) + ", from " + format_time(f.t) + ")";
    facts["replication_lag_fault"] = f.fault;
    break;
  }
  append_sentence(&e->text, text + ". First inevitable event: " + first_inevitable + ".");
  e->facts[facts_key] = std::move(facts);
}

// With the key's recorded states, a holder the key still had where `run` ran although its owner
// had released it and no longer believed it held the lock, brought back by the node's latest
// loss of the key after that release (a read-write lock's other readers come and go without
// removing it, which key_brought_back, reading only the commands, cannot tell): "c1/t0's read
// hold, which its unlock (#12) had released at 69.137 s on node0". Sets `*loss`; "" when none.
std::string ghost_holder(const History& h, const Operation& op, const Exec& run, const DataLoss** loss) {
  const StateRecord* at = nullptr;
  for (const StateRecord& st : h.states) {
    if (st.t > run.t) break;
    if (st.node == run.node && st.key == op.lock) at = &st;
  }
  if (at == nullptr || at->type == kNoSym) return "";
  for (size_t i = 0; i < at->members.size(); ++i) {
    std::string owner(h.str(at->members[i]));
    if (owner == "mode") continue;
    const bool write = owner.size() > 6 && owner.compare(owner.size() - 6, 6, ":write") == 0;
    if (write) owner.resize(owner.size() - 6);
    const Sym owner_sym = h.syms.find(owner);
    if (owner_sym == kNoSym) continue;
    // On a read-write lock a field is one mode's: a write field with only a read hold believed
    // (a write released, then a read taken) is a ghost all the same.
    const bool rw = h.header.lock_kind == LockKind::kRwlock;
    const auto same_mode = [&](Mode mode) { return !rw || (mode == Mode::kWrite) == write; };
    const bool believed = std::any_of(h.holds.begin(), h.holds.end(), [&](const Hold& x) {
      return x.owner == owner_sym && x.lock == op.lock && same_mode(x.mode) && x.begin_t <= run.t &&
             (x.end_t == kTimeNever || x.end_t > run.t);
    });
    if (believed) continue;
    // The owner's last release that ran before the run, and the node's loss of the key after it.
    const Operation* release = nullptr;
    std::optional<Exec> released_at;
    for (const Operation& p : h.ops) {
      if (p.invoke_t > run.t) break;
      if (p.owner != owner_sym || p.lock != op.lock || p.kind != OpKind::kUnlock || p.released != Tri::kTrue) continue;
      if (!same_mode(p.mode)) continue;
      if (std::optional<Exec> r = last_run(h, p); r && r->t <= run.t) {
        release = &p;
        released_at = r;
      }
    }
    if (release == nullptr) continue;
    const DataLoss* latest = latest_loss(h, run.node, op.lock, run.t);
    if (latest == nullptr || latest->line < released_at->line) continue;
    *loss = latest;
    return std::string(h.str(release->thread)) + "'s " + (write ? "write " : h.header.lock_kind == LockKind::kRwlock ? "read " : "") +
           "hold, which its " + op_kind_name(release->kind) + " (#" + std::to_string(release->id) + ") had released at " +
           format_time(released_at->t) + " on " + std::string(h.str(released_at->node));
  }
  return "";
}

// The owner whose hold a node's loss of `lock` brought back and who re-entered it there: the
// first grant on `node` after the node's last loss of the key before `t` went to an owner whose
// release had run before that loss (elsewhere: the node never saw it), so the grant was a
// re-entry of the old hold. Sets `*reentry` to that grant's operation and `*release` to the
// release's; kNoSym when none.
Sym reentering_owner(const History& h, Sym node, Sym lock, TimeUs t, const Operation** reentry, std::optional<Exec>* release) {
  const DataLoss* loss = latest_loss(h, node, lock, t);
  if (loss == nullptr) return kNoSym;
  for (const Exec& x : h.execs) {
    if (x.t > t) break;
    if (x.line < loss->line || x.node != node || x.keys_count == 0 || h.key_pool[x.keys_begin] != lock || !exec_granted(h, x)) continue;
    const int64_t index = x.op_id == kAbsent ? -1 : h.op_index(x.op_id);
    if (index < 0) return kNoSym;
    const Operation& grant = h.ops[static_cast<size_t>(index)];
    for (const Operation& p : h.ops) {
      if (p.invoke_t > loss->t) break;
      if (p.owner != grant.owner || p.lock != lock || p.kind != OpKind::kUnlock || p.released != Tri::kTrue) continue;
      if (std::optional<Exec> r = last_run(h, p); r && r->line < loss->line) {
        *reentry = &grant;
        *release = r;
        return grant.owner;
      }
    }
    return kNoSym;
  }
  return kNoSym;
}

// Why an acquisition failed although nothing the operations did blocked it: the node where it last
// ran still had the lock's key, because the node had lost its latest writes to it (a failover to
// a replica that had not seen the release, a restart from an old snapshot). Appends the story and
// its facts to `e`; returns false (and appends nothing) when the history records no such loss.
// The value it still had is named when the history says whose it was: from the recorded key
// states (ghost_holder), or a brought-back hold its owner re-entered (reentering_owner).
bool append_stale_key_story(const History& h, const Operation& op, Explanation* e) {
  const std::optional<Exec> run = last_run(h, op);
  if (!run) return false;
  const std::string lead = call_name(h, op) + " last ran on " + std::string(h.str(run->node)) + " at " + format_time(run->t) +
                           ", where " + std::string(h.str(op.lock));
  if (const DataLoss* loss = key_brought_back(h, run->node, op.lock, run->t)) {
    append_loss_story(h, op, *run, *loss, lead + " was still set: " + key_brought_back_text(h, *loss, op.lock), "stale_key", e);
    return true;
  }
  // The recorded key states name the holder the node still had.
  const DataLoss* loss = nullptr;
  if (const std::string ghost = ghost_holder(h, op, *run, &loss); !ghost.empty()) {
    append_loss_story(h, op, *run, *loss, lead + " still held " + ghost + ": " + key_brought_back_text(h, *loss, op.lock),
                      "stale_key", e);
    return true;
  }
  // Without them: a hold brought back and re-entered by its own owner is still the brought-back value.
  const Operation* reentry = nullptr;
  std::optional<Exec> release;
  const Sym owner = reentering_owner(h, run->node, op.lock, run->t, &reentry, &release);
  loss = owner == kNoSym ? nullptr : key_brought_back(h, run->node, op.lock, run->t, 0, owner);
  if (loss == nullptr) return false;
  const Operation& released = h.ops[static_cast<size_t>(h.op_index(release->op_id))];
  append_loss_story(h, op, *run, *loss,
                    lead + " was still set: " + key_brought_back_text(h, *loss, op.lock) + " (" +
                        std::string(h.str(reentry->thread)) + "'s hold, which its " + op_kind_name(released.kind) + " (#" +
                        std::to_string(released.id) + ") had released at " + format_time(release->t) + " on " +
                        std::string(h.str(release->node)) + "), and " + call_name(h, *reentry) + " re-entered it",
                    "stale_key", e);
  return true;
}

// Why an unlock did not release a hold its owner had taken once: the node where it ran still
// counted the owner's earlier hold, which the owner had released, because the node then lost its
// latest writes (a failover to a replica that had not seen the release); the new acquisition
// re-entered the old hold. Returns false (appending nothing) when the history does not show that.
bool append_resurrected_hold_story(const History& h, const Operation& op, Explanation* e) {
  if (op.kind != OpKind::kUnlock || op.released != Tri::kFalse) return false;
  const std::optional<Exec> run = last_run(h, op);
  if (!run) return false;
  // The owner's last release of the lock before this call.
  const Operation* release = nullptr;
  for (const Operation& p : h.ops) {
    if (p.invoke_t >= op.invoke_t) break;
    if (p.owner == op.owner && p.lock == op.lock && p.kind == OpKind::kUnlock && p.released == Tri::kTrue) release = &p;
  }
  if (release == nullptr) return false;
  const std::optional<Exec> released_at = last_run(h, *release);
  if (!released_at) return false;
  // A loss of the key on this node after that release, and nothing since that ended the key there.
  const DataLoss* loss = key_brought_back(h, run->node, op.lock, run->t, released_at->line, op.owner);
  if (loss == nullptr) return false;
  append_loss_story(h, op, *run, *loss,
                    call_name(h, op) + " ran on " + std::string(h.str(run->node)) + " at " + format_time(run->t) + ", where " +
                        std::string(h.str(release->thread)) + "'s earlier hold of " + std::string(h.str(op.lock)) +
                        " was still counted: " + call_name(h, *release) + " had released it at " +
                        format_time(released_at->t) + " on " + std::string(h.str(released_at->node)) + ", then " +
                        key_brought_back_text(h, *loss, op.lock) + ", and the new acquisition re-entered that hold",
                    "resurrected_hold", e);
  return true;
}

// An unlock or renewal that finds its caller without the lock, in a history without holds or
// runs: the caller's earlier acquisitions whose outcome is unknown are the ones a reader asks
// about. The search gave each both branches (taken effect or not: a history without exec events
// pins nothing), so the history is illegal either way; say which they are.
void append_unknown_acquisitions(const History& h, uint32_t stuck, Explanation* e) {
  const Operation& op = h.ops[stuck];
  std::vector<const Operation*> unknown;
  for (uint32_t i = 0; i < stuck; ++i) {
    const Operation& x = h.ops[i];
    if (x.lock != op.lock || x.owner != op.owner || !x.is_acquire()) continue;
    if (x.outcome == Outcome::kUnknown || is_timeout_error(h, x)) unknown.push_back(&x);
  }
  if (unknown.empty()) return;
  constexpr size_t kNamed = 3;
  std::string list;
  nlohmann::json ids = nlohmann::json::array();
  for (size_t i = 0; i < unknown.size(); ++i) {
    ids.push_back(unknown[i]->id);
    if (i >= kNamed) continue;
    if (!list.empty()) list += ", ";
    list += std::string(op_kind_name(unknown[i]->kind)) + " (#" + std::to_string(unknown[i]->id) + ", " +
            format_span(unknown[i]->invoke_t, unknown[i]->complete_t) + ")";
  }
  if (unknown.size() > kNamed) list += " and " + std::to_string(unknown.size() - kNamed) + " more";
  append_sentence(&e->text, "Of " + std::string(h.str(op.thread)) + "'s acquisitions of " + std::string(h.str(op.lock)) +
                                " before it, " + list + (unknown.size() == 1 ? " has" : " have") +
                                " an unknown outcome: the search tried " + (unknown.size() == 1 ? "it" : "each") +
                                " both taking effect and not, and no order of the operations is legal either way");
  e->facts["unknown_acquisitions"] = ids;
}

// The explanation of a failed search: the op that could not take effect and why, with the causal
// story of the holder in its way (an acquisition) or of the caller's own lost hold (an unlock or
// renewal that found it gone).
// "a's try_lock (#2, 0.001 s → 0.002 s, ok) cannot take effect: <why>": the operation a failed
// search stopped at, and why.
std::string stuck_op_text(const History& h, const Deepest& d) {
  const Operation& op = h.ops[d.stuck_op];
  return std::string(h.str(op.thread)) + "'s " + op_kind_name(op.kind) + " (#" + std::to_string(op.id) + ", " +
         format_span(op.invoke_t, op.complete_t) + ", " + outcome_name(op.outcome) +
         ") cannot take effect: " + d.why;
}

Explanation explain_search(const History& h, const Model& model, const Deepest& d) {
  const Operation& op = h.ops[d.stuck_op];
  Explanation e;
  e.text = "no linearization: after " + std::to_string(d.linearized) + " operation(s) took effect (lock " +
           model.describe(d.model_state, h.syms) + "), " + stuck_op_text(h, d);
  e.facts = {{"linearized", d.linearized}, {"state", model.describe(d.model_state, h.syms)},
             {"stuck_op", op_json(h, op)}, {"why", d.why}};
  // An acquisition whose outcome is unknown could also not take effect at all, unless a run of its
  // granted the lock on a node: then it did (set-nx-px, explore seed 9075).
  TimeUs granted_at = kTimeNever;  // that run's time: when the grant happened
  if (op.is_acquire() && (!op.completed || op.outcome == Outcome::kUnknown)) {
    for (const Exec& run : h.execs) {
      if (run.op_id != op.id || !exec_granted(h, run)) continue;
      append_sentence(&e.text, "Its outcome is unknown, but its " + std::string(h.str(run.command)) + " on " +
                                   std::string(h.str(run.node)) + " at " + format_time(run.t) + " granted it: it took effect");
      granted_at = run.t;
      break;
    }
  }
  // The holder in the way is the one believed when the op took effect at the latest: its
  // completion, or for a grant the client never saw (a phantom), the run that granted it.
  TimeUs at = op.complete_t == kTimeNever ? op.invoke_t : op.complete_t;
  if (d.latest != kTimeNever) at = std::min(at, d.latest);
  if (granted_at != kTimeNever) at = granted_at;
  Conflict c;
  c.lock = op.lock;
  c.second_begin = at;
  if (op.is_acquire() && op.acquired != Tri::kFalse) {
    // The holder in the way: one another owner still believed in when this acquisition returned
    // (a holder the search merely granted ahead, with no recorded hold then, has no story). A
    // refused acquisition had nobody in its way by the model: its story is the node's (below).
    for (const Holder& holder : d.model_state.holders) {
      if (holder.owner == op.owner) continue;
      if (const Hold* hold = believed_hold(h, holder.owner, op.lock, at)) {
        c.first_thread = hold->thread;
        c.first_begin = hold->begin_t;
        c.first_end = hold->end_t;
        c.lease_ms = holder.lease_us >= kNoLeaseUs ? kNoLeaseMs : holder.lease_us / kUsPerMs;
        c.first_op = hold->op_id;
        break;
      }
    }
    c.second_thread = op.thread;
  } else if (op.kind == OpKind::kUnlock || op.kind == OpKind::kRenew) {
    // The caller's own hold, gone by the time its call ran.
    const Hold* last = nullptr;
    for (const Hold& hold : h.holds) {
      if (hold.lock == op.lock && hold.owner == op.owner && hold.begin_t <= op.invoke_t) last = &hold;
    }
    if (last != nullptr) {
      c.first_thread = last->thread;
      c.first_begin = last->begin_t;
      c.first_end = last->end_t;
      c.loser_call = call_name(h, op);
      c.first_op = last->op_id;
      c.lease_ms = hold_lease_ms(h, *last);
    }
  }
  if (append_resurrected_hold_story(h, op, &e)) return e;
  if (append_story(h, c, &e)) return e;
  if (op.token != kAbsent && d.why.find("fencing token") != std::string::npos) {
    append_sentence(&e.text, token_story(h, op));
  } else if (op.is_acquire() && op.acquired == Tri::kFalse && c.first_thread == kNoSym) {
    append_stale_key_story(h, op, &e);
  } else if ((op.kind == OpKind::kUnlock || op.kind == OpKind::kRenew) && c.first_thread == kNoSym && h.execs.empty()) {
    append_unknown_acquisitions(h, static_cast<uint32_t>(d.stuck_op), &e);
  }
  return e;
}

// For an unlock that answered as a release although the search cannot place the hold it
// released: where its script ran, and whether the lock's key was there at all, by the node's
// latest record of the key before the run (a state, an expiry, a loss): "c2/t0's unlock (#71) ran
// on node1 at 143.507 s, where L1 was gone (it had expired there at 138.670 s), and was answered
// as a release all the same". Redisson's classic unlock script answers 1 for a missing key.
// Empty when the history does not say.
std::string unlock_on_missing_key(const History& h, const Operation& unlock) {
  std::optional<Exec> run;  // its last run (runs are read back by value)
  for (const Exec& x : h.execs) {
    if (x.op_id == unlock.id && !is_replica_wait(h, x)) run = x;
  }
  if (!run.has_value()) return "";
  // The node's records of the key before the run, in the order they happened: what each says of
  // it (there; gone, and how).
  struct Record {
    uint32_t line;
    TimeUs t;
    bool there;
    bool state;                      // a recorded state (else an expiry or a loss, which found it there)
    std::string gone;                // how the key went (a record saying it is gone)
    int64_t deleting_seq = kAbsent;  // a recorded state without the key: the run that left it so
  };
  std::vector<Record> records;
  for (const StateRecord& st : h.states) {
    if (st.line >= run->line) break;
    if (st.node != run->node || st.key != unlock.lock) continue;
    if (st.type != kNoSym) {
      records.push_back({st.line, st.t, true, true, ""});
    } else {
      records.push_back({st.line, st.t, false, true, "deleted at " + format_time(st.t), st.seq});
    }
  }
  for (const Expire& e : h.expires) {
    if (e.line >= run->line) break;
    if (e.node == run->node && e.key == unlock.lock) {
      records.push_back({e.line, e.t, false, false, "it had expired there at " + format_time(e.t)});
    }
  }
  for (const DataLoss& d : h.data_losses) {
    if (d.line >= run->line) break;
    if (d.node != run->node) continue;
    for (uint32_t i = 0; i < d.keys_count; ++i) {
      if (h.key_pool[d.keys_begin + i] == unlock.lock) {
        records.push_back({d.line, d.t, false, false,
                           "the node had lost it at " + format_time(d.t) + " (" + std::string(h.str(d.reason)) + ")"});
        break;
      }
    }
  }
  if (records.empty()) return "";
  std::sort(records.begin(), records.end(), [](const Record& a, const Record& b) { return a.line < b.line; });
  // A grant on the node between two lines wrote the key again.
  auto granted_between = [&](uint32_t after, uint32_t before) {
    for (const Exec& x : h.execs) {
      if (x.line >= before) break;
      if (x.line > after && x.node == run->node && x.keys_count > 0 && h.key_pool[x.keys_begin] == unlock.lock &&
          exec_granted(h, x)) {
        return true;
      }
    }
    return false;
  };
  // How the key went: the record that found it gone first. An expiry or a loss found the key
  // there; a recorded state without the key after another record of it gone, and no grant
  // between (a renewal's state), did not remove it again.
  const Record* went = nullptr;
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (r.there) {
      went = nullptr;
    } else if (went == nullptr || !r.state || granted_between(records[i - 1].line, r.line)) {
      went = &r;
    }
  }
  if (went == nullptr) return "";
  std::string gone = went->gone;
  if (went->deleting_seq != kAbsent) {
    for (const Exec& x : h.execs) {
      if (x.node != run->node || x.seq != went->deleting_seq || x.op_id == kAbsent) continue;
      const int64_t index = h.op_index(x.op_id);
      if (index >= 0) gone = "deleted by " + call_name(h, h.ops[static_cast<size_t>(index)]) + " at " + format_time(went->t);
      break;
    }
  }
  // A grant on the node since the latest record wrote the key again, and only a record says
  // what became of it after.
  if (granted_between(records.back().line, run->line)) return "";
  return call_name(h, unlock) + " ran on " + std::string(h.str(run->node)) + " at " + format_time(run->t) + ", where " +
         std::string(h.str(unlock.lock)) + " was gone (" + gone + "), and was answered as a release all the same";
}

// The violation a certain hold proves (find_certain_conflict), in words, with the story of the
// holder in the way.
PropertyResult certain_violation(const History& h, const Model& model, const std::vector<LinOp>& ops,
                                 const CertainConflict& c) {
  const Operation& blocked = h.ops[ops[c.blocked].op];
  const Operation& grant = h.ops[ops[c.hold.acquire].op];
  std::string call = call_name(h, blocked);
  // Times that read alike in milliseconds get their microseconds: the sentence compares them.
  const TimeUs until = c.hold.proof >= 0 ? kTimeNever : c.hold.until;
  call.insert(call.size() - 1, ", " + format_time_beside(blocked.invoke_t, {blocked.complete_t}) + " → " +
                                   format_time_beside(blocked.complete_t, {blocked.invoke_t, until}));
  const std::string held = model.kind() == LockKind::kRwlock ? std::string(" (") + mode_name(c.hold.mode) + ")" : "";
  const std::string holder = model.owner(c.hold.owner);
  // Nobody's hold of the lock recorded (Beliefs): nothing says what its owner believed, and every
  // lease binds.
  const bool no_beliefs = std::none_of(h.holds.begin(), h.holds.end(), [&](const Hold& x) { return x.lock == blocked.lock; });
  const std::string began = "its hold began with its " + std::string(op_kind_name(grant.kind)) + " (#" +
                            std::to_string(grant.id) + "), returned at " +
                            format_time_beside(c.hold.from, {blocked.invoke_t, blocked.complete_t});
  std::string what;
  if (c.hold.proof >= 0) {
    // The later call says the hold was there; the blocked one says it was not. Either may be the
    // wrong one (an unlock script that reports a release on a missing key), so both are named.
    const Operation& later = h.ops[ops[static_cast<size_t>(c.hold.proof)].op];
    const bool unlock = later.kind == OpKind::kUnlock;
    std::string later_call = call_name(h, later);
    later_call.insert(later_call.size() - 1, ", invoked at " + format_time(c.hold.until) + ", " +
                                                 (unlock ? "released: true" : "renewed: true"));
    what = call + " and " + later_call + " cannot both have taken effect: " +
           (blocked.is_acquire() ? "the grant needs the hold" + held + " of " + holder + " gone"
                                 : "the renewal found the hold" + held + " of " + holder + " gone") +
           ", the " + (unlock ? "unlock" : "renewal") + " needs it still there, and " + std::string(h.str(grant.thread)) +
           " made no acquisition in between (" + began + ")";
  } else {
    what = (blocked.is_acquire() ? call + " was granted while " + holder + " held it" + held
                                 : call + " found its hold" + held + " gone while it still held it") +
           " in every order of the operations: " + began + ", and ";
    if (c.hold.until == kTimeNever) {
      what += "no step the lock allows could ever end that hold: its grant has no lease, so it never lapses by itself, and no "
              "call of its owner or force_unlock came after";
    } else {
      what += "no step the lock allows could end that hold before " + format_time_beside(c.hold.until, {blocked.complete_t}) +
              (grant.lease_ms == kNoLeaseMs ? ": its grant has no lease, its owner believed it held it until then, and no call of its owner or "
                                              "force_unlock came between"
               : no_beliefs
                   ? ": its lease protected it until then (the history records no holds, so every lease binds), and no call of its owner or "
                     "force_unlock came between"
                   : ": its lease and its owner's belief protected it until then, and no call of its owner or "
                     "force_unlock came between");
    }
  }
  PropertyResult r =
      make_result("linearizability", Verdict::kViolation, "lock " + std::string(h.str(blocked.lock)) + " is not linearizable: " + what);
  r.counterexample = {{"lock", h.str(blocked.lock)}, {"stuck_op", op_json(h, blocked)}, {"holder_op", op_json(h, grant)}};
  r.explanation.text = "no linearization: " + what;
  r.explanation.facts = {{"stuck_op", op_json(h, blocked)},
                         {"holder_op", op_json(h, grant)},
                         {"held_from_us", c.hold.from},
                         {"held_until_us", c.hold.until},
                         {"proof", c.hold.proof >= 0 ? nlohmann::json(op_json(h, h.ops[ops[static_cast<size_t>(c.hold.proof)].op]))
                                                     : nlohmann::json("lease")}};
  Conflict story;
  story.lock = blocked.lock;
  story.first_thread = grant.thread;
  story.first_begin = c.hold.from;
  story.first_end = c.hold.until;
  story.first_end_by_lease = no_beliefs && c.hold.proof < 0 && c.hold.until != kTimeNever;
  if (const Hold* hold = believed_hold(h, c.hold.owner, blocked.lock, c.hold.from)) {
    story.first_begin = hold->begin_t;
    story.first_end = hold->end_t;
  }
  story.lease_ms = grant.lease_ms == kNoLeaseMs ? kNoLeaseMs : grant.effective_lease_us() / kUsPerMs;
  story.first_op = grant.id;
  story.second_begin = blocked.complete_t;
  if (blocked.is_acquire()) {
    story.second_thread = blocked.thread;
  } else {
    story.loser_call = call_name(h, blocked);
  }
  append_story(h, story, &r.explanation);
  if (c.hold.proof >= 0) {
    const Operation& later = h.ops[ops[static_cast<size_t>(c.hold.proof)].op];
    if (later.kind == OpKind::kUnlock) {
      const std::string missing = unlock_on_missing_key(h, later);
      if (!missing.empty()) {
        append_sentence(&r.explanation.text, missing + ".");
        r.explanation.facts["unlock_on_missing_key"] = missing;
      }
    }
  }
  return r;
}

}  // namespace

PropertyResult check_linearizability(const History& h, const CheckOptions& options) {
  const std::string name = "linearizability";
  if (h.ops.empty()) {
    // Nothing to linearize: a history of holds alone (converted from another tool) is checked by
    // mutual_exclusion, not here.
    return make_result(name, h.complete ? Verdict::kNotApplicable : Verdict::kUnknown,
                       h.complete ? "no operations recorded (invoke / complete)"
                                  : "history incomplete and no operations recorded");
  }
  Model model(h.header.lock_kind, h.header.drift_tolerance_us, h.header.fair, h.header.quorum_lock(), &h.syms);
  std::map<Sym, Sym> owner_threads;
  for (const Operation& op : h.ops) {
    if (op.owner != kNoSym && op.thread != kNoSym) owner_threads.emplace(op.owner, op.thread);
  }
  model.set_owner_threads(std::move(owner_threads));
  ExecsOf own;
  const ExecsOf& execs_of = h.execs.empty() ? own : execs_by_op(h, own);
  const Beliefs beliefs = beliefs_of(h, execs_of);
  model.set_beliefs(&beliefs);
  // The expiries of each lock's key (a key named like its lock), for the witness.
  std::map<Sym, std::vector<uint32_t>> expiries_of_key;
  for (uint32_t i = 0; i < h.expires.size(); ++i) expiries_of_key[h.expires[i].key].push_back(i);
  const std::vector<uint32_t> no_expiries;
  int64_t by_order = 0, by_search = 0, states = 0;
  std::string budget_lock;
  int64_t budget_unbounded = 0;  // unknown-outcome ops of that lock with no deadline
  nlohmann::json locks = nlohmann::json::array();
  for (const auto& [lock, indices] : group_by_lock(h.ops)) {
    if (!options.lock.empty() && h.str(lock) != options.lock) continue;
    std::vector<LinOp> ops = lin_ops(h, indices, options.unknown_window_ms, execs_of, beliefs, options.use_exec_order);
    std::string order_why = options.use_exec_order ? "no exec events with op ids" : "not asked for (--no-exec-order)";
    const auto expiries = expiries_of_key.find(lock);
    const std::vector<uint32_t>& key_expiries = expiries == expiries_of_key.end() ? no_expiries : expiries->second;
    if (options.use_exec_order && !execs_of.empty() && verify_exec_order(h, model, ops, execs_of, key_expiries, &order_why)) {
      ++by_order;
      continue;
    }
    ++by_search;
    // A conflict the history proves without any order (a grant inside a hold that certainly
    // lasted) refutes at once; the search would have to try every order first.
    const std::optional<CertainConflict> c =
        options.certain_holds ? find_certain_conflict(h, model, ops, beliefs) : std::nullopt;
    PropertyResult r;
    if (c) {
      r = certain_violation(h, model, ops, *c);
    } else {
      const int64_t lazy_budget = options.search_budget / 10;
      Search lazy(h, model, ops, lazy_budget, /*lazy=*/true);
      Search search(h, model, ops, options.search_budget - lazy_budget, /*lazy=*/false);  // run only if needed
      Search::Answer answer = lazy.run();
      states += lazy.states();
      if (answer != Search::Answer::kLinearizable) {
        answer = search.run();  // the verdict and, for a violation, the deepest point are its own
        states += search.states();
      }
      if (answer == Search::Answer::kBudget && budget_lock.empty()) {
        budget_lock = std::string(h.str(lock));
        budget_unbounded = std::count_if(ops.begin(), ops.end(), [](const LinOp& x) {
          return !x.required && x.deadline_t == kTimeNever;
        });
      }
      if (answer != Search::Answer::kNotLinearizable) continue;
      const Deepest& d = search.deepest();
      // The one-line reason names the operation the search stopped at, as its explanation does.
      r = make_result(name, Verdict::kViolation,
                      "lock " + std::string(h.str(lock)) + " is not linearizable: " + (d.stuck_op >= 0 ? stuck_op_text(h, d) : d.why));
      if (d.stuck_op >= 0) {
        r.counterexample = {{"lock", h.str(lock)}, {"stuck_op", op_json(h, h.ops[d.stuck_op])}};
        r.explanation = explain_search(h, model, d);
      } else {
        r.reason = "lock " + std::string(h.str(lock)) + " is not linearizable";
        r.counterexample = {{"lock", h.str(lock)}};
        r.explanation.text = r.reason;
      }
    }
    if (!order_why.empty()) r.details["exec_order"] = "not usable: " + order_why;
    // The search reports the deepest order it tried, which need not be the telling one; the
    // order the nodes actually executed the operations in is concrete, so say where it broke.
    if (order_why.find(") at its execution time ") != std::string::npos) {
      append_sentence(&r.explanation.text, "In the order the nodes executed them: " + order_why);
      r.explanation.facts["exec_order"] = order_why;
    }
    r.details["search_states"] = states;
    return r;
  }
  const std::string summary = std::to_string(by_order) + " lock(s) verified by execution order, " +
                              std::to_string(by_search) + " by search (" + std::to_string(states) + " states)";
  PropertyResult r = make_result(name, Verdict::kOk, "linearizable: " + summary);
  r.details = {{"locks_by_exec_order", by_order}, {"locks_by_search", by_search}, {"search_states", states}};
  if (!budget_lock.empty()) {
    r.verdict = Verdict::kUnknown;
    r.reason = "search budget of " + std::to_string(options.search_budget) + " states exhausted on lock " + budget_lock;
    if (budget_unbounded > 0) {
      r.reason += " (" + std::to_string(budget_unbounded) +
                  " unknown-outcome operation(s) may take effect at any time after their invoke; exec events with op "
                  "ids, or --unknown-window-ms, would bound them)";
    }
  } else if (!h.complete) {
    r.verdict = Verdict::kUnknown;
    r.reason = "history incomplete; the recorded part is " + r.reason;
  }
  return r;
}

}  // namespace lockstep::checker
