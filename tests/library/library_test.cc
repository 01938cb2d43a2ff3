// The scenario library as a regression suite (docs/scenarios.md, "The scenario library"): every
// scenarios/**/*.json runs with its own seed through run_scenario — the function behind
// `lockstep run` — and its outcome must be the one its `expect` block names (a scenario without
// `expect` expects ok). A failure prints the verdict of every property and the explanations.
// Also: the edge-case library covers each classic edge case (by file name), a few scenarios pin
// verdicts beyond the single property `expect` can name, and `expect`'s default is ok.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/scenario/library.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;
using checker::Verdict;
using nlohmann::json;

const fs::path kRoot = fs::path(LOCKSTEP_SOURCE_DIR);

// Every scenario file under scenarios/, relative to the source root, sorted.
std::vector<std::string> library_scenarios() {
  std::vector<std::string> out;
  for (const std::string& f : scenario::scenario_files((kRoot / "scenarios").string())) {
    out.push_back(fs::relative(f, kRoot).generic_string());
  }
  return out;
}

// The file names (without directory) in scenarios/edge, sorted.
std::vector<std::string> edge_files() {
  std::vector<std::string> out;
  for (const std::string& rel : library_scenarios()) {
    if (rel.rfind("scenarios/edge/", 0) == 0) out.push_back(fs::path(rel).filename().string());
  }
  return out;
}

Result<scenario::Scenario> load(const std::string& rel) {
  return scenario::load_scenario((kRoot / rel).string());
}

// What a failed expectation prints: the outcome, then every property's verdict and reason and
// the explanation of each violation, then the replay command.
std::string describe(const scenario::RunReport& r) {
  return "outcome: " + r.outcome + " (exit code " + std::to_string(r.exit_code) + ")\n" +
         r.check.to_text() + "replay: " + r.replay;
}

class LibraryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LibraryTest, OutcomeMatchesExpect) {
  const std::string rel = GetParam();
  Result<scenario::Scenario> s = load(rel);
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<scenario::RunReport> r = scenario::run_scenario(s.value(), scenario::RunOptions{});
  ASSERT_TRUE(r.ok()) << rel << ": " << r.status().message();
  EXPECT_EQ(r.value().seed, s.value().seed) << rel << ": not run with its own seed";
  EXPECT_TRUE(r.value().expected) << rel << "\n" << describe(r.value());
  EXPECT_EQ(r.value().exit_code, 0) << rel << "\n" << describe(r.value());
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(std::string("scenarios/").size());
  n = n.substr(0, n.size() - std::string(".json").size());
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, LibraryTest, ::testing::ValuesIn(library_scenarios()), test_name);

// The library is not empty and every file's name is unique as a test name.
TEST(LibraryInventoryTest, TheLibraryIsFoundAndNamesAreUnique) {
  const std::vector<std::string> all = library_scenarios();
  ASSERT_GE(all.size(), 40u) << "scenarios/ not found under " << kRoot;
  std::map<std::string, std::string> names;
  for (const std::string& rel : all) {
    const std::string n = test_name(::testing::TestParamInfo<std::string>(rel, 0));
    EXPECT_TRUE(names.emplace(n, rel).second) << rel << " and " << names[n] << " share a test name";
  }
}

// One entry per classic edge case of the spec (issue 5); each needs a file in scenarios/edge whose
// name contains every listed fragment. Deleting or renaming a case's last file fails here.
struct Topic {
  const char* what;
  std::vector<const char*> fragments;
};

const std::vector<Topic>& topics() {
  static const std::vector<Topic> kTopics = {
      {"watchdog holder paused longer than the lease", {"redisson-lock", "watchdog-pause"}},
      {"its control without the pause", {"redisson-lock", "watchdog-no-pause"}},
      {"explicit lease shorter than the work (RLock)", {"redisson-lock-short-lease"}},
      {"explicit lease shorter than the work (fair lock)", {"redisson-fair-lock-short-lease"}},
      {"failover before replication (classic)", {"failover-before-replication"}},
      {"failover with the current profile's WAIT", {"failover-wait"}},
      {"fair lock FIFO under lease expiry", {"fair-lock", "lease-expiry"}},
      {"fair lock dead waiter at the head", {"fair-lock", "dead-waiter"}},
      {"read-write lock readers", {"rwlock"}},
      {"RedissonRedLock, master restarted without persistence", {"redisson-redlock", "restart-no-persistence"}},
      {"redlock-spec, master restarted without persistence", {"redlock-spec", "restart-no-persistence"}},
      {"RedLock restart with aof-always", {"restart-aof-always"}},
      {"RedissonRedLock, node clock jump", {"redisson-redlock", "clock-jump"}},
      {"redlock-spec, node clock jump", {"redlock-spec", "clock-jump"}},
      {"RedissonRedLock, GC pause during acquisition", {"redisson-redlock", "gc-pause-during"}},
      {"redlock-spec, GC pause during acquisition", {"redlock-spec", "gc-pause-during"}},
      {"RedissonRedLock, GC pause after acquisition", {"redisson-redlock", "gc-pause-after"}},
      {"redlock-spec, GC pause after acquisition", {"redlock-spec", "gc-pause-after"}},
      {"fenced variants", {"fenced-lock"}},
      {"liveness", {"liveness"}},
  };
  return kTopics;
}

TEST(LibraryInventoryTest, EveryEdgeCaseTopicHasAScenario) {
  const std::vector<std::string> files = edge_files();
  for (const Topic& topic : topics()) {
    const bool found = std::any_of(files.begin(), files.end(), [&](const std::string& f) {
      return std::all_of(topic.fragments.begin(), topic.fragments.end(),
                         [&](const char* frag) { return f.find(frag) != std::string::npos; });
    });
    EXPECT_TRUE(found) << "no scenarios/edge file for: " << topic.what;
  }
}

// Every edge scenario tells its story and states its verdict explicitly.
TEST(LibraryInventoryTest, EdgeScenariosHaveADescriptionAndAnExpectBlock) {
  const std::vector<std::string> files = edge_files();
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    std::ifstream in(kRoot / "scenarios" / "edge" / f);
    const json j = json::parse(in);
    EXPECT_GE(j.value("description", "").size(), 80u) << f;
    EXPECT_TRUE(j.contains("expect")) << f;
  }
}

// Verdicts beyond the one property `expect` names. The scenario is run with every property
// checked (its `checks.properties`, if any, cleared), so a scenario that restricts its checks
// to the properties that must hold (the fenced ones) still shows the overlap it survives.
struct Pinned {
  const char* file;
  std::map<std::string, Verdict> verdicts;
};

scenario::RunReport run_all_properties(const std::string& rel) {
  Result<scenario::Scenario> s = load(rel);
  EXPECT_TRUE(s.ok()) << s.status().message();
  scenario::Scenario sc = s.value();
  sc.checks.properties.clear();
  Result<scenario::RunReport> r = scenario::run_scenario(sc, scenario::RunOptions{});
  EXPECT_TRUE(r.ok()) << rel << ": " << (r.ok() ? "" : r.status().message());
  return r.value();
}

TEST(LibraryPinnedVerdictsTest, PropertiesBeyondExpect) {
  const std::vector<Pinned> pinned = {
      {"redisson-redlock-restart-no-persistence.json",
       {{"quorum", Verdict::kViolation}, {"mutual_exclusion", Verdict::kViolation}}},
      {"redlock-spec-restart-no-persistence.json",
       {{"quorum", Verdict::kViolation}, {"mutual_exclusion", Verdict::kViolation}}},
      {"redisson-redlock-clock-jump.json",
       {{"quorum", Verdict::kViolation}, {"mutual_exclusion", Verdict::kViolation}}},
      {"redlock-spec-clock-jump.json",
       {{"quorum", Verdict::kViolation}, {"mutual_exclusion", Verdict::kViolation}}},
      {"redisson-lock-watchdog-pause.json",
       {{"mutual_exclusion", Verdict::kViolation}, {"linearizability", Verdict::kViolation}}},
      {"fenced-lock-watchdog-pause.json",
       {{"mutual_exclusion", Verdict::kViolation}, {"fencing", Verdict::kOk}, {"linearizability", Verdict::kOk}}},
      {"fenced-lock-short-lease.json",
       {{"mutual_exclusion", Verdict::kViolation}, {"fencing", Verdict::kOk}}},
      {"fenced-lock-failover-before-replication.json",
       {{"linearizability", Verdict::kViolation}, {"mutual_exclusion", Verdict::kViolation}}},
      {"redisson-fair-lock-dead-waiter-classic.json", {{"fairness", Verdict::kOk}, {"liveness", Verdict::kOk}}},
      {"redisson-rwlock-dead-reader-renewed.json",
       {{"mutual_exclusion", Verdict::kOk}, {"linearizability", Verdict::kOk}}},
  };
  for (const Pinned& p : pinned) {
    const scenario::RunReport r = run_all_properties("scenarios/edge/" + std::string(p.file));
    for (const auto& [property, want] : p.verdicts) {
      ASSERT_TRUE(r.check.has(property)) << p.file << ": " << property << " not checked";
      EXPECT_EQ(r.check.property(property).verdict, want)
          << p.file << ": " << property << " is " << checker::verdict_name(r.check.property(property).verdict)
          << ", expected " << checker::verdict_name(want) << "\n" << describe(r);
    }
  }
}

// The fenced resource rejected the paused holder's stale token; the unfenced one accepted its
// write, and the fencing property counts it.
TEST(LibraryPinnedVerdictsTest, TheUnfencedStaleWriteIsCounted) {
  const scenario::RunReport r = run_all_properties("scenarios/edge/fenced-lock-watchdog-pause.json");
  const checker::PropertyResult& fencing = r.check.property("fencing");
  EXPECT_EQ(fencing.verdict, Verdict::kOk) << describe(r);
  EXPECT_EQ(fencing.details.value("stale_unfenced_accepted", -1), 1) << fencing.details.dump();
  int rejected = 0;
  std::istringstream in(r.history);
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line);
    if (j.value("type", "") == "write" && j.value("accepted", true) == false) ++rejected;
  }
  EXPECT_EQ(rejected, 1) << "the fenced resource should reject exactly c1's late write";
}

// docs/scenarios.md: a scenario without `expect` expects ok. A violating run without it is
// unexpected (exit 1); a clean run without it is expected (exit 0).
TEST(LibraryExpectDefaultTest, AMissingExpectMeansOk) {
  std::ifstream in(kRoot / "scenarios" / "edge" / "redisson-lock-watchdog-pause.json");
  json j = json::parse(in);
  j.erase("expect");
  Result<scenario::Scenario> s = scenario::parse_scenario_text(j.dump(), "no-expect.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s.value().expect.verdict, "ok");
  Result<scenario::RunReport> r = scenario::run_scenario(s.value(), scenario::RunOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.value().expected);
  EXPECT_EQ(r.value().exit_code, 1);
  j.erase("faults");  // the control: no pause, no violation
  s = scenario::parse_scenario_text(j.dump(), "no-expect-control.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  r = scenario::run_scenario(s.value(), scenario::RunOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.value().expected) << describe(r.value());
  EXPECT_EQ(r.value().exit_code, 0);
}

}  // namespace
}  // namespace lockstep
