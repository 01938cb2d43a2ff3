// Parsing faults: the fixed schedule and the random profile.
#include <algorithm>
#include <set>

#include "algorithms/algorithm.h"
#include "harness/scenario/fault_table.h"
#include "harness/scenario/parse_internal.h"

namespace lockstep::scenario::internal {
namespace {

// The kinds' names, for the "kind" field's choice: every kind, or those a random profile draws.
// Built once: a schedule may hold 100,000 faults.
const std::vector<std::string>& kind_names(bool random_only) {
  static const auto names = [](bool random) {
    std::vector<std::string> out;
    for (const FaultKindInfo& k : fault_table()) {
      if (!random || k.random) out.emplace_back(fault_kind_name(k.kind));
    }
    return out;
  };
  static const std::vector<std::string> all = names(false), drawn = names(true);
  return random_only ? drawn : all;
}

// Is `name` a thread of the scenario ("<client>/t<k>")?
bool is_thread(const Scenario& s, const std::string& name) {
  const size_t slash = name.rfind("/t");
  if (slash == std::string::npos || slash + 2 >= name.size()) return false;
  const std::string client = name.substr(0, slash);
  const std::string index = name.substr(slash + 2);
  if (!std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  if (index.size() > 1 && index[0] == '0') return false;
  for (const ClientSpec& c : s.clients) {
    if (c.name == client) return index.size() <= 9 && std::stoll(index) < c.threads;
  }
  return false;
}

// What may a fault of `kind` target? Reports an error naming what was expected.
void check_target(FaultKind kind, const std::string& target, const std::string& path, const Scenario& s,
                  Errors& errors) {
  if (!errors.ok()) return;
  const bool node = s.is_node(target);
  std::string expected;
  switch (fault_info(kind).targets) {
    case FaultTargets::kLink:
    case FaultTargets::kGroups:
    case FaultTargets::kProcess:
      if (!node && !s.is_client(target)) expected = "the name of a client or a node";
      break;
    case FaultTargets::kNode:
      if (!node) expected = "the name of a node";
      break;
    case FaultTargets::kClient:
      if (!s.is_client(target)) expected = "the name of a client";
      break;
    case FaultTargets::kThread:
      if (!is_thread(s, target)) {
        expected = "the name of a client's thread, like \"" + (s.clients.empty() ? std::string("c1") : s.clients.front().name) + "/t0\"";
      }
      break;
    case FaultTargets::kReplicatedNode:
      if (s.topology.kind != TopologyKind::kReplicated) {
        errors.message(path, "\"" + std::string(fault_kind_name(kind)) + "\" needs a \"replicated\" topology (see /topology)");
        return;
      }
      if (!node) expected = "the name of a node of the replicated topology";
      break;
  }
  if (!expected.empty()) errors.expected(path, expected, target);
}

LinkTarget read_link_target(const nlohmann::json* j, const std::string& path, const Scenario& s,
                            Errors& errors) {
  LinkTarget t;
  if (j == nullptr || (j->is_string() && j->get<std::string>() == "all")) return t;
  if (j->is_string()) {
    t.kind = LinkTarget::Kind::kProcess;
    t.a = j->get<std::string>();
    if (!is_process(s, t.a)) errors.expected(path, "\"all\", a process name, {\"from\", \"to\"} or {\"between\": [a, b]}", *j);
    return t;
  }
  ObjectReader r(*j, path, errors);
  if (r.has("between")) {
    t.kind = LinkTarget::Kind::kBetween;
    const nlohmann::json* b = r.get("between");
    if (!b->is_array() || b->size() != 2 || !(*b)[0].is_string() || !(*b)[1].is_string()) {
      errors.expected(r.path("between"), "two process names", *b);
    } else {
      t.a = (*b)[0].get<std::string>();
      t.b = (*b)[1].get<std::string>();
    }
  } else {
    t.kind = LinkTarget::Kind::kDirected;
    t.a = r.required_string("from");
    t.b = r.required_string("to");
  }
  r.finish();
  for (const std::string* n : {&t.a, &t.b}) {
    if (errors.ok() && !is_process(s, *n)) errors.message(path, "no process named \"" + *n + "\"");
  }
  if (errors.ok() && t.a == t.b) errors.message(path, "a link joins two different processes");
  return t;
}

std::vector<std::vector<std::string>> read_groups(const nlohmann::json* j, const std::string& path,
                                                  const Scenario& s, Errors& errors, bool one_way) {
  std::vector<std::vector<std::string>> groups;
  const std::string want = one_way ? "exactly 2 groups of process names ([[\"c1\"], [\"node0\"]])"
                                   : "2 or more groups of process names ([[\"c1\"], [\"node0\", \"c2\"]])";
  if (j == nullptr || !j->is_array() || j->size() < 2 || (one_way && j->size() != 2)) {
    if (j == nullptr) {
      errors.message(path, "missing: expected " + want);
    } else {
      errors.expected(path, want, *j);
    }
    return groups;
  }
  std::set<std::string> seen;
  for (size_t g = 0; g < j->size() && errors.ok(); ++g) {
    const nlohmann::json& group = (*j)[g];
    const std::string gp = path + "/" + std::to_string(g);
    if (!group.is_array() || group.empty()) {
      errors.expected(gp, "a non-empty array of process names", group);
      break;
    }
    groups.emplace_back();
    for (size_t i = 0; i < group.size() && errors.ok(); ++i) {
      const std::string ip = gp + "/" + std::to_string(i);
      if (!group[i].is_string() || !is_process(s, group[i].get<std::string>())) {
        errors.expected(ip, "the name of a client or a node", group[i]);
      } else if (!seen.insert(group[i].get<std::string>()).second) {
        errors.message(ip, "\"" + group[i].get<std::string>() + "\" is in two groups");
      } else {
        groups.back().push_back(group[i].get<std::string>());
      }
    }
  }
  return groups;
}

// `on`: a string names an event of the fault's own target (a thread, or any thread of a client);
// an object names its subject: {"event", "thread" | "client", "node"}.
FaultTrigger read_trigger(const nlohmann::json& j, const std::string& path, const FaultSpec& f,
                          const Scenario& s, Errors& errors) {
  FaultTrigger t;
  const std::string events = "one of \"acquire_executed\", \"unlock_executed\", \"renew_executed\", \"granted\"";
  auto check_event = [&](const std::string& p) {
    if (std::find(kTriggerEvents.begin(), kTriggerEvents.end(), t.event) == kTriggerEvents.end()) {
      errors.expected(p, events, t.event);
    }
  };
  if (j.is_string()) {
    t.event = j.get<std::string>();
    t.short_form = true;
    check_event(path);
    if (!errors.ok()) return t;
    if (is_thread(s, f.target)) {
      t.thread = f.target;
    } else if (s.is_client(f.target)) {
      t.client = f.target;
    } else {
      errors.message(path, "\"on\": \"" + t.event + "\" is an event of the fault's target, which must be a client or a "
                           "thread; for a node or a link, name whose event: {\"event\": \"" + t.event +
                           "\", \"thread\": \"c1/t0\"} or {..., \"client\": \"c1\"}");
    }
    return t;
  }
  if (!j.is_object()) {
    errors.expected(path, "an event (" + events + ") or {\"event\", \"thread\" or \"client\", \"node\"}", j);
    return t;
  }
  ObjectReader r(j, path, errors);
  t.event = r.required_string("event");
  if (errors.ok()) check_event(r.path("event"));
  t.thread = r.string("thread", "");
  t.client = r.string("client", "");
  t.node = r.string("node", "");
  if (errors.ok() && t.thread.empty() == t.client.empty()) {
    errors.message(path, "name exactly one subject: \"thread\" (\"c1/t0\") or \"client\" (\"c1\")");
  }
  if (errors.ok() && !t.thread.empty() && !is_thread(s, t.thread)) errors.expected(r.path("thread"), "a thread of a client, like \"c1/t0\"", t.thread);
  if (errors.ok() && !t.client.empty() && !s.is_client(t.client)) errors.expected(r.path("client"), "the name of a client", t.client);
  if (errors.ok() && !t.node.empty()) {
    if (t.event == "granted") {
      errors.message(r.path("node"), "\"granted\" happens on the client: it takes no \"node\"");
    } else if (!s.is_node(t.node)) {
      errors.expected(r.path("node"), "the name of a node", t.node);
    }
  }
  r.finish();
  return t;
}

// The kind named by the object's "kind" (restricted to `names`), or nullopt after an error.
std::optional<FaultKind> read_kind(ObjectReader& r, const std::vector<std::string>& names, const char* missing,
                                   Errors& errors) {
  const std::string name = r.choice("kind", "", names);
  if (name.empty() && errors.ok()) errors.message(r.path("kind"), missing);
  if (!errors.ok()) return std::nullopt;
  return parse_fault_kind(name);
}

FaultSpec read_fault(const nlohmann::json& j, const std::string& path, const Scenario& s,
                     Errors& errors) {
  FaultSpec f;
  f.origin = path;
  ObjectReader r(j, path, errors);
  const std::optional<FaultKind> kind = read_kind(r, kind_names(false), "missing: every fault has a \"kind\"", errors);
  f.at_ms = r.required_integer("at_ms", 0, s.duration_ms, "milliseconds, within the run");
  if (!kind.has_value()) return f;
  f.kind = *kind;
  const FaultKindInfo& info = fault_info(f.kind);
  auto read_param = [&](const FaultParam& p) {
    const std::string name(p.name), unit(p.unit);
    if (p.required) {
      f.*p.field = r.required_integer(name, p.lo, p.hi, unit);
    } else {
      f.*p.field = r.integer(name, f.*p.field, p.lo, p.hi, unit);
    }
  };
  // The window first, then the target, then what depends on it (errors come in this order).
  const FaultParam* duration = fault_param(f.kind, "duration_ms");
  if (duration != nullptr) read_param(*duration);
  switch (info.targets) {
    case FaultTargets::kLink:
      f.link = read_link_target(r.get("target"), r.path("target"), s, errors);
      break;
    case FaultTargets::kGroups:
      f.one_way = r.boolean("one_way", false);
      f.groups = read_groups(r.get("groups"), r.path("groups"), s, errors, f.one_way);
      break;
    default:
      f.target = r.required_string("target");
      check_target(f.kind, f.target, r.path("target"), s, errors);
      break;
  }
  for (const FaultParam& p : info.params) {
    if (&p != duration && (!p.node_only || s.is_node(f.target))) read_param(p);
  }
  if (f.kind == FaultKind::kFailover) {
    f.promote = r.string("promote", "");
    if (!f.promote.empty() && errors.ok() && (!s.is_node(f.promote) || f.promote == f.target)) {
      errors.expected(r.path("promote"), "another node of the replicated topology", f.promote);
    }
  } else if (f.kind == FaultKind::kLoseReply) {
    f.match = r.string("match", "");
    check_name(f.match, r.path("match"), errors, "a command name");
  } else if (info.targets == FaultTargets::kThread) {
    const algorithms::AlgorithmInfo* algorithm = algorithms::find_algorithm(s.algorithm);
    if (errors.ok() && algorithm != nullptr && !algorithm->interrupts) {
      errors.message(r.path("kind"), "\"" + std::string(fault_kind_name(f.kind)) + "\" needs an algorithm whose threads can be interrupted "
                     "(redisson-lock, redisson-fair-lock, redisson-fenced-lock, redisson-rwlock); " +
                     s.algorithm + " has no interrupt handling");
    }
  }
  if (const nlohmann::json* on = r.get("on"); on != nullptr && errors.ok()) {
    f.on = read_trigger(*on, r.path("on"), f, s, errors);
  }
  r.finish();
  return f;
}

RandomKind read_random_kind(const nlohmann::json& j, const std::string& path, const Scenario& s,
                            Errors& errors) {
  RandomKind rk;
  ObjectReader r(j, path, errors);
  // Restarts follow crashes; interrupts and cancels target threads, one at a time: schedule them.
  const std::optional<FaultKind> kind = read_kind(r, kind_names(true), "missing: which fault kind to draw", errors);
  if (!kind.has_value()) return rk;
  rk.kind = *kind;
  const FaultKindInfo& info = fault_info(rk.kind);
  if (const nlohmann::json* c = r.get("count")) rk.count = read_range(*c, r.path("count"), errors, 0, 10'000, "faults");
  if (const nlohmann::json* t = r.get("targets")) {
    if (!t->is_array() || t->empty()) errors.expected(r.path("targets"), "a non-empty array of process names", *t);
    for (size_t i = 0; t->is_array() && i < t->size() && errors.ok(); ++i) {
      const std::string p = r.path("targets") + "/" + std::to_string(i);
      if (!(*t)[i].is_string()) {
        errors.expected(p, "a process name", (*t)[i]);
        break;
      }
      const std::string name = (*t)[i].get<std::string>();
      check_target(rk.kind, name, p, s, errors);
      rk.targets.push_back(name);
    }
  } else if (info.targets == FaultTargets::kReplicatedNode && errors.ok() &&
             s.topology.kind != TopologyKind::kReplicated) {
    errors.message(r.path("kind"), "\"" + std::string(fault_kind_name(rk.kind)) + "\" needs a \"replicated\" topology (see /topology)");
  } else if (info.targets == FaultTargets::kClient && errors.ok() && s.clients.empty()) {
    errors.message(r.path("kind"), "no client to target");
  }
  for (const FaultParam& p : info.params) {
    const std::string name(p.name);
    if (const nlohmann::json* v = r.get(name); v != nullptr && p.drawn) rk.params[name] = read_range(*v, r.path(name), errors, p.lo, p.hi, "");
  }
  if (rk.kind == FaultKind::kPartition) rk.one_way_percent = r.integer("one_way_percent", 0, 0, 100, "percent");
  if (rk.kind == FaultKind::kLoseReply) {
    rk.match = r.string("match", "");
    check_name(rk.match, r.path("match"), errors, "a command name");
  }
  rk.on_percent = r.integer("on_percent", 0, 0, 100, "percent");
  if (const nlohmann::json* ev = r.get("on_events"); ev != nullptr && errors.ok()) {
    const std::string want = "a non-empty array of events (\"acquire_executed\", \"unlock_executed\", \"renew_executed\", \"granted\")";
    if (!ev->is_array() || ev->empty()) {
      errors.expected(r.path("on_events"), want, *ev);
    } else {
      rk.on_events.clear();
      for (size_t i = 0; i < ev->size() && errors.ok(); ++i) {
        const nlohmann::json& e = (*ev)[i];
        if (!e.is_string() || std::find(kTriggerEvents.begin(), kTriggerEvents.end(), e.get<std::string>()) == kTriggerEvents.end()) {
          errors.expected(r.path("on_events") + "/" + std::to_string(i), want, e);
        } else {
          rk.on_events.push_back(e.get<std::string>());
        }
      }
    }
  }
  if (rk.on_percent > 0 && errors.ok() && s.clients.empty()) errors.message(r.path("on_percent"), "no client whose events could trigger a fault");
  r.finish();
  return rk;
}

RandomProfile read_random(const nlohmann::json& j, const std::string& path, const Scenario& s,
                          Errors& errors) {
  RandomProfile p;
  ObjectReader r(j, path, errors);
  p.window_ms = Range{0, s.duration_ms};
  if (const nlohmann::json* w = r.get("window_ms")) p.window_ms = read_range(*w, r.path("window_ms"), errors, 0, s.duration_ms, "milliseconds, within the run");
  p.swarm = r.boolean("swarm", true);
  const nlohmann::json* kinds = r.get("kinds");
  if (kinds == nullptr || !kinds->is_array() || kinds->empty()) {
    errors.expected(r.path("kinds"), "a non-empty array of {\"kind\": ..., \"count\": [lo, hi], ...}", kinds ? *kinds : nlohmann::json());
  } else {
    for (size_t i = 0; i < kinds->size() && errors.ok(); ++i) {
      p.kinds.push_back(read_random_kind((*kinds)[i], r.path("kinds") + "/" + std::to_string(i), s, errors));
    }
  }
  r.finish();
  return p;
}

// Clock jumps written in clock specs are faults too (recorded in the history like any other).
void add_clock_jumps(Scenario& s) {
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    for (size_t k = 0; k < s.nodes[i].clock.jumps.size(); ++k) {
      FaultSpec f;
      f.kind = FaultKind::kClockJump;
      f.target = s.node_names[i];
      f.at_ms = s.nodes[i].clock.jumps[k].at_ms;
      f.delta_ms = s.nodes[i].clock.jumps[k].delta_ms;
      f.origin = "/nodes/" + s.node_names[i] + "/clock/jumps/" + std::to_string(k);
      s.schedule.push_back(f);
    }
  }
  for (size_t i = 0; i < s.clients.size(); ++i) {
    for (size_t k = 0; k < s.clients[i].clock.jumps.size(); ++k) {
      FaultSpec f;
      f.kind = FaultKind::kClockJump;
      f.target = s.clients[i].name;
      f.at_ms = s.clients[i].clock.jumps[k].at_ms;
      f.delta_ms = s.clients[i].clock.jumps[k].delta_ms;
      f.origin = "/clients/" + std::to_string(i) + "/clock/jumps/" + std::to_string(k);
      s.schedule.push_back(f);
    }
  }
}

}  // namespace

void parse_faults(const nlohmann::json& j, const std::string& path, Errors& errors, Scenario& s) {
  ObjectReader r(j, path, errors);
  if (const nlohmann::json* sched = r.get("schedule")) {
    if (!sched->is_array() || static_cast<int64_t>(sched->size()) > Limits::kMaxFaults) {
      errors.expected(r.path("schedule"), "an array of at most " + std::to_string(Limits::kMaxFaults) + " faults", *sched);
    }
    for (size_t i = 0; sched->is_array() && i < sched->size() && errors.ok(); ++i) {
      s.schedule.push_back(read_fault((*sched)[i], r.path("schedule") + "/" + std::to_string(i), s, errors));
    }
  }
  if (const nlohmann::json* random = r.get("random")) s.random = read_random(*random, r.path("random"), s, errors);
  r.finish();
}

void finish_faults(Scenario& s) {
  add_clock_jumps(s);
  // Faults are numbered in schedule order; drawn random faults continue the numbering.
  for (size_t i = 0; i < s.schedule.size(); ++i) s.schedule[i].id = static_cast<int64_t>(i) + 1;
}

}  // namespace lockstep::scenario::internal
