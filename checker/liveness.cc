// Property 5, liveness: after the last fault heals, every lock becomes acquirable within the
// header's liveness_bound_ms. Two kinds of stuck interval are reported:
//  - a waiter (a lock call, or a try_lock whose wait is at least the bound) that stayed unserved
//    for the bound while no other owner believed it held the lock: the lock was free for the
//    clients but not on the server (a key nobody owns, kept alive or never expiring);
//  - a lock kept alive by renewals of an owner that had already released it or died (a watchdog
//    that was not cancelled), at any time.
#include <algorithm>
#include <map>

#include "checker/properties.h"
#include "sim/core/assert.h"

namespace lockstep::checker {
namespace {

struct Interval {
  TimeUs begin, end;
};

// The time the last fault healed: the latest end (or instant) of any fault; a fault that
// started and never ended lasts to the end of the history.
TimeUs last_heal(const History& h) {
  TimeUs heal = 0;
  std::map<int64_t, bool> open;  // fault id → started and not ended
  for (const FaultEvent& f : h.faults) {
    if (f.phase == FaultPhase::kStart) open[f.fault] = true;
    if (f.phase == FaultPhase::kEnd) open.erase(f.fault);
    heal = std::max(heal, f.t);
  }
  return open.empty() ? heal : h.end_t;
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

// When each process was first hit by a `crash` fault. A client's pending acquire stops waiting
// when its client dies (the thread is gone; nobody is left to serve), so its waiting interval
// ends there. Threads are named "<client>/t<k>".
std::map<std::string, TimeUs> crash_times(const History& h) {
  std::map<std::string, TimeUs> out;
  for (const FaultEvent& f : h.faults) {
    if (h.str(f.kind) == "crash") out.emplace(std::string(h.str(f.target)), f.t);
  }
  return out;
}

TimeUs death_of(const std::map<std::string, TimeUs>& crashes, std::string_view thread) {
  const auto it = crashes.find(std::string(thread.substr(0, thread.find('/'))));
  return it == crashes.end() ? kTimeNever : it->second;
}

nlohmann::json interval_json(const History& h, Sym lock, const Interval& x, const std::string& kind,
                             const std::string& who) {
  return {{"lock", h.str(lock)}, {"kind", kind}, {"thread", who}, {"from_us", x.begin}, {"to_us", x.end}};
}

}  // namespace

PropertyResult check_liveness(const History& h, const CheckOptions&) {
  const std::string name = "liveness";
  if (h.header.liveness_bound_ms == kAbsent) {
    return make_result(name, Verdict::kNotApplicable, "no liveness bound in the header (liveness_bound_ms)");
  }
  if (!h.complete) return make_result(name, Verdict::kUnknown, "history incomplete: what happened after the cut is unknown");
  const TimeUs bound_us = h.header.liveness_bound_ms * kUsPerMs;
  const TimeUs heal = last_heal(h);
  std::map<Sym, std::vector<uint32_t>> holds_by_lock;
  for (uint32_t i = 0; i < h.holds.size(); ++i) holds_by_lock[h.holds[i].lock].push_back(i);
  nlohmann::json stuck = nlohmann::json::array();
  std::string first;
  const std::map<std::string, TimeUs> crashes = crash_times(h);
  for (const auto& [lock, ops] : group_by_lock(h.ops)) {
    const std::vector<Interval> any = busy(h, holds_by_lock[lock], false);
    const std::vector<Interval> writes = busy(h, holds_by_lock[lock], true);
    for (uint32_t i : ops) {
      const Operation& op = h.ops[i];
      if (!op.is_acquire() || (op.wait_ms >= 0 && op.wait_ms * kUsPerMs < bound_us)) continue;
      const TimeUs from = std::max(op.invoke_t, heal);
      const TimeUs to = std::min({op.complete_t == kTimeNever ? h.end_t : op.complete_t, h.end_t,
                                  death_of(crashes, h.str(op.thread))});
      Interval x;
      const bool read = h.header.lock_kind == LockKind::kRwlock && op.mode == Mode::kRead;
      if (from >= to || !free_stretch(read ? writes : any, from, to, bound_us, &x)) continue;
      stuck.push_back(interval_json(h, lock, x, "waiter", std::string(h.str(op.thread))));
      if (first.empty()) {
        first = std::string(h.str(op.thread)) + " waited for " + std::string(h.str(lock)) + " from " + format_time(x.begin) +
                " to " + format_time(x.end) + " while no other owner held it (bound " +
                std::to_string(h.header.liveness_bound_ms) + " ms, last fault healed at " + format_time(heal) + ")";
      }
    }
    // Renewals by an owner that no longer held the lock: a watchdog that was never cancelled.
    std::map<Sym, std::vector<uint32_t>> holds_of_owner;  // this lock's holds, by owner, in start order
    for (uint32_t j : holds_by_lock[lock]) holds_of_owner[h.holds[j].owner].push_back(j);
    for (uint32_t i : ops) {
      const Operation& op = h.ops[i];
      if (op.kind != OpKind::kRenew || op.outcome != Outcome::kOk || op.renewed != Tri::kTrue) continue;
      const std::vector<uint32_t>& mine = holds_of_owner[op.owner];
      // The owner's last hold that began no later than the renewal.
      auto it = std::upper_bound(mine.begin(), mine.end(), op.invoke_t,
                                 [&](TimeUs t, uint32_t j) { return t < h.holds[j].begin_t; });
      if (it == mine.begin()) continue;
      const Hold& last = h.holds[*std::prev(it)];
      if (op.invoke_t <= last.end_t || last.end_reason == kNoSym) continue;
      const TimeUs ended = last.end_t;
      const Sym reason = last.end_reason;
      stuck.push_back(interval_json(h, lock, {ended, op.complete_t}, "zombie_renewal", std::string(h.str(op.thread))));
      if (first.empty()) {
        first = std::string(h.str(lock)) + " was kept alive by a renewal of " + std::string(h.str(op.owner)) + " at " +
                format_time(op.invoke_t) + " after its hold ended (" + std::string(h.str(reason)) + ") at " + format_time(ended);
      }
    }
  }
  if (stuck.empty()) {
    PropertyResult r = make_result(name, Verdict::kOk, "every waiter was served within " +
                                   std::to_string(h.header.liveness_bound_ms) + " ms of the lock being free after the last fault healed at " +
                                   format_time(heal));
    r.details["healed_us"] = heal;
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
