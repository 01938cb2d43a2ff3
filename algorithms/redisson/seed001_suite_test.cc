// Seed 001's test suite as scenarios (scenarios/seed/001-*.json): each runs through the scenario
// runner exactly as `lockstep run` does, its verdict must match its `expect`, and the seed test's
// own assertion is checked on the recorded history (exactly one of 1000 threads acquires, all of
// 100 acquire, the timed-out tryLock costs its 1 s budget, ...). That every library scenario
// ends with the verdict its `expect` names is tests/library's job.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep::algorithms::redisson {
namespace {

using nlohmann::json;

struct SeedRun {
  scenario::RunReport report;
  std::vector<json> lines;
  std::map<int64_t, json> invokes;  // by op id
};

SeedRun run(const std::string& file) {
  Result<scenario::Scenario> s = scenario::load_scenario(std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/seed/" + file);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.status().message());
  Result<scenario::RunReport> r = scenario::run_scenario(s.value(), scenario::RunOptions{});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.status().message());
  SeedRun out{r.value(), {}, {}};
  std::istringstream in(out.report.history);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line);
    if (j.value("type", "") == "invoke") out.invokes[j["id"].get<int64_t>()] = j;
    out.lines.push_back(std::move(j));
  }
  EXPECT_TRUE(out.report.expected) << file << ": " << out.report.outcome;
  return out;
}

// Completed acquisitions (op lock/try_lock) with acquired == want.
int acquisitions(const SeedRun& r, bool want) {
  int n = 0;
  for (const json& j : r.lines) {
    if (j.value("type", "") != "complete" || !j.contains("acquired")) continue;
    n += j["acquired"].get<bool>() == want;
  }
  return n;
}

TEST(Seed001SuiteTest, TenThousandLockUnlockCycles) {
  SeedRun r = run("001-lock-unlock-cost.json");
  EXPECT_EQ(acquisitions(r, true), 10000);
  EXPECT_EQ(acquisitions(r, false), 0);
  int released = 0;
  for (const json& j : r.lines) released += j.value("released", false);
  EXPECT_EQ(released, 10000);
}

TEST(Seed001SuiteTest, ReentrantTryLock) {
  SeedRun r = run("001-reentrant-trylock.json");
  EXPECT_EQ(acquisitions(r, true), 2);
}

TEST(Seed001SuiteTest, AThenB) {
  SeedRun r = run("001-a-then-b.json");
  EXPECT_EQ(acquisitions(r, true), 2);
  // B's acquisition completed after A's unlock was invoked (it waited, then was woken).
  int64_t a_unlock = -1, b_acquired = -1;
  for (const json& j : r.lines) {
    const std::string type = j.value("type", "");  // the header line has no type
    if (type == "invoke" && j["op"] == "unlock" && j["thread"] == "c1/t0") a_unlock = j["t"];
    if (type == "hold_begin" && j["thread"] == "c1/t1") b_acquired = j["t"];
  }
  EXPECT_GT(b_acquired, a_unlock);
  EXPECT_LT(b_acquired - a_unlock, 5'000);  // by the unlock message, within a few round trips
}

TEST(Seed001SuiteTest, AThenBAndC) {
  SeedRun r = run("001-a-then-b-and-c.json");
  EXPECT_EQ(acquisitions(r, true), 3);
  EXPECT_EQ(r.report.check.property("mutual_exclusion").verdict, checker::Verdict::kOk);
}

TEST(Seed001SuiteTest, WaitTimeout) {
  SeedRun r = run("001-wait-timeout.json");
  EXPECT_EQ(acquisitions(r, true), 1);
  EXPECT_EQ(acquisitions(r, false), 1);
  for (const json& j : r.lines) {
    if (j.value("type", "") != "complete" || !j.contains("acquired") || j["acquired"].get<bool>()) continue;
    const json& inv = r.invokes.at(j["id"].get<int64_t>());
    EXPECT_EQ(inv["thread"], "c1/t1");
    const int64_t cost_us = j["t"].get<int64_t>() - inv["t"].get<int64_t>();
    EXPECT_GE(cost_us, 1'000'000);  // the whole 1 s budget
    EXPECT_LT(cost_us, 1'010'000);
  }
}

TEST(Seed001SuiteTest, LeaseTimeWithReentrancy) {
  SeedRun r = run("001-lease-reentrant.json");
  EXPECT_EQ(acquisitions(r, true), 2);
}

TEST(Seed001SuiteTest, ThousandThreadsWithATenMillisecondWaitExactlyOneAcquires) {
  SeedRun r = run("001-1000-threads-10ms-wait.json");
  EXPECT_EQ(acquisitions(r, true), 1);
  EXPECT_EQ(acquisitions(r, false), 999);
}

TEST(Seed001SuiteTest, HundredThreadsWithATenSecondWaitAllAcquire) {
  SeedRun r = run("001-100-threads-10s-wait.json");
  EXPECT_EQ(acquisitions(r, true), 100);
  EXPECT_EQ(acquisitions(r, false), 0);
  EXPECT_EQ(r.report.check.property("mutual_exclusion").verdict, checker::Verdict::kOk);
}

}  // namespace
}  // namespace lockstep::algorithms::redisson
