#include "checker/explain.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "checker/check.h"
#include "checker/properties.h"
#include "sim/core/assert.h"
#include "sim/core/fault_kind.h"

namespace lockstep::checker {
namespace {

// One event of the story.
struct Item {
  TimeUs t = 0;
  bool cause = false;  // could have made the violation inevitable (a fault, a loss, a failure)
  std::string text;
  nlohmann::json fact;
  // Before a node first granted the first hold: a loss of the key, a stop of the node that then
  // granted it, or a fault over by then. It ended nothing of that hold, and is never its first
  // inevitable event.
  bool before_grant = false;
  // A pause or clock fault of the first holder's own client that could not have held back its
  // next call on the lock past the second acquisition: that call came later than the second
  // acquisition by more than the fault could shift it (a pause by its length, a clock by how far
  // it moved). It explains nothing, and is never the first inevitable event.
  bool too_small = false;
  int64_t fault_index = -1;  // the fault's index in History::faults, for a fault
};

std::string seconds(int64_t ms) {
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

// Commands that only read (a raw one of these explains nothing).
bool read_only(const History& h, const Exec& e) {
  static constexpr std::string_view kReads[] = {"GET", "EXISTS", "TTL", "PTTL", "TYPE", "HGET", "HGETALL", "HEXISTS",
                                                "HLEN", "HKEYS", "HVALS", "HMGET", "LRANGE", "LLEN", "LINDEX", "ZRANGE",
                                                "ZSCORE", "ZCARD", "ZRANK", "SMEMBERS", "SCARD", "SISMEMBER", "STRLEN",
                                                "DUMP", "OBJECT", "KEYS", "SCAN", "EXPIRETIME", "PEXPIRETIME"};
  return std::any_of(std::begin(kReads), std::end(kReads), [&](std::string_view r) { return command_is(h, e, r); });
}

std::string raw_command(const History& h, const Exec& e) {
  std::string text = std::string(h.str(e.conn)) + " sent " + std::string(h.str(e.command));
  if (e.keys_count > 0) text += " " + std::string(h.str(h.key_pool[e.keys_begin]));
  return text + " at " + format_time(e.t) + ", a command outside the lock's operations";
}

// The exec that deleted the lock's key between the first holder's grant and `to`, run for a call
// of another thread (a plain DEL or UNLINK that does not check the owner: an unlock re-sent after
// its first run had already released its own hold, or one of a hold that had expired), as
// "c4/t0's unlock (#42), re-sent, deleted L2 at 96.642 s"; "" when the log shows none.
//
// A command outside every lock operation (no op: a scenario's raw step, an operator, another
// program) that touched the lock's key or flushed the node is named too, whatever it was:
// "ops sent DEL L at 2.000 s, a command outside the lock's operations".
//
// The delete of another thread's call is described in `deletion` (its call, the run's time and
// node, and whether the call had sent it before): for the fault that made the client send it
// again (resend_fault), or what had ended the deleting thread's own key (deleters_key_lost).
struct Deletion {
  const Operation* op = nullptr;
  TimeUs t = 0;
  Sym node = kNoSym;
  bool resent = false;
};

std::string foreign_delete(const History& h, const Conflict& c, TimeUs from, TimeUs to, bool* raw, Deletion* deletion) {
  *raw = false;
  *deletion = Deletion{};
  for (const Exec& e : h.execs) {
    if (e.t < from) continue;
    if (e.t > to) break;
    if (e.op_id == kAbsent) {
      // A script of the algorithm's own run outside any call (a RedLock client releasing the
      // grants of an attempt that failed: redisson-redlock seed 69) is not an outsider's command.
      if (e.script != kNoSym) continue;
      const bool pubsub = h.str(e.conn).ends_with("/pubsub");
      const bool on_lock = e.keys_count > 0 && h.key_pool[e.keys_begin] == c.lock;
      if (!pubsub && !read_only(h, e) && (on_lock || command_is(h, e, "FLUSHALL") || command_is(h, e, "FLUSHDB"))) {
        *raw = true;
        return raw_command(h, e);
      }
      continue;
    }
    if (e.keys_count == 0 || h.key_pool[e.keys_begin] != c.lock) continue;
    if (e.reply != ReplyKind::kInt || e.reply_int < 1) continue;
    if (!command_is(h, e, "DEL") && !command_is(h, e, "UNLINK")) continue;
    const int64_t index = h.op_index(e.op_id);
    if (index < 0 || h.ops[index].thread == c.first_thread) continue;
    const Operation& op = h.ops[index];
    bool sent_before = false;
    for (const Exec& x : h.execs) {
      if (x.t >= e.t) break;
      if (x.op_id == e.op_id && x.command == e.command) {
        sent_before = true;
        break;
      }
    }
    *deletion = Deletion{&op, e.t, e.node, sent_before};
    return call_name(h, op) + (sent_before ? ", re-sent," : "") + " deleted " + std::string(h.str(c.lock)) + " at " + format_time(e.t) + " with " +
           (command_is(h, e, "DEL") ? "DEL" : "UNLINK") + ", which does not check the owner";
  }
  return "";
}

// Whether a fault's target names `process`: the process itself, one of its threads ("c1/t0"),
// "all", or one end of a link or a member of a partition ("c2->node0", "c2<->node0",
// "c2 -> node0,node1", "c1 | node0,c3"). A name may hold a '-'; the arrows are whole.
bool target_names(std::string_view target, std::string_view process) {
  if (target == "all") return true;
  auto names = [&](std::string_view token) {
    return token == process || (token.size() > process.size() && token.substr(0, process.size()) == process &&
                                token[process.size()] == '/');
  };
  size_t at = 0;
  while (at <= target.size()) {
    const size_t end = std::min(target.find_first_of(" ,|", at), target.size());
    std::string_view token = target.substr(at, end - at);
    // A link's two ends.
    for (const std::string_view arrow : {std::string_view("<->"), std::string_view("->")}) {
      if (const size_t a = token.find(arrow); a != std::string_view::npos) {
        if (names(token.substr(0, a))) return true;
        token = token.substr(a + arrow.size());
        break;
      }
    }
    if (names(token)) return true;
    at = end + 1;
  }
  return false;
}

// Whether a fault on `target` cuts `process` off from one of `nodes`: a target with two sides
// ("c2 -> node0,node1", "node1 | node0,c1,c2", "c1<->node0") cuts the processes of one side off
// from those of the other; one without (a process, "all") cuts off what it names.
bool cuts_off(std::string_view target, std::string_view process, const std::vector<std::string>& nodes) {
  size_t at = std::string_view::npos, width = 0;
  for (const std::string_view sep : {std::string_view("<->"), std::string_view("->"), std::string_view("|")}) {
    if (at = target.find(sep); at != std::string_view::npos) {
      width = sep.size();
      break;
    }
  }
  if (at == std::string_view::npos) return target_names(target, process);
  const std::string_view left = target.substr(0, at), right = target.substr(at + width);
  for (const std::string& node : nodes) {
    if ((target_names(left, process) && target_names(right, node)) || (target_names(right, process) && target_names(left, node))) {
      return true;
    }
  }
  return false;
}

// How far clock fault `f` moved its target's clock ahead (`direction` +1) or back (-1), in ms: a
// jump's size, an offset's step (`step_us`: where it set the clock, less where the clock was), a
// drift's rate over its length (rounded up) — for a drift without a length, which never ends,
// over the time up to `until` (kTimeNever: not known); 0 for one that moved it the other way. kAbsent for another fault, or when the history does not give the numbers.
int64_t clock_moved_ms(const History& h, const FaultEvent& f, int direction, TimeUs until = kTimeNever) {
  LS_ASSERT(direction == 1 || direction == -1);
  if (f.is(FaultKind::kClockJump)) {
    int64_t delta_ms = f.param(h.syms, "delta_ms");
    if (delta_ms == kAbsent) delta_ms = f.param(h.syms, "jump_ms");
    return delta_ms == kAbsent ? kAbsent : std::max<int64_t>(0, direction * delta_ms);
  }
  if (f.is(FaultKind::kClockOffset)) {
    // The step the fault made (lockstep writes it as `step_us`; the offset alone is where the
    // clock was set to, not how far it moved), rounded up to whole ms.
    const int64_t step_us = f.param(h.syms, "step_us");
    constexpr int64_t kMaxStepUs = (int64_t{1} << 42) * kUsPerMs;  // a duration's limit (history_parse.h)
    if (step_us == kAbsent || step_us < -kMaxStepUs || step_us > kMaxStepUs) return kAbsent;
    return (std::max<int64_t>(0, direction * step_us) + kUsPerMs - 1) / kUsPerMs;
  }
  if (f.is(FaultKind::kClockDrift)) {
    const int64_t ppm = f.param(h.syms, "drift_ppm");
    int64_t duration_ms = f.param(h.syms, "duration_ms");
    if (duration_ms == kAbsent && until != kTimeNever) duration_ms = std::max<TimeUs>(0, until - f.t) / kUsPerMs;
    if (ppm == kAbsent || duration_ms == kAbsent || duration_ms < 0) return kAbsent;
    return (std::max<int64_t>(0, direction * ppm) * duration_ms + 999'999) / 1'000'000;
  }
  return kAbsent;
}

// When fault `f` and what it held back were over: its start plus its duration and `extra_ms`,
// else its end event's time (a lost reply says how many replies, and ends when they are lost);
// kTimeNever when neither says.
TimeUs fault_over_at(const History& h, const FaultEvent& f) {
  const int64_t duration_ms = f.param(h.syms, "duration_ms");
  if (duration_ms != kAbsent) return f.t + (duration_ms + std::max<int64_t>(0, f.param(h.syms, "extra_ms"))) * kUsPerMs;
  for (const FaultEvent& end : h.faults) {
    if (end.t >= f.t && end.fault == f.fault && end.phase == FaultPhase::kEnd) return end.t;
  }
  return kTimeNever;
}

// A fault as the facts of a story name it (its start).
nlohmann::json fault_fact(const History& h, const FaultEvent& f) {
  return {{"event", "fault"}, {"fault", f.fault}, {"kind", h.str(f.kind)}, {"target", h.str(f.target)}, {"t_us", f.t}};
}

}  // namespace

int64_t fault_behind(const History& h, Sym node, TimeUs t) {
  int64_t own = kAbsent, failover = kAbsent;
  for (const FaultEvent& f : h.faults) {
    if (f.t > t) break;
    if (f.phase == FaultPhase::kEnd || !(f.is(FaultKind::kCrash) || f.is(FaultKind::kRestart) || f.is(FaultKind::kFailover))) continue;
    if (f.target == node) own = f.fault;
    if (f.t == t && f.is(FaultKind::kFailover)) failover = f.fault;
  }
  return own != kAbsent ? own : failover;
}

namespace {

// A fault's start in words: "node1 paused at 49.831 s for 19606 ms (fault #1)", "node2's clock
// jumped by 14908 ms at 28.371 s (fault #2)", "partition on c2 | node0 at 6.386 s for 3 s
// (fault #1)".
std::string fault_words(const History& h, const FaultEvent& f) {
  const std::string target(h.str(f.target));
  const int64_t duration_ms = f.param(h.syms, "duration_ms");
  const std::string lasting = duration_ms == kAbsent ? "" : " for " + seconds(duration_ms);
  std::string text;
  if (f.is(FaultKind::kPause)) {
    text = target + " paused at " + format_time(f.t) + lasting;
  } else if (f.is(FaultKind::kClockJump) && clock_moved_ms(h, f, 1) != kAbsent) {
    int64_t jump = f.param(h.syms, "delta_ms");
    if (jump == kAbsent) jump = f.param(h.syms, "jump_ms");
    text = target + "'s clock jumped by " + std::to_string(jump) + " ms at " + format_time(f.t);
  } else if (f.is(FaultKind::kCrash)) {
    text = target + " crashed at " + format_time(f.t);
  } else if (f.is(FaultKind::kLoseReply)) {
    text = "a reply to " + target + " was lost at " + format_time(f.t);
  } else {
    text = std::string(h.str(f.kind)) + " on " + target + " at " + format_time(f.t) + lasting;
  }
  return text + " (fault #" + std::to_string(f.fault) + ")";
}

// The fault that made a client send a delete again (Deletion): the earliest fault of the network on
// the sender's process or on the node that ran it (a lost reply, a partition, a delay, a drop),
// or a pause or crash of that node, that was under way between the call's invoke and the re-run.
// nullptr when none was.
const FaultEvent* resend_fault(const History& h, const Deletion& r) {
  LS_ASSERT(r.op != nullptr && r.resent);
  const std::string_view sender = h.client_of(r.op->thread), node = h.str(r.node);
  for (const FaultEvent& f : h.faults) {
    if (f.t > r.t) break;
    if (f.phase == FaultPhase::kEnd || !f.known.has_value()) continue;
    const bool network = is_network_fault(*f.known);
    const bool node_stopped = (f.is(FaultKind::kPause) || f.is(FaultKind::kCrash)) && h.str(f.target) == node;
    if (!node_stopped && !(network && (target_names(h.str(f.target), sender) || target_names(h.str(f.target), node)))) continue;
    if (fault_over_at(h, f) < r.op->invoke_t) continue;
    return &f;
  }
  return nullptr;
}

// What had ended the deleting thread's own key on the node its delete ran on, before `before`
// (when the first holder's grant wrote the key anew): a loss of the node's data, or an expiry,
// after the deleter's own latest grant there. The deleter, still believing it held the lock,
// then deleted the first holder's key: setnx-naive seed 92 (a crash lost c3/t0's key, c3/t1
// took the lock, c3/t0's DEL removed it; replay proves the crash). The loss's fault (a crash or
// failover of that node) in `fault`, when the history has one. false when the key was not
// ended before `before` (the deleter's hold was still live there: the design alone did it).
struct DeletersKeyLost {
  TimeUs t = 0;
  std::string text;          // "node0 lost L1 at 77.914 s (restart)"
  const FaultEvent* fault = nullptr;
  bool expired = false;
};
bool deleters_key_lost(const History& h, const Deletion& d, Sym lock, TimeUs before, DeletersKeyLost* out) {
  LS_ASSERT(d.op != nullptr);
  // The deleter's latest grant there; the key was its own until another owner's grant or its own
  // release (then what ended it is not what the deleter missed).
  TimeUs granted = kTimeNever, until = before;
  for (const Exec& x : h.execs) {
    if (x.t >= before) break;
    if (x.node != d.node || x.keys_count == 0 || h.key_pool[x.keys_begin] != lock || x.op_id == kAbsent) continue;
    const int64_t index = h.op_index(x.op_id);
    if (index < 0) continue;
    const Operation& op = h.ops[static_cast<size_t>(index)];
    if (op.owner == d.op->owner && exec_granted(h, x)) {
      granted = x.t;
      until = before;
    } else if (granted != kTimeNever && until == before &&
               (exec_granted(h, x) || (op.owner == d.op->owner && op.kind == OpKind::kUnlock &&
                                       x.reply == ReplyKind::kInt && x.reply_int >= 1))) {
      until = x.t;
    }
  }
  if (granted == kTimeNever) return false;
  before = until;
  for (const DataLoss& loss : h.data_losses) {
    if (loss.t >= before) break;
    if (loss.t < granted || loss.node != d.node) continue;
    bool has_key = false;
    for (uint32_t i = 0; i < loss.keys_count; ++i) has_key = has_key || h.key_pool[loss.keys_begin + i] == lock;
    if (!has_key) continue;
    out->t = loss.t;
    out->text = std::string(h.str(loss.node)) + " lost " + std::string(h.str(lock)) + " at " + format_time(loss.t) + " (" +
                std::string(h.str(loss.reason)) + ")";
    // The crash or failover behind it: the latest one of that node (a failover's loss is on the
    // replica promoted at that instant) up to the loss.
    for (const FaultEvent& f : h.faults) {
      if (f.t > loss.t) break;
      if (f.phase == FaultPhase::kEnd) continue;
      if ((f.is(FaultKind::kCrash) || f.is(FaultKind::kRestart)) && f.target == loss.node) out->fault = &f;
      if (f.is(FaultKind::kFailover) && (f.target == loss.node || f.t == loss.t)) out->fault = &f;
    }
    return true;
  }
  for (const Expire& e : h.expires) {
    if (e.t >= before) break;
    if (e.t < granted || e.node != d.node || e.key != lock) continue;
    out->t = e.t;
    out->expired = true;
    out->text = std::string(h.str(lock)) + " expired on " + std::string(h.str(e.node)) + " at " + format_time(e.t);
    return true;
  }
  return false;
}

class Story {
 public:
  Story(const History& h, const Conflict& c) : h_(h), c_(c), from_(c.first_begin) {
    first_client_ = std::string(h.client_of(c.first_thread));
    if (c.second_thread != kNoSym) second_client_ = std::string(h.client_of(c.second_thread));
    // The story starts when the first holder asked for the lock: what happened between the
    // server's grant and the reply (a pause, a node's clock jump) let the second one in as well.
    for (const Hold& hold : h.holds) {
      if (hold.thread != c.first_thread || hold.lock != c.lock || hold.begin_t != c.first_begin) continue;
      if (const Operation* op = hold_acquisition(h, hold.thread, hold.lock, hold.begin_t, hold.op_id)) {
        from_ = std::min(from_, op->invoke_t);
      }
    }
    // A key's expiry or loss before a node first granted the lock (the previous holder's key
    // expiring at the instant of the grant) did not end this hold, as the grant wrote the key
    // anew (redisson-lock seed 100194, where it hid a node's clock jump). Such an expiry is left
    // out of the story; such a loss stays in it (it may still have moved what came after), and
    // direct_cause looks past it.
    // Not on a quorum lock: an acquisition there grants, releases and retries on independent
    // masters, and a loss on one master may let another client in by way of its quorum.
    granted_from_ = from_;
    const Operation* grant = h.header.quorum_lock() ? nullptr : first_acquisition();
    if (grant != nullptr) {
      for (const Exec& x : h.execs) {
        if (x.t > c.first_begin) break;
        if (x.op_id == grant->id && exec_granted(h, x)) {
          granted_from_ = std::max(from_, x.t);
          granted_line_ = x.line;
          granted_node_ = x.node;
          break;
        }
      }
    }
    // On a quorum lock, the grant each master gave this acquisition that it declared: a key of
    // the lock that expired on a master before that grant, or on one that never granted it, was
    // not this hold's (redis-semaphore-redlock-mutex seed 78 named node1's clock jump, which ran
    // out an earlier key there at the instant of the acquisition's first grant on node1). An
    // acquisition that missed its quorum gives back what it got and tries again, so a master's
    // grant is its latest before the declaration, and one the acquisition gave back (quorum's
    // own_release) is none: the key there was no longer this hold's.
    const Operation* quorum_grant = h.header.quorum_lock() ? first_acquisition() : nullptr;
    if (quorum_grant != nullptr) {
      std::vector<size_t> grant_execs;  // index into h.execs, one per node, as node_grants_
      for (size_t e = 0; e < h.execs.size(); ++e) {
        const Exec& x = h.execs[e];
        if (x.t > c.first_begin) break;
        if (x.op_id != quorum_grant->id || !exec_granted(h, x)) continue;
        auto known = std::find_if(node_grants_.begin(), node_grants_.end(), [&](const NodeGrant& g) { return g.node == x.node; });
        if (known == node_grants_.end()) {
          node_grants_.push_back({x.node, x.t, x.line});
          grant_execs.push_back(e);
        } else {
          *known = {x.node, x.t, x.line};
          grant_execs[static_cast<size_t>(known - node_grants_.begin())] = e;
        }
      }
      for (size_t i = 0; i < node_grants_.size(); ++i) {
        const Exec& grant = h.execs[grant_execs[i]];
        if (grant.keys_count == 0) continue;
        const Sym key = h.key_pool[grant.keys_begin];
        for (size_t e = grant_execs[i] + 1; e < h.execs.size() && h.execs[e].t <= c.first_begin; ++e) {
          const Exec& x = h.execs[e];
          if (x.keys_count > 0 && h.key_pool[x.keys_begin] == key && own_release(h, *quorum_grant, grant, x)) {
            node_grants_[i].given_back = true;
            break;
          }
        }
      }
    }
  }
  Explanation build();

 private:
  TimeUs holder_next_call() const;
  TimeUs find_holder_next_call() const;
  bool holders_fault(const FaultEvent& f) const;
  bool could_delay_holder(const FaultEvent& f) const;
  bool relevant_target(std::string_view target) const;
  bool expired_in_second_grant(const Expire& e) const;
  TimeUs early_by(const Expire& e) const;
  TimeUs cut_short_by(const Expire& e, std::string* by) const;
  TimeUs clock_still_off(Sym node) const;
  void add_faults();
  void add_server_events();
  std::string shortened_by(const Expire& e) const;
  const Item* direct_cause() const;
  void add_renewals();
  void add_force_unlocks();
  void add_stalled_acquisition();
  void add_lease_lapse();
  void add_design_lapse();
  const Item* key_lost() const;
  bool key_set_after(const Item& item) const;
  const Operation* first_acquisition() const;
  std::string name(Sym s) const { return std::string(h_.str(s)); }

  const History& h_;
  const Conflict& c_;
  std::string first_client_, second_client_;
  TimeUs from_;  // the first holder's acquisition began
  TimeUs granted_from_ = 0;  // a node first granted it (from_ when the history does not say)
  uint32_t granted_line_ = 0;  // that run's line (a key that expired at that instant, before it)
  Sym granted_node_ = kNoSym;  // that run's node
  struct NodeGrant {
    Sym node;
    TimeUs t;
    uint32_t line;
    bool given_back = false;  // a failed attempt of the acquisition released it before it declared
  };
  std::vector<NodeGrant> node_grants_;  // quorum lock: each master's latest grant to it

  // Whether an expiry on `node` at `t` (line `line`) came before the quorum acquisition's grant
  // there (the previous key expiring at the grant's instant too), or the master never granted
  // it, or the acquisition gave that grant back: not this hold's key. false on a single-node
  // lock, or when the history logged no grants of the acquisition.
  bool before_node_grant(Sym node, TimeUs t, uint32_t line) const {
    if (node_grants_.empty()) return false;
    for (const NodeGrant& g : node_grants_) {
      if (g.node == node) return g.given_back || t < g.t || (t == g.t && line < g.line);
    }
    return true;
  }
  // Whether a server event at `t` on file line `line` came before the first grant.
  bool before_grant(TimeUs t, uint32_t line) const { return t < granted_from_ || (t == granted_from_ && line < granted_line_); }
  mutable std::map<Sym, TimeUs> still_off_;  // clock_still_off by node
  mutable std::optional<TimeUs> next_call_;   // holder_next_call
  std::vector<Item> chain_;  // between the first hold's start and the second's acquisition
  std::vector<Item> after_;  // after it, until the first holder learned or the run ended
};

bool Story::relevant_target(std::string_view target) const {
  if (target.empty() || target == "all") return true;
  if (target == h_.str(c_.first_thread) || target == first_client_) return true;
  if (!second_client_.empty() && target == second_client_) return false;
  // Nodes, links and partition groups naming the first holder's process or any node.
  for (const std::string& node : h_.header.nodes) {
    if (target.find(node) != std::string_view::npos) return true;
  }
  return target.find(first_client_) != std::string_view::npos ||
         target.rfind("node", 0) == 0;
}

// The earliest fault of the chain that acts directly on what the story turns on: a clock fault,
// crash or failover of the node whose key expired or was lost, else a pause, crash, clock
// fault, lost reply or cut link of the first holder's own client. A partition elsewhere (a replica cut
// off from everyone) comes first in time but explains nothing; without a direct one, the
// earliest fault is named, as before. (lockstep run then proves the cause by replay.)
//
// The key's first expiry or loss since a node granted the hold (before it, the grant wrote the
// key anew), else its first in the story; nullptr when none. (On a quorum lock, the first: which
// loss mattered there, neither the first nor the one that broke the quorum says every time;
// replay does.)
const Item* Story::key_lost() const {
  const Item* lost = nullptr;
  for (const Item& item : chain_) {
    const std::string event = item.fact.value("event", "");
    if ((event == "expire" || event == "data_loss") && (lost == nullptr || (lost->before_grant && !item.before_grant))) {
      lost = &item;
    }
  }
  return lost;
}

// Whether `item`, a clock fault of the node whose key expired (key_lost), was over before the
// holder's key there was last set: a jump, or a drift that ended, before it did not shorten it,
// as a relative TTL runs out on time by any clock (redis-semaphore-redlock-mutex seed 78 named
// node1's jump, 4 s before the grant that set the key which expired, where replay proves the pause
// of another master that held the acquisition back). On a single-node lock early_by says the same
// from the node-local times; a quorum lock has only this.
//
// On a quorum lock, the same of a clock fault of any master: its own key there was set after the
// fault was over, so the fault shortened none of the hold's keys (redlock-spec seed 50027 named
// node1's jump, 13 s before the grant there, once node0's expiry was the story's loss; replay
// proves a lost reply and a delay on node2).
bool Story::key_set_after(const Item& item) const {
  const Item* lost = key_lost();
  const Operation* grant = first_acquisition();
  if (item.fault_index < 0 || lost == nullptr || grant == nullptr || lost->fact.value("event", "") != "expire") return false;
  const FaultEvent& f = h_.faults[static_cast<size_t>(item.fault_index)];
  if (!f.is_clock()) return false;
  const std::string node(h_.str(f.target));  // a quorum lock: any master; else the expiring node
  if (!h_.header.quorum_lock() && node != lost->fact.value("node", "")) return false;
  const TimeUs over = f.is(FaultKind::kClockJump) ? f.t : fault_over_at(h_, f);
  if (over == kTimeNever) return false;
  for (const Exec& x : h_.execs) {
    if (x.t > lost->t) break;
    if (x.t <= over || x.op_id == kAbsent || x.keys_count == 0 || h_.key_pool[x.keys_begin] != c_.lock ||
        h_.str(x.node) != node) {
      continue;
    }
    const int64_t index = h_.op_index(x.op_id);
    if (index < 0) continue;
    const Operation& op = h_.ops[static_cast<size_t>(index)];
    const bool renewed = op.kind == OpKind::kRenew && x.reply == ReplyKind::kInt && x.reply_int >= 1;
    if (op.owner == grant->owner && (renewed || exec_granted(h_, x))) return true;
  }
  return false;
}

// A clock fault of that node counts only if the node's clock moved by enough to matter: had it
// not moved since the key's expiry was set, the key would have outlived the second acquisition
// (early_by). A drift that moved the expiry by a millisecond while the holder was paused past its
// lease explains nothing, and neither does a clock that was ahead all along (a relative TTL runs
// out on time by any clock).
const Item* Story::direct_cause() const {
  std::string node;
  bool clock_mattered = true;
  TimeUs failover_loss_t = kTimeNever;  // a failover's loss happens on the promoted replica, not its target
  const Item* lost = key_lost();
  if (lost != nullptr) {
    const std::string event = lost->fact.value("event", "");
    node = lost->fact.value("node", "");
    if (event == "data_loss" && lost->fact.value("reason", "") == "failover") failover_loss_t = lost->fact.value("t_us", kTimeNever);
    if (event == "expire" && lost->fact.contains("early_us")) {
      clock_mattered = lost->fact.value("t_us", TimeUs{0}) + lost->fact["early_us"].get<TimeUs>() > c_.second_begin;
    }
  }
  // A node's clock fault that moved its clock ahead by so little that, without it, the key would
  // still have expired before the first hold ended (a drift of 38 ms beside a jump of 11 s:
  // redis-semaphore-mutex seed 82) is not the one that mattered; one the history gives no
  // numbers for may be.
  const TimeUs hold_ended = c_.first_end == kTimeNever || c_.first_end_by_lease ? c_.second_begin : c_.first_end;
  auto clock_moved_enough = [&](const Item& item) {
    const FaultEvent& f = h_.faults[static_cast<size_t>(item.fault_index)];
    const int64_t ahead_ms = clock_moved_ms(h_, f, 1);
    return ahead_ms == kAbsent || (ahead_ms > 0 && lost->t + ahead_ms * kUsPerMs > hold_ended);
  };
  auto holder_side = [&](const std::string& target) {
    if (target == first_client_) return true;
    // "c2 -> node0,...", "c2 | node0,..." or "c2 <-> node0": the holder's side of the link.
    return target.rfind(first_client_ + " ", 0) == 0;
  };
  // The failover of the master whose replica, promoted at that instant, lost the key.
  if (failover_loss_t != kTimeNever) {
    for (const Item& item : chain_) {
      if (item.cause && item.fact.value("event", "") == "fault" && item.fact.value("kind", "") == fault_kind_name(FaultKind::kFailover) &&
          item.fact.value("t_us", TimeUs{-1}) == failover_loss_t) {
        return &item;
      }
    }
  }
  // Then what happened to the node itself (its clock ran the key out, it lost the key), then a
  // pause of the holder's client longer than its lease once a node had granted it (which alone
  // lets the lease lapse: `explore --algorithm redisson-fair-lock` seed 32 named a delay 50 s
  // before the grant, while the call waited), then what kept the holder from renewing or
  // releasing.
  const bool leased = c_.lease_ms != kAbsent && c_.lease_ms != kNoLeaseMs;
  // A key of the holder's that a script cut short (cut_short_by) explains the loss before any
  // fault of the holder's client does: only the node's own faults come first.
  const Item* cut = nullptr;
  for (const Item& item : chain_) {
    if (!item.before_grant && item.fact.contains("cut_us")) { cut = &item; break; }
  }
  // A pause of the node comes after the holder's own pause longer than its lease: the node's
  // pause kills a key only when renewals that would have kept it wait behind it, and a holder
  // paused past its lease sent none (its key's TTL ran out inside the node's pause and it expired
  // at the resume: `explore --algorithm redisson-fair-lock` seed 60042 named node0's pause, where
  // replay proves the client's pause alone needed).
  for (int pass = 0; pass < 4; ++pass) {
    if (pass == 1 && cut != nullptr) return cut;
    for (const Item& item : chain_) {
      if (!item.cause || item.before_grant || item.too_small || item.fact.value("event", "") != "fault") continue;
      const std::optional<FaultKind> kind = parse_fault_kind(item.fact.value("kind", ""));
      const std::string target = item.fact.value("target", "");
      if (!kind.has_value()) continue;
      const bool clock = is_clock_fault(*kind);
      const bool stops = *kind == FaultKind::kCrash || *kind == FaultKind::kPause;
      if (pass == 0 && !node.empty() && target == node &&
          ((clock && clock_mattered && clock_moved_enough(item) && !key_set_after(item)) || *kind == FaultKind::kCrash ||
           *kind == FaultKind::kFailover)) {
        return &item;
      }
      if (pass == 1 && leased && *kind == FaultKind::kPause && holder_side(target) && item.t >= granted_from_ &&
          item.fact.value("duration_ms", int64_t{0}) > c_.lease_ms) {
        return &item;
      }
      if (pass == 2 && !node.empty() && target == node && *kind == FaultKind::kPause) return &item;
      // What keeps a holder from renewing or releasing: its clock, a stop, its network (a lost
      // reply, a partition, a drop, a delay); not a replication lag or another node's failover.
      if (pass == 3 && holder_side(target) && (clock || stops || is_network_fault(*kind))) return &item;
    }
  }
  return nullptr;
}

// How much earlier than its holder's lease a key expired because of the clocks: how far the
// expiring node's clock was ahead of true time then, less how far ahead the clock of the node that
// set the expiry was when it did (the first holder's latest run on the key that granted or
// renewed: on whichever node for a replicated lock, as a replica promoted later reads the
// master's deadline by its own clock; on the same node for a quorum lock's independent masters).
// Without such a run, the expiring node's offset. Only a node-local expiry says; 0 within what
// whole-millisecond local times can tell.
TimeUs Story::early_by(const Expire& e) const {
  LS_ASSERT(e.local_ms != kAbsent);
  const TimeUs ahead_at_expiry = e.local_ms * kUsPerMs - e.t;
  const Operation* grant = first_acquisition();
  if (grant == nullptr) return ahead_at_expiry;
  std::optional<TimeUs> ahead_when_armed;  // (runs are read back by value: keep the number)
  for (const Exec& x : h_.execs) {
    if (x.t > e.t || (x.t == e.t && x.line > e.line)) break;
    if (x.op_id == kAbsent || x.local_ms == kAbsent || x.keys_count == 0 || h_.key_pool[x.keys_begin] != e.key) continue;
    const int64_t index = h_.op_index(x.op_id);
    if (index < 0) continue;
    const Operation& op = h_.ops[static_cast<size_t>(index)];
    // A quorum lock's masters are independent: each key was set by the run on its own node.
    if (op.owner != grant->owner || (h_.header.quorum_lock() && x.node != e.node)) continue;
    const bool renewed = op.kind == OpKind::kRenew && x.reply == ReplyKind::kInt && x.reply_int >= 1;
    if (renewed || exec_granted(h_, x)) ahead_when_armed = x.local_ms * kUsPerMs - x.t;
  }
  // Node-local times are whole milliseconds: each offset read is up to 1 ms short.
  constexpr TimeUs kReadError = 2 * kUsPerMs;
  const TimeUs early = ahead_at_expiry - ahead_when_armed.value_or(0);
  return early <= kReadError ? 0 : early;
}

// How much earlier than the run that armed it a key of the first holder's expired, beyond what
// the clocks explain (early_by): a script cut its expiry short (redisson-rwlock seed 56: another
// reader's renewal set every reader's timeout key to 30 s, and a hold with a lease of 60 s lost
// its key 29 s early, so that a release deleted the lock under it). The key is the lock's own or
// one named with the holder's owner; the run is the latest of the owner's grants and renewals of
// the lock on the key's node since the first grant. 0 when the history cannot say: no local
// time, a quorum lock, a loss of the key or a change of the node's role since the grant (a
// promoted replica may hold an older deadline), or no such run.
//
// `by` names the last command outside the lock's operations that wrote to the key after the
// latest arming run ("ops sent PEXPIRE L at 2.000 s, a command outside the lock's operations"),
// else it is empty: a lock's script may or may not have written (only recorded states say:
// shortened_by), and a key that a script names inside itself is not in the log's keys.
TimeUs Story::cut_short_by(const Expire& e, std::string* by) const {
  by->clear();
  if (e.local_ms == kAbsent || h_.header.quorum_lock() || granted_node_ == kNoSym) return 0;
  const Operation* grant = first_acquisition();
  if (grant == nullptr || grant->lease_ms == kNoLeaseMs) return 0;
  const std::string_view key = h_.str(e.key);
  if (e.key != c_.lock && key.find(h_.str(grant->owner)) == std::string_view::npos) return 0;
  for (const DataLoss& d : h_.data_losses) {
    if (d.t > e.t) break;
    if (d.t >= granted_from_ && d.node == e.node) return 0;
  }
  for (const NodeEvent& n : h_.node_events) {
    if (n.t > e.t) break;
    if (n.t >= granted_from_ && n.node == e.node) return 0;
  }
  TimeUs armed = 0;
  // The last run that wrote to the key since the latest arming one (runs are read back by value:
  // keep a copy).
  std::optional<Exec> writer;
  for (const Exec& x : h_.execs) {
    if (x.t > e.t || (x.t == e.t && x.line > e.line)) break;
    if (x.t < granted_from_ || x.node != e.node || x.keys_count == 0) continue;
    const int64_t index = x.op_id == kAbsent ? -1 : h_.op_index(x.op_id);
    const Operation* op = index < 0 ? nullptr : &h_.ops[static_cast<size_t>(index)];
    const bool on_lock = h_.key_pool[x.keys_begin] == c_.lock;
    const bool renewed = op != nullptr && op->kind == OpKind::kRenew && x.reply == ReplyKind::kInt && x.reply_int >= 1;
    if (on_lock && op != nullptr && op->owner == grant->owner && (renewed || exec_granted(h_, x))) {
      if (op->effective_lease_us() == kNoLeaseUs) return 0;
      armed = x.t + op->effective_lease_us();  // the latest run sets the expiry (a re-entry may shorten it)
      writer.reset();
    } else if (op == nullptr && x.script == kNoSym && h_.key_pool[x.keys_begin] == e.key && !read_only(h_, x) &&
               !h_.str(x.conn).ends_with("/pubsub")) {
      writer = x;  // a command outside the lock's operations (a lock's script may not have written)
    }
  }
  // Node-local times are whole milliseconds, and an expiry is seen when the node next looks.
  constexpr TimeUs kSlack = 10 * kUsPerMs;
  const TimeUs explained = e.t + early_by(e);
  if (armed <= explained + kSlack) return 0;
  if (writer.has_value()) *by = raw_command(h_, *writer);
  return armed - explained;
}

// Whether a clock fault of `node` that ended before the story began still acted in it: the
// node's clock stays where a jump (or a drift) left it, so a key of the lock that expired there in
// the story early enough (early_by) that, had the clock not moved, it would have outlived the
// second acquisition, expired early because of it: returns by how much, else 0. (A node clock
// jump 23 s before the hold, then a failover to that node, where the master's deadline for the
// key had already passed: redis-semaphore-mutex seed 100181.)
TimeUs Story::clock_still_off(Sym node) const {
  // Once per node: a long run may hold many clock faults of it, and early_by reads the runs.
  if (const auto known = still_off_.find(node); known != still_off_.end()) return known->second;
  const std::string_view lock = h_.str(c_.lock);
  TimeUs found = 0;
  for (const Expire& e : h_.expires) {
    if (e.t > c_.second_begin) break;
    if (before_grant(e.t, e.line) || e.node != node || e.local_ms == kAbsent || !key_of_lock(h_.str(e.key), lock)) continue;
    const TimeUs early = early_by(e);
    if (early > 0 && e.t + early > c_.second_begin) {
      found = early;
      break;
    }
  }
  still_off_.emplace(node, found);
  return found;
}

// When the first holder's owner next called on the lock (invoked) after the latest call that
// set or re-armed its lease before the second acquisition, or stopped believing it held it, if
// sooner: what a fault of its client would have had to hold back. kTimeNever when the history
// cannot say (no such call, an outcome unknown, no hold end).
TimeUs Story::holder_next_call() const {
  if (!next_call_.has_value()) next_call_ = find_holder_next_call();  // once: it reads every operation
  return *next_call_;
}

TimeUs Story::find_holder_next_call() const {
  const Operation* grant = first_acquisition();
  if (grant == nullptr || grant->complete_t == kTimeNever) return kTimeNever;
  const LeaseEnd end = latest_lease_end(h_, *grant, c_.second_begin);
  if (grant->lease_ms != kNoLeaseMs && end.at == kTimeNever) return kTimeNever;
  const TimeUs since = (end.last_rearm != nullptr ? end.last_rearm : grant)->complete_t;
  TimeUs next = c_.first_end_by_lease ? kTimeNever : c_.first_end;
  for (const Operation& op : h_.ops) {
    if (op.invoke_t >= next) break;  // operations are in invoke order
    if (op.invoke_t > since && op.owner == grant->owner && op.lock == c_.lock) next = op.invoke_t;
  }
  return next;
}

// Whether fault `f` acts on the first holder's own client: it names it (a thread of it, a link
// or partition side), and, for the network, cuts it off from the node that granted it (any
// node, for a quorum lock or when the history does not say). A partition that isolates a
// replica from everyone else leaves the holder's traffic alone (`explore --algorithm
// setnx-naive` seed 84).
bool Story::holders_fault(const FaultEvent& f) const {
  const std::string_view target = h_.str(f.target);
  if (!target_names(target, first_client_)) return false;
  if (target == "all" || !f.known.has_value() || !is_network_fault(*f.known)) return true;
  if (granted_node_ != kNoSym) return cuts_off(target, first_client_, {name(granted_node_)});
  return cuts_off(target, first_client_, h_.header.nodes);
}

// Whether fault `f` (its start) could have kept the first holder from its next call on the lock
// until after the second acquisition: a pause of its client by up to its length, a clock fault by
// how far it moved the clock (a jump's size; a drift's rate over its length), the network by how
// long it overlapped the acquisition. Any other fault, or one whose shift the history does not
// give, could. REQUIRES: holders_fault(f).
bool Story::could_delay_holder(const FaultEvent& f) const {
  LS_ASSERT(holders_fault(f));
  // (A fault of everything acts on the nodes too: not judged here.)
  if (h_.str(f.target) == "all") return true;
  // A timer fires when its process's clock reads its deadline: a clock set back, or slowed,
  // fires it late; one set ahead fires it early, which holds nothing back. The network delays
  // what the holder sent, not when it decided to send it: once its acquisition had returned, a
  // call invoked after the second acquisition was late whatever became of it (a drop on the
  // holder's links while it held a lease it outlived by design: `explore --algorithm
  // python-redis-lock` seed 55). While the acquisition was under way, the network could delay
  // its return, and so everything after it, by as long as the two overlapped (a partition that
  // stretched a RedLock acquisition by 5 s: redis-semaphore-redlock-mutex seed 181).
  int64_t shift_ms = kAbsent;
  if (f.is(FaultKind::kPause)) {
    shift_ms = f.param(h_.syms, "duration_ms");
  } else if (f.known.has_value() && is_network_fault(*f.known)) {
    const Operation* grant = first_acquisition();
    if (grant == nullptr || grant->complete_t == kTimeNever) return true;
    const TimeUs over_at = fault_over_at(h_, f);
    // By at most how long it overlapped the acquisition once a node had granted it (before, it
    // only put off the grant, and the lease with it: a drop while a lock() waited, then a hold
    // that outlived its lease by design, setnx-naive seed 55). A quorum acquisition may grant,
    // release and retry: from its invoke.
    const TimeUs granted = h_.header.quorum_lock() ? grant->invoke_t : std::max(grant->invoke_t, granted_from_);
    const TimeUs overlap = std::min(over_at, grant->complete_t) - std::max(f.t, granted);
    shift_ms = std::max<TimeUs>(0, overlap) / kUsPerMs;
  } else {
    // A drift that never ends counts up to the second acquisition (a client drifting -30 % held
    // its 8 s hold for 11.4 s).
    shift_ms = clock_moved_ms(h_, f, -1, c_.second_begin);
  }
  if (shift_ms == kAbsent || shift_ms < 0) return true;
  const TimeUs next = holder_next_call();
  return next == kTimeNever || next - shift_ms * kUsPerMs <= c_.second_begin;
}

void Story::add_faults() {
  const SymbolTable& syms = h_.syms;
  for (size_t index = 0; index < h_.faults.size(); ++index) {
    const FaultEvent& f = h_.faults[index];
    const std::string kind = name(f.kind);
    const std::string target = name(f.target);
    if (!relevant_target(target)) continue;
    const int64_t duration_ms = f.param(syms, "duration_ms");
    // A fault that began before the first hold and still lasted counts too.
    if (f.t > (c_.first_end == kTimeNever ? h_.end_t : std::max(c_.first_end, c_.second_begin))) continue;
    Item item;
    item.t = f.t;
    item.fault_index = static_cast<int64_t>(index);
    item.fact = fault_fact(h_, f);
    const std::string ref = " (fault #" + std::to_string(f.fault) + ")";
    if (f.phase == FaultPhase::kEnd) {
      if (f.t < from_) continue;
      item.text = f.is(FaultKind::kPause) ? target + " resumed at " + format_time(f.t)
                                          : kind + " on " + target + " ended at " + format_time(f.t);
      item.fact["phase"] = "end";
    } else {
      // What a delay held back arrives up to extra_ms after its end (Redis's view of the fault).
      // When the fault and what it held back were over (kTimeNever: it says no duration).
      const TimeUs over_at = duration_ms == kAbsent ? kTimeNever : fault_over_at(h_, f);
      // A drift without a duration never ends: the clock keeps running fast or slow (an instant
      // fault without one, a jump, is over when it happened).
      const bool lasting = f.is(FaultKind::kClockDrift) && duration_ms == kAbsent;
      const bool over = f.t < from_ && !lasting && (duration_ms == kAbsent || over_at < from_);
      const TimeUs still_ahead_us = over && f.is_clock() ? clock_still_off(f.target) : 0;
      if (over && still_ahead_us == 0) continue;
      item.cause = true;
      // The granting node crashed or paused before it granted: it was back when it did, and the
      // grant wrote the key anew. A fault that had ended before the grant (with what it held
      // back) did nothing to it either: `explore --algorithm redisson-lock` seed 77 named a
      // replication lag that ended 20 s before the grant, where replay shows no fault needed.
      // A clock fault stays a candidate: its clock may still be off (clock_still_off).
      const bool ended_before_grant = over_at != kTimeNever && !f.is_clock() && before_grant(over_at, UINT32_MAX);
      item.before_grant = ended_before_grant || (f.target == granted_node_ && (f.is(FaultKind::kCrash) || f.is(FaultKind::kPause)) &&
                                                 before_grant(f.t, f.line));
      item.too_small = holders_fault(f) && !could_delay_holder(f);
      item.fact["phase"] = f.phase == FaultPhase::kStart ? "start" : "instant";
      if (f.is(FaultKind::kPause)) {
        item.text = target + " paused at " + format_time(f.t);
        if (duration_ms != kAbsent) {
          item.text += " for " + seconds(duration_ms);
          item.fact["duration_ms"] = duration_ms;
          if (c_.lease_ms != kAbsent && c_.lease_ms != kNoLeaseMs && duration_ms > c_.lease_ms) {
            item.text += " > lease " + seconds(c_.lease_ms);
          }
        }
      } else if (f.is(FaultKind::kClockJump)) {
        int64_t jump = f.param(syms, "delta_ms");
        if (jump == kAbsent) jump = f.param(syms, "jump_ms");
        item.text = target + "'s clock jumped" + (jump == kAbsent ? "" : " by " + std::to_string(jump) + " ms") + " at " + format_time(f.t);
      } else if (f.is(FaultKind::kClockOffset) && f.param(syms, "offset_ms") != kAbsent) {
        item.text = target + "'s clock was set " + clock_offset_phrase(f.param(syms, "offset_ms")) + " at " + format_time(f.t);
        if (duration_ms != kAbsent) item.text += " for " + seconds(duration_ms);
      } else if (f.is(FaultKind::kCrash)) {
        item.text = target + " crashed at " + format_time(f.t);
      } else if (f.is(FaultKind::kLoseReply)) {
        item.text = "a reply to " + target + " was lost at " + format_time(f.t);
      } else if (f.is(FaultKind::kInterrupt)) {
        item.text = target + " was interrupted at " + format_time(f.t);
      } else if (f.is(FaultKind::kCancel)) {
        item.text = target + "'s pending tryLock was cancelled at " + format_time(f.t);
      } else {
        item.text = kind + " on " + target + " at " + format_time(f.t);
        if (duration_ms != kAbsent) item.text += " for " + seconds(duration_ms);
      }
      item.text += ref;
      if (still_ahead_us > 0) {
        item.text += ", so that " + name(c_.lock) + " expired there " + format_time(still_ahead_us) + " early";
        item.fact["early_us"] = still_ahead_us;
      }
    }
    (f.t <= c_.second_begin ? chain_ : after_).push_back(std::move(item));
  }
}

// Why a key expired when it did, when the recorded states say: the scripts that brought its
// expiry forward since the story began (a renewal or unlock re-arming a shorter TTL than a
// holder's lease), at most the last three, e.g. " — its expiry (node-local) had been cut by
// c3/t1's read_renew at 95.068 s from 147.193 s to 125.068 s". Empty when no state records
// expiries, or none was cut, or the key's expiry rose again after the last cut.
std::string Story::shortened_by(const Expire& e) const {
  struct Cut {
    const StateRecord* state;
    int64_t from_ms;
  };
  std::vector<Cut> cuts;  // since the story's start, in order
  const StateRecord* prev = nullptr;
  for (const StateRecord& s : h_.states) {
    if (s.line > e.line) break;  // the states before the expiry line (the same instant may follow)
    if (s.key != e.key || s.node != e.node) continue;
    if (prev != nullptr && prev->expire_at_ms > 0 && s.expire_at_ms > 0 && s.expire_at_ms < prev->expire_at_ms &&
        prev->type != kNoSym && s.type != kNoSym && s.t >= from_) {
      cuts.push_back({&s, prev->expire_at_ms});
    }
    prev = &s;
  }
  if (cuts.empty() || prev == nullptr || prev->expire_at_ms != cuts.back().state->expire_at_ms) return "";
  std::string text;
  const size_t first = cuts.size() > 3 ? cuts.size() - 3 : 0;
  for (size_t i = first; i < cuts.size(); ++i) {
    const StateRecord& c = *cuts[i].state;
    std::string who = "a script";
    for (const Exec& x : h_.execs) {
      if (x.node != c.node || x.seq != c.seq) continue;
      const int64_t idx = x.op_id == kAbsent ? -1 : h_.op_index(x.op_id);
      who = (idx >= 0 ? std::string(h_.str(h_.ops[static_cast<size_t>(idx)].thread)) + "'s " : std::string()) +
            (x.script != kNoSym ? std::string(h_.str(x.script)) : std::string(h_.str(x.command)));
      break;
    }
    text += std::string(i == first ? "" : ", then ") + who + " at " + format_time(c.t) + " from " +
            format_time(cuts[i].from_ms * kUsPerMs) + " to " + format_time(c.expire_at_ms * kUsPerMs);
  }
  return " — its expiry (node-local) had been cut by " + text;
}

// A live history stamps an expiry with the time lockstep received the node's notification: a key
// expired lazily inside the second acquirer's granting script is logged just after that script's
// exec, and may be after the acquisition returned. It let the grant in all the same: an expiry of
// the node's key logged after a grant of the second acquisition there, within a second, no later
// by the node's clock.
bool Story::expired_in_second_grant(const Expire& e) const {
  if (c_.second_op == kAbsent || e.local_ms == kAbsent || e.t > c_.second_begin + kUsPerSecond) return false;
  // The runs logged before the expiry: the execs are in line order.
  size_t lo = 0, hi = h_.execs.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (h_.execs[mid].line < e.line) lo = mid + 1; else hi = mid;
  }
  for (size_t k = lo; k-- > 0;) {
    const Exec x = h_.execs[k];
    if (x.t + kUsPerSecond < e.t) break;
    if (x.node == e.node && x.op_id == c_.second_op && x.t <= c_.second_begin && x.local_ms != kAbsent &&
        x.local_ms >= e.local_ms && exec_granted(h_, x)) {
      return true;
    }
  }
  return false;
}

void Story::add_server_events() {
  const std::string_view lock = h_.str(c_.lock);
  const TimeUs from = from_, to = c_.second_begin;
  // Keys of the lock that expired on one node at one instant (a read-write lock's hold timeouts
  // with the lock itself) are one event: the lock's own key is named, or the first, and the
  // others counted (their names stay in the fact).
  const std::vector<Expire>& expires = h_.expires;
  for (size_t i = 0; i < expires.size();) {
    const Expire& first = expires[i];
    size_t end = i + 1;
    while (end < expires.size() && expires[end].t == first.t && expires[end].node == first.node) ++end;
    const Expire* main = nullptr;
    std::vector<const Expire*> others;
    for (size_t j = i; j < end; ++j) {
      const Expire& e = expires[j];
      if (e.t < from || !key_of_lock(h_.str(e.key), lock)) continue;
      if (e.t > to && !expired_in_second_grant(e)) continue;
      if (main == nullptr || (e.key == c_.lock && main->key != c_.lock)) {
        if (main != nullptr) others.push_back(main);
        main = &e;
      } else {
        others.push_back(&e);
      }
    }
    i = end;
    if (main == nullptr) continue;
    const Expire& e = *main;
    // While the first holder's acquisition waited, earlier holders' keys expired, up to the one
    // at the grant's instant that let it in; the grant wrote the key anew, so they explain
    // nothing about this hold (a lock() that waited through five leases listed all five).
    if (before_grant(e.t, e.line) || before_node_grant(e.node, e.t, e.line)) continue;
    Item item{e.t, false, name(e.key) + " expired on " + name(e.node) + " at " + format_time(e.t), {}};
    if (e.local_ms != kAbsent) item.text += " (node-local " + format_time(e.local_ms * kUsPerMs) + ")";
    if (!others.empty()) item.text += ", with " + std::to_string(others.size()) + " more of " + std::string(lock) + "'s keys";
    const std::string shortened = shortened_by(e);
    item.text += shortened;
    item.fact = {{"event", "expire"}, {"node", name(e.node)}, {"key", name(e.key)}, {"t_us", e.t}, {"local_ms", e.local_ms}};
    std::vector<const Expire*> group = {main};
    group.insert(group.end(), others.begin(), others.end());
    for (const Expire* k : group) {
      std::string by;
      const TimeUs cut = cut_short_by(*k, &by);
      if (cut == 0) continue;
      item.fact["cut_us"] = cut;
      item.fact["cut_key"] = name(k->key);
      if (k == main && !shortened.empty()) break;  // the recorded states already say who cut it
      item.text += std::string("; ") + (k == main ? "it" : name(k->key)) + " expired " + format_time(cut) + " before " +
                   name(c_.first_thread) + "'s lease there ran out, which no clock explains" +
                   (by.empty() ? ": a write the log does not show had cut its expiry short" : "; the last write to it: " + by);
      break;
    }
    if (e.local_ms != kAbsent) item.fact["early_us"] = early_by(e);
    if (!others.empty()) {
      nlohmann::json keys = nlohmann::json::array();
      for (const Expire* o : others) keys.push_back(name(o->key));
      item.fact["more_keys"] = std::move(keys);
    }
    chain_.push_back(std::move(item));
  }
  for (const DataLoss& d : h_.data_losses) {
    if (d.t < from || d.t > to) continue;
    for (uint32_t i = 0; i < d.keys_count; ++i) {
      const Sym key = h_.key_pool[d.keys_begin + i];
      if (!key_of_lock(h_.str(key), lock)) continue;
      Item item{d.t, true, name(d.node) + " lost " + name(key) + " at " + format_time(d.t) + " (" + name(d.reason) + ")", {}};
      item.fact = {{"event", "data_loss"}, {"node", name(d.node)}, {"key", name(key)}, {"reason", name(d.reason)}, {"t_us", d.t}};
      if (const int64_t fault = fault_behind(h_, d.node, d.t); fault != kAbsent) item.fact["fault"] = fault;
      item.before_grant = before_grant(d.t, d.line);
      chain_.push_back(std::move(item));
      break;
    }
  }
  for (const NodeEvent& n : h_.node_events) {
    if (n.t < from || n.t > to) continue;
    // A crash the fault schedule caused is already in the chain as that fault; say it once.
    const bool told = name(n.event) == "crashed" &&
                      std::any_of(h_.faults.begin(), h_.faults.end(), [&](const FaultEvent& f) {
                        return f.t == n.t && f.target == n.node && f.is(FaultKind::kCrash);
                      });
    if (told) continue;
    Item item{n.t, true, name(n.node) + " " + name(n.event) + " at " + format_time(n.t), {}};
    item.fact = {{"event", "node"}, {"node", name(n.node)}, {"what", name(n.event)}, {"t_us", n.t}};
    if (const int64_t fault = fault_behind(h_, n.node, n.t); fault != kAbsent) item.fact["fault"] = fault;
    chain_.push_back(std::move(item));
  }
}

void Story::add_renewals() {
  for (const Operation& op : h_.ops) {
    if (op.kind != OpKind::kRenew || op.thread != c_.first_thread || op.lock != c_.lock) continue;
    if (op.invoke_t < from_ || op.invoke_t > c_.second_begin) continue;
    if (op.outcome == Outcome::kOk && op.renewed != Tri::kFalse) continue;
    std::string how = op.outcome == Outcome::kUnknown ? "got no reply"
                      : op.outcome == Outcome::kFail  ? "failed (" + name(op.error) + ")"
                                                      : "returned false";
    // Answered only after the second acquisition (held back by a partition or a delay), the
    // renewal had not failed yet when the lock changed hands: it had not been answered at all.
    const bool late = op.outcome != Outcome::kUnknown && op.complete_t > c_.second_begin;
    if (late) {
      const std::string when = c_.second_thread != kNoSym ? "when " + name(c_.second_thread) + " acquired " + name(c_.lock)
                                                           : "at " + format_time(c_.second_begin);
      how = "was still unanswered " + when + " (it " + how + " at " + format_time(op.complete_t) + ")";
    }
    Item item{op.invoke_t, true, name(op.thread) + "'s renewal at " + format_time(op.invoke_t) + " " + how, {}};
    item.fact = {{"event", "renewal_failed"}, {"op", op.id}, {"t_us", op.invoke_t}, {"outcome", outcome_name(op.outcome)}};
    if (late) item.fact["answered_t_us"] = op.complete_t;
    chain_.push_back(std::move(item));
  }
}

void Story::add_force_unlocks() {
  for (const Operation& op : h_.ops) {
    if (op.kind != OpKind::kForceUnlock || op.lock != c_.lock || op.thread == c_.first_thread) continue;
    if (op.invoke_t < from_ || op.invoke_t > c_.second_begin || op.outcome == Outcome::kFail) continue;
    Item item{op.invoke_t, true, name(op.thread) + " force-unlocked " + name(op.lock) + " at " + format_time(op.invoke_t) +
                                     " (#" + std::to_string(op.id) + ")", {}};
    item.fact = {{"event", "force_unlock"}, {"op", op.id}, {"thread", name(op.thread)}, {"t_us", op.invoke_t}};
    chain_.push_back(std::move(item));
  }
}

// The second acquirer's own client paused, longer than its lease, while its acquisition was under
// way: its grants may have lapsed while it slept, and an algorithm that does not check the time spent (node-redlock #296)
// declares the lock anyway. Its other faults stay out of the story (relevant_target): they
// delayed it, they did not let it in.
void Story::add_stalled_acquisition() {
  if (c_.second_thread == kNoSym || second_client_.empty()) return;
  const Operation* acquisition = nullptr;
  for (const Operation& op : h_.ops) {
    const bool named = c_.second_op != kAbsent ? op.id == c_.second_op : op.complete_t == c_.second_begin;
    if (op.thread == c_.second_thread && op.lock == c_.lock && op.is_acquire() && named) {
      acquisition = &op;
      break;
    }
  }
  if (acquisition == nullptr) return;
  for (const FaultEvent& f : h_.faults) {
    if (f.phase == FaultPhase::kEnd || !f.is(FaultKind::kPause) || name(f.target) != second_client_) continue;
    if (f.t < acquisition->invoke_t || f.t >= acquisition->complete_t) continue;
    const int64_t duration_ms = f.param(h_.syms, "duration_ms");
    // Only a pause that outlasts the acquisition's own lease can have let its grants lapse.
    const int64_t lease_us = acquisition->effective_lease_us();
    if (duration_ms != kAbsent && lease_us != kNoLeaseUs && duration_ms * kUsPerMs < lease_us) continue;
    Item item{f.t, true,
              second_client_ + " paused at " + format_time(f.t) +
                  (duration_ms == kAbsent ? std::string() : " for " + seconds(duration_ms)) + " while " +
                  name(c_.second_thread) + "'s acquisition (#" + std::to_string(acquisition->id) +
                  ", invoked at " + format_time(acquisition->invoke_t) +
                  ") was under way, so that its grants could lapse before it returned (fault #" +
                  std::to_string(f.fault) + ")",
              {}};
    item.fact = {{"event", "fault"}, {"fault", f.fault}, {"kind", "pause"}, {"target", second_client_},
                 {"t_us", f.t}, {"phase", "start"}, {"during_acquisition", acquisition->id}};
    if (duration_ms != kAbsent) item.fact["duration_ms"] = duration_ms;
    chain_.push_back(std::move(item));
  }
}

const Operation* Story::first_acquisition() const {
  return hold_acquisition(h_, c_.first_thread, c_.lock, c_.first_begin, c_.first_op);
}

// A history without the server's side (another tool's log) records no expiry. When the first
// holder's lease had certainly run out before the second acquisition, by the calls' own times,
// that lapse is the story's expiry: without it the story would end "no fault, expiry or loss
// explains it", which is false. "Certainly": counted from the latest moment a call of the owner
// could have set or re-armed the lease (an acquisition, renewal or partial unlock returning),
// plus the clock error the header forgives. A call of the owner whose outcome is unknown could
// have re-armed it at any time after, and a full release means the lease was not what ended the
// hold: in both cases nothing is claimed.
void Story::add_lease_lapse() {
  if (!h_.execs.empty() || c_.lease_ms == kAbsent || c_.lease_ms == kNoLeaseMs) return;
  const Operation* grant = first_acquisition();
  if (grant == nullptr) return;
  const LeaseEnd end = latest_lease_end(h_, *grant, c_.second_begin);
  if (end.at == kTimeNever || end.at >= c_.second_begin) return;
  Item item{end.at, false, name(c_.first_thread) + "'s " + lease_end_text(h_, *grant, end, "had run out by"), {}};
  item.fact = {{"event", "lease_lapsed"}, {"op", grant->id}, {"lease_ms", grant->effective_lease_us() / kUsPerMs},
               {"by_us", end.at}, {"t_us", end.at}};
  if (end.last_rearm != nullptr) item.fact["rearmed_by"] = end.last_rearm->id;
  chain_.push_back(std::move(item));
}

// The first holder kept the lock past a lease that nothing in the history renews: no renewal of
// this lock by anyone in the whole history (the algorithm, as configured, does not extend
// leases: redlock-spec without `extend`, a lock(lease) held longer than its lease), no fault of
// the holder's own client before the second acquisition, and a lease that had certainly run out
// before the second acquisition — counted from the owner's latest grant or re-arm, by the
// calls' return times and by the server's runs (a re-sent acquisition re-arms) — with the key
// expiring on its own after that (the server's log shows the lapse). Then the lapse, not a fault
// of the chain, let the second one in: a fault that ran a key out earlier only hastened what the
// design made certain (`explore --algorithm redlock-spec --options '{"extend": false}'` seed 2
// named a node's clock jump although two of three keys ran out on time).
void Story::add_design_lapse() {
  // (Without the server's side, add_lease_lapse tells the same lapse.)
  if (c_.second_thread == kNoSym || h_.execs.empty()) return;
  const Operation* grant = first_acquisition();
  if (grant == nullptr || grant->lease_ms == kNoLeaseMs) return;
  // Renewals of other owners' holds do not say this one should have been renewed when it asked
  // for a lease of its own (a watchdog renews only a hold without one): then only a renewal by
  // its own owner, anywhere in the history, does.
  const bool own_lease = grant->lease_ms >= 0;
  bool others_renew = false;
  for (const Operation& op : h_.ops) {
    if (op.kind != OpKind::kRenew || op.lock != c_.lock) continue;
    if (!own_lease || op.owner == grant->owner) return;
    others_renew = true;
  }
  // A fault of the holder's own client (a pause, a crash, its clock, its links) may be what kept
  // a renewal or the release from happening: the design is not proven then, unless it could not
  // have held back the holder's next call past the second acquisition (could_delay_holder).
  // When the hold itself, from the acquisition's return to the holder's letting go, was longer
  // than its lease, a fault that was over by that return only moved the hold, which outlived its
  // lease all the same (a partition that stretched a RedLock acquisition, then a hold of 4 s on
  // a lease of 3.3 s: `explore --algorithm node-redlock` seed 84, where replay proves the design).
  const bool hold_outlives_lease = c_.first_end != kTimeNever && !c_.first_end_by_lease &&
                                   grant->complete_t != kTimeNever &&
                                   c_.first_end - grant->complete_t > grant->effective_lease_us();
  for (const FaultEvent& f : h_.faults) {
    if (f.t > c_.second_begin) break;
    if (f.phase == FaultPhase::kEnd) continue;  // its start came first
    if (hold_outlives_lease && fault_over_at(h_, f) <= grant->complete_t) continue;
    if (holders_fault(f) && could_delay_holder(f)) return;
  }
  const LeaseEnd end = latest_lease_end(h_, *grant, c_.second_begin);
  if (end.at == kTimeNever || end.at >= c_.second_begin) return;
  // The server's side: the owner's latest granting run armed the key until `armed` (a re-sent
  // acquisition running late re-arms it), and the key expired on its own after that.
  TimeUs armed = 0;
  for (const Exec& x : h_.execs) {
    if (x.t >= c_.second_begin) break;
    if (x.t < grant->invoke_t || x.op_id == kAbsent || x.keys_count == 0 || h_.key_pool[x.keys_begin] != c_.lock) continue;
    const int64_t index = h_.op_index(x.op_id);
    if (index < 0 || h_.ops[static_cast<size_t>(index)].owner != grant->owner || !exec_granted(h_, x)) continue;
    armed = std::max(armed, x.t + h_.ops[static_cast<size_t>(index)].effective_lease_us());
  }
  if (armed >= c_.second_begin) return;
  const bool expired = std::any_of(h_.expires.begin(), h_.expires.end(), [&](const Expire& e) {
    return e.key == c_.lock && e.t >= armed && e.t <= c_.second_begin;
  });
  if (!expired) return;
  Item item{end.at, true,
            name(c_.first_thread) + "'s " + lease_end_text(h_, *grant, end, "had run out by") +
                (others_renew ? ": nothing renewed this hold's own lease (other owners' renewals of " + name(c_.lock) +
                                    " renew theirs), and the hold outlived it"
                              : ": nothing in this history renews " + name(c_.lock) + "'s lease, and the hold outlived it"),
            {}};
  item.fact = {{"event", "lease_outlived"}, {"op", grant->id}, {"lease_ms", grant->effective_lease_us() / kUsPerMs},
               {"by_us", end.at}, {"t_us", end.at}};
  chain_.push_back(std::move(item));
}

Explanation Story::build() {
  add_faults();
  add_server_events();
  add_renewals();
  add_force_unlocks();
  add_stalled_acquisition();
  add_lease_lapse();
  add_design_lapse();
  auto by_time = [](const Item& a, const Item& b) { return a.t < b.t; };
  std::stable_sort(chain_.begin(), chain_.end(), by_time);
  // The first holder outlived a lease nothing renews: that, not any fault, is the cause.
  const Item* design_lapse = nullptr;
  for (const Item& item : chain_) {
    if (item.fact.value("event", "") == "lease_outlived") design_lapse = &item;
  }
  std::stable_sort(after_.begin(), after_.end(), by_time);
  const std::string first = name(c_.first_thread), lock = name(c_.lock);
  const std::string second = c_.second_thread == kNoSym ? std::string() : name(c_.second_thread);
  // Times that read alike at a millisecond get their microseconds (a history whose events are
  // microseconds apart read "B held L from 0.000 s; A acquired L at 0.000 s").
  std::string text = first + " held " + lock + " from " + format_time_beside(c_.first_begin, {c_.second_begin});
  if (c_.lease_ms == kNoLeaseMs) {
    text += " (no lease)";
  } else if (c_.lease_ms != kAbsent) {
    text += " (lease " + seconds(c_.lease_ms) + ")";
  }
  nlohmann::json chain = nlohmann::json::array();
  for (const Item& item : chain_) {
    text += "; " + item.text;
    chain.push_back(item.fact);
  }
  if (c_.second_thread == kNoSym) {
    text += "; " + c_.loser_call + " at " + format_time(c_.second_begin) + " found " + lock + " gone";
  } else {
    text += "; " + second + " acquired " + lock + " at " + format_time_beside(c_.second_begin, {c_.first_end, c_.first_begin}) +
            " while " + first;
    if (c_.first_end_by_lease && c_.first_end > c_.second_begin) {
      // Without holds nobody's belief is recorded: the hold's end here is where its lease ran out.
      text += "'s lease still bound it (until " + format_time_beside(c_.first_end, {c_.second_begin}) + ")";
    } else if (c_.first_end == kTimeNever || c_.first_end > c_.second_begin) {
      text += " still believed it held it";
      if (c_.first_end != kTimeNever) text += " (until " + format_time_beside(c_.first_end, {c_.second_begin}) + ")";
    } else {
      // The first holder had already let go; its lease, not its belief, was in the way.
      text += "'s lease still bound it (its hold had ended at " + format_time_beside(c_.first_end, {c_.second_begin}) + ")";
    }
  }
  for (const Item& item : after_) {
    text += "; " + item.text;
    chain.push_back(item.fact);
  }
  const Item* cause = design_lapse != nullptr ? design_lapse : direct_cause();
  // Another client's owner-blind delete of the key ended the hold: that, not the earliest fault
  // of the chain, is what let the second one in (setnx-naive seed 34 named a drop on the node;
  // replay proves the drop that made the deleting client send its DEL again).
  bool raw = false;
  Deletion deletion;
  const std::string deleted = cause == nullptr ? foreign_delete(h_, c_, c_.first_begin, c_.second_begin, &raw, &deletion) : "";
  if (cause == nullptr && deleted.empty()) {
    for (const Item& item : chain_) {
      // A loss before the grant did not end this hold (the grant wrote the key anew), nor did a
      // node's clock fault over before the key that expired was set.
      if (item.cause && !item.before_grant && !item.too_small && !key_set_after(item)) { cause = &item; break; }
    }
  }
  if (cause == nullptr && deleted.empty()) {  // an expiry (a fault's end is never a cause)
    for (const Item& item : chain_) {
      if (!item.before_grant && !item.too_small && item.fact.value("phase", "") != "end") { cause = &item; break; }
    }
  }
  nlohmann::json facts = {{"lock", lock},
                          {"first", {{"thread", first}, {"begin_us", c_.first_begin}, {"end_us", c_.first_end == kTimeNever ? nlohmann::json(nullptr) : nlohmann::json(c_.first_end)}}},
                          {"second", {{"thread", c_.second_thread == kNoSym ? nlohmann::json(nullptr) : nlohmann::json(second)},
                                      {"begin_us", c_.second_begin}}},
                          {"chain", chain}};
  if (cause != nullptr) {
    text += ". First inevitable event: " + cause->text + ".";
    facts["first_inevitable"] = cause->fact;
  } else {
    const FaultEvent* resend = deletion.op == nullptr || !deletion.resent ? nullptr : resend_fault(h_, deletion);
    DeletersKeyLost lost;
    const bool deleter_lost =
        resend == nullptr && deletion.op != nullptr && deleters_key_lost(h_, deletion, c_.lock, granted_from_, &lost);
    // On a quorum lock the second acquisition may have declared success on grants that had died.
    const Operation* second_op =
        c_.second_thread == kNoSym ? nullptr : hold_acquisition(h_, c_.second_thread, c_.lock, c_.second_begin, c_.second_op);
    int64_t shortfall_fault = kAbsent;
    const std::string shortfall = second_op == nullptr ? "" : quorum_shortfall(h_, *second_op, &shortfall_fault);
    if (!shortfall.empty()) {
      text += ". No fault, expiry or loss of " + first + "'s explains it; " + second + "'s own grants do: its " +
              op_kind_name(second_op->kind) + " (#" + std::to_string(second_op->id) + "), declared at " +
              format_time(second_op->complete_t) + ", " + shortfall + ".";
      facts["second_short_of_quorum"] = shortfall;
      // The earliest fault that sentence names is where the story starts (redis-semaphore-
      // redlock-mutex seed 60051: node1's pause kept the client waiting for its reply while its
      // other keys ran out; replay proves it needed).
      for (const FaultEvent& f : h_.faults) {
        if (f.fault != shortfall_fault || f.phase == FaultPhase::kEnd) continue;
        text += " First inevitable event: " + fault_words(h_, f) + ".";
        facts["first_inevitable"] = fault_fact(h_, f);
        break;
      }
    } else if (raw) {
      text += ". No fault, expiry or loss explains it: " + deleted + ".";
    } else if (resend != nullptr) {
      // The algorithm's owner-blind delete did the harm, but only because a fault made the
      // client send it again (`explore --algorithm setnx-naive` seed 5: a partition of the node,
      // which replay proves needed).
      const int64_t duration_ms = resend->param(h_.syms, "duration_ms");
      std::string what = resend->is(FaultKind::kLoseReply)
                             ? "a reply to " + name(resend->target) + " was lost at " + format_time(resend->t)
                             : name(resend->kind) + " on " + name(resend->target) + " at " + format_time(resend->t) +
                                   (duration_ms == kAbsent ? "" : " for " + seconds(duration_ms));
      text += ". First inevitable event: " + what + " (fault #" + std::to_string(resend->fault) + "), while " +
              call_name(h_, *deletion.op) + " was under way, so that it was sent again: " + deleted + ".";
      facts["first_inevitable"] = fault_fact(h_, *resend);
      facts["first_inevitable"]["resent_op"] = deletion.op->id;
    } else if (deleter_lost) {
      // The algorithm's owner-blind delete did the harm, but only because the deleting thread's
      // own key had gone first: while it still believed it held the lock, or after it had asked to
      // release it and before its delete ran (the node was down: setnx-naive seed 92).
      const std::string deleter = name(deletion.op->thread);
      const std::string pending = deletion.op->invoke_t < lost.t
                                      ? ", before " + call_name(h_, *deletion.op) + ", invoked at " +
                                            format_time(deletion.op->invoke_t) + ", had run there"
                                      : ", while " + deleter + " still believed it held it";
      const std::string why = lost.text + pending + "; " + first + " took " + lock + " since, and " + deleted;
      if (lost.fault != nullptr) {
        text += ". First inevitable event: " + name(lost.fault->kind) + " on " + name(lost.fault->target) + " at " +
                format_time(lost.fault->t) + " (fault #" + std::to_string(lost.fault->fault) + "): " + why + ".";
        facts["first_inevitable"] = fault_fact(h_, *lost.fault);
        facts["first_inevitable"]["deleters_key_lost_us"] = lost.t;
      } else {
        text += ". First inevitable event: " + why + ".";
        facts["first_inevitable"] = {{"event", lost.expired ? "expire" : "data_loss"}, {"node", name(deletion.node)},
                                     {"key", lock}, {"t_us", lost.t}, {"deleter", deleter}};
      }
    } else {
      text += c_.second_thread == kNoSym
                  ? ". No fault, expiry or loss explains it: the algorithm itself let the hold go"
                  : ". No fault, expiry or loss explains it: the algorithm itself let the second "
                    "acquisition in while the first hold was live";
      text += deleted.empty() ? "." : " (" + deleted + ").";
    }
    if (!deleted.empty()) facts["deleted_by"] = deleted;
    if (!facts.contains("first_inevitable")) facts["first_inevitable"] = nullptr;
  }
  return Explanation{text, facts};
}

}  // namespace

const Operation* hold_acquisition(const History& h, Sym thread, Sym lock, TimeUs begin, int64_t op_id) {
  if (op_id != kAbsent) {
    const int64_t index = h.op_index(op_id);
    return index < 0 ? nullptr : &h.ops[static_cast<size_t>(index)];
  }
  const Operation* last = nullptr;
  for (const Operation& op : h.ops) {
    if (op.invoke_t > begin) break;  // operations are in invoke order
    if (op.thread != thread || op.lock != lock || !op.is_acquire()) continue;
    if (op.outcome == Outcome::kOk && op.acquired != Tri::kFalse && op.complete_t <= begin) last = &op;
  }
  return last;
}

int64_t hold_lease_ms(const History& h, const Hold& hold) {
  const Operation* op = hold_acquisition(h, hold.thread, hold.lock, hold.begin_t, hold.op_id);
  if (op == nullptr) return kAbsent;
  return op->lease_ms == kNoLeaseMs ? kNoLeaseMs : op->effective_lease_us() / kUsPerMs;
}

LeaseEnd latest_lease_end(const History& h, const Operation& grant, TimeUs until) {
  LeaseEnd end;
  if (!grant.is_acquire() || grant.complete_t == kTimeNever || grant.lease_ms == kNoLeaseMs) return end;
  TimeUs at = grant.complete_t + grant.effective_lease_us();
  for (const Operation& op : h.ops) {
    if (op.invoke_t > until) break;  // operations are in invoke order
    if (&op == &grant || op.owner != grant.owner || op.lock != grant.lock || op.invoke_t < grant.invoke_t) continue;
    if (op.kind == OpKind::kForceUnlock) continue;
    if (op.complete_t == kTimeNever || op.outcome == Outcome::kUnknown || is_timeout_error(h, op)) return end;
    if (op.outcome != Outcome::kOk) continue;  // a failed call had no effect
    if (op.kind == OpKind::kUnlock && op.released != Tri::kFalse) return end;  // released, or unsaid
    if ((op.is_acquire() && op.acquired == Tri::kFalse) || (op.kind == OpKind::kRenew && op.renewed == Tri::kFalse)) continue;
    const int64_t lease_us = op.kind == OpKind::kUnlock ? grant.effective_lease_us() : op.effective_lease_us();
    if (op.complete_t + lease_us > at) {
      at = op.complete_t + lease_us;
      end.last_rearm = &op;
    }
  }
  end.at = at + h.header.drift_tolerance_us;
  return end;
}

std::string lease_end_text(const History& h, const Operation& grant, const LeaseEnd& end, std::string_view verb) {
  LS_ASSERT(end.at != kTimeNever);
  const Operation& by = end.last_rearm == nullptr ? grant : *end.last_rearm;
  std::string text = "lease of " + seconds(grant.effective_lease_us() / kUsPerMs) + ", " +
                     (end.last_rearm == nullptr ? "set" : "last re-armed") + " by its " + op_kind_name(by.kind) + " (#" +
                     std::to_string(by.id) + ") returning at " + format_time(by.complete_t) + ", " +
                     (end.last_rearm == nullptr ? "was never renewed and " : "") + std::string(verb) + " " + format_time(end.at);
  if (h.header.drift_tolerance_us > 0) text += " (the header's clock tolerance included)";
  return text;
}

bool append_story(const History& history, const Conflict& conflict, Explanation* explanation) {
  if (conflict.first_thread == kNoSym || conflict.first_begin > conflict.second_begin) return false;
  Explanation story = explain_conflict(history, conflict);
  append_sentence(&explanation->text, story.text);
  explanation->facts["story"] = std::move(story.facts);
  return true;
}

const FaultEvent* client_crash(const History& history, Sym thread) {
  const std::string_view client = history.client_of(thread);
  for (const FaultEvent& f : history.faults) {
    if (f.is(FaultKind::kCrash) && history.str(f.target) == client) return &f;
  }
  return nullptr;
}

const DataLoss* latest_loss(const History& history, Sym node, Sym key, TimeUs t) {
  const DataLoss* loss = nullptr;
  for (const DataLoss& d : history.data_losses) {
    if (d.t > t) break;
    if (d.node != node) continue;
    for (uint32_t i = 0; i < d.keys_count; ++i) {
      if (history.key_pool[d.keys_begin + i] == key) loss = &d;
    }
  }
  return loss;
}

const DataLoss* key_brought_back(const History& history, Sym node, Sym lock, TimeUs t, uint32_t after_line,
                                 Sym reentering_owner) {
  const DataLoss* loss = latest_loss(history, node, lock, t);
  if (loss == nullptr || loss->line < after_line) return nullptr;
  for (const Expire& e : history.expires) {
    if (e.t > t) break;
    if (e.line > loss->line && e.node == node && e.key == lock) return nullptr;  // gone since
  }
  for (const Exec& x : history.execs) {
    if (x.t > t) break;
    if (x.line < loss->line || x.node != node || x.keys_count == 0 || history.key_pool[x.keys_begin] != lock) continue;
    if (x.reply == ReplyKind::kInt && x.reply_int == 1 && history.str(x.command) == "DEL") return nullptr;
    const int64_t index = x.op_id == kAbsent ? -1 : history.op_index(x.op_id);
    const Operation* op = index >= 0 ? &history.ops[static_cast<size_t>(index)] : nullptr;
    // The node wrote the key again since (a re-entry of the brought-back hold by its owner does not).
    if (exec_granted(history, x) && (op == nullptr || op->owner != reentering_owner)) return nullptr;
    // A release that ran there (an unlock script deletes the key it finds its token in).
    if (op != nullptr && (op->kind == OpKind::kUnlock || op->kind == OpKind::kForceUnlock) && op->released == Tri::kTrue) {
      return nullptr;
    }
  }
  return loss;
}

std::string key_brought_back_text(const History& history, const DataLoss& loss, Sym lock) {
  return std::string(history.str(loss.node)) + " lost its latest writes to " + std::string(history.str(lock)) + " at " +
         format_time(loss.t) + " (" + std::string(history.str(loss.reason)) + "), which brought back an older value";
}

std::string call_name(const History& history, const Operation& op) {
  return std::string(history.str(op.thread)) + "'s " + op_kind_name(op.kind) + " (#" + std::to_string(op.id) + ")";
}

void append_sentence(std::string* text, std::string_view more) {
  while (!text->empty() && (text->back() == '.' || text->back() == ' ')) text->pop_back();
  if (!text->empty()) *text += ". ";
  *text += more;
}

bool key_of_lock(std::string_view key, std::string_view lock) {
  if (key == lock) return true;
  if (key.size() > lock.size() && key.compare(0, lock.size(), lock) == 0 && key[lock.size()] == ':') return true;
  const std::string tagged = "{" + std::string(lock) + "}";
  return key.find(tagged) != std::string_view::npos;
}

Explanation explain_conflict(const History& history, const Conflict& conflict) {
  LS_ASSERT(conflict.lock != kNoSym);
  LS_ASSERT(conflict.first_begin <= conflict.second_begin);
  return Story(history, conflict).build();
}

}  // namespace lockstep::checker
