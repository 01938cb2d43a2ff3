// Property 5, liveness: after the last fault heals, every lock becomes acquirable within the
// header's liveness_bound_ms. Two kinds of stuck interval are reported:
//  - a waiter (a lock call, or a try_lock whose wait is at least the bound) that stayed unserved
//    for the bound while no other owner believed it held the lock: the lock was free for the
//    clients but not on the server (a key nobody owns, kept alive or never expiring);
//  - a lock kept alive by renewals of an owner that had already released it or died (a watchdog
//    that was not cancelled), or that never believed it held it (an acquisition that ended
//    without the lock, interrupted while its script granted it), at any time.
#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "checker/check.h"
#include "checker/explain.h"
#include "checker/properties.h"
#include "sim/core/assert.h"

namespace lockstep::checker {
namespace {

struct Interval {
  TimeUs begin, end;
};

// When the owner's watchdog may renew a hold: from the grant (the acquisition's last granting
// run, else its invoke) to the completion of the unlock that ended the hold (the end of the
// history if it never completed) or, for a hold that ended otherwise, its end. Redisson cancels
// the watchdog when the unlock's call completes, whatever it answered (seed 003's unlockAsync),
// so a renewal that took effect while the unlock was still on its way — retried after a lost
// reply, say, its first run having only decremented a count the server held higher than the
// client knew — is the lock's own.
struct OwnedSpan {
  TimeUs from, to;
  int64_t unlock = -1;  // the index of the unlock that ended the hold, if one did
};

// The owned span of every hold (indexed like History::holds).
std::vector<OwnedSpan> owned_spans(const History& h, const ExecsByOp& execs_of) {
  // The unlock that ended each hold: the same thread's unlock of the lock invoked at its end.
  // Sorted by (thread, lock, index); operations are in invoke order, so within one thread and
  // lock the invoke times ascend too, and the first unlock invoked at a time is the one found.
  struct UnlockAt {
    Sym thread, lock;
    uint32_t index;
  };
  std::vector<UnlockAt> unlock_at;
  for (uint32_t i = 0; i < h.ops.size(); ++i) {
    const Operation& op = h.ops[i];
    if (op.kind == OpKind::kUnlock) unlock_at.push_back({op.thread, op.lock, i});
  }
  std::sort(unlock_at.begin(), unlock_at.end(), [](const UnlockAt& a, const UnlockAt& b) {
    return std::tie(a.thread, a.lock, a.index) < std::tie(b.thread, b.lock, b.index);
  });
  const Sym unlock = h.syms.find("unlock");
  std::vector<OwnedSpan> spans;
  spans.reserve(h.holds.size());
  for (const Hold& x : h.holds) {
    OwnedSpan span{x.begin_t, x.end_t};
    const int64_t index = x.op_id == kAbsent ? -1 : h.op_index(x.op_id);
    if (index >= 0) {
      span.from = std::min(span.from, h.ops[index].invoke_t);
      if (!execs_of.empty()) {
        for (uint32_t e : execs_of[index]) {
          if (exec_granted(h, h.execs[e])) span.from = std::min(x.begin_t, h.execs[e].t);
        }
      }
    }
    if (x.end_t != kTimeNever && x.end_reason == unlock) {
      const auto it = std::lower_bound(unlock_at.begin(), unlock_at.end(), x, [&](const UnlockAt& u, const Hold& key) {
        return std::tie(u.thread, u.lock) != std::tie(key.thread, key.lock)
                   ? std::tie(u.thread, u.lock) < std::tie(key.thread, key.lock)
                   : h.ops[u.index].invoke_t < key.end_t;
      });
      if (it != unlock_at.end() && it->thread == x.thread && it->lock == x.lock && h.ops[it->index].invoke_t == x.end_t) {
        const uint32_t u = it->index;
        span.unlock = u;
        span.to = std::max(span.to, h.ops[u].complete_t == kTimeNever ? h.end_t : h.ops[u].complete_t);
      }
    }
    spans.push_back(span);
  }
  return spans;
}

// When the last fault healed: the latest end (or instant) of any fault; a fault that started and
// never ended lasts to the end of the history. A `delay` or `replication_lag` fault heals
// `extra_ms` after its window ends: what was sent in the window arrives up to that much later (a
// SET NX held back by a delay on the node can land seconds after the window and set a key whose
// lease then runs its full length: `explore --algorithm set-nx-px` seed 40134).
struct Heal {
  TimeUs at = 0;
  const FaultEvent* held_back = nullptr;  // the window end whose held-back traffic healed last
  int64_t extra_ms = 0;                   // its extra_ms
};

Heal last_heal(const History& h) {
  Heal heal;
  std::map<int64_t, int64_t> open;  // fault id → started and not ended: its extra_ms (0 if none)
  for (const FaultEvent& f : h.faults) {
    int64_t extra_ms = 0;
    if (f.phase == FaultPhase::kStart) {
      const int64_t x = f.is(FaultKind::kDelay) || f.is(FaultKind::kReplicationLag) ? f.param(h.syms, "extra_ms") : kAbsent;
      open[f.fault] = x > 0 ? x : 0;
    }
    if (f.phase == FaultPhase::kEnd) {
      if (const auto it = open.find(f.fault); it != open.end()) {
        extra_ms = it->second;
        open.erase(it);
      }
    }
    const TimeUs at = f.t + extra_ms * kUsPerMs;
    if (at >= heal.at) heal = {at, extra_ms > 0 ? &f : nullptr, extra_ms};
  }
  if (!open.empty()) heal = {h.end_t, nullptr, 0};
  return heal;
}

// How a sentence names the last heal: "last fault healed at 12.000 s", or "no faults" in a
// history that recorded none (where "healed at 0.000 s" would suggest one); a delay's held-back
// traffic is named: "last fault healed at 48.513 s: the delay on node0 ended at 42.532 s, and
// what it held back arrived up to 5981 ms later".
std::string heal_phrase(const History& h, const Heal& heal) {
  if (h.faults.empty()) return "no faults";
  std::string text = "last fault healed at " + format_time(heal.at);
  if (heal.held_back != nullptr) {
    text += ": the " + std::string(h.str(heal.held_back->kind)) + " on " + std::string(h.str(heal.held_back->target)) +
            " ended at " + format_time(heal.held_back->t) + ", and what it held back arrived up to " +
            std::to_string(heal.extra_ms) + " ms later";
  }
  return text;
}

// For a history without the server's side: when the hold that ended last before a stuck
// stretch began (a crash, a loss) had a lease that could keep the lock until less than the bound
// before the stretch ended, says so.
// The stretch counts from the end of the belief, as the property does; the sentence tells a reader
// whose bound is below the lease why such a wait reads as stuck.
std::string lease_tail(const History& h, const std::vector<uint32_t>& holds, const Interval& stretch, TimeUs bound_us) {
  const TimeUs begin = stretch.begin;
  const Hold* last = nullptr;
  for (uint32_t i : holds) {
    const Hold& x = h.holds[i];
    if (x.end_t != kTimeNever && x.end_t <= begin && (last == nullptr || x.end_t >= last->end_t)) last = &x;
  }
  if (last == nullptr) return "";
  const Operation* grant = hold_acquisition(h, last->thread, last->lock, last->begin_t, last->op_id);
  if (grant == nullptr) return "";
  const std::string why = last->end_reason == kNoSym ? std::string() : " (" + std::string(h.str(last->end_reason)) + ")";
  const std::string ended = "; the last hold, " + std::string(h.str(last->thread)) + "'s, ended" + why + " at " + format_time(last->end_t);
  if (grant->lease_ms == kNoLeaseMs) {
    // No lease: only a release frees the lock. Said only when no call after the grant, by the
    // stretch's end, could have released it (an unlock of its owner, any force_unlock).
    for (const Operation& op : h.ops) {
      if (op.invoke_t > stretch.end) break;  // operations are in invoke order
      if (op.lock != grant->lock || op.invoke_t < grant->invoke_t) continue;
      if (op.kind == OpKind::kForceUnlock || (op.kind == OpKind::kUnlock && op.owner == grant->owner)) return "";
    }
    return ended + ", and its " + op_kind_name(grant->kind) + " (#" + std::to_string(grant->id) +
           ") set no lease: no unlock or force_unlock follows it, so nothing in the history frees " + std::string(h.str(grant->lock));
  }
  const LeaseEnd end = latest_lease_end(h, *grant, begin);
  // Only when the lease explains the finding: served within the bound of its end.
  if (end.at == kTimeNever || end.at <= begin || stretch.end - end.at > bound_us) return "";
  return ended + ", but its " + lease_end_text(h, *grant, end, "could keep the lock until") +
         ": a bound below the lease reports such a wait as stuck";
}


// Merged intervals in which some owner other than a waiter believed it held the lock.
std::vector<Interval> busy(const History& h, const std::vector<uint32_t>& holds, bool writes_only) {
  std::vector<Interval> in;
  for (uint32_t i : holds) {
    const Hold& x = h.holds[i];
    if (writes_only && x.mode == Mode::kRead) continue;
    in.push_back({x.begin_t, x.end_t == kTimeNever ? h.end_t : x.end_t});
  }
  std::sort(in.begin(), in.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> merged;
  for (const Interval& x : in) {
    if (!merged.empty() && x.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, x.end);
    } else {
      merged.push_back(x);
    }
  }
  return merged;
}

// The holder a lock hash names first and its count: the first field that is not the read-write
// lock's "mode", without a write holder's ":write" suffix (the owner as the history names it).
// False when the state names none (no key, or no holder field).
bool first_holder(const History& h, const StateRecord& s, std::string* owner, std::string* count) {
  if (s.type == kNoSym) return false;
  for (size_t i = 0; i < s.members.size(); ++i) {
    std::string field(h.str(s.members[i]));
    if (field == "mode") continue;
    if (field.size() > 6 && field.compare(field.size() - 6, 6, ":write") == 0) field.resize(field.size() - 6);
    *owner = field;
    *count = i < s.values.size() && s.type == h.syms.find("hash") ? std::string(h.str(s.values[i])) : "";
    return true;
  }
  return false;
}

// How a call ended, for the sentences about it: "<how> (command timed out) at 34.255 s", where
// `how` is "ended <outcome>" unless given.
std::string ended_how(const History& h, const Operation& op, std::string how = "") {
  if (how.empty()) how = "ended " + std::string(outcome_name(op.outcome));
  if (op.error != kNoSym) how += " (" + std::string(h.str(op.error)) + ")";
  return how + " at " + format_time(op.complete_t);
}

// How the key's owner stood at `t`: a thread that had held the lock and let go "no longer
// believed it held it"; one that never held it got it from an acquisition it gave up on (a
// timed-out call whose re-sends ran later, an interrupted one), which is named.
std::string believed_by(const History& h, Sym lock, const std::string& owner, TimeUs t) {
  for (const Hold& x : h.holds) {
    if (x.lock == lock && x.begin_t <= t && h.str(x.owner) == owner) return ", whose thread no longer believed it held it";
  }
  const Operation* gave_up = nullptr;
  for (const Operation& op : h.ops) {
    if (op.invoke_t > t) break;  // operations are in invoke order
    if (op.lock != lock || !op.is_acquire() || h.str(op.owner) != owner) continue;
    if (op.outcome != Outcome::kOk && op.complete_t <= t) gave_up = &op;
  }
  std::string text = ", whose thread never believed it held it";
  if (gave_up == nullptr) return text;
  return text + ": its " + op_kind_name(gave_up->kind) + " (#" + std::to_string(gave_up->id) + ") had " + ended_how(h, *gave_up);
}

// How a hold its owner had released was there again: the node whose state holds it at `t` lost
// its writes to the key (a failover to a replica that had not seen the release, a restart from an
// old snapshot) after the owner's unlock of that hold had answered that it released it, and the
// owner did not acquire it in that mode again since: ": node1 lost its latest writes to R at
// 0.600 s (failover), which brought back the hold c1/t0's unlock (#5) had released at 0.502 s".
// "" otherwise.
std::string hold_brought_back(const History& h, Sym lock, const std::string& owner, bool write_field, const StateRecord& at,
                              TimeUs t) {
  const DataLoss* loss = latest_loss(h, at.node, lock, t);
  if (loss == nullptr || loss->line > at.line) return "";
  const bool rw = h.header.lock_kind == LockKind::kRwlock;
  auto same_hold = [&](const Operation& op) {
    return op.lock == lock && h.str(op.owner) == owner && (!rw || op.mode == (write_field ? Mode::kWrite : Mode::kRead));
  };
  const Operation* release = nullptr;
  for (const Operation& op : h.ops) {
    if (op.invoke_t > t) break;  // operations are in invoke order
    if (!same_hold(op)) continue;
    if (op.kind == OpKind::kUnlock && op.outcome == Outcome::kOk && op.released == Tri::kTrue && op.complete_t <= loss->t) {
      release = &op;
    } else if (op.is_acquire() && op.outcome != Outcome::kFail && release != nullptr && op.invoke_t > release->complete_t) {
      return "";  // taken again since: the field may be that acquisition's
    }
  }
  if (release == nullptr) return "";
  return ": " + std::string(h.str(loss->node)) + " lost its latest writes to " + std::string(h.str(lock)) + " at " +
         format_time(loss->t) + " (" + std::string(h.str(loss->reason)) + "), which brought back the hold " +
         call_name(h, *release) + " had released at " + format_time(release->complete_t);
}

// What kept the lock's key at `t` although no owner believed it held the lock, from the recorded
// key states (an orphaned hold: a count its owner did not know about, a field nobody released):
// "; the key L was still there, held by c2/t0 ... until T2", or "" when the states do not say
// (no states recorded, or the key was gone).
std::string key_keeper(const History& h, Sym lock, TimeUs t) {
  const StateRecord* at = nullptr;      // the key's state at t
  const StateRecord* latest = nullptr;  // its last state with the same holder (the count it kept)
  const StateRecord* next = nullptr;    // the first state after that: another holder or no key
  std::string owner, count;
  for (const StateRecord& s : h.states) {
    if (s.key != lock) continue;
    if (s.t <= t) {
      at = latest = &s;
      continue;
    }
    if (at == nullptr || !first_holder(h, *at, &owner, &count)) break;
    std::string o, c;
    if (first_holder(h, s, &o, &c) && o == owner) {
      latest = &s;
      continue;
    }
    next = &s;
    break;
  }
  if (at == nullptr || !first_holder(h, *at, &owner, &count)) return "";
  // The key expired after its last recorded state and before t: it was not there at t (a state
  // is recorded when a script runs, not when the key expires).
  for (const Expire& e : h.expires) {
    if (e.t > t) break;
    if (e.key == lock && e.node == at->node && e.line > at->line) return "";
  }
  first_holder(h, *latest, &owner, &count);
  // The field held: a read-write lock's writer's ends in ":write".
  bool write_field = false;
  for (Sym m : latest->members) {
    const std::string_view field = h.str(m);
    if (field.size() == owner.size() + 6 && field.compare(0, owner.size(), owner) == 0 && field.ends_with(":write")) write_field = true;
  }
  std::string who = "owner " + owner;
  for (const Hold& x : h.holds) {
    if (h.str(x.owner) == owner) {
      who = std::string(h.str(x.thread)) + " (owner " + owner + ")";
      break;
    }
  }
  if (who.rfind("owner ", 0) == 0) {  // no hold: the thread that made its calls
    for (const Operation& op : h.ops) {
      if (h.str(op.owner) == owner) {
        who = std::string(h.str(op.thread)) + " (owner " + owner + ")";
        break;
      }
    }
  }
  std::string text = "; the key " + std::string(h.str(lock)) + " was still there, held " + (write_field ? "for writing " : "") +
                     "by " + who;
  if (!count.empty()) text += " with count " + count;
  text += believed_by(h, lock, owner, t);
  const std::string back = hold_brought_back(h, lock, owner, write_field, *at, t);
  // The key's death (expiry) before the next holder's state is its end; else that state.
  for (const Expire& e : h.expires) {
    if (e.key == lock && e.t > t && (next == nullptr || e.t <= next->t)) {
      return text + ", until it expired at " + format_time(e.t) + back;
    }
  }
  return (next != nullptr ? text + ", until " + format_time(next->t) : text) + back;
}

// Whether operation `op_id` asked for no lease at all (`"lease_ms": null`).
bool lease_less(const History& h, int64_t op_id) {
  const int64_t index = op_id == kAbsent ? -1 : h.op_index(op_id);
  return index >= 0 && h.ops[static_cast<size_t>(index)].lease_ms == kNoLeaseMs;
}

// Whether run `e` left its key as it was: a read, an acquisition the key refused (SET NX
// replying nil, SETNX replying 0), or a command refused with an error.
bool refused_or_read(const History& h, const Exec& e) {
  if (e.reply == ReplyKind::kError || e.reply == ReplyKind::kNoScript) return true;  // refused before it ran
  for (const char* read : {"GET", "EXISTS", "TTL", "PTTL", "TYPE"}) {
    if (command_is(h, e, read)) return true;
  }
  if (command_is(h, e, "SET")) return e.reply == ReplyKind::kNil;
  return command_is(h, e, "SETNX") && e.reply == ReplyKind::kInt && e.reply_int == 0;
}

// Whether run `e` belongs to an unlock or force_unlock that may have released the lock (it did
// not answer that it released nothing): its script may have deleted the key. A run answered with
// an error did not (a script refused before it ran: READONLY on a demoted master, NOSCRIPT).
bool may_release(const History& h, const Exec& e) {
  if (e.op_id == kAbsent || e.reply == ReplyKind::kError || e.reply == ReplyKind::kNoScript) return false;
  const int64_t index = h.op_index(e.op_id);
  if (index < 0) return false;
  const Operation& op = h.ops[static_cast<size_t>(index)];
  if (op.kind != OpKind::kUnlock && op.kind != OpKind::kForceUnlock) return false;
  return !(op.completed && op.outcome == Outcome::kOk && op.released == Tri::kFalse);
}

// Without recorded key states, what the exec log says kept the key at `t`: its last grant before
// `t` and that nothing deleted it or let it expire since — "; the key L was still there: c1/t0's
// acquisition #34 set it at 72.552 s (SETNX), and no expiry was set on it" — a lock whose owner
// died between its SETNX and its EXPIRE; whose client crashed before the call returned; or the
// stuck `waiter`'s own call, whose reply it never saw. "" when the log does not say so.
std::string key_setter(const History& h, Sym lock, TimeUs t, const Operation* waiter, bool* for_ever) {
  if (for_ever != nullptr) *for_ever = false;
  Exec grant;
  bool only_refusals = true;  // every run on the key since the grant was a refused acquisition or a read
  bool granted = false;  // `grant` is the key's last grant and no DEL followed
  bool expiry = false;  // an EXPIRE/PEXPIRE of the key succeeded after the grant
  Exec persisted;  // a PERSIST that removed the expiry since, when `was_persisted`
  bool was_persisted = false;
  for (const Exec& e : h.execs) {
    if (e.t > t) break;
    if (e.keys_count == 0 || h.key_pool[e.keys_begin] != lock) continue;
    const bool one = e.reply == ReplyKind::kInt && e.reply_int == 1;
    if (exec_granted(h, e)) {
      grant = e;
      granted = true;
      only_refusals = true;
      was_persisted = false;
      // SET ... PX/EX sets its expiry with the grant, unless its acquisition asked for no lease
      // (`"lease_ms": null`: a plain SET NX); a script is opaque (its TTL is unknown).
      expiry = !command_is(h, e, "SETNX") && !(command_is(h, e, "SET") && lease_less(h, e.op_id));
    } else if (granted && one && (command_is(h, e, "EXPIRE") || command_is(h, e, "PEXPIRE"))) {
      expiry = true;
      was_persisted = false;
    } else if (granted && one && command_is(h, e, "PERSIST")) {
      expiry = false;
      persisted = e;
      was_persisted = true;
    } else if (granted && one && command_is(h, e, "DEL")) {
      granted = false;  // deleted since
    } else if (granted && may_release(h, e)) {
      granted = false;  // an unlock's script ran on it: the key may be gone (scripts are opaque)
    }
    if (granted && e.line != grant.line && !refused_or_read(h, e)) only_refusals = false;
  }
  if (!granted || grant.op_id == kAbsent) return "";
  for (const Expire& x : h.expires) {
    if (x.key == lock && x.line > grant.line && x.t <= t) return "";
  }
  for (const DataLoss& d : h.data_losses) {
    if (d.line < grant.line || d.t > t) continue;
    for (uint32_t i = 0; i < d.keys_count; ++i) {
      if (h.key_pool[d.keys_begin + i] == lock) return "";
    }
  }
  const int64_t index = h.op_index(grant.op_id);
  if (index < 0) return "";
  const Operation& op = h.ops[index];
  std::string text = "; the key " + std::string(h.str(lock)) + " was still there: " + std::string(h.str(op.thread)) +
                     "'s acquisition #" + std::to_string(op.id) + " set it at " + format_time(grant.t) + " (" +
                     std::string(h.str(grant.command)) + ")";
  const bool gave_up = op.complete_t <= t && (op.outcome != Outcome::kOk || op.acquired == Tri::kFalse);
  if (gave_up) {
    // The call gave up (a timeout whose command ran later, a lost reply): nobody held the lock.
    text += ", although its thread never believed it held it: the call had " +
            ended_how(h, op, op.outcome == Outcome::kOk ? "returned without the lock" : "");
  }
  // Its owner let go, and its unlock did not remove the key (it timed out before it ran, say):
  // "; c1/t0's unlock (#37) ended unknown (command timed out) at 48.368 s, and never ran".
  std::string let_go;
  if (!gave_up) {
    for (const Operation& u : h.ops) {
      if (u.invoke_t > t) break;  // operations are in invoke order
      if (u.kind != OpKind::kUnlock || u.lock != lock || u.owner != op.owner || u.invoke_t < grant.t) continue;
      std::optional<Exec> refused;  // its last run, when every run was refused with an error
      bool ran = false, all_refused = true;
      for (const Exec& e : h.execs) {
        if (e.t > t) break;
        if (e.op_id != u.id) continue;
        ran = true;
        all_refused = all_refused && (e.reply == ReplyKind::kError || e.reply == ReplyKind::kNoScript);
        refused = e;
      }
      const bool ended = u.completed && u.complete_t <= t;
      let_go = "; " + call_name(h, u) + (ended ? " " + ended_how(h, u) : " was still pending") +
               (ended && u.released == Tri::kFalse ? " without releasing it" : "") + (ran ? "" : ", and never ran");
      if (ran && all_refused) {
        let_go += ", and its " + std::string(h.str(refused->command)) + " on " + std::string(h.str(refused->node)) + " at " +
                  format_time(refused->t) + " was refused with an error";
      }
      break;
    }
  }
  // Its client died: a holder nobody is left to release (or a command that ran after the death).
  std::string died;
  if (const FaultEvent* crash = client_crash(h, op.thread);
      !gave_up && crash != nullptr && crash->t <= t && crash->t >= op.invoke_t) {
    died = "; its client " + std::string(h.str(crash->target)) + (crash->t >= grant.t ? " crashed at " : " had crashed at ") +
           format_time_beside(crash->t, {grant.t}) + " (fault #" + std::to_string(crash->fault) + ")" +
           (crash->t >= grant.t ? "" : ", before the command ran");
  }
  // A call still pending (the stuck waiter's own, or another waiter's) set the key and did not
  // learn it: a later run of the same call found the key taken (the reply went to a try the
  // client had given up on).
  std::string own;
  if (&op == waiter || op.complete_t > t) {
    for (const Exec& e : h.execs) {
      if (e.t > t) break;
      if (e.line <= grant.line || e.op_id != op.id || e.keys_count == 0 || h.key_pool[e.keys_begin] != lock) continue;
      if (exec_granted(h, e)) break;
      own = std::string(&op == waiter ? "; that was the waiting call itself, which never learned it"
                                      : "; " + std::string(h.str(op.thread)) + "'s call was still waiting and never learned it") +
            ": its next " + std::string(h.str(e.command)) +
            (e.t == grant.t ? ", right after it," : ", at " + format_time_beside(e.t, {grant.t}) + ",") + " found the key taken";
      break;
    }
  }
  if (was_persisted) {
    text += ", and " + std::string(h.str(persisted.conn)) + "'s PERSIST at " + format_time(persisted.t) +
            " removed its expiry" + (persisted.op_id == kAbsent ? " (a command outside the lock's operations)" : "");
  } else if (!expiry) {
    text += ", and no expiry was set on it";
  }
  // Nothing will remove it: no expiry, and since the grant nothing but refused acquisitions and
  // reads touched it (a script, a DEL, an EXPIRE may have; they are not judged).
  if (for_ever != nullptr) *for_ever = !expiry && only_refusals;
  return text + let_go + died + own;
}

// What held a fair lock's queue at `t`, when the recorded states say: "; the head of L's queue
// was c2/t0 (owner ...), which no longer waited: its try_lock #2 had ended fail
// (java.lang.InterruptedException) at 0.500 s" — a waiter that gave up (interrupted, crashed,
// timed out without acquireFailed) whose entry keeps everyone behind it waiting until its
// deadline. "" when the queue's head was still waiting, or no queue state is recorded.
std::string queue_keeper(const History& h, Sym lock, TimeUs t) {
  const Sym queue = h.syms.find("redisson_lock_queue:{" + std::string(h.str(lock)) + "}");
  if (queue == kNoSym) return "";
  const StateRecord* at = nullptr;
  for (const StateRecord& s : h.states) {
    if (s.t > t) break;
    if (s.key == queue) at = &s;
  }
  if (at == nullptr || at->type == kNoSym || at->members.empty()) return "";
  const Sym head = at->members.front();
  const Operation* last = nullptr;  // the head owner's last acquisition invoked by t
  for (const Operation& op : h.ops) {
    if (op.owner != head || op.lock != lock || !op.is_acquire() || op.invoke_t > t) continue;
    if (last == nullptr || op.invoke_t >= last->invoke_t) last = &op;
  }
  if (last == nullptr) return "";
  // The head's deadline: its score in the timeout zset on the same node (a client's clock, ms).
  std::string deadline = ", and its entry stays until its deadline";
  if (const Sym timeouts = h.syms.find("redisson_lock_timeout:{" + std::string(h.str(lock)) + "}"); timeouts != kNoSym) {
    const StateRecord* zset = nullptr;
    for (const StateRecord& s : h.states) {
      if (s.t > t) break;
      if (s.key == timeouts && s.node == at->node) zset = &s;
    }
    for (size_t i = 0; zset != nullptr && zset->type != kNoSym && i < zset->members.size() && i < zset->values.size(); ++i) {
      if (zset->members[i] != head) continue;
      deadline = ", and its entry stays until its timeout (" + std::string(h.str(zset->values[i])) +
                 " ms, a client time) has passed";
      break;
    }
  }
  std::string text = "; the head of " + std::string(h.str(lock)) + "'s queue was " + std::string(h.str(last->thread)) +
                     " (owner " + std::string(h.str(head)) + "), which no longer waited: ";
  if (last->completed && last->complete_t <= t) {
    return text + "its " + op_kind_name(last->kind) + " #" + std::to_string(last->id) + " had " + ended_how(h, *last) + deadline;
  }
  const std::string thread(h.str(last->thread));
  for (const FaultEvent& f : h.faults) {
    if (f.t <= t && f.is(FaultKind::kCrash) && thread.rfind(std::string(h.str(f.target)) + "/", 0) == 0) {
      return text + "its client " + std::string(h.str(f.target)) + " had crashed at " + format_time(f.t) + deadline;
    }
  }
  return "";
}

// The first stretch of at least `bound_us` inside [from, to) not covered by `busy`, if any.
bool free_stretch(const std::vector<Interval>& busy, TimeUs from, TimeUs to, TimeUs bound_us, Interval* out) {
  auto it = std::upper_bound(busy.begin(), busy.end(), from, [](TimeUs t, const Interval& x) { return t < x.begin; });
  if (it != busy.begin() && std::prev(it)->end > from) from = std::prev(it)->end;
  while (from < to) {
    const TimeUs next_busy = it == busy.end() ? to : std::min(to, it->begin);
    if (next_busy - from >= bound_us) {
      *out = {from, next_busy};
      return true;
    }
    if (it == busy.end()) break;
    from = std::max(from, it->end);
    ++it;
  }
  return false;
}

// When `thread`'s client died (client_crash), or kTimeNever. A client's pending acquire stops
// waiting when its client dies (the thread is gone; nobody is left to serve), so its waiting
// interval ends there.
TimeUs death_of(const History& h, Sym thread) {
  const FaultEvent* crash = client_crash(h, thread);
  return crash == nullptr ? kTimeNever : crash->t;
}

// When a successful renewal took effect on a node: its last run that renewed (a renewal script
// answers 1, or OK), since a re-sent attempt may land later somewhere it renews nothing — on a
// demoted master after a failover, or after the key is gone — which is not when it kept the lock
// alive. Without such a run, its last run; without runs logged, its invoke (the lenient reading).
TimeUs renewal_effect(const History& h, const Operation& op, std::span<const uint32_t> execs) {
  if (execs.empty()) return op.invoke_t;
  for (auto it = execs.rbegin(); it != execs.rend(); ++it) {
    const Exec& e = h.execs[*it];
    if ((e.reply == ReplyKind::kInt && e.reply_int == 1) || e.reply == ReplyKind::kStatus) return e.t;
  }
  return h.execs[execs.back()].t;
}

nlohmann::json interval_json(const History& h, Sym lock, const Interval& x, const std::string& kind,
                             const std::string& who) {
  return {{"lock", h.str(lock)}, {"kind", kind}, {"thread", who}, {"from_us", x.begin}, {"to_us", x.end}};
}

// Acquisitions that ended without the lock although no hold of it overlapped the call:
// availability outcomes (a quorum lock that reached no quorum, masters unreachable), reported
// beside the verdict, never as a violation (docs/checker.md). Contention (someone held the lock
// meanwhile) is neither.
nlohmann::json availability_outcomes(const History& h, TimeUs heal,
                                     const std::map<Sym, std::vector<Interval>>& busy_by_lock) {
  int64_t failed = 0, after_heal = 0;
  std::string first;
  for (const Operation& op : h.ops) {
    if (!op.is_acquire() || !op.completed) continue;
    if (op.outcome == Outcome::kOk && op.acquired != Tri::kFalse) continue;
    // Contended: some hold of the lock overlapped the call (the caller's own holds too, which
    // only makes the count more conservative).
    const auto b = busy_by_lock.find(op.lock);
    bool contended = false;
    if (b != busy_by_lock.end()) {
      auto it = std::upper_bound(b->second.begin(), b->second.end(), op.complete_t,
                                 [](TimeUs t, const Interval& x) { return t < x.begin; });
      contended = it != b->second.begin() && std::prev(it)->end > op.invoke_t;
    }
    if (contended) continue;
    ++failed;
    if (op.invoke_t >= heal) ++after_heal;
    if (first.empty() || (op.invoke_t >= heal && after_heal == 1)) {
      first = std::string(h.str(op.thread)) + "'s " + op_kind_name(op.kind) + " #" + std::to_string(op.id) + " of " +
              std::string(h.str(op.lock)) + " at " + format_time(op.invoke_t) + " " +
              (op.outcome == Outcome::kOk ? std::string("did not acquire the free lock")
                                          : std::string(outcome_name(op.outcome)) +
                                                (op.error == kNoSym ? "" : " (" + std::string(h.str(op.error)) + ")"));
    }
  }
  return {{"failed", failed}, {"after_heal", after_heal}, {"first", first}};
}

}  // namespace

// Whether nothing would ever remove `lock`'s key after `end`: set by a grant with no expiry,
// touched since only by refused acquisitions and reads (key_setter), with no call on the lock but
// acquisitions still pending, and every unlock that said it released the lock showing its runs (a
// log that leaves commands out, another tool's, cannot say that nothing removed the key).
bool key_stays(const History& h, Sym lock, const std::vector<uint32_t>& ops, const ExecsByOp& execs_of, TimeUs end) {
  if (execs_of.empty()) return false;
  for (uint32_t k : ops) {
    const Operation& u = h.ops[k];
    if (!u.is_acquire() && !u.completed) return false;  // a pending unlock may yet run
    const bool released = (u.kind == OpKind::kUnlock || u.kind == OpKind::kForceUnlock) && u.outcome == Outcome::kOk &&
                          u.released != Tri::kFalse;
    if (released && execs_of[k].empty()) return false;
  }
  bool stays = false;
  return !key_setter(h, lock, end, nullptr, &stays).empty() && stays;
}

// Whether waiter `op` (held off by believed owners in `busy`) still waited when the history ended,
// in a stretch [x.begin, end) that no owner held since `from`, on a key that nothing would ever
// remove (key_stays, judged once per lock in `stays`). Sets the stretch, and the key's story when
// `story` is given.
bool waits_for_ever(const History& h, const Operation& op, const std::vector<uint32_t>& ops, const std::vector<Interval>& busy,
                    const ExecsByOp& execs_of, TimeUs from, TimeUs to, std::map<Sym, bool>* stays, Interval* x,
                    std::string* story) {
  if (op.completed || to != h.end_t) return false;
  TimeUs begin = from;  // the free stretch that reaches the end
  for (const Interval& b : busy) {
    if (b.begin >= to) break;
    if (b.end >= to) return false;  // someone believed it held the lock at the end
    begin = std::max(begin, b.end);
  }
  if (begin >= to) return false;
  const auto [it, fresh] = stays->try_emplace(op.lock, false);
  if (fresh) it->second = key_stays(h, op.lock, ops, execs_of, to);
  if (!it->second) return false;
  *x = {begin, to};
  if (story != nullptr) *story = key_setter(h, op.lock, to, &op, nullptr);
  return true;
}

// "; c2/t1 made no attempt from 84.870 s to 150.000 s: its last command, SET, ran on node0 at
// 2.674 s, and node0 crashed at 7.028 s (fault #1) after it" — the node's crash or failover
// named when one came between, or the link fault under way when the command ran that lost its
// reply: "…, ran on node0 at 5.002 s, while partition c2 | node0,c1 (fault #1) cut its reply off".
std::string silent_since(const History& h, const Operation& op, const Exec& last, const Interval& stretch) {
  std::string text = "; " + std::string(h.str(op.thread)) + " made no attempt from " + format_time(stretch.begin) + " to " +
                     format_time(stretch.end) + ": its last command, " + std::string(h.str(last.command)) + ", ran on " +
                     std::string(h.str(last.node)) + " at " + format_time(last.t);
  const std::string_view client = h.client_of(op.thread);
  std::map<int64_t, const FaultEvent*> under_way;  // link faults begun by last.t and not ended
  for (const FaultEvent& f : h.faults) {
    if (f.t > last.t) break;
    if (f.phase == FaultPhase::kStart && link_fault_cuts(h, f, h.str(last.node), client, true)) under_way[f.fault] = &f;
    if (f.phase == FaultPhase::kEnd) under_way.erase(f.fault);
  }
  if (!under_way.empty()) {
    const FaultEvent& f = *under_way.begin()->second;
    text += ", while " + std::string(h.str(f.kind)) + " " + std::string(h.str(f.target)) + " (fault #" +
            std::to_string(f.fault) + ") cut its reply off";
  }
  for (const FaultEvent& f : h.faults) {
    if (f.t <= last.t || f.t > stretch.end || f.target != last.node || f.phase == FaultPhase::kEnd) continue;
    if (!f.is(FaultKind::kCrash) && !f.is(FaultKind::kFailover)) continue;
    return text + ", and " + std::string(h.str(last.node)) + (f.is(FaultKind::kCrash) ? " crashed at " : " failed over at ") +
           format_time(f.t) + " (fault #" + std::to_string(f.fault) + ") after it";
  }
  return text;
}

// The waiter `op`'s command that blocked by `until` (a BLPOP waiting for a push) and had not
// returned by then: "; after that its BLPOP on node0 blocked at 73.788 s and had not returned by
// 150.000 s" — a wait only a release's signal ends (python-redis-lock's waiter with neither a
// timeout nor an expiry). "" otherwise. `runs`: the op's execs.
std::string still_blocked(const History& h, const Operation& op, std::span<const uint32_t> runs, TimeUs until) {
  const Blocked* last = nullptr;
  for (const Blocked& b : h.blocked) {
    if (b.t > until) break;
    if (b.op_id == op.id) last = &b;
  }
  if (last == nullptr) return "";
  for (uint32_t r : runs) {
    const Exec run = h.execs[r];
    if (run.t > until) break;
    if (run.line > last->line && run.node == last->node && run.conn == last->conn && run.command == last->command) return "";
  }
  return "; after that its " + std::string(h.str(last->command)) + " on " + std::string(h.str(last->node)) + " blocked at " +
         format_time_beside(last->t, {until}) + " and had not returned by " + format_time(until);
}

// The lock's key expired on a node within the bound of the stretch's start, and the waiter `op`
// (its runs `runs`) did not try that node again until later in the stretch, nobody having set the
// key since: "; L1 expired on node0 at 93.300 s, and c1/t1 did not try again until 125.868 s
// (its command before that ran at 65.864 s; the next, BLPOP, at 125.867 s)". "" otherwise.
std::string late_retry(const History& h, Sym lock, const Operation& op, std::span<const uint32_t> runs,
                       const Interval& stretch, TimeUs bound_us) {
  for (const Expire& e : h.expires) {
    if (e.t > stretch.end || e.t - stretch.begin >= bound_us) break;
    if (e.key != lock || e.t <= stretch.begin) continue;
    std::optional<Exec> before;  // the waiter's last command before the expiry
    std::optional<Exec> next;    // its first after it
    std::optional<Exec> retry;   // its first attempt on the key on that node after it
    for (uint32_t r : runs) {
      const Exec run = h.execs[r];
      if (run.t <= e.t) {
        before = run;
        continue;
      }
      if (run.t > stretch.end) break;
      if (!next) next = run;
      if (run.node == e.node && run.keys_count > 0 && h.key_pool[run.keys_begin] == lock) {
        retry = run;
        break;
      }
    }
    if (!retry || !before) continue;
    const uint32_t retry_line = retry->line;
    const bool set_again = std::any_of(h.execs.begin(), h.execs.end(), [&](const Exec& w) {
      return w.line > e.line && w.line < retry_line && w.node == e.node && w.keys_count > 0 &&
             h.key_pool[w.keys_begin] == lock && exec_granted(h, w);
    });
    if (set_again) continue;
    std::string text = "; " + std::string(h.str(lock)) + " expired on " + std::string(h.str(e.node)) + " at " + format_time(e.t) +
                       ", and " + std::string(h.str(op.thread)) + " did not try again until " + format_time(retry->t) +
                       " (its command before that ran at " + format_time(before->t);
    if (next->line != retry->line) {
      text += "; the next, " + std::string(h.str(next->command)) + ", at " + format_time_beside(next->t, {retry->t});
    }
    return text + ")";
  }
  return "";
}

PropertyResult check_liveness(const History& h, const CheckOptions&) {
  const std::string name = "liveness";
  if (h.header.liveness_bound_ms == kAbsent) {
    return make_result(name, Verdict::kNotApplicable, "no liveness bound in the header (liveness_bound_ms)");
  }
  if (!h.complete) return make_result(name, Verdict::kUnknown, "history incomplete: what happened after the cut is unknown");
  // A waiter is judged by who believed they held the lock, which holds record. A history with a
  // successful acquisition but no hold at all does not record them (lockstep writes a hold for
  // every one): a log converted from another tool. Without holds and without such an
  // acquisition, nobody believed it held anything, and a stuck key is judged as usual.
  if (h.holds.empty() && std::any_of(h.ops.begin(), h.ops.end(), [](const Operation& op) {
        return op.is_acquire() && op.outcome == Outcome::kOk && op.acquired != Tri::kFalse;
      })) {
    return make_result(name, Verdict::kNotApplicable,
                       "no holds recorded (hold_begin / hold_end): a waiter is judged by who believed they held the lock");
  }
  const TimeUs bound_us = h.header.liveness_bound_ms * kUsPerMs;
  const Heal healed = last_heal(h);
  const TimeUs heal = healed.at;
  std::map<Sym, std::vector<uint32_t>> holds_by_lock;
  for (uint32_t i = 0; i < h.holds.size(); ++i) holds_by_lock[h.holds[i].lock].push_back(i);
  ExecsByOp own;
  const ExecsByOp& execs_of = h.execs.empty() ? own : execs_by_op(h, own);
  const std::vector<OwnedSpan> spans = owned_spans(h, execs_of);
  std::map<Sym, bool> key_stays_for_ever;  // per lock, judged once (waits_for_ever)
  nlohmann::json stuck = nlohmann::json::array();
  std::string first;
  std::string setter;  // the first stuck waiter's key, from the exec log (key_setter)
  std::string no_retry;  // the first stuck waiter made no attempt after its key expired
  Sym first_waiter_lock = kNoSym;        // `first` tells of a waiter of this lock
  std::map<Sym, std::string> kept_alive;  // per lock, its first ownerless or zombie renewal
  for (const auto& [lock, ops] : group_by_lock(h.ops)) {
    const std::vector<Interval> any = busy(h, holds_by_lock[lock], false);
    const std::vector<Interval> writes = busy(h, holds_by_lock[lock], true);
    for (uint32_t i : ops) {
      const Operation& op = h.ops[i];
      if (!op.is_acquire() || (op.wait_ms >= 0 && op.wait_ms * kUsPerMs < bound_us)) continue;
      const TimeUs from = std::max(op.invoke_t, heal);
      const TimeUs to = std::min({op.complete_t == kTimeNever ? h.end_t : op.complete_t, h.end_t,
                                  death_of(h, op.thread)});
      Interval x;
      const bool read = h.header.lock_kind == LockKind::kRwlock && op.mode == Mode::kRead;
      if (from >= to) continue;
      // Stuck for the bound; or still waiting when the history ends, less than the bound after the
      // heal, on a key that nothing would ever remove (a deadlock does not need the bound to pass).
      std::string for_ever;
      const bool stuck_for_bound = free_stretch(read ? writes : any, from, to, bound_us, &x);
      if (!stuck_for_bound && !waits_for_ever(h, op, ops, read ? writes : any, execs_of, from, to, &key_stays_for_ever, &x,
                                              first.empty() ? &for_ever : nullptr)) {
        continue;
      }
      stuck.push_back(interval_json(h, lock, x, stuck_for_bound ? "waiter" : "waiter_for_ever", std::string(h.str(op.thread))));
      if (first.empty() && !stuck_for_bound) {
        first_waiter_lock = lock;
        first = std::string(h.str(op.thread)) + " waited for " + std::string(h.str(lock)) + " from " + format_time(x.begin) +
                " to the history's end at " + format_time(x.end) + " while no other owner believed it held it, less than the bound (" +
                std::to_string(h.header.liveness_bound_ms) + " ms, " + heal_phrase(h, healed) +
                "), but nothing would ever free it" + for_ever;
      }
      if (first.empty()) {
        first_waiter_lock = lock;
        first = std::string(h.str(op.thread)) + " waited for " + std::string(h.str(lock)) + " from " + format_time(x.begin) +
                " to " + format_time(x.end) + " while no other owner believed it held it (bound " +
                std::to_string(h.header.liveness_bound_ms) + " ms, " + heal_phrase(h, healed) + ")";
        // What kept the lock from the waiter, sampled in the middle of the stretch (at its start
        // the last holder's key may still be on its way out).
        const TimeUs mid = x.begin + (x.end - x.begin) / 2;
        const std::string key = key_keeper(h, lock, mid);
        const std::string queue = key.empty() ? queue_keeper(h, lock, mid) : "";
        first += !key.empty() ? key : queue;
        if (key.empty() && queue.empty() && h.execs.empty()) first += lease_tail(h, holds_by_lock[lock], x, bound_us);
        if (key.empty() && queue.empty()) setter = key_setter(h, lock, mid, &op, nullptr);
        // The waiter's last command by the end of the stretch, and its last script run (an
        // acquire script's integer reply is the TTL it was told to wait; a WAIT for the replicas,
        // which Redisson sends after each attempt, replies a count).
        std::optional<Exec> last, last_script;
        if (!execs_of.empty()) {
          for (uint32_t e : execs_of[i]) {
            Exec run = h.execs[e];
            if (run.t > x.end) continue;
            last = run;
            if (run.script != kNoSym) last_script = run;
          }
        }
        // Nothing the log says set the key since: the node where the waiter last tried may have
        // brought an older value back (a failover to a replica that had not seen the release).
        if (key.empty() && queue.empty() && setter.empty() && last) {
          if (const DataLoss* loss = key_brought_back(h, last->node, lock, last->t)) {
            setter = "; the key " + std::string(h.str(lock)) + " was still there on " + std::string(h.str(last->node)) +
                     ": " + key_brought_back_text(h, *loss, lock);
          }
        }
        // Or another node brought it back since (the waiter's last try went to the old master).
        if (key.empty() && queue.empty() && setter.empty()) {
          for (auto d = h.data_losses.rbegin(); d != h.data_losses.rend() && setter.empty(); ++d) {
            if (d->t > mid || (last && d->node == last->node)) continue;
            if (const DataLoss* loss = key_brought_back(h, d->node, lock, mid); loss == &*d) {
              setter = "; the key " + std::string(h.str(lock)) + " was still there on " + std::string(h.str(d->node)) +
                       ": " + key_brought_back_text(h, *loss, lock);
            }
          }
        }
        // Why the waiter did not try again: the wait its last attempt was told.
        if (last_script && last_script->reply == ReplyKind::kInt && last_script->reply_int > 0) {
          first += "; its last attempt, at " + format_time(last_script->t) + ", was told to wait " +
                   format_time(last_script->reply_int * kUsPerMs) +
                   (h.header.fair ? " (its estimate for its place in the queue)" : " (the key's TTL then)");
        }
        // The key expired where the waiter last tried, stayed gone, and the waiter never tried
        // again: a waiter that only a release would have woken (a blocking pop with no timeout).
        // Or it expired soon enough in the stretch for the waiter to be served within the bound,
        // and the waiter tried again only later (python-redis-lock's waiter blocks on BLPOP for
        // its expiry; a crashed holder never signals: `explore --algorithm python-redis-lock`
        // seed 40136).
        if (last && !execs_of.empty()) no_retry = late_retry(h, lock, op, execs_of[i], x, bound_us);
        if (last && no_retry.empty()) {
          for (const Expire& e : h.expires) {
            if (e.t > x.end) break;
            if (e.key != lock || e.node != last->node || e.t <= last->t) continue;
            // A live run logs an expiry when the node's notification arrives: one logged within a
            // second after the waiter's last run there, and no later by the node's clock, expired
            // lazily inside that run.
            if (e.local_ms != kAbsent && last->local_ms != kAbsent && last->local_ms >= e.local_ms &&
                e.t - last->t < kUsPerSecond) {
              continue;
            }
            const Sym key = lock;  // (a structured binding: clang does not capture those)
            // The next holder's grant, which ended the stretch, is not "set again": the waiter
            // made no attempt before it (python-redis-lock's waiter sleeping in BLPOP for its
            // expiry while another waiter's shorter BLPOP came back first: explore seed 60009).
            std::optional<Exec> next_holder;
            const bool set_again = std::any_of(h.execs.begin(), h.execs.end(), [&](const Exec& w) {
              if (w.line <= e.line || w.t > x.end || w.node != e.node || w.keys_count == 0 ||
                  h.key_pool[w.keys_begin] != key || !exec_granted(h, w)) {
                return false;
              }
              const bool ends_stretch = w.op_id != kAbsent && std::any_of(holds_by_lock[key].begin(), holds_by_lock[key].end(), [&](uint32_t j) {
                return h.holds[j].begin_t == x.end && h.holds[j].op_id == w.op_id;
              });
              if (ends_stretch && !next_holder) next_holder = w;
              return !ends_stretch;
            });
            if (set_again) continue;
            std::string by = "by " + format_time(x.end);
            if (const int64_t taker_index = next_holder ? h.op_index(next_holder->op_id) : -1; taker_index >= 0) {
              const Operation& taker = h.ops[static_cast<size_t>(taker_index)];
              by = "before " + std::string(h.str(taker.thread)) + "'s acquisition #" + std::to_string(taker.id) + " took it at " +
                   format_time_beside(next_holder->t, {x.end});
            }
            no_retry = "; " + std::string(h.str(lock)) + " expired on " + std::string(h.str(e.node)) + " at " + format_time(e.t) +
                     ", and " + std::string(h.str(op.thread)) + " made no attempt after that " + by + " (its last command, " +
                     std::string(h.str(last->command)) + ", ran at " + format_time(last->t) + ")";
            break;
          }
        }
        // A waiter that made no attempt in the whole stretch: its last command, and what happened
        // to that node after it (a wait with no timeout does not notice a lost connection).
        if (last && last->t < x.begin && no_retry.empty()) no_retry = silent_since(h, op, *last, x);
        // A waiter that made no attempt may have been inside a command that blocks (a BLPOP on a
        // release's signal list), which its log shows only when it returns.
        if (!no_retry.empty() && no_retry.find(" made no attempt ") != std::string::npos) {
          no_retry += still_blocked(h, op, execs_of[i], x.end);
        }
      }
    }
    // Renewals by an owner that no longer held the lock: a watchdog that was never cancelled.
    // Judged when the renewal took effect on the node (its last run; a retried renewal may land
    // much later than it was sent) against when the server had the owner's field (OwnedSpan):
    // a renewal that lands on the owner's next hold, or before its unlock reached the node, is
    // the lock's own.
    // This lock's holds and acquisitions by owner, so that each renewal looks at its owner's only.
    std::map<Sym, std::vector<uint32_t>> holds_of_owner, acquisitions_of_owner;
    for (uint32_t j : holds_by_lock[lock]) holds_of_owner[h.holds[j].owner].push_back(j);
    for (uint32_t k : ops) {
      if (h.ops[k].is_acquire()) acquisitions_of_owner[h.ops[k].owner].push_back(k);
    }
    for (uint32_t i : ops) {
      const Operation& op = h.ops[i];
      if (op.kind != OpKind::kRenew || op.outcome != Outcome::kOk || op.renewed != Tri::kTrue) continue;
      // Without runs logged, the earliest it can have taken effect (the lenient reading).
      const TimeUs effect = renewal_effect(h, op, execs_of.empty() ? std::span<const uint32_t>() : execs_of[i]);
      const Hold* last = nullptr;  // the owner's last hold that began no later than the effect
      uint32_t last_index = 0;
      bool owned = false;
      for (uint32_t j : holds_of_owner[op.owner]) {
        const Hold& x = h.holds[j];
        if (spans[j].from > effect) continue;
        if (effect <= spans[j].to) owned = true;
        if (last == nullptr || x.begin_t > last->begin_t) {
          last = &x;
          last_index = j;
        }
      }
      // A renewal while the owner's own acquisition runs after a grant (a RedLock whose sub-locks'
      // watchdogs renew what they already hold, before the acquisition as a whole returns).
      for (uint32_t k : acquisitions_of_owner[op.owner]) {
        const Operation& acq = h.ops[k];
        if (owned || execs_of.empty() || acq.invoke_t > effect) continue;
        if (acq.complete_t != kTimeNever && acq.complete_t < effect) continue;
        owned = std::any_of(execs_of[k].begin(), execs_of[k].end(),
                            [&](uint32_t e) { return h.execs[e].t <= effect && exec_granted(h, h.execs[e]); });
      }
      // On a lock of several nodes, the unlock reaches each node at its own time (a paused node
      // runs its queue when it resumes: the renewals queued before the unlock, then the
      // unlock). A renewal whose every successful run came, on its node, before the unlock that
      // ended the owner's last hold is the lock's own.
      if (!owned && last != nullptr && !execs_of.empty() && !execs_of[i].empty()) {
        const int64_t u = spans[last_index].unlock;
        if (u >= 0 && !execs_of[static_cast<size_t>(u)].empty()) {
          bool all_before = false;
          for (uint32_t e : execs_of[i]) {
            const Exec& run = h.execs[e];
            if (!((run.reply == ReplyKind::kInt && run.reply_int == 1) || run.reply == ReplyKind::kStatus)) continue;
            const auto same_node = std::find_if(execs_of[static_cast<size_t>(u)].begin(), execs_of[static_cast<size_t>(u)].end(),
                                                [&](uint32_t x) { return h.execs[x].node == run.node; });
            // (time, then the node's execution order: a restarted node counts from 0 again)
            all_before = same_node != execs_of[static_cast<size_t>(u)].end() &&
                         (h.execs[*same_node].t > run.t || (h.execs[*same_node].t == run.t && h.execs[*same_node].seq > run.seq));
            if (!all_before) break;
          }
          owned = all_before;
        }
      }
      // A quorum lock is kept from others only by keys on more nodes than a quorum can spare:
      // a renewal that, after the hold ended, re-armed the key on fewer (a paused master running
      // its queue) left the lock acquirable.
      if (!owned && last != nullptr && h.header.quorum_lock() && !execs_of.empty() && !execs_of[i].empty()) {
        const int64_t n = static_cast<int64_t>(h.header.nodes.size());
        const int64_t q = h.header.quorum != kAbsent ? h.header.quorum : n / 2 + 1;
        std::vector<Sym> late_nodes;
        for (uint32_t e : execs_of[i]) {
          const Exec& run = h.execs[e];
          const bool renewed = (run.reply == ReplyKind::kInt && run.reply_int == 1) || run.reply == ReplyKind::kStatus;
          if (renewed && run.t > last->end_t && std::find(late_nodes.begin(), late_nodes.end(), run.node) == late_nodes.end()) {
            late_nodes.push_back(run.node);
          }
        }
        owned = n > 0 && static_cast<int64_t>(late_nodes.size()) <= n - q;
      }
      // A client's watchdog renews the lock for every thread of the client that holds it (one
      // renewal entry per lock and client: the read lock's current renewal re-arms the key if
      // any of them holds): a renewal that took effect while another thread of the same client
      // held the lock on the server kept alive a lock that thread held
      // (`explore --algorithm redisson-rwlock --options '{"profile": "current"}'` seed 88).
      if (!owned) {
        const std::string_view client = h.client_of(op.thread);
        for (uint32_t j : holds_by_lock[lock]) {
          const Hold& x = h.holds[j];
          if (x.thread == op.thread || h.client_of(x.thread) != client) continue;
          if (spans[j].from <= effect && effect <= spans[j].to) {
            owned = true;
            break;
          }
        }
      }
      if (owned) continue;
      if (last == nullptr) {
        // No hold of the owner at all: a renewal sent after one of its acquisitions had ended
        // without the lock (interrupted or cancelled while its script ran) renews a grant that
        // nobody believes in — a watchdog keeping an ownerless lock alive.
        const Operation* gave_up = nullptr;
        for (uint32_t k : acquisitions_of_owner[op.owner]) {
          const Operation& acq = h.ops[k];
          if (!acq.completed || acq.complete_t >= op.invoke_t) continue;
          if (acq.outcome == Outcome::kOk && acq.acquired == Tri::kTrue) continue;
          if (gave_up == nullptr || acq.complete_t > gave_up->complete_t) gave_up = &acq;
        }
        if (gave_up == nullptr) continue;
        stuck.push_back(interval_json(h, lock, {gave_up->complete_t, op.complete_t}, "zombie_renewal", std::string(h.str(op.thread))));
        if (kept_alive[lock].empty()) {
          kept_alive[lock] = std::string(h.str(lock)) + " was kept alive by a renewal of " + std::string(h.str(op.thread)) +
                  " that took effect at " + format_time(effect) + ", although its owner " + std::string(h.str(op.owner)) +
                  " never believed it held the lock: its " + op_kind_name(gave_up->kind) + " #" + std::to_string(gave_up->id) +
                  " had " + ended_how(h, *gave_up) + " — a grant nobody holds, renewed by a watchdog";
        }
        if (first.empty()) first = kept_alive[lock];
        continue;
      }
      if (last->end_reason == kNoSym) continue;
      const TimeUs ended = last->end_t;
      const Sym reason = last->end_reason;
      stuck.push_back(interval_json(h, lock, {ended, op.complete_t}, "zombie_renewal", std::string(h.str(op.thread))));
      if (kept_alive[lock].empty()) {
        kept_alive[lock] = std::string(h.str(lock)) + " was kept alive by a renewal of " + std::string(h.str(op.thread)) +
                           " that took effect at " + format_time(effect) + " after its hold ended (" +
                           std::string(h.str(reason)) + ") at " + format_time(ended);
        // The unlock that ended the hold had completed by then: the watchdog was cancelled, but
        // a renewal already on its way still landed.
        const int64_t u = spans[last_index].unlock;
        const Operation* unlock_op = u >= 0 ? &h.ops[static_cast<size_t>(u)] : nullptr;
        if (unlock_op != nullptr && unlock_op->complete_t > ended && unlock_op->complete_t != kTimeNever) {
          kept_alive[lock] += " and after its " + std::string(op_kind_name(unlock_op->kind)) + " (#" +
                              std::to_string(unlock_op->id) + ") had " + ended_how(h, *unlock_op) +
                              (unlock_op->released == Tri::kFalse ? ", answering that the server still counted a hold" : "") +
                              (!execs_of.empty() && execs_of[static_cast<size_t>(u)].empty() ? ", and never ran" : "");
          if (op.invoke_t < unlock_op->complete_t) {
            kept_alive[lock] += " (the renewal was sent at " + format_time(op.invoke_t) + ", before that)";
          }
        }
        // The node it renewed on had lost the release: a failover or restart brought the
        // owner's hold back, and the renewal re-armed it.
        if (!execs_of.empty()) {
          for (uint32_t e : execs_of[i]) {
            const Exec run = h.execs[e];
            if (run.t != effect) continue;
            if (const DataLoss* loss = key_brought_back(h, run.node, lock, run.t, 0, op.owner); loss != nullptr && loss->t >= ended) {
              kept_alive[lock] += "; it ran on " + std::string(h.str(run.node)) + " at " + format_time(run.t) + ", where " +
                                  key_brought_back_text(h, *loss, lock) + " (with " + std::string(h.str(op.thread)) + "'s hold)";
            }
            break;
          }
        }
      }
      if (first.empty()) first = kept_alive[lock];
    }
  }
  // A stuck waiter whose lock a watchdog kept alive: the renewal is why.
  if (first_waiter_lock != kNoSym && !kept_alive[first_waiter_lock].empty() &&
      first.find("; the key ") == std::string::npos) {
    first += "; meanwhile " + kept_alive[first_waiter_lock];
  } else {
    first += setter;  // the exec log's story, when nothing better was found
  }
  first += no_retry;
  std::map<Sym, std::vector<Interval>> busy_by_lock;
  for (const auto& [lock, holds] : holds_by_lock) busy_by_lock[lock] = busy(h, holds, false);
  const nlohmann::json availability = availability_outcomes(h, heal, busy_by_lock);
  if (stuck.empty()) {
    const bool never_healed = heal >= h.end_t && !h.faults.empty();
    std::string reason = never_healed
                             ? "a fault lasted to the end of the run, so no lock had to become acquirable after it healed"
                             : "every waiter was served within " + std::to_string(h.header.liveness_bound_ms) +
                                   " ms of the lock being free" +
                                   (h.faults.empty() ? std::string() : " after the " + heal_phrase(h, healed));
    // Waiters still waiting when the history ended were not served: say so rather than "every".
    const int64_t pending = std::count_if(h.ops.begin(), h.ops.end(), [&](const Operation& op) {
      return op.is_acquire() && !op.completed && (op.wait_ms < 0 || op.wait_ms * kUsPerMs >= bound_us) &&
             death_of(h, op.thread) == kTimeNever;
    });
    if (pending > 0 && !never_healed) {
      reason.replace(0, reason.find(" ms of the lock being free") + 26,
                     "no waiter went unserved for " + std::to_string(h.header.liveness_bound_ms) + " ms while the lock was free");
      reason += "; " + std::to_string(pending) + " waiter(s) still waited when the history ended";
    }
    if (const int64_t n = availability["failed"].get<int64_t>(); n > 0) {
      reason += "; " + std::to_string(n) + " acquisition(s) did not get the lock while no other owner believed it held it (availability, not safety" +
                (h.faults.empty() ? std::string()
                                  : "; " + std::to_string(availability["after_heal"].get<int64_t>()) + " after the last fault healed") +
                "), first: " + availability["first"].get<std::string>();
    }
    PropertyResult r = make_result(name, Verdict::kOk, reason);
    r.details["healed_us"] = heal;
    r.details["availability"] = availability;
    return r;
  }
  PropertyResult r = make_result(name, Verdict::kViolation, std::to_string(stuck.size()) + " stuck interval(s); first: " + first);
  r.counterexample = stuck.front();
  r.details = {{"healed_us", heal}, {"stuck", stuck}};
  r.explanation.text = first + ".";
  r.explanation.facts = {{"stuck", stuck.front()}, {"healed_us", heal}, {"bound_ms", h.header.liveness_bound_ms}};
  LS_ASSERT(r.verdict == Verdict::kViolation);
  return r;
}

}  // namespace lockstep::checker
