// HistoryBuilder: one handler per event type that checks the required fields and appends a typed
// record. Invokes are matched with completes by id and hold_begin with hold_end by (thread, lock).
#include "checker/history_builder.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "checker/check.h"
#include "checker/history_line.h"
#include "checker/history_parse.h"
#include "sim/core/json_keys.h"

namespace lockstep::checker {

using fields::LineFields;
namespace F = fields;

namespace {

Status header_error(const std::string& field, const std::string& what) {
  return Status::error("header: field '" + field + "': " + what);
}

// A number the checkers compute with must lie in [lo, hi] (history_parse.h says why).
Status in_range(const char* field, int64_t value, int64_t lo, int64_t hi, const char* what) {
  if (value >= lo && value <= hi) return Status();
  return Status::error(std::string("field '") + field + "': expected " + what + " between " + std::to_string(lo) + " and " +
                       std::to_string(hi) + ", found " + std::to_string(value));
}

Status parse_mode(std::string_view text, bool present, Mode& mode) {
  mode = Mode::kExclusive;
  if (!present || text == "exclusive") return Status();
  if (text == "read") mode = Mode::kRead;
  else if (text == "write") mode = Mode::kWrite;
  else return Status::error("field 'mode': expected exclusive, read or write, found '" + std::string(text) + "'");
  return Status();
}

// EVAL/EVALSHA carry their KEYS in `keys`; their `args` are ARGV, not keys.
bool is_script_command(std::string_view command) {
  auto is = [command](std::string_view upper) {
    return std::equal(command.begin(), command.end(), upper.begin(), upper.end(), [](char a, char b) {
      return std::toupper(static_cast<unsigned char>(a)) == b;
    });
  };
  return is("EVAL") || is("EVALSHA") || is("EVAL_RO") || is("EVALSHA_RO");
}

}  // namespace

HistoryBuilder::HistoryBuilder(std::string source) { history_.source = std::move(source); }
HistoryBuilder::~HistoryBuilder() = default;

Status HistoryBuilder::header(std::string_view line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // A whole JSON document spread over lines (a scenario, a result.json, an explore.json) is
    // the usual way to get here: say what a history is.
    std::string_view first = line;
    while (!first.empty() && (first.back() == ' ' || first.back() == '\t' || first.back() == '\r')) first.remove_suffix(1);
    while (!first.empty() && (first.front() == ' ' || first.front() == '\t')) first.remove_prefix(1);
    if (first == "{" || first == "[") {
      return Status::error("header: not valid JSON: a history is JSON Lines, one object per line, and this line opens a JSON "
                           "document spread over several (a scenario, a result.json or an explore.json? check reads a history.jsonl)");
    }
    return Status::error("header: not valid JSON");
  }
  if (const std::optional<std::string> dup = duplicate_key(line)) {
    return Status::error("header: " + *dup + ": duplicate key (each key may appear once in an object)");
  }
  if (!j.is_object()) return Status::error("header: expected a JSON object");
  HistoryHeader& h = history_.header;
  auto integer = [&](const char* name, int64_t& dst) -> Status {
    if (!j.contains(name)) return Status();
    if (!j[name].is_number_integer()) return header_error(name, "expected an integer, found " + std::string(j[name].type_name()));
    dst = j[name].get<int64_t>();
    return Status();
  };
  if (!j.contains("lockstep_history")) return header_error("lockstep_history", "missing (the first line must be the header)");
  int64_t version = 0;
  if (Status s = integer("lockstep_history", version); !s.ok()) return s;
  if (version != 1) return header_error("lockstep_history", "expected 1, found " + std::to_string(version));
  if (!j.contains("lock_kind") || !j["lock_kind"].is_string()) return header_error("lock_kind", "expected one of reentrant, rwlock, simple, redlock");
  const std::string kind = j["lock_kind"].get<std::string>();
  if (kind == "reentrant") h.lock_kind = LockKind::kReentrant;
  else if (kind == "rwlock") h.lock_kind = LockKind::kRwlock;
  else if (kind == "simple") h.lock_kind = LockKind::kSimple;
  else if (kind == "redlock") h.lock_kind = LockKind::kRedlock;
  else return header_error("lock_kind", "expected one of reentrant, rwlock, simple, redlock, found '" + kind + "'");
  for (const char* name : {"algorithm", "scenario"}) {
    if (j.contains(name) && !j[name].is_string()) return header_error(name, "expected a string");
  }
  h.algorithm = j.value("algorithm", "");
  h.scenario = j.value("scenario", "");
  if (j.contains("seed") && j["seed"].is_number_unsigned()) h.seed = static_cast<int64_t>(j["seed"].get<uint64_t>());
  else if (Status s = integer("seed", h.seed); !s.ok()) return s;
  if (j.contains("nodes")) {
    if (!j["nodes"].is_array()) return header_error("nodes", "expected an array of node names");
    for (const auto& n : j["nodes"]) {
      if (!n.is_string()) return header_error("nodes", "expected an array of node names");
      h.nodes.push_back(n.get<std::string>());
    }
  }
  for (auto [name, dst] : {std::pair{"quorum", &h.quorum}, {"drift_tolerance_us", &h.drift_tolerance_us},
                           {"liveness_bound_ms", &h.liveness_bound_ms}, {"thread_wait_ms", &h.thread_wait_ms}}) {
    if (Status s = integer(name, *dst); !s.ok()) return s;
  }
  if (h.drift_tolerance_us < 0 || h.drift_tolerance_us > kMaxHistoryDurationMs * 1000) {
    return header_error("drift_tolerance_us", "expected between 0 and " + std::to_string(kMaxHistoryDurationMs * 1000));
  }
  if (h.liveness_bound_ms != kAbsent && (h.liveness_bound_ms <= 0 || h.liveness_bound_ms > kMaxHistoryDurationMs)) {
    return header_error("liveness_bound_ms", "expected between 1 and " + std::to_string(kMaxHistoryDurationMs));
  }
  if (h.thread_wait_ms != kAbsent && (h.thread_wait_ms < 0 || h.thread_wait_ms > kMaxHistoryDurationMs)) {
    return header_error("thread_wait_ms", "expected between 0 and " + std::to_string(kMaxHistoryDurationMs));
  }
  if (h.quorum != kAbsent && (h.quorum <= 0 || h.quorum > INT32_MAX)) {
    return header_error("quorum", "expected between 1 and " + std::to_string(INT32_MAX));
  }
  if (j.contains("fair")) {
    if (!j["fair"].is_boolean()) return header_error("fair", "expected true or false");
    h.fair = j["fair"].get<bool>();
  }
  if (j.contains("grant_replies")) {
    const nlohmann::json& g = j["grant_replies"];
    const char* expected =
        "expected an object of script name: the integer reply that grants, null (a nil reply does) or \"never\"";
    if (!g.is_object() || g.size() > 1024) return header_error("grant_replies", expected);
    h.has_grant_replies = true;
    for (auto it = g.begin(); it != g.end(); ++it) {
      const nlohmann::json& v = it.value();
      if (v.is_null()) {
        h.grant_replies[it.key()] = kAbsent;
      } else if (v.is_string() && v.get<std::string>() == "never") {
        h.grant_replies[it.key()] = kNeverGrants;
      } else if (v.is_number_integer() && v.get<int64_t>() != kAbsent && v.get<int64_t>() != kNeverGrants) {
        h.grant_replies[it.key()] = v.get<int64_t>();
      } else {
        return header_error("grant_replies", expected);
      }
    }
  }
  return Status();
}

Status HistoryBuilder::require(const LineFields& f, std::initializer_list<Required> fields) {
  for (const Required& r : fields) {
    if (!f.has(r.bit)) {
      return bad("event '" + std::string(f.type) + "': missing required field '" + r.name + "'");
    }
  }
  return Status();
}

uint32_t HistoryBuilder::pool(const std::vector<std::string_view>& keys) {
  const uint32_t begin = static_cast<uint32_t>(history_.key_pool.size());
  for (std::string_view k : keys) history_.key_pool.push_back(sym(k));
  return begin;
}

uint32_t HistoryBuilder::run_keys(const std::vector<std::string_view>& keys) {
  constexpr size_t kRecent = 1024;
  std::vector<Sym>& pool = history_.key_pool;
  const uint32_t begin = this->pool(keys);
  const auto count = static_cast<uint32_t>(keys.size());
  // A small history's pool is small: sharing starts when its runs are packed (ExecColumn).
  if (count == 0 || !history_.execs.packed()) return begin;
  uint64_t hash = count;
  for (uint32_t i = 0; i < count; ++i) hash = (hash ^ pool[begin + i]) * 0x100000001b3ULL;
  if (recent_keys_.empty()) recent_keys_.assign(kRecent, {0, 0});
  std::pair<uint32_t, uint32_t>& slot = recent_keys_[(hash ^ (hash >> 29)) & (kRecent - 1)];
  if (slot.second == count && std::equal(pool.begin() + begin, pool.end(), pool.begin() + slot.first)) {
    pool.resize(begin);
    return slot.first;
  }
  slot = {begin, count};
  return begin;
}

Status HistoryBuilder::on_invoke(const LineFields& f) {
  if (Status s = require(f, {{F::kId, "id"}, {F::kThread, "thread"}, {F::kLock, "lock"}, {F::kOpStr, "op"}}); !s.ok()) return s;
  if (history_.op_index(f.id) >= 0) return bad("invoke: id " + std::to_string(f.id) + " was already used");
  Operation op;
  op.id = f.id;
  op.invoke_t = f.t;
  op.invoke_line = line;
  op.thread = sym(f.thread);
  op.owner = f.has(F::kOwner) ? sym(f.owner) : op.thread;
  op.lock = sym(f.lock);
  if (f.op_str == "lock") op.kind = OpKind::kLock;
  else if (f.op_str == "try_lock") op.kind = OpKind::kTryLock;
  else if (f.op_str == "unlock") op.kind = OpKind::kUnlock;
  else if (f.op_str == "force_unlock") op.kind = OpKind::kForceUnlock;
  else if (f.op_str == "renew") op.kind = OpKind::kRenew;
  else return bad("field 'op': expected lock, try_lock, unlock, force_unlock or renew, found '" + std::string(f.op_str) + "'");
  Mode mode = Mode::kExclusive;
  if (Status s = parse_mode(f.mode, f.has(F::kMode), mode); !s.ok()) return s;
  op.mode = mode;
  if (f.has(F::kLease)) {
    op.lease_ms = f.lease_ms;
  } else if (op.kind == OpKind::kLock || op.kind == OpKind::kTryLock) {
    // No default is safe: the watchdog's 30 s lets a takeover at 40 s through, no lease at all
    // calls a lock's own expiry a violation. The writer says which (docs/history-format.md).
    return bad("field 'lease_ms': missing on a " + std::string(f.op_str) +
               "; write -1 (the watchdog keeps the lease: watchdog_ms, default 30000), null (no lease: the lock never "
               "expires by itself) or the lease in ms");
  }
  if (f.has(F::kWatchdog)) op.watchdog_ms = f.watchdog_ms;
  if (f.has(F::kWait)) op.wait_ms = f.wait_ms;
  if ((op.lease_ms < -1 || op.lease_ms > kMaxHistoryDurationMs) && op.lease_ms != kNoLeaseMs) {
    return bad("field 'lease_ms': expected null, -1 or a duration between 0 and " + std::to_string(kMaxHistoryDurationMs) +
               " ms, found " + std::to_string(op.lease_ms));
  }
  if (Status s = in_range("watchdog_ms", op.watchdog_ms, 1, kMaxHistoryDurationMs, "a duration in ms"); !s.ok()) return s;
  if (Status s = in_range("wait_ms", op.wait_ms, -1, kMaxHistoryDurationMs, "-1 or a duration in ms"); !s.ok()) return s;
  history_.index_op(op.id, static_cast<uint32_t>(history_.ops.size()));
  history_.ops.push_back(op);
  return Status();
}

Status HistoryBuilder::on_complete(const LineFields& f) {
  if (Status s = require(f, {{F::kId, "id"}, {F::kOutcome, "outcome"}}); !s.ok()) return s;
  const int64_t index = history_.op_index(f.id);
  if (index < 0) return bad("complete: no invoke with id " + std::to_string(f.id) + " before it");
  Operation& op = history_.ops[index];
  if (op.completed) return bad("complete: id " + std::to_string(f.id) + " already completed at line " + std::to_string(op.complete_line));
  if (f.outcome == "ok") op.outcome = Outcome::kOk;
  else if (f.outcome == "fail") op.outcome = Outcome::kFail;
  else if (f.outcome == "unknown") op.outcome = Outcome::kUnknown;
  else return bad("field 'outcome': expected ok, fail or unknown, found '" + std::string(f.outcome) + "'");
  op.completed = true;
  op.complete_t = f.t;
  op.complete_line = line;
  auto tri = [&](uint64_t bit, bool value) { return f.has(bit) ? (value ? Tri::kTrue : Tri::kFalse) : Tri::kAbsent; };
  op.acquired = tri(F::kAcquired, f.acquired);
  op.released = tri(F::kReleased, f.released);
  op.renewed = tri(F::kRenewed, f.renewed);
  if (f.has(F::kCount)) {
    if (Status s = in_range("count", f.count, 0, INT32_MAX, "a hold count"); !s.ok()) return s;
    op.count = static_cast<int32_t>(f.count);
  }
  if (f.has(F::kToken)) op.token = f.token;
  if (f.has(F::kValidity)) {
    if (Status s = in_range("validity_ms", f.validity_ms, -kMaxHistoryDurationMs, kMaxHistoryDurationMs, "a duration in ms"); !s.ok()) return s;
    op.validity_ms = f.validity_ms;
  }
  if (f.has(F::kError)) op.error = sym(f.error);
  if (op.outcome == Outcome::kOk && op.is_acquire() && op.acquired == Tri::kAbsent) {
    op.acquired = op.kind == OpKind::kLock ? Tri::kTrue : Tri::kAbsent;
    if (op.acquired == Tri::kAbsent) return bad("complete: try_lock with outcome ok needs 'acquired'");
  }
  return Status();
}

Status HistoryBuilder::on_hold_begin(const LineFields& f) {
  if (Status s = require(f, {{F::kThread, "thread"}, {F::kLock, "lock"}}); !s.ok()) return s;
  Hold hold;
  hold.thread = sym(f.thread);
  hold.owner = f.has(F::kOwner) ? sym(f.owner) : hold.thread;
  hold.lock = sym(f.lock);
  if (Status s = parse_mode(f.mode, f.has(F::kMode), hold.mode); !s.ok()) return s;
  if (f.has(F::kOpInt)) hold.op_id = f.op_int;
  if (f.has(F::kToken)) hold.token = f.token;
  hold.begin_t = f.t;
  hold.begin_line = line;
  std::vector<std::pair<Sym, uint32_t>>& open = open_of(hold.thread);
  for (auto [lock, i] : open) {
    if (lock == hold.lock && history_.holds[i].mode == hold.mode) {
      return bad("hold_begin: " + std::string(f.thread) + " already holds " + std::string(f.lock) +
                 " (" + mode_name(hold.mode) + ") since line " + std::to_string(history_.holds[i].begin_line));
    }
  }
  open.emplace_back(hold.lock, static_cast<uint32_t>(history_.holds.size()));
  history_.holds.push_back(hold);
  return Status();
}

Status HistoryBuilder::on_hold_end(const LineFields& f) {
  if (Status s = require(f, {{F::kThread, "thread"}, {F::kLock, "lock"}}); !s.ok()) return s;
  const Sym lock = sym(f.lock);
  std::vector<std::pair<Sym, uint32_t>>& open = open_of(sym(f.thread));
  Mode mode = Mode::kExclusive;
  if (f.has(F::kMode)) {
    if (Status s = parse_mode(f.mode, true, mode); !s.ok()) return s;
  }
  size_t pick = open.size();
  for (size_t i = 0; i < open.size(); ++i) {
    if (open[i].first != lock) continue;
    if (pick == open.size() || !f.has(F::kMode) || history_.holds[open[i].second].mode == mode) pick = i;
  }
  if (pick == open.size()) return bad("hold_end: " + std::string(f.thread) + " holds no " + std::string(f.lock));
  Hold& hold = history_.holds[open[pick].second];
  hold.end_t = f.t;
  hold.end_line = line;
  hold.end_reason = sym(f.has(F::kReason) ? f.reason : std::string_view("unlock"));
  open.erase(open.begin() + static_cast<ptrdiff_t>(pick));
  return Status();
}

Status HistoryBuilder::on_write(const LineFields& f) {
  if (Status s = require(f, {{F::kThread, "thread"}, {F::kResource, "resource"}}); !s.ok()) return s;
  Write w;
  w.t = f.t;
  w.thread = sym(f.thread);
  w.owner = f.has(F::kOwner) ? sym(f.owner) : w.thread;
  w.lock = f.has(F::kLock) ? sym(f.lock) : kNoSym;
  w.resource = sym(f.resource);
  if (f.has(F::kToken)) w.token = f.token;
  w.fenced = f.has(F::kFenced) && f.fenced;
  w.accepted = !f.has(F::kAccepted) || f.accepted;
  w.line = line;
  history_.writes.push_back(w);
  return Status();
}

Status HistoryBuilder::on_exec(const LineFields& f) {
  if (Status s = require(f, {{F::kNode, "node"}, {F::kSeq, "seq"}}); !s.ok()) return s;
  Exec e;
  e.t = f.t;
  e.node = sym(f.node);
  e.seq = f.seq;
  if (f.has(F::kLocal)) {
    if (Status s = in_range("local_ms", f.local_ms, -kMaxHistoryLocalMs, kMaxHistoryLocalMs, "a node-local time in ms"); !s.ok()) return s;
    e.local_ms = f.local_ms;
  }
  if (f.has(F::kConn)) e.conn = sym(f.conn);
  if (f.has(F::kCommand)) e.command = sym(f.command);
  if (f.has(F::kScript)) e.script = sym(f.script);
  if (f.has(F::kOpInt)) e.op_id = f.op_int;
  if (f.has(F::kBlocked) && f.blocked) {
    if (f.has(F::kReply)) return bad("an exec with \"blocked\": true has no reply (its answer is an exec of its own)");
    history_.blocked.push_back({e.t, e.node, e.conn, e.command, e.op_id, line});
    return Status();
  }
  if (f.keys.empty() && f.has(F::kFirstArg) && !is_script_command(f.command)) {
    // A plain command (SET, PEXPIRE, ...) has no `keys`: its key is its first argument.
    e.keys_begin = run_keys({f.first_arg});
    e.keys_count = 1;
  } else {
    e.keys_begin = run_keys(f.keys);
    e.keys_count = static_cast<uint32_t>(f.keys.size());
  }
  e.reply = f.reply;
  e.reply_int = f.reply_int;
  e.line = line;
  history_.execs.push_back(e);
  return Status();
}

Status HistoryBuilder::on_state(const LineFields& f) {
  if (Status s = require(f, {{F::kNode, "node"}, {F::kKey, "key"}, {F::kValue, "value"}}); !s.ok()) return s;
  StateRecord r;
  r.t = f.t;
  r.node = sym(f.node);
  r.key = sym(f.key);
  if (f.has(F::kSeq)) r.seq = f.seq;
  // A node's clock stepped back past its start makes its local times, expiries too, negative.
  if (Status s = in_range("expire_at_ms", f.value_expire_at_ms, -kMaxHistoryLocalMs, kMaxHistoryLocalMs, "a node-local time in ms");
      !s.ok()) {
    return s;
  }
  r.expire_at_ms = f.value_expire_at_ms;
  if (!f.value_null) {
    if (f.value_type.empty()) return bad("field 'value': expected an object with 'type' or null");
    r.type = sym(f.value_type);
  }
  // The recorder writes hashes and zsets as one flat `strings` array alternating field (member)
  // and value (score); other writers may use an object or [member, score] pairs.
  const std::string_view type = f.value_null ? std::string_view() : f.value_type;
  if (f.values.empty() && (type == "hash" || type == "zset")) {
    if (f.members.size() % 2 != 0) return bad("field 'value': a " + std::string(type) + " needs field/value pairs in 'strings'");
    for (size_t i = 0; i < f.members.size(); i += 2) {
      r.members.push_back(sym(f.members[i]));
      r.values.push_back(sym(f.members[i + 1]));
    }
  } else {
    for (std::string_view m : f.members) r.members.push_back(sym(m));
    for (std::string_view v : f.values) r.values.push_back(sym(v));
  }
  r.line = line;
  history_.states.push_back(std::move(r));
  return Status();
}

Status HistoryBuilder::on_fault(const LineFields& f) {
  if (Status s = require(f, {{F::kFault, "fault"}, {F::kKind, "kind"}, {F::kPhase, "phase"}}); !s.ok()) return s;
  FaultEvent e;
  e.t = f.t;
  e.fault = f.fault;
  e.kind = sym(f.kind);
  e.known = parse_fault_kind(f.kind);
  e.target = f.has(F::kTarget) ? sym(f.target) : kNoSym;
  if (f.phase == "start") e.phase = FaultPhase::kStart;
  else if (f.phase == "end") e.phase = FaultPhase::kEnd;
  else if (f.phase == "instant") e.phase = FaultPhase::kInstant;
  else return bad("field 'phase': expected start, end or instant, found '" + std::string(f.phase) + "'");
  for (const auto& [k, v] : f.params) {
    // Durations (`*_ms`: jump_ms, delta_ms, duration_ms...) are added to times; other numbers
    // (ppm, counts, another tool's own) are kept as they are.
    if (k.ends_with("_ms") && (v < -kMaxHistoryDurationMs || v > kMaxHistoryDurationMs)) {
      return bad("field 'params': '" + std::string(k) + "' expected between " + std::to_string(-kMaxHistoryDurationMs) +
                 " and " + std::to_string(kMaxHistoryDurationMs) + ", found " + std::to_string(v));
    }
    e.params.emplace_back(sym(k), v);
  }
  e.line = line;
  history_.faults.push_back(std::move(e));
  return Status();
}

Status HistoryBuilder::event(const LineFields& f) {
  if (!f.has(F::kT)) return bad("missing required field 't'");
  if (!f.has(F::kType)) return bad("missing required field 'type'");
  if (f.t < 0 || f.t > kMaxHistoryTimeUs) {
    return bad("field 't': expected a time between 0 and " + std::to_string(kMaxHistoryTimeUs) + " µs, found " + std::to_string(f.t));
  }
  if (f.t < last_t_) return bad("field 't': " + std::to_string(f.t) + " is earlier than the previous event's " + std::to_string(last_t_) + " (events must be in time order)");
  if (ended_) return bad("event after the 'end' footer");
  last_t_ = f.t;
  history_.end_t = f.t;
  const std::string_view type = f.type;
  if (type == "invoke") return on_invoke(f);
  if (type == "complete") return on_complete(f);
  if (type == "hold_begin") return on_hold_begin(f);
  if (type == "hold_end") return on_hold_end(f);
  if (type == "write") return on_write(f);
  if (type == "exec") return on_exec(f);
  if (type == "state") return on_state(f);
  if (type == "fault") return on_fault(f);
  if (type == "expire") {
    if (Status s = require(f, {{F::kNode, "node"}, {F::kKey, "key"}}); !s.ok()) return s;
    if (f.has(F::kLocal)) {
      if (Status s = in_range("local_ms", f.local_ms, -kMaxHistoryLocalMs, kMaxHistoryLocalMs, "a node-local time in ms"); !s.ok()) return s;
    }
    history_.expires.push_back({f.t, sym(f.node), sym(f.key), f.has(F::kLocal) ? f.local_ms : kAbsent, line});
    return Status();
  }
  if (type == "data_loss") {
    if (Status s = require(f, {{F::kNode, "node"}}); !s.ok()) return s;
    const uint32_t begin = pool(f.keys);
    history_.data_losses.push_back({f.t, sym(f.node), sym(f.reason), begin, static_cast<uint32_t>(f.keys.size()), line});
    return Status();
  }
  if (type == "publish") {
    if (Status s = require(f, {{F::kNode, "node"}, {F::kChannel, "channel"}}); !s.ok()) return s;
    ++history_.publish_events;
    return Status();
  }
  if (type == "deliver") {
    if (Status s = require(f, {{F::kThread, "thread"}, {F::kChannel, "channel"}}); !s.ok()) return s;
    ++history_.deliver_events;
    return Status();
  }
  if (type == "node") {
    if (Status s = require(f, {{F::kNode, "node"}, {F::kEvent, "event"}}); !s.ok()) return s;
    history_.node_events.push_back({f.t, sym(f.node), sym(f.event), line});
    return Status();
  }
  if (type == "end") {
    ended_ = true;
    history_.complete = !f.has(F::kComplete) || f.complete;
    return Status();
  }
  return bad("field 'type': unknown event type '" + std::string(type) +
             "' (expected invoke, complete, hold_begin, hold_end, write, exec, expire, data_loss, "
             "publish, deliver, state, node, fault or end)");
}

Status HistoryBuilder::finish() {
  history_.lines = line;
  for (Hold& hold : history_.holds) {
    if (hold.end_t != kTimeNever) continue;
    if (!history_.complete) continue;  // cut short: the hold's end is unknown
    hold.end_t = history_.end_t;
    hold.end_reason = sym("end");
  }
  prepare_grant_rules(history_);
  return Status();
}

Status HistoryBuilder::event_line(std::string_view text) {
  if (parser_ == nullptr) {
    parser_ = std::make_unique<internal::LineParser>();
    line_fields_ = std::make_unique<LineFields>();
  }
  // simdjson reads past the end of its input: the line is copied into a padded buffer.
  line_buffer_.assign(text);
  line_buffer_.append(simdjson::SIMDJSON_PADDING, '\0');
  if (Status s = parser_->parse(line_buffer_.data(), text.size(), line_buffer_.size(), *line_fields_); !s.ok()) return s;
  return event(*line_fields_);
}

}  // namespace lockstep::checker
