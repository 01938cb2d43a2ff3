#include "harness/scenario/parse.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "algorithms/algorithm.h"
#include "algorithms/lua_client/lua_algorithm.h"
#include "checker/check.h"
#include "harness/scenario/parse_internal.h"
#include "sim/core/files.h"
#include "sim/core/json_keys.h"
#include "sim/core/printable.h"

namespace lockstep::scenario {

bool Scenario::is_node(const std::string& n) const {
  return std::find(node_names.begin(), node_names.end(), n) != node_names.end();
}

bool Scenario::is_client(const std::string& n) const {
  return std::any_of(clients.begin(), clients.end(), [&](const ClientSpec& c) { return c.name == n; });
}

int64_t Scenario::total_threads() const {
  int64_t n = 0;
  for (const ClientSpec& c : clients) n += c.threads;
  return n;
}

namespace internal {

bool is_process(const Scenario& s, const std::string& name) {
  return s.is_node(name) || s.is_client(name);
}

kernel::LatencyDist read_dist(const nlohmann::json& j, const std::string& path, Errors& errors) {
  const int64_t max = kernel::LatencyDist::kMaxUs;
  if (j.is_number()) return kernel::LatencyDist::fixed(read_integer(j, path, errors, 0, max, "microseconds"));
  ObjectReader r(j, path, errors);
  const std::string kind = r.choice("kind", "fixed", {"fixed", "uniform", "choice"});
  kernel::LatencyDist d;
  if (kind == "fixed") {
    d = kernel::LatencyDist::fixed(r.required_integer("us", 0, max, "microseconds"));
  } else if (kind == "uniform") {
    const int64_t lo = r.required_integer("min_us", 0, max, "microseconds");
    const int64_t hi = r.required_integer("max_us", lo, max, "microseconds, >= min_us");
    d = kernel::LatencyDist::uniform(lo, std::max(lo, hi));
  } else {
    d.kind = kernel::LatencyDist::Kind::kChoice;
    const nlohmann::json* values = r.get("values_us");
    const nlohmann::json* weights = r.get("weights");
    if (values == nullptr || !values->is_array() || values->empty() || values->size() > 64) {
      errors.expected(r.path("values_us"), "an array of 1 to 64 latencies (microseconds)",
                      values ? *values : nlohmann::json());
    } else {
      for (size_t i = 0; i < values->size(); ++i) {
        d.values_us.push_back(read_integer((*values)[i], r.path("values_us") + "/" + std::to_string(i), errors, 0, max, "microseconds"));
      }
      if (weights == nullptr) {
        d.weights.assign(d.values_us.size(), 1);
      } else if (!weights->is_array() || weights->size() != values->size()) {
        errors.expected(r.path("weights"), "an array as long as values_us", *weights);
      } else {
        for (size_t i = 0; i < weights->size(); ++i) {
          d.weights.push_back(static_cast<uint32_t>(read_integer((*weights)[i], r.path("weights") + "/" + std::to_string(i), errors, 0, 1'000'000)));
        }
      }
      if (errors.ok() && !d.valid()) errors.message(r.path("weights"), "the weights must not all be 0");
    }
  }
  r.finish();
  if (!errors.ok()) return kernel::LatencyDist::fixed(0);
  return d;
}

ClockSpec read_clock(const nlohmann::json& j, const std::string& path, Errors& errors,
                     int64_t duration_ms) {
  ClockSpec c;
  ObjectReader r(j, path, errors);
  const int64_t max_offset_ms = kernel::LocalClock::kMaxOffsetUs / 1000;
  c.offset_ms = r.integer("offset_ms", 0, -max_offset_ms, max_offset_ms, "milliseconds");
  c.drift_ppm = r.integer("drift_ppm", 0, -kernel::LocalClock::kMaxDriftPpm,
                          kernel::LocalClock::kMaxDriftPpm, "parts per million");
  if (const nlohmann::json* jumps = r.get("jumps")) {
    if (!jumps->is_array()) {
      errors.expected(r.path("jumps"), "an array of {\"at_ms\", \"delta_ms\"}", *jumps);
    } else {
      for (size_t i = 0; i < jumps->size() && errors.ok(); ++i) {
        ObjectReader jr((*jumps)[i], r.path("jumps") + "/" + std::to_string(i), errors);
        ClockJump jump;
        jump.at_ms = jr.required_integer("at_ms", 0, duration_ms, "milliseconds, within the run");
        jump.delta_ms = jr.required_integer("delta_ms", -max_offset_ms, max_offset_ms, "milliseconds");
        jr.finish();
        c.jumps.push_back(jump);
      }
    }
  }
  r.finish();
  return c;
}

Range read_range(const nlohmann::json& j, const std::string& path, Errors& errors, int64_t lo,
                 int64_t hi, const std::string& unit) {
  if (j.is_array()) {
    if (j.size() != 2) {
      errors.expected(path, "[low, high]", j);
      return Range{lo, lo};
    }
    const int64_t a = read_integer(j[0], path + "/0", errors, lo, hi, unit);
    const int64_t b = read_integer(j[1], path + "/1", errors, a, hi, unit + (unit.empty() ? "" : ", ") + ">= the low end");
    return Range{a, std::max(a, b)};
  }
  const int64_t v = read_integer(j, path, errors, lo, hi, unit);
  return Range{v, v};
}

}  // namespace internal

namespace {

using internal::read_clock;
using internal::read_dist;


bool valid_name(const std::string& n) {
  if (n.empty() || n.size() > 64 || n == "all") return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

void parse_expect(ObjectReader& top, Scenario& s) {
  const nlohmann::json* j = top.get("expect");
  if (j == nullptr) return;
  ObjectReader r(*j, top.path("expect"), top.errors());
  s.expect.verdict = r.choice("verdict", "ok", {"ok", "violation", "unknown"});
  if (s.expect.verdict == "violation") {
    std::vector<std::string> names = checker::property_names();
    s.expect.property = r.choice("property", "", names);
    if (s.expect.property.empty() && top.errors().ok()) {
      top.errors().message(r.path("property"), "missing: a violation names the property it expects");
    }
  }
  r.finish();
}

void parse_algorithm(ObjectReader& top, Scenario& s) {
  Errors& errors = top.errors();
  const nlohmann::json* j = top.get("algorithm");
  if (j == nullptr) {
    errors.message("/algorithm", "missing: expected {\"name\": ..., \"options\": {...}} or {\"file\": \"my-lock.lua\", ...}");
    return;
  }
  ObjectReader r(*j, "/algorithm", errors);
  const bool from_file = r.valid() && r.has("file");
  if (from_file) {
    const std::string file = r.required_string("file");
    if (r.has("name")) errors.message("/algorithm/name", "give either a name or a file, not both");
    if (errors.ok()) {
      // A relative path is relative to the scenario file's folder.
      std::filesystem::path path(file);
      if (path.is_relative()) path = std::filesystem::path(s.file).parent_path() / path;
      Result<const algorithms::AlgorithmInfo*> loaded = algorithms::lua_client::load_lua_algorithm(path.string());
      if (!loaded.ok()) {
        errors.message("/algorithm/file", loaded.status().message());
      } else {
        s.algorithm = loaded.value()->name;
        s.algorithm_file = algorithms::lua_client::algorithm_file(s.algorithm);
      }
    }
  } else {
    s.algorithm = r.required_string("name");
  }
  if (const nlohmann::json* o = r.get("options")) s.algorithm_options = *o;
  r.finish();
  if (!errors.ok()) return;
  const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(s.algorithm);
  if (info == nullptr || (!from_file && !algorithms::lua_client::algorithm_file(s.algorithm).empty())) {
    std::string known;
    for (const auto& a : algorithms::algorithms()) known += (known.empty() ? "\"" : ", \"") + a.name + "\"";
    errors.expected("/algorithm/name", "a known algorithm (" + known + "), or a Lua file given as \"file\"", s.algorithm);
    return;
  }
  Status v = info->validate(s.algorithm_options, "/algorithm/options");
  if (!v.ok()) errors.raw(v.message());
}

void parse_topology(ObjectReader& top, Scenario& s) {
  const nlohmann::json* j = top.get("topology");
  TopologySpec& t = s.topology;
  if (j != nullptr) {
    ObjectReader r(*j, "/topology", top.errors());
    const std::string kind = r.choice("kind", "single", {"single", "replicated", "independent"});
    if (kind == "replicated") {
      t.kind = TopologyKind::kReplicated;
      t.replicas = r.integer("replicas", 1, 1, Limits::kMaxReplicas);
      if (const nlohmann::json* lag = r.get("replication_lag")) t.replication_lag = read_dist(*lag, r.path("replication_lag"), top.errors());
      if (const nlohmann::json* f = r.get("failover")) {
        ObjectReader fr(*f, r.path("failover"), top.errors());
        t.failover_detection_ms = fr.required_integer("detection_ms", 0, Limits::kMaxDurationMs, "milliseconds");
        fr.finish();
      }
    } else if (kind == "independent") {
      t.kind = TopologyKind::kIndependent;
      t.masters = r.integer("masters", 5, 2, Limits::kMaxMasters);
    }
    r.finish();
  }
  const int64_t n = t.kind == TopologyKind::kReplicated ? 1 + t.replicas
                    : t.kind == TopologyKind::kIndependent ? t.masters : 1;
  for (int64_t i = 0; i < n; ++i) s.node_names.push_back("node" + std::to_string(i));
}

NodeSpec read_node(const nlohmann::json& j, const std::string& path, Errors& errors,
                   const NodeSpec& base, int64_t duration_ms) {
  NodeSpec n = base;
  ObjectReader r(j, path, errors);
  if (const nlohmann::json* p = r.get("persistence")) {
    ObjectReader pr(*p, r.path("persistence"), errors);
    const std::string mode = pr.choice("mode", "none", {"none", "aof-always", "aof-everysec", "rdb"});
    n.options.persistence = mode == "aof-always"     ? kernel::Persistence::kAofAlways
                            : mode == "aof-everysec" ? kernel::Persistence::kAofEverysec
                            : mode == "rdb"          ? kernel::Persistence::kRdb
                                                     : kernel::Persistence::kNone;
    if (mode == "rdb") n.options.rdb_interval_ms = pr.integer("interval_ms", 60'000, 1, Limits::kMaxDurationMs, "milliseconds");
    pr.finish();
  }
  if (const nlohmann::json* c = r.get("clock")) n.clock = read_clock(*c, r.path("clock"), errors, duration_ms);
  n.options.active_expire_interval_ms = r.integer("active_expire_interval_ms", n.options.active_expire_interval_ms, 1, 60'000, "milliseconds");
  r.finish();
  return n;
}

void parse_nodes(ObjectReader& top, Scenario& s) {
  NodeSpec base;
  s.nodes.assign(s.node_names.size(), base);
  const nlohmann::json* j = top.get("nodes");
  if (j == nullptr) return;
  Errors& errors = top.errors();
  if (!j->is_object()) {
    errors.expected("/nodes", "an object: {\"default\": {...}, \"node1\": {...}}", *j);
    return;
  }
  if (j->contains("default")) base = read_node((*j)["default"], "/nodes/default", errors, base, s.duration_ms);
  s.nodes.assign(s.node_names.size(), base);
  for (auto it = j->begin(); it != j->end() && errors.ok(); ++it) {
    if (it.key() == "default") continue;
    auto pos = std::find(s.node_names.begin(), s.node_names.end(), it.key());
    if (pos == s.node_names.end()) {
      std::string names;
      for (const std::string& n : s.node_names) names += ", \"" + n + "\"";
      errors.message("/nodes/" + it.key(), "no such node in this topology (expected \"default\"" + names + ")");
      return;
    }
    s.nodes[pos - s.node_names.begin()] = read_node(it.value(), "/nodes/" + it.key(), errors, base, s.duration_ms);
  }
}

runtime::ClientOptions read_client_options(const nlohmann::json& j, const std::string& path,
                                              Errors& errors, runtime::ClientOptions o) {
  ObjectReader r(j, path, errors);
  const int64_t day = 24 * 3600 * 1000;
  o.timeout_ms = r.integer("timeout_ms", o.timeout_ms, 1, day, "milliseconds");
  o.retry_attempts = static_cast<int32_t>(r.integer("retry_attempts", o.retry_attempts, 0, 100));
  if (j.is_object() && j.contains("retry_attempts")) o.retry_attempts_given = true;
  o.retry_interval_ms = r.integer("retry_interval_ms", o.retry_interval_ms, 0, day, "milliseconds");
  o.subscription_timeout_ms = r.integer("subscription_timeout_ms", o.subscription_timeout_ms, 1, day, "milliseconds");
  o.lock_watchdog_timeout_ms = r.integer("lock_watchdog_timeout_ms", o.lock_watchdog_timeout_ms, 3, day, "milliseconds");
  r.finish();
  return o;
}

ClientSpec read_client(ObjectReader& r, const ClientSpec& base, int64_t duration_ms) {
  ClientSpec c = base;
  c.threads = r.integer("threads", base.threads, 1, Limits::kMaxThreadsPerClient);
  if (const nlohmann::json* clock = r.get("clock")) c.clock = read_clock(*clock, r.path("clock"), r.errors(), duration_ms);
  if (const nlohmann::json* o = r.get("options")) c.options = read_client_options(*o, r.path("options"), r.errors(), base.options);
  return c;
}

void parse_clients(ObjectReader& top, Scenario& s) {
  Errors& errors = top.errors();
  const nlohmann::json* j = top.get("clients");
  if (j == nullptr) {
    ClientSpec c1;
    c1.name = "c1";
    s.clients.push_back(std::move(c1));
    return;
  }
  if (j->is_object()) {
    ObjectReader r(*j, "/clients", errors);
    const int64_t count = r.integer("count", 1, 1, Limits::kMaxClients);
    ClientSpec c = read_client(r, ClientSpec{}, s.duration_ms);
    r.finish();
    for (int64_t i = 0; i < count; ++i) {
      c.name = "c" + std::to_string(i + 1);
      s.clients.push_back(c);
    }
  } else if (j->is_array() && !j->empty() && static_cast<int64_t>(j->size()) <= Limits::kMaxClients) {
    for (size_t i = 0; i < j->size() && errors.ok(); ++i) {
      ObjectReader r((*j)[i], "/clients/" + std::to_string(i), errors);
      ClientSpec c = read_client(r, ClientSpec{}, s.duration_ms);
      c.name = r.required_string("name");
      r.finish();
      if (!errors.ok()) return;
      if (!valid_name(c.name)) {
        errors.expected(r.path("name"), "a name of letters, digits, '_', '.', '-' (not \"all\")", c.name);
      } else if (s.is_client(c.name) || s.is_node(c.name)) {
        errors.message(r.path("name"), "\"" + c.name + "\" is already the name of another process");
      }
      s.clients.push_back(c);
    }
  } else {
    errors.expected("/clients", "{\"count\": n, ...} or a non-empty array of clients (at most " + std::to_string(Limits::kMaxClients) + ")", *j);
  }
  if (errors.ok() && s.total_threads() > Limits::kMaxThreads) {
    errors.message("/clients", "too many threads in total: " + std::to_string(s.total_threads()) +
                                   " (the limit is " + std::to_string(Limits::kMaxThreads) + ")");
  }
}

void parse_network(ObjectReader& top, Scenario& s) {
  const nlohmann::json* j = top.get("network");
  if (j == nullptr) return;
  Errors& errors = top.errors();
  ObjectReader r(*j, "/network", errors);
  if (const nlohmann::json* l = r.get("latency")) s.network.defaults.latency = read_dist(*l, r.path("latency"), errors);
  s.network.defaults.loss_ppm = static_cast<uint32_t>(r.integer("loss_ppm", 0, 0, 1'000'000, "parts per million"));
  if (const nlohmann::json* links = r.get("links")) {
    if (!links->is_array()) errors.expected(r.path("links"), "an array of links", *links);
    for (size_t i = 0; links->is_array() && i < links->size() && errors.ok(); ++i) {
      ObjectReader lr((*links)[i], r.path("links") + "/" + std::to_string(i), errors);
      LinkSpec link;
      link.from = lr.required_string("from");
      link.to = lr.required_string("to");
      link.both_ways = lr.boolean("both_ways", true);
      link.spec = s.network.defaults;
      if (const nlohmann::json* l = lr.get("latency")) link.spec.latency = read_dist(*l, lr.path("latency"), errors);
      link.spec.loss_ppm = static_cast<uint32_t>(lr.integer("loss_ppm", s.network.defaults.loss_ppm, 0, 1'000'000, "parts per million"));
      lr.finish();
      for (const std::string* end : {&link.from, &link.to}) {
        if (errors.ok() && !internal::is_process(s, *end)) {
          errors.message(lr.path(end == &link.from ? "from" : "to"), "no process named \"" + *end + "\"");
        }
      }
      if (errors.ok() && link.from == link.to) errors.message(lr.path("to"), "a link joins two different processes");
      s.network.links.push_back(link);
    }
  }
  r.finish();
}

void parse_checks(ObjectReader& top, Scenario& s) {
  const nlohmann::json* j = top.get("checks");
  if (j == nullptr) return;
  Errors& errors = top.errors();
  ObjectReader r(*j, "/checks", errors);
  if (const nlohmann::json* p = r.get("properties")) {
    const std::vector<std::string>& names = checker::property_names();
    if (!p->is_array()) errors.expected(r.path("properties"), "an array of property names", *p);
    for (size_t i = 0; p->is_array() && i < p->size() && errors.ok(); ++i) {
      const nlohmann::json& v = (*p)[i];
      if (!v.is_string() || std::find(names.begin(), names.end(), v.get<std::string>()) == names.end()) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "\"" : ", \"") + n + "\"";
        errors.expected(r.path("properties") + "/" + std::to_string(i), "one of " + list, v);
      } else {
        s.checks.properties.push_back(v.get<std::string>());
      }
    }
  }
  s.checks.liveness_bound_ms = r.integer("liveness_bound_ms", -1, 1, Limits::kMaxDurationMs, "milliseconds");
  s.checks.drift_tolerance_us = r.integer("drift_tolerance_us", 0, 0, int64_t{1} << 40, "microseconds");
  r.finish();
}

void parse_limits(ObjectReader& top, Scenario& s) {
  const nlohmann::json* j = top.get("limits");
  if (j == nullptr) return;
  ObjectReader r(*j, "/limits", top.errors());
  s.max_events = static_cast<uint64_t>(r.integer("max_events", static_cast<int64_t>(Limits::kDefaultMaxEvents), 1000, static_cast<int64_t>(Limits::kMaxEvents)));
  s.max_history_bytes = static_cast<uint64_t>(r.integer("max_history_bytes", static_cast<int64_t>(Limits::kDefaultMaxHistoryBytes), 1 << 20, static_cast<int64_t>(Limits::kMaxHistoryBytes), "bytes"));
  r.finish();
}

}  // namespace

Result<Scenario> parse_scenario_text(std::string_view text, const std::string& file) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Parse again with exceptions for the position and the reason.
    try {
      const nlohmann::json again = nlohmann::json::parse(text);
      static_cast<void>(again);  // a discarded text always throws here
    } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range (1e999999)
      return Status::error(printable(file + ": not valid JSON: " + e.what()));
    }
    return Status::error(printable(file + ": not valid JSON"));
  }
  if (const std::optional<std::string> dup = duplicate_key(text)) {
    return Status::error(printable(file + ": " + *dup + ": duplicate key (each key may appear once in an object)"));
  }
  Errors errors(file);
  Scenario s;
  s.file = file;
  ObjectReader top(j, "", errors);
  s.name = top.required_string("name");
  check_name(s.name, "/name", errors, "a scenario name");
  s.description = top.string("description", "");
  s.seed = static_cast<uint64_t>(top.integer("seed", 1, 0, INT64_MAX));
  s.duration_ms = top.required_integer("duration_ms", 1, Limits::kMaxDurationMs, "milliseconds");
  parse_expect(top, s);
  parse_algorithm(top, s);
  parse_topology(top, s);
  parse_nodes(top, s);
  parse_clients(top, s);
  parse_network(top, s);
  if (const nlohmann::json* w = top.get("workload")) {
    internal::parse_workload(*w, "/workload", errors, s);
  } else {
    errors.message("/workload", "missing: expected {\"script\": [...]} or {\"generator\": {...}}");
  }
  if (const nlohmann::json* f = top.get("faults")) internal::parse_faults(*f, "/faults", errors, s);
  parse_checks(top, s);
  parse_limits(top, s);
  top.finish();
  if (errors.ok()) {
    const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(s.algorithm);
    if (info->multi_master && s.topology.kind != TopologyKind::kIndependent) {
      errors.message("/topology/kind", "algorithm \"" + s.algorithm + "\" needs \"independent\" masters");
    }
  }
  if (!errors.ok()) return errors.status();
  internal::finish_faults(s);
  return s;
}

Result<Scenario> load_scenario(const std::string& path) {
  if (Status s = check_input_file(path, "the scenario file"); !s.ok()) return Status::error(printable(s.message()));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(printable(path + ": cannot open the scenario file"));
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.size() > (size_t{64} << 20)) return Status::error(printable(path + ": the scenario file is larger than 64 MiB"));
  return parse_scenario_text(text, path);
}

}  // namespace lockstep::scenario
