// Every algorithm under every fault kind: a small scenario per algorithm with a random fault
// profile listing every kind that applies to its topology (swarm testing: the seed switches
// kinds on and off), run over several seeds. Each run must complete, give a verdict, and be
// deterministic (the same seed twice gives the same history, byte for byte).
#include <gtest/gtest.h>

#include <set>

#include "algorithms/algorithm.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep::algorithms {
namespace {

using nlohmann::json;

constexpr int kSeeds = 6;

json scenario_for(const AlgorithmInfo& a, bool swarm) {
  json kinds = json::array({
      {{"kind", "delay"}, {"count", {1, 2}}, {"extra_ms", {10, 4000}}, {"duration_ms", {100, 5000}}},
      {{"kind", "drop"}, {"count", {1, 2}}, {"rate_ppm", {100000, 1000000}}, {"duration_ms", {100, 5000}}},
      {{"kind", "partition"}, {"count", {1, 2}}, {"duration_ms", {100, 8000}}, {"one_way_percent", 30}},
      {{"kind", "pause"}, {"count", {1, 2}}, {"duration_ms", {100, 40000}}},
      {{"kind", "crash"}, {"count", 1}, {"restart_after_ms", {100, 5000}}},
      {{"kind", "clock_offset"}, {"count", 1}, {"offset_ms", {-5000, 5000}}},
      {{"kind", "clock_drift"}, {"count", 1}, {"drift_ppm", {-2000, 2000}}},
      {{"kind", "clock_jump"}, {"count", {1, 2}}, {"delta_ms", {-20000, 40000}}},
      {{"kind", "lose_reply"}, {"count", {1, 3}}, {"replies", {1, 2}}}});
  json topology = {{"kind", "replicated"}, {"replicas", 1}, {"failover", {{"detection_ms", 3000}}}};
  if (a.multi_master) {
    topology = {{"kind", "independent"}, {"masters", 3}};
  } else {
    kinds.push_back({{"kind", "failover"}, {"count", 1}});
    kinds.push_back({{"kind", "replication_lag"}, {"count", 1}, {"extra_ms", {100, 3000}}, {"duration_ms", {100, 5000}}});
  }
  json generator = {{"ops_per_thread", 5},    {"locks", {"L"}},        {"acquire", "mixed"},
                    {"wait_ms", {0, 500, 5000}}, {"lease_ms", {-1, 3000}}, {"hold_ms", {10, 500}},
                    {"think_ms", {0, 300}},   {"write", {{"resource", "R"}, {"fenced", true}}}};
  if (a.modes) generator["read_percent"] = 50;
  return {{"name", "faults-" + a.name},
          {"duration_ms", 60000},
          {"algorithm", {{"name", a.name}}},
          {"topology", topology},
          {"clients", {{"count", 3}, {"threads", 1}}},
          {"workload", {{"generator", generator}}},
          {"faults", {{"random", {{"window_ms", {0, 40000}}, {"swarm", swarm}, {"kinds", kinds}}}}},
          {"checks", {{"liveness_bound_ms", 60000}}}};
}

class FaultProfileTest : public ::testing::TestWithParam<std::string> {};

// The fault kinds a history recorded.
std::set<std::string> fault_kinds(const std::string& history) {
  std::set<std::string> kinds;
  size_t pos = 0;
  while ((pos = history.find("\"type\": \"fault\"", pos)) != std::string::npos) {
    const size_t end = history.find('\n', pos);
    const json line = json::parse(history.substr(history.rfind('\n', pos) + 1, end - history.rfind('\n', pos) - 1));
    kinds.insert(line["kind"].get<std::string>());
    pos = end;
  }
  return kinds;
}

TEST_P(FaultProfileTest, RunsUnderRandomFaultsDeterministicallyWithAVerdict) {
  const AlgorithmInfo* a = find_algorithm(GetParam());
  ASSERT_NE(a, nullptr);
  std::set<std::string> kinds_seen;
  size_t kinds_listed = 0;
  // Seeds 1..kSeeds draw which kinds are on (swarm); the last run has every kind on.
  for (uint64_t seed = 1; seed <= kSeeds + 1; ++seed) {
    const bool swarm = seed <= kSeeds;
    const json j = scenario_for(*a, swarm);
    kinds_listed = j["faults"]["random"]["kinds"].size();
    Result<scenario::Scenario> s = scenario::parse_scenario_text(j.dump(), "faults-" + a->name + ".json");
    ASSERT_TRUE(s.ok()) << s.status().message();
    scenario::RunOptions o;
    o.seed = seed;
    Result<scenario::RunReport> r1 = scenario::run_scenario(s.value(), o);
    ASSERT_TRUE(r1.ok()) << "seed " << seed << ": " << r1.status().message();
    Result<scenario::RunReport> r2 = scenario::run_scenario(s.value(), o);
    ASSERT_TRUE(r2.ok()) << "seed " << seed << ": " << r2.status().message();
    EXPECT_EQ(r1.value().history, r2.value().history) << "seed " << seed << " is not deterministic";
    EXPECT_EQ(r1.value().result.dump(), r2.value().result.dump()) << "seed " << seed;
    const std::string& v = r1.value().verdict;
    EXPECT_TRUE(v == "ok" || v == "violation" || v == "unknown") << v;
    EXPECT_GT(r1.value().stats.ops, 0u) << "seed " << seed;
    EXPECT_GT(r1.value().stats.faults, 0u) << "seed " << seed;
    const std::set<std::string> k = fault_kinds(r1.value().history);
    kinds_seen.insert(k.begin(), k.end());
  }
  // Every listed kind was injected at least once (crash also covers the node restart).
  EXPECT_GE(kinds_seen.size(), kinds_listed) << ::testing::PrintToString(kinds_seen);
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const AlgorithmInfo& a : algorithms()) out.push_back(a.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithm, FaultProfileTest, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == '-') c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace lockstep::algorithms

namespace lockstep::algorithms {
namespace {

// The fenced lock against the classic stale-holder story: the holder pauses past its lease, the
// next holder writes, the old one resumes and writes with its older token. A fenced resource
// rejects that write; an unfenced one accepts it.
TEST(FencedResourceTest, AFencedResourceRejectsTheStaleHoldersWrite) {
  for (bool fenced : {true, false}) {
    const json s = {
        {"name", "fenced-pause"},
        {"duration_ms", 60000},
        {"algorithm", {{"name", "redisson-fenced-lock"}}},
        {"clients", {{"count", 2}}},
        {"workload",
         {{"script",
           {{{"threads", "c1"},
             {"steps",
              {{{"op", "lock"}, {"lock", "L"}, {"lease_ms", 5000},
                {"then", {{{"op", "hold"}, {"ms", 10000}},
                          {{"op", "write"}, {"resource", "R"}, {"fenced", fenced}}}}}}}},
            {{"threads", "c2"},
             {"steps",
              {{{"op", "lock"}, {"lock", "L"}, {"lease_ms", 5000}, {"at_ms", 1000},
                {"then", {{{"op", "write"}, {"resource", "R"}, {"fenced", fenced}},
                          {{"op", "unlock"}, {"lock", "L"}}}}}}}}}}}},
        {"expect", {{"verdict", "violation"}, {"property", "mutual_exclusion"}}}};
    Result<scenario::Scenario> sc = scenario::parse_scenario_text(s.dump(), "fenced-pause.json");
    ASSERT_TRUE(sc.ok()) << sc.status().message();
    Result<scenario::RunReport> r = scenario::run_scenario(sc.value(), scenario::RunOptions{});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(r.value().expected) << r.value().outcome;
    std::vector<json> writes;
    size_t pos = 0;
    const std::string& h = r.value().history;
    while ((pos = h.find("\"type\": \"write\"", pos)) != std::string::npos) {
      const size_t begin = h.rfind('\n', pos) + 1;
      const size_t end = h.find('\n', pos);
      writes.push_back(json::parse(h.substr(begin, end - begin)));
      pos = end;
    }
    ASSERT_EQ(writes.size(), 2u);
    EXPECT_EQ(writes[0]["token"], 2);  // c2, after c1's lease ran out
    EXPECT_EQ(writes[1]["token"], 1);  // c1, stale
    EXPECT_EQ(writes[1]["accepted"], !fenced);
    const auto& fencing = r.value().check.property("fencing");
    if (fenced) {
      EXPECT_EQ(fencing.verdict, checker::Verdict::kOk) << fencing.reason;
    }
  }
}

}  // namespace
}  // namespace lockstep::algorithms
