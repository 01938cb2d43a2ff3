// Property 6, fencing: a fenced resource never accepted a write whose token was lower than one it
// had already accepted for the same lock (each lock has its own token counter). Stale writes that unfenced resources accepted are counted: a write whose
// token is below the highest the resource accepted, or (without tokens) one made while another
// owner's newer hold of the same lock had begun, or outside any hold of its writer.
#include <algorithm>
#include <map>

#include "checker/explain.h"
#include "checker/properties.h"
#include "sim/core/assert.h"

namespace lockstep::checker {
namespace {

// The hold of `thread` on `lock` that contains time `t`, or -1.
int64_t hold_at(const History& h, const std::vector<uint32_t>& holds, Sym thread, TimeUs t) {
  for (uint32_t i : holds) {
    const Hold& x = h.holds[i];
    if (x.thread == thread && x.begin_t <= t && t <= x.end_t) return i;
  }
  return -1;
}

// Whether an untokened write at `w.t` was stale: outside its writer's hold, or after another
// owner's hold began later than the writer's.
bool superseded(const History& h, const std::vector<uint32_t>& holds, const Write& w) {
  const int64_t mine = hold_at(h, holds, w.thread, w.t);
  if (mine < 0) return true;
  const TimeUs since = h.holds[mine].begin_t;
  for (uint32_t i : holds) {
    const Hold& x = h.holds[i];
    if (x.owner != w.owner && x.begin_t > since && x.begin_t <= w.t) return true;
  }
  return false;
}

nlohmann::json write_json(const History& h, const Write& w) {
  nlohmann::json j = {{"t_us", w.t}, {"thread", h.str(w.thread)}, {"resource", h.str(w.resource)},
                      {"accepted", w.accepted}, {"fenced", w.fenced}, {"line", w.line}};
  if (w.token != kAbsent) j["token"] = w.token;
  return j;
}

}  // namespace

PropertyResult check_fencing(const History& h, const CheckOptions&) {
  const std::string name = "fencing";
  if (h.writes.empty()) return make_result(name, Verdict::kNotApplicable, "no resource writes recorded");
  std::map<Sym, std::vector<uint32_t>> holds_by_lock;
  for (uint32_t i = 0; i < h.holds.size(); ++i) holds_by_lock[h.holds[i].lock].push_back(i);
  // Per (resource, lock): tokens come from each lock's own counter, so only tokens of the same
  // lock compare (docs/checker.md).
  std::map<std::pair<Sym, Sym>, int64_t> max_accepted;
  std::map<std::pair<Sym, Sym>, uint32_t> max_writer;  // the write that set it
  int64_t fenced_writes = 0, rejected = 0, stale_unfenced = 0;
  int64_t bad = -1, bad_prior = -1;
  for (uint32_t i = 0; i < h.writes.size(); ++i) {
    const Write& w = h.writes[i];
    const std::pair<Sym, Sym> fence{w.resource, w.lock};
    auto it = max_accepted.find(fence);
    const int64_t highest = it == max_accepted.end() ? kAbsent : it->second;
    fenced_writes += w.fenced;
    if (!w.accepted) {
      ++rejected;
      continue;
    }
    const bool lower = w.token != kAbsent && highest != kAbsent && w.token < highest;
    if (w.fenced && lower && bad < 0) {
      bad = i;
      bad_prior = max_writer[fence];
    }
    if (!w.fenced) {
      const bool stale = w.token != kAbsent ? lower : (w.lock != kNoSym && superseded(h, holds_by_lock[w.lock], w));
      stale_unfenced += stale;
    }
    if (w.token != kAbsent && (highest == kAbsent || w.token > highest)) {
      max_accepted[fence] = w.token;
      max_writer[fence] = i;
    }
  }
  const std::string unfenced = std::to_string(stale_unfenced) + " stale write(s) accepted by unfenced resources";
  PropertyResult r;
  if (bad >= 0) {
    const Write& w = h.writes[bad];
    const Write& p = h.writes[bad_prior];
    r = make_result(name, Verdict::kViolation,
                    "fenced resource " + std::string(h.str(w.resource)) + " accepted token " + std::to_string(w.token) +
                        " from " + std::string(h.str(w.thread)) + " at " + format_time(w.t) + " after accepting token " +
                        std::to_string(p.token) + "; " + unfenced);
    r.counterexample = {{"accepted_higher", write_json(h, p)}, {"accepted_lower", write_json(h, w)}};
    r.explanation.text = "resource " + std::string(h.str(w.resource)) + " accepted token " + std::to_string(p.token) +
                         " from " + std::string(h.str(p.thread)) + " at " + format_time_beside(p.t, {w.t}) + ", then token " +
                         std::to_string(w.token) + " from " + std::string(h.str(w.thread)) + " at " + format_time_beside(w.t, {p.t}) +
                         ": the resource's fence did not reject the stale holder.";
    r.explanation.facts = r.counterexample;
  } else if (fenced_writes == 0) {
    r = make_result(name, Verdict::kNotApplicable, "no fenced resource; " + unfenced);
  } else {
    r = make_result(name, h.complete ? Verdict::kOk : Verdict::kUnknown,
                    std::string(h.complete ? "" : "history incomplete; ") + "fenced resources accepted no lower token (" +
                        std::to_string(rejected) + " stale write(s) rejected); " + unfenced);
  }
  r.details = {{"fenced_writes", fenced_writes}, {"rejected", rejected}, {"stale_unfenced_accepted", stale_unfenced}};
  LS_ASSERT(r.name == name);
  return r;
}

}  // namespace lockstep::checker
