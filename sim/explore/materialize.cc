#include "sim/explore/materialize.h"

#include "sim/core/assert.h"
#include "sim/scenario/faults.h"

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
  LS_ASSERT(!f.kind.empty());
  LS_ASSERT(f.at_ms >= 0);
  const std::string& k = f.kind;
  nlohmann::json j = {{"kind", k}, {"at_ms", f.at_ms}};
  if (k == "delay" || k == "drop") {
    j["target"] = link_json(f.link);
  } else if (k == "partition") {
    j["groups"] = f.groups;
    if (f.one_way) j["one_way"] = true;
  } else {
    j["target"] = f.target;
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

}  // namespace lockstep::explore
