#include "harness/scenario/fault_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "harness/scenario/faults.h"
#include "harness/scenario/parse.h"

namespace lockstep::scenario {
namespace {

using nlohmann::json;

TEST(FaultTableTest, OneEntryPerKindInOrderAndNamesRoundTrip) {
  ASSERT_EQ(fault_table().size(), kFaultKindCount);
  std::set<std::string_view> names;
  for (size_t i = 0; i < kFaultKindCount; ++i) {
    const FaultKind k = static_cast<FaultKind>(i);
    EXPECT_EQ(fault_table()[i].kind, k);
    EXPECT_EQ(parse_fault_kind(fault_kind_name(k)), k);
    EXPECT_TRUE(names.insert(fault_kind_name(k)).second) << fault_kind_name(k);
    const FaultKindInfo& info = fault_info(k);
    EXPECT_FALSE(info.simulated.empty()) << fault_kind_name(k);
    EXPECT_FALSE(info.live.empty()) << fault_kind_name(k);  // live mode makes every kind real
    for (const FaultParam& p : info.params) {
      EXPECT_LE(p.lo, p.draw.lo) << p.name;
      EXPECT_LE(p.draw.lo, p.draw.hi) << p.name;
      EXPECT_LE(p.draw.hi, p.hi) << p.name;
      EXPECT_FALSE(p.unit.empty()) << p.name;
      EXPECT_FALSE(p.required && p.node_only) << p.name;
      EXPECT_EQ(fault_param(k, p.name), &p);
    }
  }
  EXPECT_EQ(parse_fault_kind("meteor"), std::nullopt);
  EXPECT_EQ(parse_fault_kind(""), std::nullopt);
  EXPECT_TRUE(is_clock_fault(FaultKind::kClockDrift));
  EXPECT_FALSE(is_clock_fault(FaultKind::kPause));
}

// A scenario in which every kind has a target: a replicated topology, two clients, an
// algorithm whose threads can be interrupted.
json base_scenario() {
  return json::parse(R"({
    "name": "table", "duration_ms": 60000, "algorithm": {"name": "redisson-lock"},
    "topology": {"kind": "replicated", "replicas": 1}, "clients": {"count": 2},
    "workload": {"script": [{"threads": "all", "steps": [{"op": "sleep", "ms": 1}]}]}})");
}

// A fault of `kind` with every parameter the table names, at a value inside its bounds.
json full_fault(const FaultKindInfo& info) {
  json f = {{"kind", fault_kind_name(info.kind)}, {"at_ms", 100}};
  switch (info.targets) {
    case FaultTargets::kLink: f["target"] = {{"from", "c1"}, {"to", "node0"}}; break;
    case FaultTargets::kGroups: f["groups"] = {{"c1"}, {"node0", "c2"}}; break;
    case FaultTargets::kClient: f["target"] = "c2"; break;
    case FaultTargets::kThread: f["target"] = "c1/t0"; break;
    case FaultTargets::kReplicatedNode: f["target"] = info.kind == FaultKind::kFailover ? "node0" : "node1"; break;
    case FaultTargets::kProcess:
    case FaultTargets::kNode: f["target"] = "node1"; break;
  }
  for (const FaultParam& p : info.params) f[std::string(p.name)] = p.draw.hi;
  return f;
}

Result<Scenario> parse_with(const json& fault) {
  json s = base_scenario();
  s["faults"]["schedule"] = json::array({fault});
  return parse_scenario_text(s.dump(), "table.json");
}

// Every parameter the table lists is read into its field and written back by add_fault_params
// under the same name; a required one, when missing, is an error at its own path.
TEST(FaultTableTest, TheParserReadsAndWritesEveryParameterOfTheTable) {
  for (const FaultKindInfo& info : fault_table()) {
    const json fault = full_fault(info);
    Result<Scenario> s = parse_with(fault);
    ASSERT_TRUE(s.ok()) << fault.dump() << ": " << s.status().message();
    const FaultSpec& f = s.value().schedule.at(0);
    EXPECT_EQ(f.kind, info.kind);
    json params = json::object();
    add_fault_params(f, params);
    for (const FaultParam& p : info.params) {
      EXPECT_EQ(f.*p.field, p.draw.hi) << fault.dump();
      EXPECT_EQ(params.value(std::string(p.name), int64_t{-7}), p.draw.hi) << fault.dump();
      if (!p.required) continue;
      json missing = fault;
      missing.erase(std::string(p.name));
      Result<Scenario> bad = parse_with(missing);
      ASSERT_FALSE(bad.ok()) << missing.dump();
      EXPECT_NE(bad.status().message().find("/faults/schedule/0/" + std::string(p.name)), std::string::npos)
          << bad.status().message();
    }
    for (const FaultParam& p : info.params) {
      json over = fault;
      over[std::string(p.name)] = p.hi + 1;
      Result<Scenario> bad = parse_with(over);
      ASSERT_FALSE(bad.ok()) << over.dump();
      EXPECT_NE(bad.status().message().find(std::string(p.unit)), std::string::npos) << bad.status().message();
    }
  }
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// docs/scenario.schema.json and docs/scenarios.md describe the same kinds and parameters.
TEST(FaultTableTest, TheSchemaAndTheDocsListEveryKindAndParameter) {
  const json schema = json::parse(read(std::string(LOCKSTEP_SOURCE_DIR) + "/docs/scenario.schema.json"));
  const json& fault = schema["$defs"]["fault"];
  std::set<std::string> kinds(fault["properties"]["kind"]["enum"].begin(), fault["properties"]["kind"]["enum"].end());
  EXPECT_EQ(kinds.size(), kFaultKindCount);
  const std::string doc = read(std::string(LOCKSTEP_SOURCE_DIR) + "/docs/scenarios.md");
  for (const FaultKindInfo& info : fault_table()) {
    const std::string name(fault_kind_name(info.kind));
    EXPECT_EQ(kinds.count(name), 1u) << name;
    const json* entry = nullptr;
    for (const json& e : fault["oneOf"]) {
      const json& k = e["properties"]["kind"];
      const json one = k.contains("const") ? json::array({k["const"]}) : k.value("enum", json::array());
      if (std::find(one.begin(), one.end(), name) != one.end()) entry = &e;
    }
    ASSERT_NE(entry, nullptr) << name;
    const json required = entry->value("required", json::array());
    for (const FaultParam& p : info.params) {
      EXPECT_TRUE((*entry)["properties"].contains(std::string(p.name))) << name << " " << p.name;
      const bool listed = std::find(required.begin(), required.end(), std::string(p.name)) != required.end();
      EXPECT_EQ(listed, p.required) << name << " " << p.name;
    }
    const size_t row = doc.find("| [" + name + "](#");
    ASSERT_NE(row, std::string::npos) << name;
    const std::string line = doc.substr(row, doc.find('\n', row) - row);
    for (const FaultParam& p : info.params) {
      EXPECT_NE(line.find("`" + std::string(p.name) + "`"), std::string::npos) << line;
    }
  }
}

}  // namespace
}  // namespace lockstep::scenario
