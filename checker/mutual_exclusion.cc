// Property 1, mutual exclusion: in true time, no two owners' holds of the same lock overlap; for a
// read-write lock, no write hold overlaps any other owner's hold. A sweep over the holds of each
// lock in order of their start, keeping the two latest-ending earlier holds of distinct owners
// (all holds, and write holds), finds an overlap in O(n log n).
#include <algorithm>

#include "checker/explain.h"
#include "checker/properties.h"
#include "sim/core/assert.h"

namespace lockstep::checker {
namespace {

// The two latest-ending holds seen so far with distinct owners.
struct Latest {
  int64_t best = -1, second = -1;  // indices into History::holds

  void offer(const History& h, uint32_t index) {
    const Hold& x = h.holds[index];
    if (best >= 0 && h.holds[best].owner == x.owner) {
      if (x.end_t > h.holds[best].end_t) best = index;
      return;
    }
    if (best < 0 || x.end_t > h.holds[best].end_t) {
      second = best;
      best = index;
    } else if (second < 0 || x.end_t > h.holds[second].end_t) {
      second = index;
    }
  }
  // The latest-ending hold of an owner other than `owner`, or -1.
  int64_t other_than(const History& h, Sym owner) const {
    if (best >= 0 && h.holds[best].owner != owner) return best;
    return second;
  }
};

struct Overlap {
  uint32_t first, second;
};

// Sweeps the holds of one lock; returns the overlaps found (the first ones, in start order).
std::vector<Overlap> sweep(const History& h, std::vector<uint32_t> holds, bool rw, int64_t* count) {
  std::stable_sort(holds.begin(), holds.end(), [&](uint32_t a, uint32_t b) {
    return h.holds[a].begin_t < h.holds[b].begin_t;
  });
  Latest all, writes;
  std::vector<Overlap> found;
  for (uint32_t index : holds) {
    const Hold& x = h.holds[index];
    const bool write = !rw || x.mode != Mode::kRead;
    const int64_t other = write ? all.other_than(h, x.owner) : writes.other_than(h, x.owner);
    if (other >= 0 && h.holds[other].end_t > x.begin_t) {
      ++*count;
      if (found.size() < 16) found.push_back({static_cast<uint32_t>(other), index});
    }
    all.offer(h, index);
    if (write) writes.offer(h, index);
  }
  return found;
}

nlohmann::json hold_json(const History& h, const Hold& x) {
  nlohmann::json j = {{"thread", h.str(x.thread)}, {"owner", h.str(x.owner)}, {"lock", h.str(x.lock)},
                      {"mode", mode_name(x.mode)}, {"begin_us", x.begin_t}, {"line", x.begin_line}};
  j["end_us"] = x.end_t == kTimeNever ? nlohmann::json(nullptr) : nlohmann::json(x.end_t);
  if (x.end_reason != kNoSym) j["end_reason"] = h.str(x.end_reason);
  if (x.token != kAbsent) j["token"] = x.token;
  return j;
}

}  // namespace

PropertyResult check_mutual_exclusion(const History& h, const CheckOptions& options) {
  const std::string name = "mutual_exclusion";
  if (h.holds.empty()) {
    // Nothing to compare: a history of operations alone (converted from another tool) says when
    // calls returned, not when each thread believed it held a lock.
    return make_result(name, Verdict::kNotApplicable, "no holds recorded (hold_begin / hold_end)");
  }
  const bool rw = h.header.lock_kind == LockKind::kRwlock;
  int64_t count = 0;
  std::vector<Overlap> first;
  for (auto& [lock, holds] : group_by_lock(h.holds)) {
    if (!options.lock.empty() && h.str(lock) != options.lock) continue;
    if (!options.holders.empty()) {
      std::erase_if(holds, [&](uint32_t i) {
        const std::string_view thread = h.str(h.holds[i].thread);
        return std::find(options.holders.begin(), options.holders.end(), thread) == options.holders.end();
      });
    }
    std::vector<Overlap> found = sweep(h, holds, rw, &count);
    if (first.empty() && !found.empty()) first = found;
  }
  if (count == 0) {
    std::string reason = "no overlapping holds among " + std::to_string(h.holds.size()) + " holds";
    if (!h.complete) return make_result(name, Verdict::kUnknown, "history incomplete; " + reason + " in the recorded part");
    return make_result(name, Verdict::kOk, reason);
  }
  const Hold& a = h.holds[first.front().first];
  const Hold& b = h.holds[first.front().second];
  PropertyResult r = make_result(
      name, Verdict::kViolation,
      std::to_string(count) + " overlapping hold(s); first: " + std::string(h.str(a.thread)) + " and " +
          std::string(h.str(b.thread)) + " both held " + std::string(h.str(a.lock)) + " at " + format_time(b.begin_t));
  r.counterexample = {{"first", hold_json(h, a)}, {"second", hold_json(h, b)}};
  r.details["overlaps"] = count;
  Conflict c;
  c.lock = a.lock;
  c.first_thread = a.thread;
  c.first_begin = a.begin_t;
  c.first_end = a.end_t;
  c.second_thread = b.thread;
  c.second_begin = b.begin_t;
  c.second_op = b.op_id;
  c.lease_ms = hold_lease_ms(h, a);
  c.first_op = a.op_id;
  r.explanation = explain_conflict(h, c);
  LS_ASSERT(r.verdict == Verdict::kViolation);
  return r;
}

}  // namespace lockstep::checker
