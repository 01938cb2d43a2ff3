// The ecosystem's locks written in Lua (redis-py's Lock, redsync, node-redlock) against library
// edge cases: the commands they send, and verdicts that follow from their documented behaviour.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "algorithms/algorithm.h"
#include "checker/check.h"
#include "checker/history_parse.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep::algorithms {
namespace {

struct Ran {
  scenario::RunReport report;
  std::vector<nlohmann::json> lines;
  std::string verdict(const std::string& property) const {
    for (const auto& p : report.check.properties) {
      if (p.name == property) return checker::verdict_name(p.verdict);
    }
    return "?";
  }
  std::string explanation(const std::string& property) const {
    for (const auto& p : report.check.properties) {
      if (p.name == property) return p.explanation.text;
    }
    return "";
  }
  std::vector<nlohmann::json> of(const std::string& type) const {
    std::vector<nlohmann::json> out;
    for (const auto& l : lines) {
      if (l.value("type", "") == type) out.push_back(l);
    }
    return out;
  }
};

// Runs the library scenario `file` with `algorithm` (and `options`) in place of its own.
Ran run_with(const std::string& file, const std::string& algorithm, const nlohmann::json& options = nullptr) {
  const std::string path = std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/" + file;
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["algorithm"] = {{"name", algorithm}};
  if (!options.is_null()) doc["algorithm"]["options"] = options;
  Result<scenario::Scenario> s = scenario::parse_scenario_text(doc.dump(), path);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.status().message());
  Ran r;
  if (!s.ok()) return r;
  Result<scenario::RunReport> rep = scenario::run_scenario(s.value(), {});
  EXPECT_TRUE(rep.ok()) << (rep.ok() ? "" : rep.status().message());
  if (!rep.ok()) return r;
  r.report = rep.value();
  std::istringstream lines(r.report.history);
  std::string line;
  while (std::getline(lines, line)) r.lines.push_back(nlohmann::json::parse(line));
  return r;
}

TEST(Ecosystem, TheyAreRegisteredWithTheirDocumentedDefaults) {
  const AlgorithmInfo* py = find_algorithm("redis-py-lock");
  const AlgorithmInfo* rs = find_algorithm("redsync");
  const AlgorithmInfo* nr = find_algorithm("node-redlock");
  ASSERT_TRUE(py != nullptr && rs != nullptr && nr != nullptr);
  EXPECT_EQ(py->option_defaults.dump(), R"({"sleep_ms":100,"timeout_ms":0})");
  EXPECT_EQ(rs->option_defaults.dump(),
            R"({"drift_factor_ppm":10000,"expiry_ms":8000,"retry_delay_max_ms":250,"retry_delay_min_ms":50,"timeout_factor_ppm":50000,"tries":32})");
  EXPECT_EQ(nr->option_defaults.dump(),
            R"({"drift_factor_ppm":10000,"duration_ms":10000,"retry_count":10,"retry_delay_ms":200,"retry_jitter_ms":100})");
  EXPECT_TRUE(rs->multi_master && nr->multi_master && !py->multi_master);
  const AlgorithmInfo* sm = find_algorithm("redis-semaphore-mutex");
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->option_defaults.dump(),
            R"({"acquire_attempts_limit":0,"acquire_timeout_ms":10000,"lock_timeout_ms":10000,"refresh_interval_ms":-1,"retry_interval_ms":10})");
  const AlgorithmInfo* rm = find_algorithm("redis-semaphore-redlock-mutex");
  ASSERT_NE(rm, nullptr);
  EXPECT_EQ(rm->option_defaults.dump(), sm->option_defaults.dump());
  EXPECT_TRUE(rm->multi_master && !sm->multi_master);
}

TEST(Ecosystem, RedisPyLockSendsSetNxWithoutExpiryByDefaultAndStaysStuckAfterACrash) {
  // timeout=None: SET L <32 hex> NX, no PX; the history says there is no lease at all.
  Ran r = run_with("edge/liveness-crashed-holder-watchdog.json", "redis-py-lock");
  auto execs = r.of("exec");
  ASSERT_FALSE(execs.empty());
  EXPECT_EQ(execs[0]["command"], "SET");
  ASSERT_EQ(execs[0]["args"].size(), 3u);
  EXPECT_EQ(execs[0]["args"][1].get<std::string>().size(), 32u);
  EXPECT_EQ(execs[0]["args"][2], "NX");
  EXPECT_TRUE(r.of("invoke")[0]["lease_ms"].is_null());
  // The holder crashed: nothing ever expires the key, so the waiters starve.
  EXPECT_EQ(r.verdict("liveness"), "violation");
  EXPECT_EQ(r.verdict("mutual_exclusion"), "ok");

  // With a timeout the key expires and the lock is free again.
  Ran t = run_with("edge/liveness-crashed-holder-watchdog.json", "redis-py-lock", {{"timeout_ms", 5000}});
  EXPECT_EQ(t.of("exec")[0]["args"].size(), 5u);  // ... NX PX 5000
  EXPECT_EQ(t.verdict("liveness"), "ok");
}

TEST(Ecosystem, RedisPyLockReleasesThroughEvalshaAndNeverRenews) {
  Ran r = run_with("edge/redisson-lock-short-lease.json", "redis-py-lock");
  bool evalsha = false;
  for (const auto& e : r.of("exec")) evalsha = evalsha || (e["command"] == "EVALSHA" || e["command"] == "EVAL");
  EXPECT_TRUE(evalsha);
  EXPECT_EQ(r.verdict("mutual_exclusion"), "violation");  // a lease shorter than the work
}

TEST(Ecosystem, RedsyncSendsSetNxExOnEveryPoolAndLosesItsQuorumToARestartWithoutPersistence) {
  Ran lost = run_with("edge/redlock-spec-restart-no-persistence.json", "redsync");
  EXPECT_EQ(lost.verdict("quorum"), "violation");
  EXPECT_EQ(lost.verdict("mutual_exclusion"), "violation");
  // go-redis sends whole seconds as EX: the scenario's 10 s lease is "EX 10 NX".
  bool ex = false;
  for (const auto& e : lost.of("exec")) {
    if (e["command"] == "SET" && e["args"].size() == 5) ex = ex || (e["args"][2] == "EX" && e["args"][4] == "NX");
  }
  EXPECT_TRUE(ex);
  Ran kept = run_with("edge/redlock-spec-restart-aof-always.json", "redsync");
  EXPECT_EQ(kept.verdict("quorum"), "ok");
  EXPECT_EQ(kept.verdict("mutual_exclusion"), "ok");
}

TEST(Ecosystem, NodeRedlockDoesNotCheckValidityAndRedsyncDoes) {
  // c1 freezes while its acquisition is under way. node-redlock declares the lock anyway, with
  // keys that have expired (issue #296): the quorum property catches it.
  Ran nr = run_with("edge/redlock-spec-gc-pause-during-acquisition.json", "node-redlock");
  EXPECT_EQ(nr.verdict("quorum"), "violation");
  // redsync times each pool out after expiry * 0.05 and takes the lock with 4 of 5 before the
  // freeze; the freeze then outlasts the 8 s lease during the hold (mutual exclusion), while every
  // grant was live when it declared success.
  Ran rs = run_with("edge/redlock-spec-gc-pause-during-acquisition.json", "redsync");
  EXPECT_EQ(rs.verdict("quorum"), "ok");
}

TEST(Ecosystem, RedisSemaphoreMutexRefreshesEveryFourFifthsOfItsTimeoutAndAPauseBeatsIt) {
  // No pause: the refresh timer keeps a 10 s mutex through the scenario's long hold.
  Ran kept = run_with("edge/redisson-lock-watchdog-no-pause.json", "redis-semaphore-mutex");
  EXPECT_EQ(kept.verdict("mutual_exclusion"), "ok");
  int refreshes = 0;
  for (const auto& i : kept.of("invoke")) refreshes += i["op"] == "renew" ? 1 : 0;
  EXPECT_GE(refreshes, 2);
  const auto first = kept.of("exec")[0];
  EXPECT_EQ(first["command"], "SET");
  EXPECT_EQ(first["args"][2], "PX");
  EXPECT_EQ(first["args"][3], "10000");
  EXPECT_EQ(first["args"][4], "NX");
  // A stop-the-world pause longer than the 10 s timeout stops the timer too: the key expires.
  Ran paused = run_with("edge/redisson-lock-watchdog-pause.json", "redis-semaphore-mutex");
  EXPECT_EQ(paused.verdict("mutual_exclusion"), "violation");
}

TEST(Ecosystem, RedisSemaphoreRedlockMutexTakesAQuorumOfSetNxAndDoesNotCheckTheTimeSpent) {
  // Every attempt is SET NX PX on the five masters at once; a restart without persistence takes
  // a quorum away from the holder, with AOF always it keeps it.
  Ran lost = run_with("edge/redlock-spec-restart-no-persistence.json", "redis-semaphore-redlock-mutex");
  EXPECT_EQ(lost.verdict("quorum"), "violation");
  std::set<std::string> set_nx_nodes;
  for (const auto& e : lost.of("exec")) {
    if (e["command"] == "SET" && e["args"].size() == 5 && e["args"][4] == "NX") set_nx_nodes.insert(e["node"]);
  }
  EXPECT_EQ(set_nx_nodes.size(), 5u);
  Ran kept = run_with("edge/redlock-spec-restart-aof-always.json", "redis-semaphore-redlock-mutex");
  EXPECT_EQ(kept.verdict("quorum"), "ok");
  EXPECT_EQ(kept.verdict("mutual_exclusion"), "ok");
  // A pause while the acquisition is under way: it declares the mutex on SETs that expired while
  // it slept, as node-redlock does, and the story names that pause as the cause.
  Ran paused = run_with("edge/redlock-spec-gc-pause-during-acquisition.json", "redis-semaphore-redlock-mutex");
  EXPECT_EQ(paused.verdict("quorum"), "violation");
  EXPECT_EQ(paused.verdict("mutual_exclusion"), "violation");
  const std::string story = paused.explanation("mutual_exclusion");
  EXPECT_NE(story.find("First inevitable event: c1 paused at 1.500 s for 40 s while c1/t0's acquisition (#1"),
            std::string::npos) << story;
  EXPECT_EQ(story.find("No fault, expiry or loss explains it"), std::string::npos) << story;
}

TEST(Ecosystem, AQuorumWhoseGrantsTheHistoryCannotReadIsUnknownNotAViolation) {
  // node-redlock's grants are its acquire script's reply 1 (header grant_replies). Without that
  // declaration the quorum checker cannot tell a grant from a refusal: not judged.
  Ran r = run_with("edge/redlock-spec-restart-aof-always.json", "node-redlock");
  EXPECT_EQ(r.verdict("quorum"), "ok");
  std::string history = r.report.history;
  const std::string field = R"(, "grant_replies": {"acquire":1,"release":"never"})";
  const size_t at = history.find(field);
  ASSERT_NE(at, std::string::npos);
  history.erase(at, field.size());
  history.insert(at, R"(, "grant_replies": {})");
  Result<checker::History> h = checker::parse_history_text(history, "edited.jsonl");
  ASSERT_TRUE(h.ok()) << h.status().message();
  const checker::CheckResult c = checker::check_history(h.value());
  int seen = 0;
  for (const auto& p : c.properties) {
    if (p.name != "quorum") continue;
    ++seen;
    EXPECT_EQ(p.verdict, checker::Verdict::kUnknown) << p.reason;
    EXPECT_NE(p.reason.find("cannot be read as granted"), std::string::npos) << p.reason;
  }
  EXPECT_EQ(seen, 1);
  // "never" is read back, and anything else in its place is refused with the field's name.
  std::string bad = r.report.history;
  bad.replace(bad.find(R"("never")"), 7, R"("sometimes")");
  Result<checker::History> refused = checker::parse_history_text(bad, "bad.jsonl");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("grant_replies"), std::string::npos) << refused.status().message();
}

}  // namespace
}  // namespace lockstep::algorithms
