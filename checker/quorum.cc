// Property 4, RedLock quorum and validity. For every successful acquisition, its grants are read
// from the per-node `exec` events of the operation (a SET that replied OK, a lock script whose
// reply the header's grant_replies says grants, or without grant_replies one that replied nil —
// Redisson's convention) that ran before the client declared success, the latest on each node.
// An acquisition short of a quorum some of whose scripts the header does not name is not judged
// (unknown): its grants may be in replies the history cannot read. A grant's key dies at the first expiry of that key on
// its node, data loss of it (restart, failover) or a crash of the node it never restarted from
// (a restarted node's `data_loss` says what the crash cost: with aof-always, nothing). Checked:
//  - at the instant the client declared success (complete), at least `quorum` grants were live;
//  - the validity window the client used (validity_ms) did not outlast the quorum: fewer than
//    `quorum` keys live before complete + validity is a violation;
//  - during the hold, the quorum was not lost to a restart, failover, crash or node clock jump,
//    or to an expiry that the node's clock brought forward (it ran ahead of true time since the
//    key's last run there, by more than drift_tolerance_us beyond the 2 ms its whole-millisecond
//    readings may hide) when by true time the key would have outlived the hold (plain lease
//    expiry is the lease's business, judged by the other properties).
#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "checker/check.h"
#include "checker/explain.h"
#include "sim/core/assert.h"

namespace lockstep::checker {

namespace {

// The key under which Redisson's unlock latch caches the answer to one unlock request
// (`redisson_unlock_latch:{L}:<request id>`, a key of the run), or kNoSym.
Sym latch_key(const History& h, const Exec& x) {
  for (uint32_t k = 0; k < x.keys_count; ++k) {
    const Sym key = h.key_pool[x.keys_begin + k];
    if (h.str(key).find("unlock_latch") != std::string_view::npos) return key;
  }
  return kNoSym;
}

// Whether `x` is the first run on its node with the latch key `latch`: the run that did the
// work. A later run of the same request may answer from the cache.
bool first_run_of_request(const History& h, const Exec& x, Sym latch) {
  for (size_t i = 0; i < h.execs.size(); ++i) {
    const Exec y = h.execs[i];
    if (y.line >= x.line) return true;
    if (y.node != x.node) continue;
    for (uint32_t k = 0; k < y.keys_count; ++k) {
      if (h.key_pool[y.keys_begin + k] == latch) return false;
    }
  }
  return true;
}

}  // namespace

// Whether `x`, a run on the key of `op`'s grant `grant` after it, is the release a failed
// attempt of `op` sent before it declared success (a RedLock that missed its quorum gives back
// what it got, then tries again): on the same node and connection, of `op` or of no operation
// (redlock-spec and Redisson's RedLock do not tag it), a script other than the grant's whose name
// says it releases (`unlock`, `release`), and that released something (replied 1: Redisson's
// unlock and the RedLock release scripts reply 1 when they freed the key). Untagged, it may be
// another thread's of the same client: grants_of counts it only while the grant was still live
// (a release after the key died, by a restart say, gave back nothing of this acquisition's).
bool own_release(const History& h, const Operation& op, const Exec& grant, const Exec& x) {
  if (x.node != grant.node || x.conn != grant.conn || x.line > op.complete_line) return false;
  if (x.op_id != op.id && x.op_id != kAbsent) return false;
  if (x.script == kNoSym || x.script == grant.script || x.reply != ReplyKind::kInt || x.reply_int != 1) return false;
  const std::string_view name = h.str(x.script);
  // Redisson's unlock latch (3.24+, `…_unlock_latch`) answers a re-sent unlock from its cache: a
  // 1 that may have freed nothing (the re-send of an earlier attempt's release landing after a
  // later attempt's grant). Only the request's first run on the node, which did the work, is read
  // as a give-back; a later one, or a run whose latch key the log does not show, is not (the
  // grant then counts as before).
  if (name.find("latch") != std::string_view::npos) {
    const Sym latch = latch_key(h, x);
    if (latch == kNoSym || !first_run_of_request(h, x, latch)) return false;
  }
  return name.find("unlock") != std::string_view::npos || name.find("release") != std::string_view::npos;
}

namespace {

// Whether the node granted the lock by this command, as every property reads it (run_grant),
// but for one difference: without grant_replies, quorum reads any command's nil reply as a grant
// (Redisson's convention), where the others read only an acquire script's.
RunGrant grant_of(const History& h, const Exec& e) {
  if (!h.header.has_grant_replies && !command_is(h, e, "SET") && !command_is(h, e, "SETNX")) {
    return e.reply == ReplyKind::kNil ? RunGrant::kYes : RunGrant::kNo;
  }
  return run_grant(h, e);
}
bool is_grant(const History& h, const Exec& e) { return grant_of(h, e) == RunGrant::kYes; }

// A key's death on a node after `after`: time and cause (kTimeNever if it lived on).
struct Death {
  TimeUs t = kTimeNever;
  std::string cause;
  bool abnormal = false;  // data loss, crash, or an expiry after a clock jump of the node
  Sym expired_on = kNoSym;  // the node, for a plain expiry (no clock jump): listed together
  // A plain expiry's: how far the node's clock ran ahead of true time between the key's last run
  // there and the expiry (0: not ahead, or the history does not say), so how much sooner than by
  // true time the key expired; and that run's time.
  TimeUs early_us = 0;
  TimeUs early_since = 0;
  // The death's line when the history has one (0: none): a death logged at the instant of the
  // declaration but after it (a clock jump on the grant's own event) came after it.
  uint32_t line = 0;
  // The fault that brought the death about, when the history names one: the node's clock jump or
  // offset before an expiry, its restart, crash or failover behind a loss or a crash. kAbsent
  // for a plain expiry.
  int64_t fault = kAbsent;
};

// The clock jumps and offsets of `node` in [from, to], as " after node0's clock jumped by
// 56439 ms at 82.747 s (fault #5)" or " after node2's clock was set 15000 ms ahead of true time at
// 2.000 s (fault #3)", or "" when there were none.
std::string node_clock_jumps(const History& h, Sym node, TimeUs from, TimeUs to, int64_t* first_fault = nullptr) {
  std::string out;
  for (const FaultEvent& f : h.faults) {
    if (f.t < from || f.t > to || f.target != node || f.phase == FaultPhase::kEnd) continue;
    std::string what;
    if (f.is(FaultKind::kClockJump)) {
      const int64_t delta_ms = f.param(h.syms, "delta_ms");
      what = "'s clock jumped" + (delta_ms == kAbsent ? "" : " by " + std::to_string(delta_ms) + " ms");
    } else if (f.is(FaultKind::kClockOffset) && f.param(h.syms, "offset_ms") != kAbsent) {
      what = "'s clock was set " + clock_offset_phrase(f.param(h.syms, "offset_ms"));
    } else {
      continue;
    }
    if (out.empty() && first_fault != nullptr) *first_fault = f.fault;
    out += (out.empty() ? " after " : " and ") + std::string(h.str(node)) + what + " at " + format_time(f.t) + " (fault #" +
           std::to_string(f.fault) + ")";
  }
  return out;
}

// Key deaths by (node, key), in time order: expiries and data loss. Built once, so each grant's
// lookup is a binary search instead of a scan of the whole history.
struct DeathIndex {
  struct Entry {
    TimeUs t;
    bool loss;  // data loss (else an expiry)
    Sym reason;
    int64_t local_ms = kAbsent;  // an expiry's node-local time
    uint32_t line = 0;
  };
  std::map<std::pair<Sym, Sym>, std::vector<Entry>> by_key;
  std::map<Sym, std::vector<TimeUs>> crashes;  // node → times of crashes it never restarted from

  explicit DeathIndex(const History& h) {
    for (const Expire& e : h.expires) by_key[{e.node, e.key}].push_back({e.t, false, kNoSym, e.local_ms, e.line});
    for (const DataLoss& l : h.data_losses) {
      for (uint32_t i = 0; i < l.keys_count; ++i) by_key[{l.node, h.key_pool[l.keys_begin + i]}].push_back({l.t, true, l.reason, kAbsent, l.line});
    }
    for (auto& [key, v] : by_key) std::stable_sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) { return a.t < b.t; });
    // A crash followed by a restart of the same node is judged by the restart's data_loss.
    std::map<Sym, TimeUs> open_crash;
    for (const NodeEvent& n : h.node_events) {
      const std::string_view event = h.str(n.event);
      if (event == "crashed") open_crash[n.node] = n.t;
      if (event == "restarted") open_crash.erase(n.node);
    }
    for (const auto& [node, t] : open_crash) crashes[node].push_back(t);
  }
};

// How the grant `grant` of acquisition `op` stopped being that acquisition's key on its node by
// the lock's own workings: the owner's release reached the node (a death of the key after that
// is someone else's), or another acquisition was granted the key there (so it had died by then,
// whether or not the history recorded it).
struct GrantEnd {
  TimeUs released = kTimeNever;
  TimeUs taken = kTimeNever;
  Sym taken_by = kNoSym;  // the thread granted it
};

GrantEnd grant_end(const History& h, const std::vector<uint32_t>& key_execs, const Operation& op, const Exec& grant) {
  // key_execs is in history order, so in time order: start after the grant.
  auto it = std::upper_bound(key_execs.begin(), key_execs.end(), grant.t,
                             [&](TimeUs t, uint32_t e) { return t < h.execs[e].t; });
  GrantEnd end;
  for (; it != key_execs.end(); ++it) {
    const Exec& x = h.execs[*it];
    if (x.node != grant.node || x.op_id == kAbsent || x.op_id == op.id) continue;
    const int64_t index = h.op_index(x.op_id);
    if (index < 0) continue;
    const Operation& other = h.ops[index];
    if ((other.kind == OpKind::kUnlock || other.kind == OpKind::kForceUnlock) && other.owner == op.owner) {
      end.released = x.t;
      return end;
    }
    if (other.is_acquire() && other.owner != op.owner && is_grant(h, x)) {
      end.taken = x.t;
      end.taken_by = other.thread;
      return end;
    }
  }
  return end;
}

// How far `node`'s clock ran ahead of true time from the latest run on `key` there at or before
// `expiry` (and not before `after`) that may have set its TTL, to the expiry, by their node-local
// times; 0 if it did not or the history does not say. Another owner's run that the grant rules
// read as refused (its acquisition found the key taken, its release found another token) left
// the holder's TTL as it was and is passed over. `key_execs`: the runs touching the key, in
// history order.
std::pair<TimeUs, TimeUs> clock_ahead(const History& h, const std::vector<uint32_t>* key_execs, Sym node, TimeUs after,
                                      const DeathIndex::Entry& expiry, Sym owner) {
  if (key_execs == nullptr || expiry.local_ms == kAbsent) return {0, 0};
  // key_execs is in history order, so in time order: back from the expiry to `after`.
  auto it = std::upper_bound(key_execs->begin(), key_execs->end(), expiry.t,
                             [&](TimeUs t, uint32_t e) { return t < h.execs[e].t; });
  while (it != key_execs->begin()) {
    const Exec& x = h.execs[*--it];
    if (x.t < after) break;
    if (x.node != node || x.local_ms == kAbsent) continue;
    if (owner != kNoSym && x.op_id != kAbsent && grant_of(h, x) == RunGrant::kNo) {
      const int64_t index = h.op_index(x.op_id);
      if (index >= 0 && h.ops[static_cast<size_t>(index)].owner != owner && h.ops[static_cast<size_t>(index)].is_acquire()) continue;
    }
    const TimeUs ahead = (expiry.local_ms - x.local_ms) * kUsPerMs - (expiry.t - x.t);
    return {std::max<TimeUs>(ahead, 0), x.t};
  }
  return {0, 0};
}

Death death_of(const History& h, const DeathIndex& index, Sym node, Sym key, TimeUs after, TimeUs until = kTimeNever,
               const std::vector<uint32_t>* key_execs = nullptr, Sym owner = kNoSym) {
  Death d;
  auto it = index.by_key.find({node, key});
  if (it != index.by_key.end()) {
    // The first death after `after`: a binary search, as the index is in time order.
    const std::vector<DeathIndex::Entry>& deaths = it->second;
    const auto first = std::upper_bound(deaths.begin(), deaths.end(), after,
                                        [](TimeUs t, const DeathIndex::Entry& e) { return t < e.t; });
    if (first != deaths.end() && first->t < until) {
      const DeathIndex::Entry& e = *first;
      if (e.loss) {
        d = {e.t, std::string(h.str(node)) + " lost its key at " + format_time(e.t) + " (" + std::string(h.str(e.reason)) + ")", true, kNoSym};
        d.fault = fault_behind(h, node, e.t);
      } else {
        int64_t jump = kAbsent;
        const std::string jumps = node_clock_jumps(h, node, after, e.t, &jump);
        d = {e.t, "its key expired on " + std::string(h.str(node)) + " at " + format_time(e.t) + jumps, !jumps.empty(),
             jumps.empty() ? node : kNoSym};
        d.fault = jump;
        if (jumps.empty()) std::tie(d.early_us, d.early_since) = clock_ahead(h, key_execs, node, after, e, owner);
      }
      d.line = e.line;
    }
  }
  auto c = index.crashes.find(node);
  if (c != index.crashes.end()) {
    for (TimeUs t : c->second) {
      if (t > after && t < d.t && t < until) {
        d = {t, std::string(h.str(node)) + " crashed at " + format_time(t), true, kNoSym};
        d.fault = fault_behind(h, node, t);
        break;
      }
    }
  }
  return d;
}

// Why grants were dead when their acquisition declared success: each death, how long after its
// first grant the declaration came, and the faults of the client's process or of a node that
// began or lasted in between (a pause that kept the client, or the node it waited for). "": no
// grant died.
std::string dead_grants(const History& h, const Operation& op, std::vector<Death> dead, TimeUs first_grant,
                        int64_t* first_fault = nullptr) {
  if (dead.empty()) return "";
  std::sort(dead.begin(), dead.end(), [](const Death& a, const Death& b) { return a.t < b.t; });
  // Plain expiries that read alike in time read as one: "its keys expired on node0 and node1 at
  // 57.200 s".
  std::vector<std::string> causes;
  for (size_t k = 0; k < dead.size();) {
    size_t end = k + 1;
    while (dead[k].expired_on != kNoSym && end < dead.size() && dead[end].expired_on != kNoSym &&
           format_time(dead[end].t) == format_time(dead[k].t)) {
      ++end;
    }
    if (end - k == 1) {
      causes.push_back(dead[k].cause);
    } else {
      std::string nodes;
      for (size_t n = k; n < end; ++n) nodes += (n == k ? "" : n + 1 == end ? " and " : ", ") + std::string(h.str(dead[n].expired_on));
      causes.push_back("its keys expired on " + nodes + " at " + format_time(dead[k].t));
    }
    k = end;
  }
  std::string text = ": ";
  for (size_t k = 0; k < causes.size(); ++k) text += (k == 0 ? "" : k + 1 == causes.size() ? ", and " : ", ") + causes[k];
  text += "; it declared success " + format_time(op.complete_t - first_grant) + " after its first grant (at " +
          format_time(first_grant) + ")";
  const std::string_view thread = h.str(op.thread);
  const std::string_view process = thread.substr(0, thread.find('/'));
  std::map<int64_t, TimeUs> ends;  // fault id → end
  for (const FaultEvent& f : h.faults) {
    if (f.phase == FaultPhase::kEnd) ends[f.fault] = f.t;
  }
  // The story's first inevitable event: the earliest fault the sentence names, a death's or one in
  // between (explore --algorithm redis-semaphore-redlock-mutex seed 60051: a paused node the
  // client waited for, which replay proves needed).
  TimeUs first_fault_t = kTimeNever;
  auto consider = [&](int64_t fault) {
    if (first_fault == nullptr || fault == kAbsent) return;
    for (const FaultEvent& f : h.faults) {
      if (f.fault != fault || f.phase == FaultPhase::kEnd) continue;
      if (f.t < first_fault_t) {
        first_fault_t = f.t;
        *first_fault = fault;
      }
      break;
    }
  };
  for (const Death& d : dead) consider(d.fault);
  std::string during;
  for (const FaultEvent& f : h.faults) {
    if (f.phase == FaultPhase::kEnd || f.t > op.complete_t) continue;
    const auto end = ends.find(f.fault);
    const TimeUs until = f.phase == FaultPhase::kInstant ? f.t : end == ends.end() ? kTimeNever : end->second;
    if (until < first_grant) continue;
    const std::string_view target = h.str(f.target);
    const bool node = std::find(h.header.nodes.begin(), h.header.nodes.end(), target) != h.header.nodes.end();
    // A partition or a link's drop or delay between the client and a node (target "node0 -> c1,…").
    const bool link = std::any_of(h.header.nodes.begin(), h.header.nodes.end(), [&](const std::string& n) {
      return link_fault_cuts(h, f, process, n, false) || link_fault_cuts(h, f, n, process, false);
    });
    if (target != process && !node && !link) continue;
    const int64_t duration_ms = f.param(h.syms, "duration_ms");
    const std::string what = f.is(FaultKind::kPause)  ? std::string(target) + " paused"
                             : target == process || node ? std::string(h.str(f.kind)) + " of " + std::string(target)
                                                         : std::string(h.str(f.kind)) + " on " + std::string(target);
    consider(f.fault);
    during += std::string(during.empty() ? "" : ", ") + what +
              " at " + format_time(f.t) + (duration_ms == kAbsent ? "" : " for " + std::to_string(duration_ms) + " ms") + " (fault #" +
              std::to_string(f.fault) + ")";
  }
  return during.empty() ? text : text + ", and in between: " + during;
}

// An acquisition's grants at the moment it declared success: each counted grant's death, split
// into those still live then and those already dead.
struct Grants {
  std::vector<Death> live;  // deaths of grants live at the declaration, earliest first
  std::vector<Death> dead;  // deaths of the others, before it
  TimeUs first_grant = kTimeNever;
  int64_t count = 0;
  bool unreadable = false;  // a script whose reply the history cannot read as granted or not
};

// The history's key deaths and each key's runs, built once for every acquisition judged.
struct GrantIndex {
  DeathIndex deaths;
  std::map<Sym, std::vector<uint32_t>> execs_of_key;  // the runs touching each key (its first key), in history order

  explicit GrantIndex(const History& h) : deaths(h) {
    for (uint32_t e = 0; e < h.execs.size(); ++e) {
      if (h.execs[e].keys_count > 0) execs_of_key[h.key_pool[h.execs[e].keys_begin]].push_back(e);
    }
  }
};

// The run by which a failed attempt of `op` gave its grant `grant` back (own_release) before `op`
// declared success, if any. `key_execs`: the runs on the grant's key, in history order.
std::optional<Exec> given_back(const History& h, const Operation& op, const Exec& grant, const std::vector<uint32_t>& key_execs) {
  auto it = std::upper_bound(key_execs.begin(), key_execs.end(), grant.line,
                             [&](uint32_t line, uint32_t e) { return line < h.execs[e].line; });
  for (; it != key_execs.end() && h.execs[*it].line <= op.complete_line; ++it) {
    const Exec x = h.execs[*it];
    if (own_release(h, op, grant, x)) return x;
  }
  return std::nullopt;
}

// The grants that can count toward the quorum `op` declared: those that ran before its
// `complete` (a retry's request still queued on a paused node may be granted long after: the
// client never counted it), and on each node only the latest (a node holds one value of the key;
// an earlier attempt's grant there was superseded or released), unless a failed attempt of the
// acquisition gave it back before it declared success (it is no part of what was declared: not
// counted, neither live nor dead). `runs` are op's execs.
Grants grants_of(const History& h, const Operation& op, std::span<const uint32_t> runs, GrantIndex& index) {
  Grants g;
  std::vector<uint32_t> counted;
  for (uint32_t e : runs) {
    const Exec& x = h.execs[e];
    const RunGrant grant = grant_of(h, x);
    if (x.line > op.complete_line) continue;  // ran after the client declared success
    g.unreadable = g.unreadable || grant == RunGrant::kUnreadable;
    if (grant != RunGrant::kYes || x.keys_count == 0) continue;
    auto same_node = std::find_if(counted.begin(), counted.end(), [&](uint32_t c) { return h.execs[c].node == x.node; });
    if (same_node != counted.end()) {
      *same_node = e;
    } else {
      counted.push_back(e);
    }
  }
  for (uint32_t e : counted) {
    const Exec& x = h.execs[e];
    const Sym key = h.key_pool[x.keys_begin];
    const GrantEnd end = grant_end(h, index.execs_of_key[key], op, x);
    Death d = death_of(h, index.deaths, x.node, key, x.t, end.released, &index.execs_of_key[key], op.owner);
    if (end.taken < d.t) {
      d = {end.taken, std::string(h.str(end.taken_by)) + " was granted its key on " + std::string(h.str(x.node)) +
                          " at " + format_time(end.taken), true, kNoSym};
    }
    // Given back while it was still the acquisition's (a release after its key had died, say
    // another thread's of the same client, gave back nothing of this acquisition's).
    const std::optional<Exec> release = given_back(h, op, x, index.execs_of_key[key]);
    if (release && (release->t < d.t || (release->t == d.t && d.line != 0 && release->line < d.line))) continue;
    ++g.count;
    g.first_grant = std::min(g.first_grant, x.t);
    const bool live = d.t > op.complete_t || (d.t == op.complete_t && d.line > op.complete_line);
    (live ? g.live : g.dead).push_back(std::move(d));
  }
  std::sort(g.live.begin(), g.live.end(), [](const Death& a, const Death& b) { return a.t < b.t; });
  return g;
}

// Whether the quorum property judges this history: a quorum lock as the other properties see it
// (HistoryHeader::quorum_lock), a header with `quorum`, `lock_kind: redlock`, or an algorithm
// named redlock….
bool judged(const History& h) { return h.header.quorum_lock(); }

int64_t quorum_of(const History& h) {
  return h.header.quorum != kAbsent ? h.header.quorum : static_cast<int64_t>(h.header.nodes.size()) / 2 + 1;
}

std::string shortfall_text(const History& h, const Operation& op, const Grants& g, int64_t quorum,
                           int64_t* first_fault = nullptr) {
  return "had " + std::to_string(g.live.size()) + " live grant(s) of " + std::to_string(g.count) + " (quorum " +
         std::to_string(quorum) + ")" + dead_grants(h, op, g.dead, g.first_grant, first_fault);
}

struct Finding {
  std::string kind, text;
  nlohmann::json facts;
};

}  // namespace

std::string quorum_shortfall(const History& h, const Operation& op, int64_t* first_fault) {
  if (first_fault != nullptr) *first_fault = kAbsent;
  if (!judged(h) || !op.is_acquire() || op.outcome != Outcome::kOk || op.acquired != Tri::kTrue) return "";
  std::vector<uint32_t> runs;
  bool any_runs = false;  // of any operation: without them the history cannot say who granted what
  for (uint32_t e = 0; e < h.execs.size(); ++e) {
    const int64_t id = h.execs[e].op_id;
    any_runs = any_runs || id != kAbsent;
    if (id == op.id) runs.push_back(e);
  }
  if (!any_runs) return "";
  GrantIndex index(h);
  const Grants g = grants_of(h, op, runs, index);
  const int64_t quorum = quorum_of(h);
  if (g.unreadable || static_cast<int64_t>(g.live.size()) >= quorum) return "";
  return shortfall_text(h, op, g, quorum, first_fault);
}

PropertyResult check_quorum(const History& h, const CheckOptions&) {
  const std::string name = "quorum";
  if (!judged(h)) {
    // Several nodes without a declared quorum may be a master with replicas, or a quorum lock
    // whose header does not say so: the text says which fields would make it one.
    return make_result(name, Verdict::kNotApplicable,
                       h.header.nodes.size() > 1
                           ? "not a RedLock history: the header declares no quorum (quorum, lock_kind redlock, or an algorithm "
                             "named redlock…), so its " + std::to_string(h.header.nodes.size()) + " nodes are not judged as independent masters"
                           : "not a RedLock history (single-node lock)");
  }
  ExecsByOp own;
  const ExecsByOp& execs = execs_by_op(h, own);
  if (!execs.any_runs()) {
    // Nothing was granted, so there is no quorum to count; with acquisitions but no per-node
    // executions, the history cannot say which nodes granted them.
    const bool acquired = std::any_of(h.ops.begin(), h.ops.end(), [](const Operation& op) {
      return op.is_acquire() && op.acquired != Tri::kFalse && op.outcome != Outcome::kFail;
    });
    if (!acquired) return make_result(name, Verdict::kOk, "no acquisition in the history could have been granted: no quorum to count");
    return make_result(name, Verdict::kUnknown, "the history lacks per-node exec events with op ids");
  }
  GrantIndex index(h);
  const int64_t quorum = quorum_of(h);
  // The end of each acquisition's hold, by op id (the last hold of an id, as the holds list them).
  // A hold whose hold_begin names no operation (another tool's log) is its thread's last
  // acquisition's that returned by its start, as the stories find it.
  std::unordered_map<int64_t, TimeUs> hold_end_of;
  std::map<std::pair<Sym, Sym>, std::vector<const Operation*>> granted;  // (thread, lock) → its grants, in order
  if (std::any_of(h.holds.begin(), h.holds.end(), [](const Hold& x) { return x.op_id == kAbsent; })) {
    for (const Operation& op : h.ops) {
      if (op.is_acquire() && op.outcome == Outcome::kOk && op.acquired != Tri::kFalse) granted[{op.thread, op.lock}].push_back(&op);
    }
  }
  for (const Hold& x : h.holds) {
    int64_t id = x.op_id;
    if (id == kAbsent) {
      // A thread's calls follow one another: its grants returned in order.
      const std::vector<const Operation*>& mine = granted[{x.thread, x.lock}];
      const auto after = std::upper_bound(mine.begin(), mine.end(), x.begin_t,
                                          [](TimeUs t, const Operation* op) { return t < op->complete_t; });
      if (after != mine.begin()) id = (*std::prev(after))->id;
    }
    if (id != kAbsent) hold_end_of[id] = x.end_t == kTimeNever ? h.end_t : x.end_t;
  }
  int64_t checked = 0;
  int64_t unjudged = 0;
  std::vector<Finding> findings;
  for (uint32_t i = 0; i < h.ops.size(); ++i) {
    const Operation& op = h.ops[i];
    if (!op.is_acquire() || op.outcome != Outcome::kOk || op.acquired != Tri::kTrue) continue;
    ++checked;
    const TimeUs declared = op.complete_t;
    const Grants g = grants_of(h, op, execs[i], index);
    const std::vector<Death>& live = g.live;
    const int64_t grants = g.count;
    const bool unreadable = g.unreadable;
    const int64_t n_live = static_cast<int64_t>(live.size());
    if (n_live < quorum && unreadable) {
      ++unjudged;  // the missing grants may be in replies the history cannot read
      continue;
    }
    // Most acquisitions are fine: their words and facts are made only for a finding.
    const auto who = [&] {
      return std::string(h.str(op.thread)) + "'s acquisition #" + std::to_string(op.id) + " of " +
             std::string(h.str(op.lock)) + " declared at " + format_time(declared);
    };
    const auto facts = [&] {
      return nlohmann::json{{"op", op.id}, {"thread", h.str(op.thread)}, {"declared_us", declared},
                            {"grants", grants}, {"live_at_declare", n_live}, {"quorum", quorum}};
    };
    if (n_live < quorum) {
      findings.push_back({"invalid_when_declared", who() + " " + shortfall_text(h, op, g, quorum), facts()});
      continue;
    }
    // The quorum is lost when the (n_live - quorum + 1)-th key dies.
    const Death& lost = live[n_live - quorum];
    // The deaths that broke the quorum, the earlier ones first: "<first>; then <last>", and how
    // close to the quorum it was (one key's loss is a violation only for a bare quorum).
    const auto why = [&] {
      std::string text;
      for (int64_t k = 0; k < n_live - quorum; ++k) text += live[static_cast<size_t>(k)].cause + "; then ";
      return text + lost.cause + ", leaving " + std::to_string(quorum - 1) + " of its " + std::to_string(n_live) +
             " live key(s), below the quorum of " + std::to_string(quorum);
    };
    const auto facts_lost = [&] {
      nlohmann::json f = facts();
      f["quorum_lost_us"] = lost.t == kTimeNever ? nlohmann::json(nullptr) : nlohmann::json(lost.t);
      return f;
    };
    // An expiry the node's clock brought forward. Node-local times are whole milliseconds: each
    // of the two readings may be up to 1 ms short, so only what the clock ran ahead beyond 2 ms is
    // certain. "; node1's clock had run 3300 ms ahead …, and by true time it would have outlived
    // the hold (until 8.000 s)" when it did, or "" when the clock did not surely run ahead.
    constexpr TimeUs kReadError = 2 * kUsPerMs;
    const TimeUs surely_early = lost.early_us - kReadError;
    const bool ran_ahead = !lost.abnormal && surely_early > h.header.drift_tolerance_us;
    const auto ahead_text = [&](TimeUs until, const char* what) {
      std::string text = "; " + std::string(h.str(lost.expired_on)) + "'s clock had run " + std::to_string(lost.early_us / kUsPerMs) +
                         " ms ahead of true time since the last run there that may have set the key's TTL (at " + format_time(lost.early_since) +
                         "), so the key expired that much sooner than its TTL by true time";
      if (lost.t + surely_early >= until) {
        text += std::string(", and by true time it would have outlived the ") + what + " (until " + format_time(until) + ")";
      }
      return text;
    };
    if (op.validity_ms != kAbsent && lost.t < declared + op.validity_ms * kUsPerMs) {
      nlohmann::json f = facts_lost();
      f["validity_ms"] = op.validity_ms;
      std::string text = who() + " with validity " + std::to_string(op.validity_ms) + " ms lost its quorum at " + format_time(lost.t) +
                         ": " + why();
      if (ran_ahead) {
        text += ahead_text(declared + op.validity_ms * kUsPerMs, "validity");
        f["clock_ahead_us"] = lost.early_us;
      }
      findings.push_back({"validity_outlasted_quorum", std::move(text), std::move(f)});
      continue;
    }
    const auto held = hold_end_of.find(op.id);
    const TimeUs hold_end = held == hold_end_of.end() ? declared : held->second;
    // By true time the key would have outlived the hold (else the lease ran out during the hold
    // anyway: the lease's business).
    const bool brought_forward = ran_ahead && lost.t + surely_early >= hold_end;
    if ((lost.abnormal || brought_forward) && lost.t < hold_end) {
      nlohmann::json f = facts_lost();
      std::string text = who() + " lost its quorum during the hold at " + format_time(lost.t) + ": " + why();
      if (brought_forward) {
        text += ahead_text(hold_end, "hold");
        f["clock_ahead_us"] = lost.early_us;
      }
      findings.push_back({"lost_during_hold", std::move(text), std::move(f)});
    }
  }
  if (findings.empty() && unjudged > 0) {
    PropertyResult r = make_result(name, Verdict::kUnknown,
                                   std::to_string(unjudged) + " acquisition(s) showed fewer than " + std::to_string(quorum) +
                                       " grants, but their lock scripts' replies cannot be read as granted or not "
                                       "(the header's grant_replies does not name them)");
    r.details = {{"acquisitions", checked}, {"unjudged", unjudged}};
    return r;
  }
  if (findings.empty()) {
    PropertyResult r = make_result(name, h.complete ? Verdict::kOk : Verdict::kUnknown,
                                   std::string(h.complete ? "" : "history incomplete; ") + std::to_string(checked) +
                                       " acquisition(s) held a live quorum of " + std::to_string(quorum) + " for their validity and hold");
    r.details["acquisitions"] = checked;
    return r;
  }
  PropertyResult r = make_result(name, Verdict::kViolation, std::to_string(findings.size()) + " acquisition(s) without a valid quorum; first: " + findings.front().text);
  nlohmann::json all = nlohmann::json::array();
  for (const Finding& f : findings) {
    nlohmann::json j = f.facts;
    j["kind"] = f.kind;
    all.push_back(j);
  }
  r.counterexample = all.front();
  r.details = {{"acquisitions", checked}, {"findings", all}};
  r.explanation.text = findings.front().text + ".";
  r.explanation.facts = all.front();
  LS_ASSERT(r.verdict == Verdict::kViolation);
  return r;
}

}  // namespace lockstep::checker
