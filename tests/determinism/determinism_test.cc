// Determinism: a run is a pure function of (scenario, seed). Every scenario in scenarios/ is run
// twice, to files, and the output bytes compared; a RapidCheck property does the same for random
// scenarios (every fault kind, random topology, network and workload) and random seeds. The
// second run of each pair has a progress callback (as `lockstep run` does), which makes the
// simulation go in slices of virtual time, and counts no coverage: the bytes must not notice.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/scenario/library.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> library_scenarios() {
  std::vector<std::string> out;
  for (const std::string& f : scenario::scenario_files(std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios")) {
    out.push_back(fs::relative(f, LOCKSTEP_SOURCE_DIR).string());
  }
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class LibraryDeterminism : public ::testing::TestWithParam<std::string> {};

TEST_P(LibraryDeterminism, TwoRunsWriteTheSameBytes) {
  const std::string rel = GetParam();
  Result<scenario::Scenario> s = scenario::load_scenario(std::string(LOCKSTEP_SOURCE_DIR) + "/" + rel);
  ASSERT_TRUE(s.ok()) << s.status().message();
  std::string name = rel;
  std::replace(name.begin(), name.end(), '/', '_');
  const fs::path dir = fs::path(::testing::TempDir()) / ("determinism_" + name);
  std::string history[2], result[2];
  for (int i = 0; i < 2; ++i) {
    scenario::RunOptions o;
    o.out_dir = (dir / std::to_string(i)).string();
    fs::remove_all(o.out_dir);
    int calls = 0;
    if (i == 1) o.progress = [&calls](const char*, int64_t, uint64_t) { ++calls; };
    // Coverage only observes (docs/coverage.md): the run that counts nothing is the same run.
    if (i == 1) o.coverage = false;
    Result<scenario::RunReport> r = scenario::run_scenario(s.value(), o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    if (i == 1) EXPECT_GT(calls, 1) << rel;
    history[i] = slurp(fs::path(o.out_dir) / "history.jsonl");
    result[i] = slurp(fs::path(o.out_dir) / "result.json");
  }
  EXPECT_FALSE(history[0].empty());
  EXPECT_TRUE(history[0] == history[1]) << rel << ": the histories differ";
  nlohmann::json counted = nlohmann::json::parse(result[0]);
  nlohmann::json uncounted = nlohmann::json::parse(result[1]);
  EXPECT_GT(counted["coverage"]["script_lines"]["total"].get<uint64_t>(), 0u) << rel;
  EXPECT_EQ(uncounted["coverage"]["script_lines"]["reached"].get<uint64_t>(), 0u) << rel;
  counted.erase("coverage");
  uncounted.erase("coverage");
  EXPECT_TRUE(counted == uncounted) << rel << ": the results differ";
  fs::remove_all(dir);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, LibraryDeterminism, ::testing::ValuesIn(library_scenarios()),
                         test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LibraryDeterminism);

// A random scenario for the property below: random topology, persistence, network, clients,
// workload and a fault profile with every kind switched on (the seed then draws the faults).
nlohmann::json random_scenario() {
  using nlohmann::json;
  const int topology = *rc::gen::inRange(0, 3);
  const int clients = *rc::gen::inRange(1, 5);
  const int threads = *rc::gen::inRange(1, 4);
  const int64_t duration_ms = *rc::gen::inRange<int64_t>(2000, 20000);
  const int64_t lat_lo = *rc::gen::inRange<int64_t>(0, 3000);
  const int64_t lat_hi = lat_lo + *rc::gen::inRange<int64_t>(0, 5000);
  const std::vector<std::string> modes = {"none", "aof-always", "aof-everysec", "rdb"};
  json s = {{"name", "random"},
            {"duration_ms", duration_ms},
            {"algorithm", {{"name", "set-nx-px"}, {"options", {{"retry_delay_ms", *rc::gen::inRange(1, 200)}}}}},
            {"network", {{"latency", {{"kind", "uniform"}, {"min_us", lat_lo}, {"max_us", lat_hi}}},
                         {"loss_ppm", *rc::gen::inRange(0, 50000)}}},
            {"nodes", {{"default", {{"persistence", {{"mode", modes[*rc::gen::inRange(0, 4)]}}},
                                    {"clock", {{"drift_ppm", *rc::gen::inRange(-2000, 2000)}}}}}}},
            {"clients", {{"count", clients},
                         {"threads", threads},
                         {"options", {{"timeout_ms", *rc::gen::inRange(50, 3000)},
                                      {"retry_attempts", *rc::gen::inRange(0, 3)},
                                      {"retry_interval_ms", *rc::gen::inRange(0, 500)},
                                      {"lock_watchdog_timeout_ms", *rc::gen::inRange(300, 5000)}}}}},
            {"workload", {{"generator", {{"ops_per_thread", *rc::gen::inRange(1, 10)},
                                         {"locks", {{"count", *rc::gen::inRange(1, 4)}}},
                                         {"acquire", "mixed"},
                                         {"wait_ms", {0, 50, 500}},
                                         {"lease_ms", {-1, 100, 2000}},
                                         {"hold_ms", {0, 300}},
                                         {"think_ms", {0, 300}},
                                         {"write", {{"resource", "R"}, {"fenced", true}}}}}}},
            {"checks", {{"properties", {"mutual_exclusion"}}}}};
  json kinds = json::array({
      {{"kind", "pause"}, {"count", {0, 2}}, {"duration_ms", {10, 3000}}},
      {{"kind", "crash"}, {"count", {0, 1}}, {"restart_after_ms", {10, 2000}}},
      {{"kind", "clock_jump"}, {"count", {0, 2}}, {"delta_ms", {-3000, 3000}}},
      {{"kind", "clock_offset"}, {"count", {0, 1}}, {"offset_ms", {-2000, 2000}}, {"duration_ms", {10, 3000}}},
      {{"kind", "clock_drift"}, {"count", {0, 1}}, {"drift_ppm", {-9000, 9000}}, {"duration_ms", {10, 3000}}},
      {{"kind", "partition"}, {"count", {0, 2}}, {"duration_ms", {10, 2000}}, {"one_way_percent", 50}},
      {{"kind", "delay"}, {"count", {0, 2}}, {"extra_ms", {1, 2000}}, {"duration_ms", {10, 2000}}},
      {{"kind", "drop"}, {"count", {0, 2}}, {"rate_ppm", {100000, 1000000}}, {"duration_ms", {10, 2000}}},
      {{"kind", "lose_reply"}, {"count", {0, 2}}, {"replies", {1, 3}}}});
  if (topology == 1) {
    s["topology"] = {{"kind", "replicated"},
                     {"replicas", *rc::gen::inRange(1, 3)},
                     {"replication_lag", {{"kind", "uniform"}, {"min_us", 0}, {"max_us", 30000}}},
                     {"failover", {{"detection_ms", *rc::gen::inRange(0, 3000)}}}};
    kinds.push_back({{"kind", "failover"}, {"count", {0, 1}}});
    kinds.push_back({{"kind", "replication_lag"}, {"count", {0, 1}}, {"extra_ms", {1, 2000}}, {"duration_ms", {10, 2000}}});
  } else if (topology == 2) {
    s["topology"] = {{"kind", "independent"}, {"masters", 3}};
  }
  s["faults"] = {{"random", {{"swarm", true}, {"kinds", kinds}}}};
  return s;
}

RC_GTEST_PROP(DeterminismProp, RandomScenariosAndSeedsReplayByteForByte, ()) {
  const nlohmann::json j = random_scenario();
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  Result<scenario::Scenario> s = scenario::parse_scenario_text(j.dump(), "random.json");
  RC_ASSERT(s.ok());
  scenario::RunOptions o;
  o.seed = seed;
  Result<scenario::RunReport> a = scenario::run_scenario(s.value(), o);
  o.progress = [](const char*, int64_t, uint64_t) {};
  Result<scenario::RunReport> b = scenario::run_scenario(s.value(), o);
  RC_ASSERT(a.ok());
  RC_ASSERT(b.ok());
  RC_ASSERT(a.value().history == b.value().history);
  RC_ASSERT(a.value().result.dump() == b.value().result.dump());
  RC_ASSERT(a.value().history.find("\"type\": \"end\", \"complete\": true") != std::string::npos);
}

}  // namespace
}  // namespace lockstep
