// Mutants against the scenario library (issue 5). For every mutant: every scenario under
// scenarios/ (recursively, in path order) whose algorithm sends the replaced script runs twice,
// with the real scripts and with the mutant; the real runs must match their `expect`, and at
// least one scenario must report a violation of the mutant's property that the real run did not
// have. The test output names the scenario that caught each mutant and its counterexample.
// Also: each mutant is its script with exactly one contiguous change, and the run hook's
// plumbing (errors, outputs naming the mutant, the swap reaching the node).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/mutants/mutants.h"
#include "algorithms/redisson/scripts.h"
#include "harness/scenario/library.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep::algorithms::mutants {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kLibrary = std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios";

// Every scenario file of the library, in path order (the directory order is not deterministic).
std::vector<std::string> library_files() { return scenario::scenario_files(kLibrary); }

// The library, loaded once. A file that does not load is a failure of this test too: the
// library is what the mutants are judged on.
const std::vector<scenario::Scenario>& library() {
  static const std::vector<scenario::Scenario> all = [] {
    std::vector<scenario::Scenario> out;
    for (const std::string& f : library_files()) {
      Result<scenario::Scenario> s = scenario::load_scenario(f);
      if (s.ok()) {
        out.push_back(s.value());
      } else {
        ADD_FAILURE() << "library scenario does not load: " << s.status().message();
      }
    }
    return out;
  }();
  return all;
}

std::string relative(const std::string& file) { return fs::relative(file, kLibrary).string(); }

// A run's verdict of `property`, or "error: ..." when the run itself failed.
struct Outcome {
  bool ran = false;
  std::string error;
  scenario::RunReport report;

  checker::Verdict verdict(const std::string& property) const {
    if (!ran || !report.check.has(property)) return checker::Verdict::kNotApplicable;
    return report.check.property(property).verdict;
  }
};

Outcome run(const scenario::Scenario& s, const std::string& mutant) {
  scenario::RunOptions options;
  options.mutant = mutant;
  Result<scenario::RunReport> r = scenario::run_scenario(s, options);
  Outcome out;
  out.ran = r.ok();
  if (r.ok()) {
    out.report = std::move(r.value());
  } else {
    out.error = r.status().message();
  }
  return out;
}

// The real-script run of each library scenario, computed once and shared by the mutants.
const Outcome& real_run(const scenario::Scenario& s) {
  static std::map<std::string, Outcome> cache;
  auto it = cache.find(s.file);
  if (it == cache.end()) it = cache.emplace(s.file, run(s, "")).first;
  return it->second;
}

// The first line of a property's explanation (or its reason): the counterexample in one line.
std::string one_line(const checker::PropertyResult& p) {
  const std::string& text = p.explanation.text.empty() ? p.reason : p.explanation.text;
  return text.substr(0, text.find('\n'));
}

class MutantTest : public testing::TestWithParam<std::string> {};

TEST_P(MutantTest, CaughtOnTheLibrary) {
  const Mutant* m = find_mutant(GetParam());
  ASSERT_NE(m, nullptr);
  int scenarios = 0;
  std::vector<std::string> caught;
  for (const scenario::Scenario& s : library()) {
    if (!applies_to(*m, s.algorithm)) continue;
    ++scenarios;
    const Outcome& real = real_run(s);
    ASSERT_TRUE(real.ran) << relative(s.file) << ": " << real.error;
    EXPECT_TRUE(real.report.expected)
        << relative(s.file) << " with the real scripts: " << real.report.outcome;
    const Outcome mutated = run(s, m->name);
    if (!mutated.ran) {
      // Not a catch (the checker never saw a history), but worth seeing.
      std::printf("[ mutant   ] %s on %s: the run failed: %s\n", m->name.c_str(),
                  relative(s.file).c_str(), mutated.error.c_str());
      continue;
    }
    EXPECT_EQ(mutated.report.mutant, m->name);
    const bool found = mutated.verdict(m->property) == checker::Verdict::kViolation &&
                       real.verdict(m->property) != checker::Verdict::kViolation;
    if (!found) continue;
    caught.push_back(relative(s.file));
    std::printf("[ mutant   ] %s caught by %s on %s: %s\n", m->name.c_str(), m->property.c_str(),
                relative(s.file).c_str(),
                one_line(mutated.report.check.property(m->property)).c_str());
  }
  EXPECT_GT(scenarios, 0) << "no library scenario runs an algorithm that sends " << m->replaces;
  EXPECT_FALSE(caught.empty()) << m->name << " (" << m->broken << ") is not caught as a "
                               << m->property << " violation by any of the " << scenarios
                               << " library scenarios of its algorithms";
}

std::vector<std::string> mutant_names() {
  std::vector<std::string> names;
  for (const Mutant& m : mutants()) names.push_back(m.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Library, MutantTest, testing::ValuesIn(mutant_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

// --- the mutants themselves ---------------------------------------------------------------------

const Script* real_script(const std::string& name) {
  namespace s = redisson::scripts;
  static const std::map<std::string, const Script*> all = {
      {"rlock_acquire", &s::rlock_acquire()}, {"rlock_unlock", &s::rlock_unlock()},
      {"fair_acquire", &s::fair_acquire()},   {"read_acquire", &s::read_acquire()},
      {"write_unlock", &s::write_unlock()},   {"rlock_renew", &s::rlock_renew()}};
  auto it = all.find(name);
  return it == all.end() ? nullptr : it->second;
}

// The lines of a script after its leading comment block (the header).
std::vector<std::string> code_lines(std::string_view body) {
  std::vector<std::string> lines;
  size_t start = 0;
  bool header = true;
  while (start < body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    std::string line(body.substr(start, end - start));
    start = end + 1;
    if (header && line.rfind("--", 0) == 0) continue;
    header = false;
    lines.push_back(line);
  }
  return lines;
}

TEST(MutantRegistryTest, EachMutantIsItsScriptWithOneContiguousChange) {
  ASSERT_GE(mutants().size(), 5u);
  for (const Mutant& m : mutants()) {
    SCOPED_TRACE(m.name);
    const Script* real = real_script(m.replaces);
    ASSERT_NE(real, nullptr) << "replaces an unknown script " << m.replaces;
    EXPECT_EQ(m.script.name, m.name);
    EXPECT_NE(m.script.sha1, real->sha1);
    // The header says what it derives from and that it is a mutant.
    EXPECT_NE(m.script.body.find("MUTANT " + m.name), std::string_view::npos);
    EXPECT_NE(m.script.body.find("algorithms/redisson/lua/" + m.replaces + ".lua"),
              std::string_view::npos);
    const std::vector<std::string> a = code_lines(real->body), b = code_lines(m.script.body);
    size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
    size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
      ++suffix;
    }
    const size_t removed = a.size() - prefix - suffix, added = b.size() - prefix - suffix;
    EXPECT_GT(removed + added, 0u) << "identical to " << m.replaces;
    EXPECT_LE(removed, 3u) << "more than one change";
    EXPECT_LE(added, 1u) << "more than one change";
  }
}

TEST(MutantRegistryTest, LookupAndApplicability) {
  EXPECT_EQ(find_mutant("no_such_mutant"), nullptr);
  Result<const Mutant*> unknown = mutant_for("no_such_mutant", "redisson-lock");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown mutant \"no_such_mutant\""), std::string::npos);
  EXPECT_NE(unknown.status().message().find("rlock_unlock_no_owner_check"), std::string::npos);
  Result<const Mutant*> wrong = mutant_for("fair_acquire_evicts_live_head", "redisson-lock");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("never sends"), std::string::npos);
  EXPECT_EQ(wrong.status().message().find("fair_acquire_evicts_live_head ("), std::string::npos);
  Result<const Mutant*> ok = mutant_for("fair_acquire_evicts_live_head", "redisson-fair-lock");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value()->replaces, "fair_acquire");
  // Every mutant's algorithms exist, and its property is one the checker reports.
  const std::vector<std::string> properties = {"mutual_exclusion", "linearizability", "fairness",
                                               "quorum", "liveness", "fencing",
                                               "script_invariants"};
  for (const Mutant& m : mutants()) {
    for (const std::string& a : m.algorithms) EXPECT_NE(find_algorithm(a), nullptr) << a;
    EXPECT_NE(std::find(properties.begin(), properties.end(), m.property), properties.end());
  }
}

// --- the run hook ---------------------------------------------------------------------------------

scenario::Scenario contention(const std::string& file) {
  Result<scenario::Scenario> s = scenario::load_scenario(kLibrary + "/contention/" + file);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.status().message());
  return s.ok() ? s.value() : scenario::Scenario{};
}

TEST(MutantRunTest, BadMutantIsAnErrorNamingTheFile) {
  const scenario::Scenario s = contention("redisson-lock-non-owner-unlock.json");
  scenario::RunOptions options;
  options.mutant = "read_acquire_ignores_write_mode";
  Result<scenario::RunReport> r = scenario::run_scenario(s, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("redisson-lock-non-owner-unlock.json: --mutant: mutant "
                                      "\"read_acquire_ignores_write_mode\" replaces read_acquire"),
            std::string::npos)
      << r.status().message();
  options.mutant = "nope";
  r = scenario::run_scenario(s, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown mutant \"nope\""), std::string::npos);
}

TEST(MutantRunTest, ScenarioFilesCannotSelectAMutant) {
  const std::string text = R"({"name": "x", "duration_ms": 1000,
      "algorithm": {"name": "redisson-lock", "options": {"mutant": "rlock_acquire_no_pexpire"}},
      "workload": {"script": [{"threads": "c1", "steps": [{"op": "lock", "lock": "L"}]}]}})";
  Result<scenario::Scenario> s = scenario::parse_scenario_text(text, "inline.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("mutant"), std::string::npos) << s.status().message();
}

TEST(MutantRunTest, EveryOutputNamesTheMutantAndTheNodeRanIt) {
  const scenario::Scenario s = contention("redisson-lock-non-owner-unlock.json");
  const Outcome real = run(s, "");
  const Outcome mutated = run(s, "rlock_unlock_no_owner_check");
  ASSERT_TRUE(real.ran && mutated.ran);
  EXPECT_FALSE(real.report.result.contains("mutant"));
  EXPECT_EQ(real.report.history.find("rlock_unlock_no_owner_check"), std::string::npos);
  EXPECT_NE(real.report.history.find("\"script\": \"rlock_unlock\""), std::string::npos);
  // The nodes executed the mutant in place of rlock_unlock, and nothing else changed name.
  EXPECT_NE(mutated.report.history.find("\"script\": \"rlock_unlock_no_owner_check\""),
            std::string::npos);
  EXPECT_EQ(mutated.report.history.find("\"script\": \"rlock_unlock\""), std::string::npos);
  EXPECT_NE(mutated.report.history.find("\"script\": \"rlock_acquire\""), std::string::npos);
  // Header, result.json, replay command and the printed report.
  const std::string header = mutated.report.history.substr(0, mutated.report.history.find('\n'));
  EXPECT_EQ(json::parse(header)["mutant"], "rlock_unlock_no_owner_check");
  const json& result = mutated.report.result;
  EXPECT_EQ(result["mutant"]["name"], "rlock_unlock_no_owner_check");
  EXPECT_EQ(result["mutant"]["replaces"], "rlock_unlock");
  EXPECT_NE(mutated.report.replay.find("--mutant rlock_unlock_no_owner_check"), std::string::npos);
  const std::string text = scenario::format_report(mutated.report, "");
  EXPECT_EQ(text.rfind("MUTANT RUN (not the real algorithm): rlock_unlock_no_owner_check", 0), 0u)
      << text;
  EXPECT_NE(text.find("outcome [mutant rlock_unlock_no_owner_check]: "), std::string::npos);
  // Same mutant, same seed: the same history (a mutant run is as deterministic as any other).
  EXPECT_EQ(run(s, "rlock_unlock_no_owner_check").report.history, mutated.report.history);
}

}  // namespace
}  // namespace lockstep::algorithms::mutants
