// Property 3, fair-lock FIFO. The server-side enqueue order is read from the `exec` events of each
// acquisition: a waiter enqueued at its first attempt that did not get the lock (an acquisition
// with more than one attempt, or whose first attempt replied a TTL); a grant happened at the last
// attempt of a successful acquisition. Whenever an owner was granted the lock while another owner
// that enqueued earlier was still waiting, that reordering is classified:
//  - allowed, "evicted after threadWaitTime": the overtaken waiter's timeout score had passed —
//    the score is set at each attempt to its time + the TTL the script replied + thread_wait_ms —
//    so the stale-waiter eviction at the head of the queue could remove it;
//  - allowed, "acquireFailed": the overtaken waiter's own wait budget had run out (it gave up and
//    removed itself);
//  - allowed, "re-queued after its entry went stale": the overtaken waiter's score passed before
//    its next attempt (a pause, a partition), so its entry may have been evicted and that attempt
//    queued it again at the tail, behind the granted owner;
//  - otherwise a violation.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "checker/check.h"
#include "checker/explain.h"
#include "sim/core/assert.h"

namespace lockstep::checker {
namespace {

constexpr int64_t kClassicThreadWaitMs = 5000;

struct Entry {
  uint32_t op = 0;
  int64_t grant_exec = -1;  // index into History::execs of the granting run
  TimeUs enqueue_t = 0;    // first failed attempt, or the grant for a direct acquisition
  TimeUs wait_end_t = 0;   // grant, give-up or end of history
  TimeUs grant_t = kTimeNever;
  std::vector<TimeUs> attempts;  // times of its attempts
  std::vector<int64_t> ttl_ms;    // the TTL each failed attempt replied (0 if none)
  bool waited = false;
};

// The latest attempt of `e` no later than `t`.
TimeUs last_attempt(const Entry& e, TimeUs t) {
  TimeUs last = e.enqueue_t;
  for (TimeUs a : e.attempts) {
    if (a <= t) last = std::max(last, a);
  }
  return last;
}

// The earliest time the fair lock could evict `e` as stale, seen from time `t`: its timeout score
// is set at each attempt to the attempt's time + the TTL it was told + threadWaitTime.
TimeUs evictable_at(const Entry& e, TimeUs t, int64_t thread_wait_ms) {
  TimeUs at = e.enqueue_t + thread_wait_ms * kUsPerMs;
  for (size_t k = 0; k < e.attempts.size(); ++k) {
    if (e.attempts[k] <= t) at = std::max(at, e.attempts[k] + (e.ttl_ms[k] + thread_wait_ms) * kUsPerMs);
  }
  return at;
}

// When `e` last joined the queue, as far as time `t`: an attempt that came after the score its
// previous attempt set had passed may have found its entry evicted and queued it again at the
// tail. Its first attempt when no such gap came before `t`.
TimeUs requeued_at(const Entry& e, TimeUs t, int64_t thread_wait_ms) {
  TimeUs at = e.enqueue_t;
  for (size_t k = 1; k < e.attempts.size() && e.attempts[k] <= t; ++k) {
    const TimeUs stale_at = e.attempts[k - 1] + (e.ttl_ms[k - 1] + thread_wait_ms) * kUsPerMs;
    if (e.attempts[k] > stale_at) at = e.attempts[k];
  }
  return at;
}

std::vector<Entry> entries_of(const History& h, const std::vector<uint32_t>& ops,
                              const ExecsByOp& execs) {
  std::vector<Entry> out;
  for (uint32_t i : ops) {
    const Operation& op = h.ops[i];
    if (!op.is_acquire() || execs[i].empty()) continue;
    if (op.count > 1) continue;  // a reentrant acquisition: not a grant
    const bool granted = op.outcome == Outcome::kOk && op.acquired == Tri::kTrue;
    // tryLock without a wait never joins the queue (the fair lock's non-queueing script).
    if (op.kind == OpKind::kTryLock && op.wait_ms == 0 && !granted) continue;
    Entry e;
    e.op = i;
    for (uint32_t x : execs[i]) {
      e.attempts.push_back(h.execs[x].t);
      e.ttl_ms.push_back(h.execs[x].reply == ReplyKind::kInt ? std::max<int64_t>(0, h.execs[x].reply_int) : 0);
    }
    const Exec& first = h.execs[execs[i].front()];
    e.waited = execs[i].size() > 1 || first.reply == ReplyKind::kInt || !granted;
    if (granted) {
      e.grant_t = e.attempts.back();
      e.grant_exec = execs[i].back();
    }
    e.enqueue_t = e.waited ? e.attempts.front() : e.grant_t;
    e.wait_end_t = granted ? e.grant_t : (op.complete_t == kTimeNever ? h.end_t : op.complete_t);
    // A waiter whose client crashed stops waiting there: its entry may stay in the server's queue
    // until its timeout, but a grant ahead of it wrongs no thread (`explore --algorithm
    // redisson-fair-lock` seed 40070, a grant after a failover ahead of a waiter dead for 30 s).
    if (const FaultEvent* crash = client_crash(h, op.thread); crash != nullptr && !granted) {
      e.wait_end_t = std::min(e.wait_end_t, crash->t);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// The fair lock's server-side queue as the recorded key states show it (state events): the queue
// list and timeout zset of each lock on each node, by script sequence number. With them the
// checker reads who was queued, and each waiter's timeout score, just before a grant, instead of
// estimating them from the client's attempts (the scripts shift every waiter's score when one
// leaves or gives up, which no estimate from one waiter's own attempts sees).
class QueueStates {
 public:
  explicit QueueStates(const History& h) : h_(h) {
    for (uint32_t i = 0; i < h.states.size(); ++i) {
      const StateRecord& s = h.states[i];
      if (s.seq == kAbsent) continue;
      by_key_[{s.node, s.key}].push_back(i);
    }
  }
  bool available() const { return !by_key_.empty(); }
  // The state of `key` on `node` as the script with sequence number `seq` found it (the latest
  // recorded before it), or nullptr when none was recorded (the key did not exist yet).
  const StateRecord* before(Sym node, std::string_view key, int64_t seq) const {
    const Sym k = h_.syms.find(key);
    if (k == kNoSym) return nullptr;
    const auto it = by_key_.find({node, k});
    if (it == by_key_.end()) return nullptr;
    // A node's script sequence numbers grow through the history, so its states are in seq order.
    const std::vector<uint32_t>& list = it->second;
    auto after = std::lower_bound(list.begin(), list.end(), seq,
                                  [&](uint32_t i, int64_t q) { return h_.states[i].seq < q; });
    return after == list.begin() ? nullptr : &h_.states[*std::prev(after)];
  }

 private:
  const History& h_;
  std::map<std::pair<Sym, Sym>, std::vector<uint32_t>> by_key_;
};

// What the recorded queue says about `waiter` just before `grant` ran: not queued ahead of the
// granted owner (no inversion: it had been granted already, gave up, or was re-queued behind
// after an eviction), queued ahead with a score the script's stale-waiter eviction had passed
// (allowed), or queued ahead and live. kUnknown when the states do not cover the lock.
enum class QueueVerdict { kUnknown, kNotAhead, kEvictable, kLive };

QueueVerdict queue_verdict(const History& h, const QueueStates& states, const Exec& grant, Sym lock, Sym waiter,
                           Sym granted) {
  const std::string name(h.str(lock));
  const StateRecord* queue = states.before(grant.node, "redisson_lock_queue:{" + name + "}", grant.seq);
  const StateRecord* timeouts = states.before(grant.node, "redisson_lock_timeout:{" + name + "}", grant.seq);
  if (queue == nullptr && timeouts == nullptr) return QueueVerdict::kUnknown;
  // A grant to the holder itself is a reentry, not a jump in the queue (an orphaned hold after a
  // lost grant reply, re-entered by the client's retry).
  const StateRecord* held = states.before(grant.node, name, grant.seq);
  if (held != nullptr && held->type != kNoSym &&
      std::find(held->members.begin(), held->members.end(), granted) != held->members.end()) {
    return QueueVerdict::kNotAhead;
  }
  if (queue == nullptr || queue->type == kNoSym) return QueueVerdict::kNotAhead;
  const auto at = std::find(queue->members.begin(), queue->members.end(), waiter);
  if (at == queue->members.end()) return QueueVerdict::kNotAhead;
  if (std::find(queue->members.begin(), at, granted) != at) return QueueVerdict::kNotAhead;
  if (timeouts == nullptr || timeouts->type == kNoSym) return QueueVerdict::kLive;
  for (size_t k = 0; k < timeouts->members.size() && k < timeouts->values.size(); ++k) {
    if (timeouts->members[k] != waiter) continue;
    const double score = std::strtod(std::string(h.str(timeouts->values[k])).c_str(), nullptr);
    // Scores are client times (the scripts compare them with the time the caller passes): judged
    // by the true time, as if every clock were right. A node's clock plays no part; a caller's
    // clock ahead of the truth evicts live waiters early, which is unfair.
    return score <= static_cast<double>(grant.t / kUsPerMs) ? QueueVerdict::kEvictable : QueueVerdict::kLive;
  }
  return QueueVerdict::kLive;
}

// A waiter removed from the fair lock's queue by another client's script while its timeout
// score had not passed: the stale-waiter eviction may remove only a head whose score the
// current time has reached. Read from consecutive recorded states of the queue list: a member
// that disappears at script `seq` was removed by that script; its own scripts (a grant,
// acquireFailed) may remove it at any time.
struct IllegalEviction {
  Sym waiter = kNoSym;
  uint32_t exec = 0;      // the script that removed it
  std::string score;      // its timeout score then (node-local ms)
};

// The fair lock's scripts judge staleness by the time the client passes them (its own clock),
// not the node's: when the evicting client's clock was changed by a fault before the script ran,
// say so — that is why a live waiter looked stale to it.
std::string client_clock_note(const History& h, std::string_view client, TimeUs t) {
  std::string note;
  for (const FaultEvent& f : h.faults) {
    if (f.t > t || h.str(f.target) != client) continue;
    if (!f.is_clock() || f.phase == FaultPhase::kEnd) continue;
    const std::string_view kind = h.str(f.kind);
    note += (note.empty() ? "" : ", ") + std::string("fault #") + std::to_string(f.fault) + " (" + std::string(kind) + " of " +
            std::string(client) + " at " + format_time(f.t) + ")";
  }
  if (note.empty()) return "";
  return "; the script judged staleness by the time " + std::string(client) +
         "'s clock passed it, and that clock had been changed by " + note;
}

// A waiter's queue entry lost with its node's data (a restart without persistence, a failover to
// a replica that lacked it) between `from` and `to`: the grant overtook a queue that no longer
// held it.
std::string queue_loss_note(const History& h, Sym lock, TimeUs from, TimeUs to) {
  const std::string queue = "redisson_lock_queue:{" + std::string(h.str(lock)) + "}";
  std::string note;
  for (const DataLoss& d : h.data_losses) {
    if (d.t < from || d.t > to) continue;
    for (uint32_t i = 0; i < d.keys_count; ++i) {
      if (h.str(h.key_pool[d.keys_begin + i]) != queue) continue;
      note += (note.empty() ? "" : ", ") + std::string(h.str(d.node)) + " lost " + queue + " at " + format_time(d.t) +
              " (" + std::string(h.str(d.reason)) + ")";
    }
  }
  return note.empty() ? "" : "; the queue it waited in was lost: " + note;
}

// A grant that re-entered its owner's earlier hold brought back by its node's data loss (a
// failover to a replica that had not seen the release): the lock script lets a holder re-enter
// ahead of the queue, and the node still thought it the holder.
std::string brought_back_note(const History& h, const Entry& g, const Operation& gop) {
  if (g.grant_exec < 0) return "";
  const Exec grant = h.execs[static_cast<size_t>(g.grant_exec)];
  const DataLoss* loss = key_brought_back(h, grant.node, gop.lock, grant.t, 0, gop.owner);
  if (loss == nullptr) return "";
  return "; the grant re-entered " + std::string(h.str(gop.thread)) + "'s earlier hold, which " + std::string(h.str(grant.node)) +
         " still had: " + key_brought_back_text(h, *loss, gop.lock);
}

// Whether `node`'s keys may have changed between two of its recorded states by something other
// than a recorded script: data lost there (a restart, a failover), the node crashing, or any
// failover (roles change; a replica's replicated writes are not recorded as states).
bool changed_unrecorded(const History& h, Sym node, TimeUs from, TimeUs to) {
  for (const DataLoss& d : h.data_losses) {
    if (d.node == node && d.t >= from && d.t <= to) return true;
  }
  for (const FaultEvent& f : h.faults) {
    if (f.t < from || f.t > to) continue;
    if (f.is(FaultKind::kFailover) || ((f.is(FaultKind::kCrash) || f.is(FaultKind::kRestart)) && f.target == node)) return true;
  }
  return false;
}

// Whether the client of the thread that queued as `owner` had crashed by `t`.
bool waiter_died_by(const History& h, Sym owner, TimeUs t) {
  for (const Operation& op : h.ops) {
    if (op.owner != owner) continue;
    const FaultEvent* crash = client_crash(h, op.thread);
    return crash != nullptr && crash->t <= t;
  }
  return false;
}

std::vector<IllegalEviction> illegal_evictions(const History& h, TimeUs tol_us) {
  std::map<std::pair<Sym, int64_t>, uint32_t> exec_at;  // (node, seq) → exec
  for (uint32_t e = 0; e < h.execs.size(); ++e) exec_at.emplace(std::make_pair(h.execs[e].node, h.execs[e].seq), e);
  // The states of each queue and timeout key per node, in history (= seq) order.
  std::map<std::pair<Sym, std::string>, std::vector<const StateRecord*>> queues, timeouts;
  for (const StateRecord& st : h.states) {
    const std::string_view key = h.str(st.key);
    if (st.seq == kAbsent) continue;
    if (key.rfind("redisson_lock_queue:", 0) == 0) queues[{st.node, std::string(key.substr(20))}].push_back(&st);
    if (key.rfind("redisson_lock_timeout:", 0) == 0) timeouts[{st.node, std::string(key.substr(22))}].push_back(&st);
  }
  std::vector<IllegalEviction> out;
  for (const auto& [where, list] : queues) {
    const std::vector<const StateRecord*>& zsets = timeouts[where];
    size_t z = 0;
    const StateRecord* zset_before = nullptr;  // the last timeout state before list[k]
    for (size_t k = 1; k < list.size(); ++k) {
      const StateRecord& before = *list[k - 1];
      const StateRecord& after = *list[k];
      while (z < zsets.size() && zsets[z]->seq < after.seq) zset_before = zsets[z++];
      if (before.type == kNoSym || h.str(before.type) != "list") continue;
      // A waiter gone with the node's data was not removed by the script that found it gone.
      if (changed_unrecorded(h, after.node, before.t, after.t)) continue;
      const auto e = exec_at.find({after.node, after.seq});
      if (e == exec_at.end() || h.execs[e->second].op_id == kAbsent) continue;
      const Exec& x = h.execs[e->second];
      const int64_t index = h.op_index(x.op_id);
      if (index < 0) continue;
      for (Sym m : before.members) {
        const bool gone = after.type == kNoSym || std::find(after.members.begin(), after.members.end(), m) == after.members.end();
        if (!gone || h.ops[index].owner == m) continue;
        // Its score just before the removing script.
        std::string score;
        if (zset_before != nullptr && zset_before->type != kNoSym) {
          for (size_t i = 0; i < zset_before->members.size() && i < zset_before->values.size(); ++i) {
            if (zset_before->members[i] == m) score = std::string(h.str(zset_before->values[i]));
          }
        }
        if (score.empty()) continue;  // no score: the scripts' own guard evicts it (3.32+)
        const double due = std::strtod(score.c_str(), nullptr);
        // Judged by the true time (see queue_verdict), not the node's clock.
        if (due <= static_cast<double>(x.t / kUsPerMs) + static_cast<double>(tol_us) / kUsPerMs) continue;
        // A waiter whose client had crashed waited for nothing: removing it early wrongs no thread
        // (`explore --algorithm redisson-fair-lock` seed 40113: a dead waiter evicted 5 ms early).
        if (waiter_died_by(h, m, x.t)) continue;
        out.push_back({m, e->second, score});
      }
    }
  }
  return out;
}

struct Reordering {
  uint32_t granted, overtaken;  // indices into entries
  std::string rule;             // "" for a violation
};

}  // namespace

PropertyResult check_fairness(const History& h, const CheckOptions&) {
  const std::string name = "fairness";
  if (!h.header.fair) return make_result(name, Verdict::kNotApplicable, "not a fair lock (header fair is not true)");
  // Nothing to order: with no acquisition at all, no exec events are needed to know that.
  if (std::none_of(h.ops.begin(), h.ops.end(), [](const Operation& op) { return op.is_acquire(); })) {
    return make_result(name, Verdict::kOk, "no acquisitions: nothing to order");
  }
  ExecsByOp own;
  const ExecsByOp& execs = execs_by_op(h, own);
  const int64_t wait_ms = h.header.thread_wait_ms != kAbsent ? h.header.thread_wait_ms : kClassicThreadWaitMs;
  const TimeUs tol = h.header.drift_tolerance_us;
  const QueueStates states(h);
  std::vector<Reordering> found;
  int64_t grants = 0;
  bool have_execs = false;
  std::vector<Entry> all;
  for (const auto& [lock, ops] : group_by_lock(h.ops)) {
    std::vector<Entry> entries = entries_of(h, ops, execs);
    have_execs = have_execs || !entries.empty();
    std::vector<uint32_t> by_grant;
    for (uint32_t i = 0; i < entries.size(); ++i) {
      if (entries[i].grant_t != kTimeNever) by_grant.push_back(i);
    }
    std::stable_sort(by_grant.begin(), by_grant.end(), [&](uint32_t a, uint32_t b) { return entries[a].grant_t < entries[b].grant_t; });
    // Sweep the grants in time order over the set of waiters still waiting, in enqueue order.
    std::vector<uint32_t> by_enqueue(entries.size());
    for (uint32_t i = 0; i < entries.size(); ++i) by_enqueue[i] = i;
    std::stable_sort(by_enqueue.begin(), by_enqueue.end(), [&](uint32_t a, uint32_t b) { return entries[a].enqueue_t < entries[b].enqueue_t; });
    std::set<std::pair<TimeUs, uint32_t>> waiting;  // (enqueue time, entry)
    size_t next_enqueue = 0;
    for (uint32_t w : by_grant) {
      ++grants;
      const Entry& g = entries[w];
      for (; next_enqueue < by_enqueue.size() && entries[by_enqueue[next_enqueue]].enqueue_t < g.grant_t; ++next_enqueue) {
        const uint32_t v = by_enqueue[next_enqueue];
        if (entries[v].waited) waiting.insert({entries[v].enqueue_t, v});
      }
      std::erase_if(waiting, [&](const auto& item) { return entries[item.second].wait_end_t <= g.grant_t && item.second != w; });
      for (const auto& [enqueued, v] : waiting) {
        if (enqueued >= g.enqueue_t) break;
        const Entry& e = entries[v];
        if (v == w || h.ops[e.op].owner == h.ops[g.op].owner) continue;
        Reordering r{static_cast<uint32_t>(all.size() + w), static_cast<uint32_t>(all.size() + v), ""};
        const Operation& vop = h.ops[e.op];
        // The server's own queue, when recorded, decides: a waiter not queued ahead of the
        // granted owner was not overtaken, and its recorded timeout score says whether the
        // eviction could remove it.
        const QueueVerdict q = g.grant_exec < 0 ? QueueVerdict::kUnknown
                                                : queue_verdict(h, states, h.execs[g.grant_exec], vop.lock, vop.owner,
                                                                h.ops[g.op].owner);
        if (q == QueueVerdict::kNotAhead) continue;
        if (q == QueueVerdict::kEvictable) {
          r.rule = "evicted after threadWaitTime";
        } else if (q == QueueVerdict::kUnknown && g.grant_t >= evictable_at(e, g.grant_t, wait_ms) - tol) {
          r.rule = "evicted after threadWaitTime";
        } else if (vop.wait_ms >= 0 && g.grant_t >= vop.invoke_t + vop.wait_ms * kUsPerMs - tol) {
          r.rule = "acquireFailed";
        } else if (q == QueueVerdict::kUnknown && requeued_at(e, g.grant_t, wait_ms) > g.enqueue_t + tol) {
          r.rule = "re-queued after its entry went stale";
        }
        found.push_back(r);
      }
      waiting.erase({g.enqueue_t, w});
    }
    all.insert(all.end(), std::make_move_iterator(entries.begin()), std::make_move_iterator(entries.end()));
  }
  if (!have_execs) return make_result(name, Verdict::kUnknown, "the history lacks exec events with op ids, so the enqueue order is unknown");
  nlohmann::json list = nlohmann::json::array();
  int64_t allowed = 0;
  const Reordering* bad = nullptr;
  for (const Reordering& r : found) {
    allowed += !r.rule.empty();
    if (r.rule.empty() && bad == nullptr) bad = &r;
    if (list.size() < 100) {
      const Entry& g = all[r.granted];
      const Entry& v = all[r.overtaken];
      list.push_back({{"granted", h.str(h.ops[g.op].thread)}, {"granted_op", h.ops[g.op].id}, {"grant_us", g.grant_t},
                      {"overtaken", h.str(h.ops[v.op].thread)}, {"overtaken_op", h.ops[v.op].id}, {"enqueued_us", v.enqueue_t},
                      {"verdict", r.rule.empty() ? "violation" : "allowed"}, {"rule", r.rule}});
    }
  }
  PropertyResult res;
  const std::vector<IllegalEviction> evictions = illegal_evictions(h, tol);
  if (bad == nullptr && !evictions.empty()) {
    const IllegalEviction& ev = evictions.front();
    const Exec& x = h.execs[ev.exec];
    const Operation& by = h.ops[h.op_index(x.op_id)];
    std::string waiter(h.str(ev.waiter));
    for (const Operation& op : h.ops) {
      if (op.owner == ev.waiter) {
        waiter = std::string(h.str(op.thread)) + " (owner " + waiter + ")";
        break;
      }
    }
    const std::string text = std::string(h.str(by.thread)) + "'s script at " + format_time(x.t) + " removed " +
                             waiter + " from the queue of " + std::string(h.str(by.lock)) +
                             " while its timeout (" + ev.score + " ms, a client time) had not passed (the true time was " +
                             std::to_string(x.t / kUsPerMs) + " ms): only a stale head may be evicted" +
                             client_clock_note(h, h.client_of(by.thread), x.t);
    res = make_result(name, Verdict::kViolation, "illegal eviction: " + text);
    res.counterexample = {{"evicted", h.str(ev.waiter)}, {"by_op", by.id}, {"by_thread", h.str(by.thread)},
                          {"t_us", x.t}, {"local_ms", x.local_ms}, {"score", ev.score}};
    res.explanation.text = text + ".";
    res.explanation.facts = res.counterexample;
  } else if (bad == nullptr) {
    res = make_result(name, h.complete ? Verdict::kOk : Verdict::kUnknown,
                      std::string(h.complete ? "" : "history incomplete; ") + std::to_string(grants) + " grant(s) in FIFO order; " +
                          std::to_string(allowed) + " reordering(s), all allowed");
  } else {
    const Entry& g = all[bad->granted];
    const Entry& v = all[bad->overtaken];
    const Operation& gop = h.ops[g.op];
    const Operation& vop = h.ops[v.op];
    const std::string text = std::string(h.str(gop.thread)) + " was granted " + std::string(h.str(gop.lock)) + " at " +
                             format_time(g.grant_t) + " ahead of " + std::string(h.str(vop.thread)) + ", which enqueued at " +
                             format_time(v.enqueue_t) + " and was still waiting (last attempt at " +
                             format_time(last_attempt(v, g.grant_t)) + "; not evictable before " +
                             format_time(evictable_at(v, g.grant_t, wait_ms)) + " with threadWaitTime " + std::to_string(wait_ms) +
                             " ms; its own wait had not run out)" +
                             // The granting script evicts stale heads first, by its caller's clock.
                             client_clock_note(h, h.client_of(gop.thread), g.grant_t) +
                             queue_loss_note(h, gop.lock, v.enqueue_t, g.grant_t) + brought_back_note(h, g, gop);
    res = make_result(name, Verdict::kViolation, "FIFO inversion: " + text);
    res.counterexample = {{"granted", {{"op", gop.id}, {"thread", h.str(gop.thread)}, {"grant_us", g.grant_t}, {"enqueued_us", g.enqueue_t}}},
                          {"overtaken", {{"op", vop.id}, {"thread", h.str(vop.thread)}, {"enqueued_us", v.enqueue_t}}}};
    res.explanation.text = text + ".";
    res.explanation.facts = res.counterexample;
  }
  res.details = {{"grants", grants}, {"reorderings", list}, {"allowed", allowed},
                 {"violations", static_cast<int64_t>(found.size()) - allowed}, {"thread_wait_ms", wait_ms}};
  LS_ASSERT(res.name == name);
  return res;
}

}  // namespace lockstep::checker
