#include "harness/explore/materialize.h"

#include <map>
#include <sstream>
#include <vector>

#include "harness/scenario/fault_table.h"
#include "harness/scenario/faults.h"
#include "harness/scenario/workload.h"
#include "sim/core/assert.h"
#include "sim/core/rng.h"

namespace lockstep::explore {
namespace {

using scenario::FaultSpec;
using scenario::LinkTarget;

nlohmann::json link_json(const LinkTarget& t) {
  switch (t.kind) {
    case LinkTarget::Kind::kAll: return "all";
    case LinkTarget::Kind::kProcess: return t.a;
    case LinkTarget::Kind::kDirected: return {{"from", t.a}, {"to", t.b}};
    case LinkTarget::Kind::kBetween: return {{"between", {t.a, t.b}}};
  }
  return "all";
}

bool is_clock_spec_jump(const FaultSpec& f) {
  return f.origin.rfind("/nodes/", 0) == 0 || f.origin.rfind("/clients/", 0) == 0;
}

// Removes "jumps" from a clock spec at `ptr` (if there is one).
void drop_jumps(nlohmann::json& doc, const std::string& ptr) {
  const nlohmann::json::json_pointer p(ptr);
  if (doc.contains(p) && doc[p].is_object()) doc[p].erase("jumps");
}

}  // namespace

nlohmann::json fault_to_json(const FaultSpec& f) {
  LS_ASSERT(f.at_ms >= 0);
  nlohmann::json j = {{"kind", std::string(fault_kind_name(f.kind))}, {"at_ms", f.at_ms}};
  switch (scenario::fault_info(f.kind).targets) {
    case scenario::FaultTargets::kLink:
      j["target"] = link_json(f.link);
      break;
    case scenario::FaultTargets::kGroups:
      j["groups"] = f.groups;
      if (f.one_way) j["one_way"] = true;
      break;
    default:
      j["target"] = f.target;
      break;
  }
  add_fault_params(f, j);
  return j;
}

nlohmann::json materialize_faults(const nlohmann::json& doc, const scenario::Scenario& parsed,
                                  uint64_t seed) {
  LS_ASSERT(doc.is_object());
  nlohmann::json out = doc;
  out["seed"] = seed;
  nlohmann::json schedule = nlohmann::json::array();
  if (doc.contains("faults") && doc["faults"].contains("schedule")) schedule = doc["faults"]["schedule"];
  const size_t own = schedule.size();
  // The parsed schedule is the file's entries followed by the clock specs' jumps.
  for (size_t i = own; i < parsed.schedule.size(); ++i) {
    LS_ASSERT(is_clock_spec_jump(parsed.schedule[i]));
    schedule.push_back(fault_to_json(parsed.schedule[i]));
  }
  const auto first_id = static_cast<int64_t>(parsed.schedule.size()) + 1;
  for (const FaultSpec& f : scenario::draw_random_faults(parsed, seed, first_id)) {
    schedule.push_back(fault_to_json(f));
  }
  if (out.contains("nodes") && out["nodes"].is_object()) {
    for (auto& [name, node] : out["nodes"].items()) drop_jumps(out, "/nodes/" + name + "/clock");
  }
  if (out.contains("clients") && out["clients"].is_object()) drop_jumps(out, "/clients/clock");
  if (out.contains("clients") && out["clients"].is_array()) {
    for (size_t i = 0; i < out["clients"].size(); ++i) drop_jumps(out, "/clients/" + std::to_string(i) + "/clock");
  }
  if (!out.contains("faults")) out["faults"] = nlohmann::json::object();
  out["faults"].erase("random");
  if (schedule.empty()) {
    out.erase("faults");
  } else {
    out["faults"]["schedule"] = schedule;
  }
  return out;
}

std::optional<nlohmann::json> materialize_workload(const nlohmann::json& doc, const scenario::Scenario& parsed,
                                                   uint64_t seed, const std::string& history) {
  using nlohmann::json;
  if (!parsed.workload.generator.has_value()) return std::nullopt;
  for (const scenario::FaultSpec& f : parsed.schedule) {
    if (scenario::fault_info(f.kind).targets == scenario::FaultTargets::kThread) return std::nullopt;
  }
  if (parsed.random.has_value()) return std::nullopt;
  const scenario::GeneratorSpec& g = *parsed.workload.generator;
  const std::vector<int64_t>& leases = scenario::generator_leases(g, seed);
  // Each thread's acquisitions in the order it began them: succeeded or not.
  std::map<std::string, std::vector<bool>> acquired;  // thread -> outcomes
  std::map<int64_t, std::pair<std::string, size_t>> open;  // invoke id -> (thread, index)
  std::istringstream lines(history);
  std::string line;
  while (std::getline(lines, line)) {
    const json e = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!e.is_object()) continue;
    const std::string type = e.value("type", "");
    if (type == "invoke") {
      const std::string op = e.value("op", "");
      if (op != "lock" && op != "try_lock") continue;
      std::vector<bool>& mine = acquired[e.value("thread", "")];
      open[e.value("id", int64_t{-1})] = {e.value("thread", ""), mine.size()};
      mine.push_back(false);
    } else if (type == "complete") {
      auto it = open.find(e.value("id", int64_t{-1}));
      if (it == open.end()) continue;
      const bool ok = e.value("outcome", "") == "ok" && e.value("acquired", false);
      acquired[it->second.first][it->second.second] = ok;
      open.erase(it);
    }
  }
  auto mode_name = [](history::LockMode m) { return m == history::LockMode::kRead ? "read" : "write"; };
  json script = json::array();
  for (const scenario::ClientSpec& c : parsed.clients) {
    for (int64_t k = 0; k < c.threads; ++k) {
      const std::string thread = c.name + "/t" + std::to_string(k);
      // The same draws, in the same order, as Workload::run_generator.
      Rng r = Rng(seed).stream("workload/" + thread);
      json steps = json::array();
      steps.push_back({{"op", "sleep"}, {"ms", r.between(g.start_min_ms, g.start_max_ms)}});
      const std::vector<bool>& outcomes = acquired[thread];
      for (size_t i = 0; i < outcomes.size() && static_cast<int64_t>(i) < g.ops_per_thread; ++i) {
        const std::string& lock = g.locks[r.below(g.locks.size())];
        const int64_t lease_ms = leases[r.below(leases.size())];
        const int64_t wait_ms = g.wait_ms[r.below(g.wait_ms.size())];
        const bool try_lock = g.acquire == scenario::GeneratorSpec::Acquire::kTryLock ||
                              (g.acquire == scenario::GeneratorSpec::Acquire::kMixed && r.below(2) == 1);
        history::LockMode mode = history::LockMode::kExclusive;
        if (g.modes) {
          mode = static_cast<int64_t>(r.below(100)) < g.read_percent ? history::LockMode::kRead : history::LockMode::kWrite;
        }
        json acquire = {{"op", try_lock ? "try_lock" : "lock"}, {"lock", lock}, {"lease_ms", lease_ms}};
        if (try_lock) acquire["wait_ms"] = wait_ms;
        if (g.modes) acquire["mode"] = mode_name(mode);
        const int64_t hold_ms = outcomes[i] ? r.between(g.hold_min_ms, g.hold_max_ms) : g.hold_min_ms;
        json then = json::array();
        json write = {{"op", "write"}, {"resource", g.resource}, {"lock", lock}, {"fenced", g.fenced}};
        if (!g.resource.empty() && !g.write_at_end) then.push_back(write);
        then.push_back({{"op", "hold"}, {"ms", hold_ms}});
        if (!g.resource.empty() && g.write_at_end) then.push_back(write);
        json unlock = {{"op", "unlock"}, {"lock", lock}};
        if (g.modes) unlock["mode"] = mode_name(mode);
        then.push_back(unlock);
        acquire["then"] = then;
        steps.push_back(acquire);
        steps.push_back({{"op", "sleep"}, {"ms", r.between(g.think_min_ms, g.think_max_ms)}});
      }
      script.push_back({{"threads", thread}, {"steps", steps}});
    }
  }
  json out = doc;
  out["workload"] = {{"script", script}};
  return out;
}

}  // namespace lockstep::explore
