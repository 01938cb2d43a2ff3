// Property 7, script invariants: cross-key invariants of the algorithms' data, on the key states
// the simulator recorded after each script (`state` events), so a script that errors halfway is
// caught. Fair lock: the queue list redisson_lock_queue:{L} holds no duplicates and the same
// members as the timeout zset redisson_lock_timeout:{L}. Read-write lock: a lock hash with a
// `mode` field has mode read or write, positive hold counts, and in read mode no `:write`
// holder; in write mode at least one. Any lock hash: hold counts are positive integers.
#include <algorithm>
#include <map>
#include <set>

#include "checker/properties.h"
#include "sim/core/assert.h"

namespace lockstep::checker {
namespace {

constexpr std::string_view kQueuePrefix = "redisson_lock_queue:";
constexpr std::string_view kTimeoutPrefix = "redisson_lock_timeout:";

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Parses a hash value (a JSON string or number token) as a positive integer count.
bool positive_count(std::string_view text) {
  if (!text.empty() && text.front() == '"') text = text.substr(1, text.size() >= 2 ? text.size() - 2 : 0);
  if (text.empty() || text.size() > 18) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return std::stoll(std::string(text)) > 0;
}

std::string unquote(std::string_view text) {
  if (text.size() >= 2 && text.front() == '"') return std::string(text.substr(1, text.size() - 2));
  return std::string(text);
}

// Returns "" when the hash state is valid, else what is wrong.
std::string check_hash(const History& h, const StateRecord& r) {
  const bool has_mode = std::find_if(r.members.begin(), r.members.end(), [&](Sym m) { return h.str(m) == "mode"; }) != r.members.end();
  std::string mode;
  int writers = 0;
  for (size_t i = 0; i < r.members.size(); ++i) {
    const std::string_view field = h.str(r.members[i]);
    const std::string_view value = i < r.values.size() ? h.str(r.values[i]) : std::string_view();
    if (field == "mode") {
      mode = unquote(value);
      continue;
    }
    if (!positive_count(value)) return "field " + std::string(field) + " has hold count " + std::string(value) + " (expected a positive integer)";
    writers += field.size() > 6 && field.substr(field.size() - 6) == ":write";
  }
  if (!has_mode) return "";
  if (mode != "read" && mode != "write") return "mode is '" + mode + "' (expected read or write)";
  if (mode == "read" && writers > 0) return "mode read, but a :write holder is present";
  if (mode == "write" && writers == 0) return "mode write, but no :write holder is present";
  if (mode == "write") {
    // In write mode a read hold is only the writer's own write→read reentry (seed 004).
    for (Sym m : r.members) {
      const std::string field(h.str(m));
      if (field == "mode" || (field.size() > 6 && field.substr(field.size() - 6) == ":write")) continue;
      const Sym writer = h.syms.find(field + ":write");
      if (writer == kNoSym || std::find(r.members.begin(), r.members.end(), writer) == r.members.end()) {
        return "mode write, but " + field + " holds a read lock without holding the write lock";
      }
    }
  }
  return "";
}

// The set of members of a state, or nullopt when the key was never recorded.
std::set<Sym> members(const StateRecord* r) {
  if (r == nullptr || r->type == kNoSym) return {};
  return {r->members.begin(), r->members.end()};
}

std::string check_fair(const History& h, const StateRecord* queue, const StateRecord* timeout) {
  // Each key must hold the type the scripts use before its members mean anything (a script or a
  // plain command may have stored something else under the name).
  if (queue != nullptr && queue->type != kNoSym && h.str(queue->type) != "list") {
    return "the queue " + std::string(h.str(queue->key)) + " holds a " + std::string(h.str(queue->type)) + ", not a list";
  }
  if (timeout != nullptr && timeout->type != kNoSym && h.str(timeout->type) != "zset") {
    return "the timeout set " + std::string(h.str(timeout->key)) + " holds a " + std::string(h.str(timeout->type)) +
           ", not a sorted set";
  }
  if (queue != nullptr && queue->type != kNoSym) {
    std::set<Sym> seen;
    for (Sym m : queue->members) {
      if (!seen.insert(m).second) return "queue list holds " + std::string(h.str(m)) + " twice";
    }
  }
  if (queue == nullptr || timeout == nullptr) return "";
  const std::set<Sym> q = members(queue), z = members(timeout);
  for (Sym m : q) {
    if (!z.count(m)) return std::string(h.str(m)) + " is in the queue list but not in the timeout zset";
  }
  for (Sym m : z) {
    if (!q.count(m)) return std::string(h.str(m)) + " is in the timeout zset but not in the queue list";
  }
  return "";
}

}  // namespace

PropertyResult check_script_invariants(const History& h, const CheckOptions&) {
  const std::string name = "script_invariants";
  const bool needs = h.header.fair || h.header.lock_kind == LockKind::kRwlock;
  if (h.states.empty()) {
    // No script ran at all: there is no state to judge, whatever the lock kind.
    // Lock calls without a single exec event: the history does not record the server side
    // (another tool's log), so that no script ran cannot be told from it.
    if (h.execs.empty() && !h.ops.empty()) {
      return make_result(name, Verdict::kNotApplicable, "no exec or state events recorded (the server side)");
    }
    const bool scripts = std::any_of(h.execs.begin(), h.execs.end(), [&](const Exec& e) { return e.script != kNoSym; });
    if (needs && !scripts) return make_result(name, Verdict::kOk, "no lock script ran: no key state to check");
    return make_result(name, needs ? Verdict::kUnknown : Verdict::kNotApplicable, "no key states recorded (no state events)");
  }
  std::map<std::pair<Sym, Sym>, const StateRecord*> latest;  // (node, key) → last state
  int64_t checked = 0;
  size_t group_start = 0;
  for (size_t i = 0; i < h.states.size(); ++i) {
    const StateRecord& r = h.states[i];
    latest[{r.node, r.key}] = &r;
    // Check once the script's whole group of states (same node and seq) is in.
    const bool group_end = i + 1 == h.states.size() || h.states[i + 1].node != r.node ||
                           h.states[i + 1].seq != r.seq || r.seq == kAbsent;
    if (!group_end) continue;
    const size_t from = group_start;
    group_start = i + 1;
    for (size_t j = from; j <= i; ++j) {
      const StateRecord& s = h.states[j];
      const std::string_view key = h.str(s.key);
      std::string problem;
      if (s.type != kNoSym && h.str(s.type) == "hash") problem = check_hash(h, s);
      if (problem.empty() && (starts_with(key, kQueuePrefix) || starts_with(key, kTimeoutPrefix))) {
        const std::string lock(starts_with(key, kQueuePrefix) ? key.substr(kQueuePrefix.size()) : key.substr(kTimeoutPrefix.size()));
        auto find = [&](std::string_view prefix) -> const StateRecord* {
          const Sym k = h.syms.find(std::string(prefix) + lock);
          auto it = latest.find({s.node, k});
          return k == kNoSym || it == latest.end() ? nullptr : it->second;
        };
        problem = check_fair(h, find(kQueuePrefix), find(kTimeoutPrefix));
      }
      ++checked;
      if (problem.empty()) continue;
      PropertyResult v = make_result(name, Verdict::kViolation,
                                     std::string(key) + " on " + std::string(h.str(s.node)) + " at " + format_time(s.t) + ": " + problem);
      v.counterexample = {{"node", h.str(s.node)}, {"key", key}, {"t_us", s.t}, {"line", s.line}, {"problem", problem}};
      if (s.seq != kAbsent) v.counterexample["seq"] = s.seq;
      v.explanation.text = "after the script with seq " + std::to_string(s.seq) + " ran on " + std::string(h.str(s.node)) +
                           " at " + format_time(s.t) + ", " + std::string(key) + " broke the invariant: " + problem + ".";
      v.explanation.facts = v.counterexample;
      return v;
    }
  }
  PropertyResult r = make_result(name, h.complete ? Verdict::kOk : Verdict::kUnknown,
                                 std::string(h.complete ? "" : "history incomplete; ") + std::to_string(checked) +
                                     " recorded key state(s) satisfy the invariants");
  r.details["states_checked"] = checked;
  LS_ASSERT(r.name == name);
  return r;
}

}  // namespace lockstep::checker
