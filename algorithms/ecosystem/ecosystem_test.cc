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

// The commands one client sent, as "COMMAND arg1 arg2 ..." (reply appended after " -> "; a command
// that blocked its connection, recorded then without a reply, "-> blocked").
std::vector<std::string> commands_of(const Ran& r, const std::string& conn) {
  std::vector<std::string> out;
  for (const auto& e : r.of("exec")) {
    if (e["conn"] != conn) continue;
    std::string line = e["command"].get<std::string>();
    for (const auto& a : e.value("keys", nlohmann::json::array())) line += " " + a.get<std::string>();
    for (const auto& a : e["args"]) line += " " + (a.is_string() ? a.get<std::string>() : a.dump());
    out.push_back(line + " -> " + (e.value("blocked", false) ? "blocked" : e["reply"].dump()));
  }
  return out;
}

TEST(Ecosystem, PythonRedisLockWaitsOnItsSignalListForEverWithoutAnExpiry) {
  const AlgorithmInfo* prl = find_algorithm("python-redis-lock");
  ASSERT_NE(prl, nullptr);
  EXPECT_EQ(prl->option_defaults.dump(), R"({"auto_renewal":false,"expire_ms":0,"signal_expire_ms":1000})");
  ASSERT_TRUE(prl->renews_default_lease);
  EXPECT_FALSE(prl->renews_default_lease(nlohmann::json::object()));
  EXPECT_TRUE(prl->renews_default_lease({{"auto_renewal", true}}));

  // expire=None: the holder crashes, nothing expires its key, and c2 waits in BLPOP ... 0.
  Ran stuck = run_with("edge/liveness-crashed-holder-watchdog.json", "python-redis-lock");
  std::vector<std::string> c2 = commands_of(stuck, "c2");
  ASSERT_EQ(c2.size(), 3u);  // GET, SET ... NX; then BLPOP lock-signal:L 0, never answered
  EXPECT_EQ(c2[0], "GET L -> \"" + commands_of(stuck, "c1")[1].substr(6, 24) + "\"");
  EXPECT_EQ(c2[1].substr(0, c2[1].find(" -> ")), "SET L " + c2[1].substr(6, 24) + " NX");
  EXPECT_TRUE(stuck.of("invoke")[0]["lease_ms"].is_null());
  EXPECT_EQ(stuck.verdict("liveness"), "violation");
  EXPECT_EQ(stuck.verdict("mutual_exclusion"), "ok");
  // Its BLPOP never came back: the node recorded it when it blocked, and the liveness story says
  // the waiter sat in it (before, "made no attempt", its last command the SET).
  EXPECT_EQ(c2[2], "BLPOP lock-signal:L 0 -> blocked");
  const std::string story = stuck.explanation("liveness");
  EXPECT_NE(story.find("; after that its BLPOP on node0 blocked at "), std::string::npos) << story;

  // expire=10 s: c2's BLPOP waits expire seconds, comes back empty, and the SET after it wins.
  Ran freed = run_with("edge/liveness-crashed-holder-watchdog.json", "python-redis-lock", {{"expire_ms", 10000}});
  std::vector<std::string> w = commands_of(freed, "c2");
  ASSERT_GE(w.size(), 5u);
  EXPECT_NE(w[1].find(" EX 10 NX -> null"), std::string::npos) << w[1];
  EXPECT_EQ(w[2], "BLPOP lock-signal:L 10 -> blocked");
  EXPECT_EQ(w[3], "BLPOP lock-signal:L 10 -> null");
  EXPECT_NE(w[4].find(" EX 10 NX -> {\"ok\":\"OK\"}"), std::string::npos) << w[4];
  EXPECT_EQ(freed.verdict("liveness"), "ok");
  EXPECT_EQ(freed.verdict("mutual_exclusion"), "ok");
}

TEST(Ecosystem, PythonRedisLocksReleaseWakesOneWaiterAtATime) {
  nlohmann::json doc = {
      {"name", "python-redis-lock-turns"},
      {"duration_ms", 30000},
      {"algorithm", {{"name", "python-redis-lock"}, {"options", {{"expire_ms", 10000}}}}},
      {"clients", {{"count", 3}}},
      {"workload", {{"script", nlohmann::json::array()}}}};
  for (int i = 0; i < 3; i++) {
    doc["workload"]["script"].push_back(
        {{"threads", "c" + std::to_string(i + 1)},
         {"steps", {{{"op", "lock"}, {"lock", "L"}, {"at_ms", 1 + 100 * i},
                     {"then", {{{"op", "hold"}, {"ms", 1000}}, {{"op", "unlock"}, {"lock", "L"}}}}}}}});
  }
  Result<scenario::Scenario> s = scenario::parse_scenario_text(doc.dump(), "turns.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<scenario::RunReport> rep = scenario::run_scenario(s.value(), {});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  Ran r;
  r.report = rep.value();
  std::istringstream lines(r.report.history);
  for (std::string line; std::getline(lines, line);) r.lines.push_back(nlohmann::json::parse(line));
  // Each release pushes one element: c2 is woken by c1's, c3 by c2's, each at once.
  std::vector<std::string> order;
  for (const auto& e : r.of("exec")) {
    if (e["command"] == "BLPOP" && !e.value("blocked", false)) order.push_back(e["conn"].get<std::string>() + " " + e["reply"].dump());
    if (e["command"] == "EVALSHA" && e["reply"] == 0) order.push_back(e["conn"].get<std::string>() + " unlock");
  }
  EXPECT_EQ(order, (std::vector<std::string>{"c1 unlock", R"(c2 ["lock-signal:L","1"])", "c2 unlock",
                                             R"(c3 ["lock-signal:L","1"])", "c3 unlock"}));
  EXPECT_EQ(r.verdict("mutual_exclusion"), "ok");
  EXPECT_EQ(r.verdict("linearizability"), "ok");
}

TEST(Ecosystem, PythonRedisLocksAutoRenewalOutlastsAShortExpiry) {
  // expire 5 s and 20 s of work: without auto_renewal c2 takes the lock at c1's expiry.
  Ran plain = run_with("edge/redisson-lock-short-lease.json", "python-redis-lock");
  EXPECT_EQ(plain.verdict("mutual_exclusion"), "violation");
  Ran renewed = run_with("edge/redisson-lock-short-lease.json", "python-redis-lock", {{"auto_renewal", true}});
  EXPECT_EQ(renewed.verdict("mutual_exclusion"), "ok");
  // The renewal thread extends every expire * 2/3 (3.333 s) with the extend script until release.
  std::vector<int64_t> at;
  for (const auto& e : renewed.of("exec")) {
    if (e["conn"] == "c1" && e.value("script", "") == "extend" && e["reply"] == 0) at.push_back(e["local_ms"].get<int64_t>());
  }
  ASSERT_GE(at.size(), 5u);
  EXPECT_NEAR(static_cast<double>(at[1] - at[0]), 3333.0, 5.0);
}

TEST(Ecosystem, PythonRedisLocksBlpopWaitsOnAConnectionOfItsOwn) {
  // c2/t0 waits in BLPOP for L; c2/t1's lock of L2 must not queue behind it on one connection.
  nlohmann::json doc = nlohmann::json::parse(R"({
    "name": "python-redis-lock-own-connection", "duration_ms": 20000,
    "algorithm": {"name": "python-redis-lock", "options": {"expire_ms": 10000}},
    "clients": [{"name": "c1"}, {"name": "c2", "threads": 2}],
    "workload": {"script": [
      {"threads": "c1", "steps": [{"op": "lock", "lock": "L", "at_ms": 1,
        "then": [{"op": "hold", "ms": 5000}, {"op": "unlock", "lock": "L"}]}]},
      {"threads": "c2/t0", "steps": [{"op": "lock", "lock": "L", "at_ms": 100,
        "then": [{"op": "hold", "ms": 100}, {"op": "unlock", "lock": "L"}]}]},
      {"threads": "c2/t1", "steps": [{"op": "lock", "lock": "L2", "at_ms": 200,
        "then": [{"op": "hold", "ms": 100}, {"op": "unlock", "lock": "L2"}]}]}]}})");
  Result<scenario::Scenario> s = scenario::parse_scenario_text(doc.dump(), "own.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<scenario::RunReport> rep = scenario::run_scenario(s.value(), {});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  int64_t l2_taken_ms = -1, l_taken_ms = -1;
  std::istringstream lines(rep.value().history);
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json e = nlohmann::json::parse(line);
    if (e.value("type", "") != "exec" || e["command"] != "SET" || e["reply"].is_null()) continue;
    if (e["args"][0] == "L2") l2_taken_ms = e["local_ms"].get<int64_t>();
    if (e["args"][0] == "L" && e["conn"] == "c2") l_taken_ms = e["local_ms"].get<int64_t>();
  }
  EXPECT_GE(l2_taken_ms, 200);
  EXPECT_LT(l2_taken_ms, 250);   // at once, while c2/t0 is still in BLPOP
  EXPECT_GE(l_taken_ms, 5000);   // after c1's release woke it
  EXPECT_LT(l_taken_ms, 5050);
}

}  // namespace
}  // namespace lockstep::algorithms
